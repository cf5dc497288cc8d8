"""Training activation memory per sample of the catalog's ``opaque`` models.

    python benchmarks/measure_activations.py                     # all five models
    python benchmarks/measure_activations.py --models resnet-50 vit-b-16 --batches 1 2

Needs torch, transformers and diffusers (not gpuadvisor's own dependencies: run it in a
throwaway environment). It is a measurement tool, not part of the test suite. Nothing is
downloaded: every model is built from its published config numbers, written out below, with
random weights (the architecture is all that matters for activation sizes).

What is measured: the bytes of the tensors autograd saves for the backward pass during one
training forward pass (forward + loss), i.e. the activations that stay alive until backward
starts — the quantity ``ModelSpec.activation_bytes_per_sample`` holds. A
``torch.autograd.graph.saved_tensors_hooks`` pack hook sees every saved tensor; the bytes are
summed over unique storages (deduplicated by ``untyped_storage().data_ptr()``, counting the
whole storage, since a saved view keeps all of it alive). Parameters and buffers — and any
tensor sharing storage with one — are excluded: weights are counted separately by gpuadvisor.

Precision: "16-bit activations". The weights are cast to bfloat16 and the forward runs under
``torch.autocast(device, dtype=torch.bfloat16)``, so every activation is bf16 except what
autocast itself keeps in fp32 (the per-dtype split is printed). With fp32 master weights under
AMP, ops that add a parameter to an activation directly (position embeddings, some biases)
promote the residual stream to fp32; gpuadvisor's convention is all-16-bit. ``--fp32-weights``
measures that AMP case (torch 2.13: ResNet-50 and both UNets unchanged, ViT-B/16 70.3 MiB and
Whisper large-v3 4.19 GB per sample, since their position-embedding add makes the residual
stream fp32); its intercept is autocast's bf16 copy of the weights, which the slope drops.

Per sample: the script runs the forward at each batch size in ``--batches`` (default 1 and 2)
and reports the slope (bytes(b=2) - bytes(b=1)) as bytes per sample, plus the intercept
(batch-independent part, ~0 when everything scales with the batch) as the linearity check.

Attention: whatever the library picks by default — transformers ``attn_implementation="sdpa"``
and diffusers ``AttnProcessor2_0``, both ``torch.nn.functional.scaled_dot_product_attention``.
A TorchDispatchMode records which aten attention kernel actually ran (on CPU normally
``_scaled_dot_product_flash_attention_for_cpu``, which, like the CUDA flash / memory-efficient
kernels, saves q, k, v, the output and a logsumexp, not the score matrix).

Fake tensors (the default): the forward runs under ``torch._subclasses.FakeTensorMode`` on
the "cpu" device, so every op — autocast, the SDPA kernel choice, autograd and its saved
tensors — goes through the same dispatch as a real CPU run, but no arithmetic is done and no
memory is allocated: all five models take seconds. Storages are then told apart by their
StorageImpl (``untyped_storage()._cdata``), since fake tensors have no data pointer.
``--real`` runs on real CPU tensors instead (same numbers: ResNet-50, ViT-B/16 and the SD 1.5
UNet at an 8x8 latent agree to the byte; but at full size the UNets and Whisper take tens of
minutes each in bf16 on a small CPU, and SDXL at 128x128 needs ~20 GB of host memory).

``--sdxl-latent 64 96`` (two or more sizes) measures SDXL at those latent sides and fits
bytes = a*s^2 + b*s + c per sample (s = latent side), then extrapolates to 128 —
convolution / norm / MLP activations grow with s^2, cross-attention K/V over the 77 text tokens
not at all. With three sizes the fit is exact; with two it drops the constant term. Only
needed with ``--real`` on a machine too small for 128x128.
"""

from __future__ import annotations

import argparse
import gc
import time
from collections import Counter, defaultdict

# A standalone measurement tool outside the package: the ban on importing torch (TID251) is for
# gpuadvisor itself, which must not need torch.
import torch  # noqa: TID251
import torch.nn.functional as F  # noqa: TID251
from torch._subclasses.fake_tensor import FakeTensor, FakeTensorMode  # noqa: TID251
from torch.utils._python_dispatch import TorchDispatchMode  # noqa: TID251

DTYPE = torch.bfloat16


# ------------------------------------------------------------------------ measurement
class _AttentionOps(TorchDispatchMode):
    """Counts the aten attention / softmax kernels that run (to report the attention path)."""

    def __init__(self):
        super().__init__()
        self.ops = Counter()

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        name = func.name()
        if "attention" in name or "softmax" in name:
            self.ops[name] += 1
        return func(*args, **(kwargs or {}))


def _storage_key(t: torch.Tensor) -> int:
    """The storage's data pointer; for fake tensors (no data) the StorageImpl address."""
    storage = t.untyped_storage()
    return storage._cdata if isinstance(t, FakeTensor) else storage.data_ptr()


def saved_bytes(model: torch.nn.Module, forward, device: str = "cpu"):
    """Bytes autograd saves during ``forward()`` (which returns the loss), excluding weights.

    Returns (total bytes, {dtype: bytes}, Counter of attention kernels, seconds).
    """
    excluded = {_storage_key(p) for p in model.parameters()}
    excluded |= {_storage_key(b) for b in model.buffers()}
    seen: dict[int, tuple[int, torch.dtype]] = {}
    keep = []  # hold saved tensors so no storage address is reused while counting

    def pack(t: torch.Tensor):
        if isinstance(t, torch.nn.Parameter):
            return t
        storage = t.untyped_storage()
        key = _storage_key(t)
        if storage.nbytes() == 0 or key in excluded or key in seen:
            return t
        seen[key] = (storage.nbytes(), t.dtype)
        keep.append(t)
        return t

    def unpack(t):
        return t

    ops = _AttentionOps()
    start = time.perf_counter()
    with torch.autograd.graph.saved_tensors_hooks(pack, unpack), ops, \
            torch.autocast(device, dtype=DTYPE):
        loss = forward()
    seconds = time.perf_counter() - start
    del loss
    by_dtype: dict[torch.dtype, int] = defaultdict(int)
    for nbytes, dtype in seen.values():
        by_dtype[dtype] += nbytes
    total = sum(by_dtype.values())
    keep.clear()
    gc.collect()
    return total, dict(by_dtype), ops.ops, seconds


# ------------------------------------------------------------------------------ models
# Each builder returns (model, make_forward) where make_forward(batch, **size) returns a
# zero-argument callable computing the training loss for one micro-batch.

def build_resnet50():
    """microsoft/resnet-50 architecture (ResNet v1.5, stride in the 3x3 conv, as torchvision)."""
    from transformers import ResNetConfig, ResNetForImageClassification

    cfg = ResNetConfig(num_channels=3, embedding_size=64, hidden_sizes=[256, 512, 1024, 2048],
                       depths=[3, 4, 6, 3], layer_type="bottleneck", hidden_act="relu",
                       downsample_in_first_stage=False, num_labels=1000)
    model = ResNetForImageClassification(cfg)

    def make(batch, side=224):
        x = torch.randn(batch, 3, side, side)
        y = torch.randint(0, 1000, (batch,))
        return lambda: F.cross_entropy(model(pixel_values=x).logits, y)

    return model, make, "one 3x224x224 image, cross-entropy over 1000 classes"


def build_vit_b16():
    """google/vit-base-patch16-224 architecture (ViTForImageClassification, 1000 classes)."""
    from transformers import ViTConfig, ViTForImageClassification

    cfg = ViTConfig(hidden_size=768, num_hidden_layers=12, num_attention_heads=12,
                    intermediate_size=3072, hidden_act="gelu", hidden_dropout_prob=0.0,
                    attention_probs_dropout_prob=0.0, layer_norm_eps=1e-12, image_size=224,
                    patch_size=16, num_channels=3, qkv_bias=True, num_labels=1000,
                    attn_implementation="sdpa")
    model = ViTForImageClassification(cfg)

    def make(batch, side=224):
        x = torch.randn(batch, 3, side, side)
        y = torch.randint(0, 1000, (batch,))
        return lambda: F.cross_entropy(model(pixel_values=x).logits, y)

    return model, make, "one 3x224x224 image (196 patches + CLS), cross-entropy over 1000 classes"


SD15_UNET = dict(  # runwayml/stable-diffusion-v1-5 unet/config.json
    sample_size=64, in_channels=4, out_channels=4, center_input_sample=False,
    flip_sin_to_cos=True, freq_shift=0,
    down_block_types=("CrossAttnDownBlock2D", "CrossAttnDownBlock2D", "CrossAttnDownBlock2D",
                      "DownBlock2D"),
    up_block_types=("UpBlock2D", "CrossAttnUpBlock2D", "CrossAttnUpBlock2D",
                    "CrossAttnUpBlock2D"),
    block_out_channels=(320, 640, 1280, 1280), layers_per_block=2, downsample_padding=1,
    mid_block_scale_factor=1, act_fn="silu", norm_num_groups=32, norm_eps=1e-5,
    cross_attention_dim=768, attention_head_dim=8,
)

SDXL_UNET = dict(  # stabilityai/stable-diffusion-xl-base-1.0 unet/config.json
    sample_size=128, in_channels=4, out_channels=4, center_input_sample=False,
    flip_sin_to_cos=True, freq_shift=0,
    down_block_types=("DownBlock2D", "CrossAttnDownBlock2D", "CrossAttnDownBlock2D"),
    up_block_types=("CrossAttnUpBlock2D", "CrossAttnUpBlock2D", "UpBlock2D"),
    block_out_channels=(320, 640, 1280), layers_per_block=2, downsample_padding=1,
    mid_block_scale_factor=1, act_fn="silu", norm_num_groups=32, norm_eps=1e-5,
    cross_attention_dim=2048, attention_head_dim=(5, 10, 20),
    transformer_layers_per_block=(1, 2, 10), use_linear_projection=True,
    addition_embed_type="text_time", addition_time_embed_dim=256,
    projection_class_embeddings_input_dim=2816, addition_embed_type_num_heads=64,
)


def _unet(config: dict, context_dim: int, sdxl: bool):
    from diffusers import UNet2DConditionModel

    model = UNet2DConditionModel(**config)
    try:  # the default for torch >= 2: AttnProcessor2_0 (scaled_dot_product_attention)
        from diffusers.models.attention_processor import AttnProcessor2_0
        model.set_attn_processor(AttnProcessor2_0())
    except ImportError:
        pass

    def make(batch, side=config["sample_size"]):
        latent = torch.randn(batch, 4, side, side)
        noise = torch.randn_like(latent)
        t = torch.randint(0, 1000, (batch,))
        context = torch.randn(batch, 77, context_dim)
        kwargs = {}
        if sdxl:  # pooled text embedding (1280) + (orig size, crop, target size) ids
            kwargs["added_cond_kwargs"] = {
                "text_embeds": torch.randn(batch, 1280),
                "time_ids": torch.tensor([[1024.0, 1024.0, 0.0, 0.0, 1024.0, 1024.0]] * batch),
            }
        return lambda: F.mse_loss(
            model(latent, t, encoder_hidden_states=context, **kwargs).sample, noise)

    return model, make


def build_sd15():
    model, make = _unet(SD15_UNET, 768, sdxl=False)
    return model, make, "one 4x64x64 latent, 77x768 text context, timestep, MSE loss"


def build_sdxl():
    model, make = _unet(SDXL_UNET, 2048, sdxl=True)
    return model, make, ("one 4x128x128 latent, 77x2048 text context, pooled 1280 text "
                         "embedding + 6 size/crop time ids, timestep, MSE loss")


def build_whisper():
    """openai/whisper-large-v3 architecture, teacher-forced on 448 decoder tokens."""
    from transformers import WhisperConfig, WhisperForConditionalGeneration

    cfg = WhisperConfig(vocab_size=51866, num_mel_bins=128, d_model=1280, encoder_layers=32,
                        decoder_layers=32, encoder_attention_heads=20,
                        decoder_attention_heads=20, encoder_ffn_dim=5120, decoder_ffn_dim=5120,
                        max_source_positions=1500, max_target_positions=448,
                        activation_function="gelu", dropout=0.0, attention_dropout=0.0,
                        activation_dropout=0.0, scale_embedding=False, pad_token_id=50256,
                        bos_token_id=50257, eos_token_id=50257, decoder_start_token_id=50258,
                        attn_implementation="sdpa")
    model = WhisperForConditionalGeneration(cfg)

    def make(batch, tokens=448):
        mel = torch.randn(batch, 128, 3000)
        labels = torch.randint(0, 50000, (batch, tokens))
        return lambda: model(input_features=mel, labels=labels).loss

    return model, make, ("one 30-s log-mel 128x3000 (1500 encoder positions) + 448 "
                         "teacher-forced decoder tokens, cross-entropy over 51,866 tokens")


MODELS = {
    "resnet-50": build_resnet50,
    "vit-b-16": build_vit_b16,
    "sd-1.5-unet": build_sd15,
    "sdxl-unet": build_sdxl,
    "whisper-large-v3": build_whisper,
}


# -------------------------------------------------------------------------------- main
def _fmt(n: float) -> str:
    return f"{n:,.0f} B ({n / 2**20:,.1f} MiB)"


def _fake_model(name: str, fp32_weights: bool, mode: FakeTensorMode):
    """Builds the model on the meta device, then gives it fake CPU parameters and buffers."""
    with torch.device("meta"):
        model, make, inputs = MODELS[name]()
    weight_dtype = torch.float32 if fp32_weights else DTYPE
    new: dict[int, torch.nn.Parameter] = {}  # keeps tied weights tied (Whisper's proj_out)
    with mode:
        for module in model.modules():
            for key, p in list(module._parameters.items()):
                if p is not None:
                    if id(p) not in new:
                        new[id(p)] = torch.nn.Parameter(
                            torch.empty(p.shape, dtype=weight_dtype),
                            requires_grad=p.requires_grad)
                    module._parameters[key] = new[id(p)]
            for key, b in list(module._buffers.items()):
                if b is not None:
                    dtype = weight_dtype if b.is_floating_point() else b.dtype
                    module._buffers[key] = torch.zeros(b.shape, dtype=dtype)
    return model, make, inputs


def measure(name: str, batches: list[int], fp32_weights: bool, sizes=None,
            real: bool = False) -> float:
    torch.manual_seed(0)
    if real:
        model, make, inputs = MODELS[name]()
        if not fp32_weights:
            model.to(DTYPE)
        mode = None
    else:
        mode = FakeTensorMode(allow_non_fake_inputs=True)
        model, make, inputs = _fake_model(name, fp32_weights, mode)
    model.train()
    n_params = sum(p.numel() for p in model.parameters())
    print(f"\n== {name}: {n_params:,} params; {inputs}", flush=True)
    size_key = "side"
    points = []  # (size or None, batch, bytes)
    for size in (sizes or [None]):
        for batch in batches:
            kwargs = {} if size is None else {size_key: size}
            if mode is None:
                total, by_dtype, ops, secs = saved_bytes(model, make(batch, **kwargs))
            else:
                with mode:
                    total, by_dtype, ops, secs = saved_bytes(model, make(batch, **kwargs))
            split = ", ".join(f"{str(d).replace('torch.', '')} {_fmt(b)}"
                              for d, b in sorted(by_dtype.items(), key=lambda kv: -kv[1]))
            where = "" if size is None else f" latent {size}x{size}"
            print(f"  batch {batch}{where}: saved {_fmt(total)} [{split}] in {secs:.0f} s",
                  flush=True)
            print(f"    attention kernels: {dict(ops)}", flush=True)
            points.append((size, batch, total))
            gc.collect()
    per_size = {}
    for size in (sizes or [None]):
        pts = sorted((b, t) for s, b, t in points if s == size)
        if len(pts) >= 2:
            (b1, t1), (b2, t2) = pts[0], pts[-1]
            slope = (t2 - t1) / (b2 - b1)
            intercept = t1 - slope * b1
            print(f"  per sample (slope){'' if size is None else f' at {size}'}: "
                  f"{_fmt(slope)}; intercept {_fmt(intercept)} "
                  f"({100 * intercept / slope:+.2f}% of a sample)")
        else:
            (b1, t1), = pts
            slope = t1 / b1
            print(f"  per sample (total / batch){'' if size is None else f' at {size}'}: "
                  f"{_fmt(slope)}")
        per_size[size] = slope
    if sizes is None:
        return per_size[None]
    return _extrapolate(per_size)


def _extrapolate(per_size: dict[int, float], target: int = 128) -> float:
    """Fit bytes(s) = a s^2 + b s + c (or a s^2 + b s with two sizes) and evaluate at target."""
    sizes = sorted(per_size)
    if target in per_size:
        print(f"  per sample at {target}x{target}: {_fmt(per_size[target])}")
        return per_size[target]
    rows = [[s * s, s, 1.0] if len(sizes) >= 3 else [s * s, s] for s in sizes]
    a = torch.tensor(rows, dtype=torch.float64)
    y = torch.tensor([per_size[s] for s in sizes], dtype=torch.float64)
    coef = torch.linalg.lstsq(a, y.unsqueeze(1)).solution.squeeze(1).tolist()
    t = [target * target, target, 1.0][: len(coef)]
    value = sum(c * v for c, v in zip(coef, t, strict=True))
    print(f"  fit over latent sides {sizes}: coefficients {[f'{c:.4g}' for c in coef]} "
          f"-> per sample at {target}x{target}: {_fmt(value)} (extrapolated)")
    return value


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--models", nargs="+", default=list(MODELS), choices=list(MODELS))
    parser.add_argument("--batches", nargs="+", type=int, default=[1, 2])
    parser.add_argument("--sdxl-latent", nargs="+", type=int, default=None,
                        help="SDXL latent sides to measure and extrapolate to 128 from")
    parser.add_argument("--fp32-weights", action="store_true",
                        help="keep fp32 weights (AMP-style) instead of casting them to bf16")
    parser.add_argument("--real", action="store_true",
                        help="compute on real CPU tensors instead of fake ones (slow)")
    args = parser.parse_args()
    torch.set_grad_enabled(True)
    print(f"torch {torch.__version__}, autocast dtype {DTYPE}, "
          f"weights {'fp32' if args.fp32_weights else 'bf16'}, device cpu, "
          f"{'real' if args.real else 'fake'} tensors")
    results = {}
    for name in args.models:
        sizes = args.sdxl_latent if name == "sdxl-unet" else None
        results[name] = measure(name, args.batches, args.fp32_weights, sizes, args.real)
        gc.collect()
    print("\nactivation_bytes_per_sample (16-bit, training, no checkpointing):")
    for name, value in results.items():
        print(f"  {name:18s} {value:16,.0f}  ({value / 2**30:.3f} GiB)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
