"""Training-step probes: ``step`` (transformer blocks) and ``plancheck`` (the plan's model).

Loaded by path by the worker (:func:`gpuadvisor.probes.worker.load_kernels`), which sets
``kit`` to itself. Like the worker, this file needs only the standard library and the
``torch`` handed to each probe, and runs on Python 3.8+: it must never import torch or
gpuadvisor. The pure functions at the top (FLOP and parameter counts, extrapolation, option
checks, rough memory sizes) use no torch, so tests import this file without torch.

``step``: N decoder blocks (N = 1 in the tiny suite, else 2; option ``layers``) timed over
forward + backward + ``optimizer.step()`` on random activations, after warm-up steps.
Options (all optional): ``hidden``, ``heads``, ``kv_heads``, ``head_dim``, ``ffn``,
``gated`` (SwiGLU, else GELU MLP), ``norm``, ``position`` (``rope`` | ``none``),
``qkv_bias``/``out_bias``/``mlp_bias``, ``dropout``, ``seq``, ``micro_batch``, ``layers``,
``precision`` (``fp32`` | ``tf32`` | ``fp16`` | ``bf16`` | ``bf16-pure``), ``optimizer``
(``adamw`` | ``sgd`` | ``lion`` | ``adafactor``), ``checkpointing`` (``none`` |
``selective`` | ``full``), ``attention`` (``flash``: SDPA, causal | ``eager``: explicit
scores and softmax), ``steps`` (timed), ``warmup``. Without options: a 1B-class block
(hidden 2048, 16 heads, gated MLP 5632, seq 1024, micro-batch 1) at bf16 mixed precision
where the GPU has bf16 units (fp16 mixed where it has not; fp32 on CPU and MPS); on CPU
the quick and tiny suites use smaller blocks. When the run would not fit in the memory it
may use (:data:`STEP_MEMORY_SHARE` of the free memory on a GPU, the worker's share of RAM
on the CPU), micro-batch, then sequence, then layers are halved, and an out-of-memory
retries smaller; ``conditions.shrunk`` says so. Figures: ``achieved_tflops`` and
``model_tflops`` (TFLOPS), ``tokens_per_s`` (tokens/s), ``step_s`` (s, median), and
``peak_allocated_bytes`` (bytes) where memory is measurable. Conditions: ``dtype`` (the peak
label the estimator uses: fp32, tf32, fp16, bf16), the shape (hidden, heads, kv_heads,
head_dim, ffn, gated, seq, micro_batch, layers), precision, optimizer, checkpointing,
attention, ``steps`` (timed), ``warmup``, the FLOPs counted, ``shrunk``/``requested``/
``oom_retries``, ``notes``.

``plancheck``: the planned model itself (embedding, blocks, final norm, LM head, loss) at
two reduced depths (option ``depths``, default ``[1, 2]``), a few training steps each;
step time (split into forward+backward and optimizer) and, on CUDA/ROCm/XPU, peak memory
(``max_memory_allocated`` / ``max_memory_reserved``) are extrapolated linearly to the full
depth ``layers_full``: ``per_layer = (m2 - m1) / (d2 - d1)``, ``full = m1 + (L - d1) x
per_layer`` (see :func:`extrapolate`). Extra options: ``vocab``, ``tie_embeddings``,
``final_norm``, ``max_positions`` (learned positions), ``norms_per_layer``, ``task``
(``full`` | ``pretrain`` | ``lora`` | ``qlora``), ``lora_rank``, ``lora_targets``,
``lora_alpha``, ``quant``. The plan is never shrunk: what does not fit is an
``out-of-memory`` error naming the sizes (after one retry at the same size). Figures, for
``X`` in ``step_s`` (forward + backward + optimizer), ``forward_backward_s`` and
``optimizer_s`` (s): ``X_depth1``, ``X_depth2``, ``X_per_layer`` (never below 0: timing noise
is reported in ``notes``) and ``X_full``; ``tokens_per_s_full``; on CUDA/ROCm/XPU also
``peak_allocated_bytes_*`` and ``peak_reserved_bytes_*`` (bytes, same suffixes). Without
memory figures, ``conditions.memory_note`` says why. Conditions also carry the parameter
counts built (``params_depth1/2``, ``params_full``, ``trainable_params_full``) so the app can
check them against its own count.

FLOPs (:func:`flops_per_token`) follow ``gpuadvisor.core.compute.flops_per_token``: one
multiply-add = 2 FLOPs; forward = 2 x matmul parameters (q, k, v, o, MLP; plus the ``V x h``
LM head for ``plancheck``) + attention ``4 s q`` per layer, halved for causal SDPA
(``flash``); training = 3 x forward, plus one more forward of the blocks with full
checkpointing (the attention part with selective). ``achieved_tflops`` counts these
training FLOPs, recomputation included, so ``step_s = flops_per_token_train x tokens /
achieved``, which is how the estimator times a plan; ``model_tflops`` leaves the
recomputation out (model FLOPs utilisation's numerator).
"""

from __future__ import annotations

import contextlib
import gc
import math
import statistics
import time

kit = None  # the worker module, set by the loader before any probe runs

PRECISIONS = ("fp32", "tf32", "fp16", "bf16", "bf16-pure")
OPTIMIZERS = ("adamw", "sgd", "lion", "adafactor")
#: Plan choices this file knows but cannot run, and why.
UNSUPPORTED = {
    ("precision", "fp8"): "fp8 training needs NVIDIA Transformer Engine or torchao, which "
                          "the probe does not use; check the plan at bf16 instead",
    ("optimizer", "adamw8bit"): "8-bit AdamW needs bitsandbytes, which the probe does not "
                                "use; check the plan with adamw (it uses more memory)",
    ("task", "qlora"): "QLoRA needs a 4-bit base from bitsandbytes, which the probe does not "
                       "use; check the plan as task lora (16-bit base: more memory)",
    ("task", "infer"): "the plan check times training steps, not inference",
}
DTYPE_LABELS = {"fp32": "fp32", "tf32": "tf32", "fp16": "fp16", "bf16": "bf16",
                "bf16-pure": "bf16"}

_INTS = ("hidden", "heads", "kv_heads", "head_dim", "ffn", "seq", "micro_batch", "layers",
         "steps", "warmup", "vocab", "layers_full", "max_positions", "lora_rank",
         "norms_per_layer")
_BOOLS = ("gated", "qkv_bias", "out_bias", "mlp_bias", "tie_embeddings", "final_norm")
_FLOATS = ("dropout", "lora_alpha")
_CHOICES = {
    "precision": (*PRECISIONS, "fp8"),
    "optimizer": (*OPTIMIZERS, "adamw8bit"),
    "checkpointing": ("none", "selective", "full"),
    "attention": ("flash", "eager"),
    "norm": ("rmsnorm", "layernorm"),
    "position": ("rope", "learned", "none"),
    "task": ("full", "pretrain", "lora", "qlora", "infer"),
    "lora_targets": ("qv", "attn", "all"),
    "quant": ("none", "int8", "nf4", "nf4-dq", "int4", "int3"),
}
_BLOCK_KEYS = ("hidden", "heads", "kv_heads", "head_dim", "ffn", "gated", "norm",
               "norms_per_layer", "qkv_bias", "out_bias", "mlp_bias", "dropout", "seq",
               "micro_batch", "layers", "precision", "optimizer", "checkpointing", "attention",
               "steps", "warmup", "position")
STEP_OPTIONS = frozenset(_BLOCK_KEYS)
PLANCHECK_OPTIONS = frozenset((
    *_BLOCK_KEYS, "vocab", "depths", "tie_embeddings", "layers_full", "final_norm",
    "max_positions", "task", "lora_rank", "lora_targets", "lora_alpha", "quant"))

#: Block shapes without options, by (device kind, suite); ``layers`` as the brief says.
STEP_SHAPES = {
    ("gpu", "tiny"): {"hidden": 512, "heads": 8, "ffn": 1408, "seq": 256, "micro_batch": 1},
    ("gpu", "quick"): {"hidden": 2048, "heads": 16, "ffn": 5632, "seq": 1024, "micro_batch": 1},
    ("gpu", "full"): {"hidden": 2048, "heads": 16, "ffn": 5632, "seq": 1024, "micro_batch": 1},
    ("cpu", "tiny"): {"hidden": 128, "heads": 4, "ffn": 352, "seq": 128, "micro_batch": 2},
    ("cpu", "quick"): {"hidden": 512, "heads": 8, "ffn": 1408, "seq": 512, "micro_batch": 1},
    ("cpu", "full"): {"hidden": 1024, "heads": 8, "ffn": 2816, "seq": 1024, "micro_batch": 1},
}
#: The plan check's model without options: TinyLlama-like (22 layers, 32k vocabulary).
PLANCHECK_SHAPES = {
    "cpu-tiny": {"hidden": 64, "heads": 4, "ffn": 176, "seq": 64, "micro_batch": 2,
                 "vocab": 512, "layers_full": 8},
    "default": {"hidden": 2048, "heads": 16, "ffn": 5632, "seq": 1024, "micro_batch": 1,
                "vocab": 32000, "layers_full": 22},
}
#: Warm-up steps, timed steps and a time budget (s) for the timed steps, per suite.
TIMING = {"tiny": {"warmup": 1, "steps": 3, "budget_s": 1.5},
          "quick": {"warmup": 2, "steps": 6, "budget_s": 10.0},
          "full": {"warmup": 3, "steps": 12, "budget_s": 30.0}}
PLANCHECK_TIMING = {"tiny": {"warmup": 1, "steps": 2}, "quick": {"warmup": 2, "steps": 3},
                    "full": {"warmup": 3, "steps": 6}}
MIN_TIMED_STEPS = 2
#: Seconds one step of the step probe should take on a CPU. A plan's full shape (micro-batch
#: 4 x 2048 tokens of two 2048-wide blocks: 6.6 TFLOP) takes minutes per step there, so the
#: shape is cut to this, from the CPU's measured matmul rate in the step's dtype; tokens/s
#: hardly changes with the micro-batch and sequence once the matmuls are this wide.
CPU_STEP_TARGET_S = 5.0
#: A step still this many times over the target at the smallest shape is refused: CPUs
#: without bf16/fp16 units run those dtypes hundreds of times slower than fp32 (0.2 GFLOPS
#: in bf16 against 51 in fp32 was measured on the 2-core build machine).
CPU_REFUSE_FACTOR = 6.0
#: The plan check on a CPU is refused when its steps would take longer than this in all.
CPU_PLANCHECK_MAX_S = 600.0
#: Share of the free GPU memory the step probe may use (it runs alone).
STEP_MEMORY_SHARE = 0.6
#: The plan check on the CPU refuses what would take more than this share of free RAM.
PLANCHECK_CPU_RAM_SHARE = 0.5
MAX_OOM_RETRIES = 4
LEARNING_RATE = 1e-5
FLOPS_CONVENTION = ("1 multiply-add = 2 FLOPs; forward = 2 x matmul params + 4*s*q per layer "
                    "(x0.5 causal flash); train = 3 x forward (+ a block forward with full "
                    "checkpointing, + attention with selective), as gpuadvisor.core.compute")


class OptionError(ValueError):
    """An option the probe cannot use: ``kind`` is the protocol error kind to report."""

    def __init__(self, message: str, kind: str = "unsupported") -> None:
        super().__init__(message)
        self.kind = kind


# --------------------------------------------------------------------------- pure helpers
def check_options(probe: str, options: dict, allowed) -> dict:
    """Validate ``options`` (types, choices, known names); raises :class:`OptionError`."""
    if not isinstance(options, dict):
        raise OptionError(f"{probe}: options must be an object")
    unknown = sorted(set(options) - set(allowed))
    if unknown:
        raise OptionError(f"unknown option(s) {', '.join(unknown)}; known: "
                          + ", ".join(sorted(allowed)))
    clean = {}
    for name, value in options.items():
        if value is None:
            continue
        if name in _INTS:
            if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
                raise OptionError(f"option {name} must be a positive whole number, "
                                  f"got {value!r}")
        elif name in _BOOLS:
            if not isinstance(value, bool):
                raise OptionError(f"option {name} must be true or false, got {value!r}")
        elif name in _FLOATS:
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not (
                    0 <= value < (1 if name == "dropout" else 1e6)):
                raise OptionError(f"option {name} is out of range: {value!r}")
            value = float(value)
        elif name in _CHOICES:
            if value not in _CHOICES[name]:
                raise OptionError(f"option {name} must be one of "
                                  f"{', '.join(_CHOICES[name])}; got {value!r}")
            why = UNSUPPORTED.get((name, value))
            if why is not None:
                raise OptionError(f"{name} {value} is not supported: {why}")
        elif name == "depths":
            if (not isinstance(value, list) or len(value) != 2
                    or any(isinstance(d, bool) or not isinstance(d, int) or d <= 0
                           for d in value) or value[0] >= value[1]):
                raise OptionError(f"option depths must be two increasing positive "
                                  f"whole numbers like [1, 2], got {value!r}")
            value = list(value)
        clean[name] = value
    if clean.get("quant", "none") != "none":
        raise OptionError(f"quant {clean['quant']} is not supported: quantized base "
                          "weights need bitsandbytes or a GPTQ/AWQ kernel, which the probe "
                          "does not use")
    return clean


def complete_shape(shape: dict) -> dict:
    """Fill derived defaults (kv_heads, head_dim, ...) and check the shape fits together."""
    s = dict(shape)
    s.setdefault("gated", True)
    s.setdefault("norm", "rmsnorm")
    s.setdefault("norms_per_layer", 2)
    s.setdefault("position", "rope")
    s.setdefault("attention", "flash")
    s.setdefault("checkpointing", "none")
    s.setdefault("optimizer", "adamw")
    s.setdefault("dropout", 0.0)
    s.setdefault("task", "full")
    for name in ("qkv_bias", "out_bias", "mlp_bias", "tie_embeddings"):
        s.setdefault(name, False)
    s.setdefault("final_norm", True)
    s.setdefault("kv_heads", s["heads"])
    if "head_dim" not in s:
        if s["hidden"] % s["heads"]:
            raise OptionError(f"hidden {s['hidden']} is not a multiple of heads {s['heads']}: "
                              "give head_dim")
        s["head_dim"] = s["hidden"] // s["heads"]
    if s["heads"] % s["kv_heads"]:
        raise OptionError(f"heads {s['heads']} is not a multiple of kv_heads {s['kv_heads']}")
    if s["position"] == "rope" and s["head_dim"] % 2:
        raise OptionError(f"rotary positions need an even head_dim, got {s['head_dim']}")
    if s["norms_per_layer"] not in (2, 4):
        raise OptionError(f"norms_per_layer must be 2 or 4, got {s['norms_per_layer']}")
    if s["position"] == "learned":
        s.setdefault("max_positions", s["seq"])
        if s["seq"] > s["max_positions"]:
            raise OptionError(f"seq {s['seq']} exceeds the {s['max_positions']} learned "
                              "positions")
    if s["task"] == "lora":
        s.setdefault("lora_rank", 16)
        s.setdefault("lora_targets", "all")
        s.setdefault("lora_alpha", 2.0 * s["lora_rank"])
    return s


def block_matmul_params(shape: dict) -> int:
    """Weights of one block's linear layers: ``h q + 2 h k + q h`` (q, k, v, o) plus
    ``3 h f`` (gated MLP) or ``2 h f`` (GELU MLP); q = heads x head_dim, k = kv_heads x
    head_dim."""
    h, f = shape["hidden"], shape["ffn"]
    q = shape["heads"] * shape["head_dim"]
    k = shape["kv_heads"] * shape["head_dim"]
    return h * q + 2 * h * k + q * h + (3 if shape["gated"] else 2) * h * f


def block_params(shape: dict) -> int:
    """All parameters of one block: linears, biases and norms (as ModelSpec.params counts)."""
    h, f = shape["hidden"], shape["ffn"]
    q = shape["heads"] * shape["head_dim"]
    k = shape["kv_heads"] * shape["head_dim"]
    n = block_matmul_params(shape)
    n += (q + 2 * k) if shape["qkv_bias"] else 0
    n += h if shape["out_bias"] else 0
    if shape["mlp_bias"]:
        n += (2 * f + h) if shape["gated"] else (f + h)
    norm = 2 * h if shape["norm"] == "layernorm" else h
    return n + shape["norms_per_layer"] * norm


def lora_params_per_layer(shape: dict) -> int:
    """LoRA adapter parameters of one block: ``r (d_in + d_out)`` per adapted matrix."""
    if shape.get("task") != "lora":
        return 0
    h, f = shape["hidden"], shape["ffn"]
    q = shape["heads"] * shape["head_dim"]
    k = shape["kv_heads"] * shape["head_dim"]
    per = {"q": h + q, "k": h + k, "v": h + k, "o": q + h}
    names = {"qv": "qv", "attn": "qkvo", "all": "qkvo"}[shape["lora_targets"]]
    total = sum(per[n] for n in names)
    if shape["lora_targets"] == "all":
        total += (3 if shape["gated"] else 2) * (h + f)
    return shape["lora_rank"] * total


def outside_params(shape: dict) -> int:
    """Parameters outside the blocks: token embedding ``V h``, learned positions ``P h``,
    the final norm, and an untied LM head ``V h``."""
    h, v = shape["hidden"], shape["vocab"]
    n = v * h
    if shape["position"] == "learned":
        n += shape["max_positions"] * h
    if shape["final_norm"]:
        n += 2 * h if shape["norm"] == "layernorm" else h
    if not shape["tie_embeddings"]:
        n += v * h
    return n


def flops_per_token(shape: dict, layers: int, include_head: bool = False) -> dict:
    """FLOPs per token of ``layers`` blocks (and the LM head when ``include_head``).

    Same convention as ``gpuadvisor.core.compute.flops_per_token``:

    * forward = ``2 x matmul params + attention``; matmul params = ``layers x``
      :func:`block_matmul_params` (+ ``V h`` for the head); attention = ``4 s q`` per layer
      (``Q K^T`` and ``P V``, ``s q`` multiply-adds each per token), x 0.5 for causal
      ``flash`` attention (the masked half is skipped), x 1 for ``eager``.
    * full training: ``train = 3 x forward``; LoRA: ``4 x matmul + 3 x attention + 6 x
      adapter params`` (frozen weights need no weight gradient).
    * full checkpointing adds the recomputed forward (matmul + adapters + attention);
      selective adds the attention part.

    Returns:
        ``{"forward", "matmul_forward", "attention_forward", "train", "model_train"}``:
        ``model_train`` is ``train`` without the recomputation.
    """
    s = shape["seq"]
    q = shape["heads"] * shape["head_dim"]
    params = layers * block_matmul_params(shape)
    if include_head:
        params += shape["vocab"] * shape["hidden"]
    mm = 2.0 * params
    attn = 4.0 * layers * s * q * (0.5 if shape["attention"] == "flash" else 1.0)
    fwd = mm + attn
    if shape.get("task") == "lora":
        adapters = 2.0 * layers * lora_params_per_layer(shape)
        train = 2.0 * mm + 3.0 * attn + 3.0 * adapters
        recompute_mm = mm + adapters
    else:
        train = 3.0 * fwd
        recompute_mm = mm
    model_train = train
    if shape["checkpointing"] == "full":
        train += recompute_mm + attn
    elif shape["checkpointing"] == "selective":
        train += attn
    return {"forward": fwd, "matmul_forward": mm, "attention_forward": attn, "train": train,
            "model_train": model_train}


def extrapolate(value1: float, value2: float, layers: int, depths=(1, 2)) -> tuple:
    """Linear extrapolation from two depths to ``layers``.

    ``per_layer = (value2 - value1) / (d2 - d1)`` and ``full = value1 + (layers - d1) x
    per_layer``; with the default depths 1 and 2: ``full = m1 + (L - 1)(m2 - m1)``.

    Returns:
        ``(per_layer, full)``.
    """
    d1, d2 = depths
    per_layer = (value2 - value1) / (d2 - d1)
    return per_layer, value1 + (layers - d1) * per_layer


def _state_bytes_per_param(optimizer: str) -> float:
    return {"adamw": 8.0, "sgd": 4.0, "lion": 4.0, "adafactor": 1.0}[optimizer]


def _param_bytes(shape: dict) -> float:
    """Rough bytes per trainable parameter: weight, gradient, optimizer states, amp copy."""
    state = _state_bytes_per_param(shape["optimizer"])
    precision = shape["precision"]
    if precision == "bf16-pure":
        return 2.0 + 2.0 + state / 2.0
    return 4.0 + 4.0 + state + (2.0 if precision in ("fp16", "bf16") else 0.0)


def activation_bytes(shape: dict, layers: int) -> float:
    """A rough upper bound on the activations of ``layers`` blocks (for sizing only)."""
    b, s, h, f = shape["micro_batch"], shape["seq"], shape["hidden"], shape["ffn"]
    q = shape["heads"] * shape["head_dim"]
    e = 4.0 if shape["precision"] in ("fp32", "tf32") else 2.0
    per_token = 6 * h + 3 * q + (4 if shape["gated"] else 2) * f
    per_layer = b * s * per_token * e
    if shape["attention"] == "eager":
        per_layer += 2.0 * shape["heads"] * s * s * b * e
    if shape["checkpointing"] == "full":
        return layers * b * s * h * e + per_layer
    return layers * per_layer


def step_memory_bytes(shape: dict) -> float:
    """Rough bytes the step probe needs at ``shape`` (to size it; 25% margin)."""
    params = shape["layers"] * block_params(shape)
    return 1.25 * (params * _param_bytes(shape) + activation_bytes(shape, shape["layers"])) \
        + 64 * 2 ** 20


def plancheck_memory_bytes(shape: dict, depth: int) -> float:
    """Rough bytes the plan check needs at ``depth`` (for the CPU's RAM check)."""
    trainable = depth * block_params(shape) + outside_params(shape)
    frozen = 0.0
    if shape["task"] == "lora":
        frozen, trainable = trainable, depth * lora_params_per_layer(shape)
    logits = shape["micro_batch"] * shape["seq"] * shape["vocab"] * 10.0
    return 1.25 * (trainable * _param_bytes(dict(shape, precision="fp32")) + frozen * 4.0
                   + activation_bytes(shape, depth) + logits)


# --------------------------------------------------------------------------- torch modules
_CLASSES = {}


def _classes(torch):
    """The nn.Module classes, made once per torch (classes need torch, so not at import)."""
    key = id(torch)
    if key in _CLASSES:
        return _CLASSES[key]
    nn = torch.nn
    F = torch.nn.functional
    checkpoint = torch.utils.checkpoint.checkpoint

    class Norm(nn.Module):
        def __init__(self, h, kind, device, dtype):
            super().__init__()
            self.h, self.kind = h, kind
            self.weight = nn.Parameter(torch.ones(h, device=device, dtype=dtype))
            self.bias = (nn.Parameter(torch.zeros(h, device=device, dtype=dtype))
                         if kind == "layernorm" else None)

        def forward(self, x):
            if self.kind == "layernorm":
                return F.layer_norm(x, (self.h,), self.weight, self.bias, 1e-5)
            if hasattr(F, "rms_norm"):
                return F.rms_norm(x, (self.h,), self.weight, 1e-6)
            variance = x.float().pow(2).mean(-1, keepdim=True)
            return (x.float() * torch.rsqrt(variance + 1e-6)).to(x.dtype) * self.weight

    class LoraLinear(nn.Module):
        """A frozen linear layer plus ``B A x x alpha / r``; A and B are fp32 (as PEFT)."""

        def __init__(self, base, rank, alpha, device):
            super().__init__()
            self.base = base
            self.lora_a = nn.Parameter(torch.empty(rank, base.in_features, device=device))
            self.lora_b = nn.Parameter(torch.zeros(base.out_features, rank, device=device))
            nn.init.kaiming_uniform_(self.lora_a, a=math.sqrt(5))
            self.scale = alpha / rank

        def forward(self, x):
            return self.base(x) + F.linear(F.linear(x, self.lora_a), self.lora_b) * self.scale

    class Block(nn.Module):
        def __init__(self, s, device, dtype, rope, gqa):
            super().__init__()
            h, d = s["hidden"], s["head_dim"]
            self.heads, self.kv_heads, self.head_dim = s["heads"], s["kv_heads"], d
            self.q_dim, self.kv_dim = s["heads"] * d, s["kv_heads"] * d
            self.flash = s["attention"] == "flash"
            self.selective = s["checkpointing"] == "selective" and not self.flash
            self.dropout = s["dropout"]
            self.gated = s["gated"]
            self.rope, self.gqa = rope, gqa

            def linear(n_in, n_out, bias):
                return nn.Linear(n_in, n_out, bias=bias, device=device, dtype=dtype)

            self.norm1 = Norm(h, s["norm"], device, dtype)
            self.norm2 = Norm(h, s["norm"], device, dtype)
            self.post_norms = None
            if s["norms_per_layer"] == 4:
                self.post_norms = nn.ModuleList([Norm(h, s["norm"], device, dtype)
                                                 for _ in range(2)])
            self.q_proj = linear(h, self.q_dim, s["qkv_bias"])
            self.k_proj = linear(h, self.kv_dim, s["qkv_bias"])
            self.v_proj = linear(h, self.kv_dim, s["qkv_bias"])
            self.o_proj = linear(self.q_dim, h, s["out_bias"])
            if self.gated:
                self.gate = linear(h, s["ffn"], s["mlp_bias"])
            self.up = linear(h, s["ffn"], s["mlp_bias"])
            self.down = linear(s["ffn"], h, s["mlp_bias"])

        def attention_core(self, q, k, v):
            p = self.dropout if self.training else 0.0
            if self.flash:
                if self.kv_heads != self.heads and self.gqa:
                    return F.scaled_dot_product_attention(q, k, v, dropout_p=p, is_causal=True,
                                                          enable_gqa=True)
                k, v = self.expand(k), self.expand(v)
                return F.scaled_dot_product_attention(q, k, v, dropout_p=p, is_causal=True)
            k, v = self.expand(k), self.expand(v)
            t = q.shape[-2]
            scores = torch.matmul(q, k.transpose(-2, -1)) / math.sqrt(self.head_dim)
            mask = torch.ones(t, t, dtype=torch.bool, device=q.device).triu(1)
            scores = scores.masked_fill(mask, float("-inf"))
            probs = torch.softmax(scores.float(), dim=-1).to(q.dtype)
            if p:
                probs = F.dropout(probs, p)
            return torch.matmul(probs, v)

        def expand(self, x):
            if self.kv_heads == self.heads:
                return x
            return x.repeat_interleave(self.heads // self.kv_heads, dim=1)

        def forward(self, x):
            b, t, _ = x.shape
            y = self.norm1(x)
            q = self.q_proj(y).view(b, t, self.heads, self.head_dim).transpose(1, 2)
            k = self.k_proj(y).view(b, t, self.kv_heads, self.head_dim).transpose(1, 2)
            v = self.v_proj(y).view(b, t, self.kv_heads, self.head_dim).transpose(1, 2)
            if self.rope is not None:
                q, k = rotate(q, self.rope, t), rotate(k, self.rope, t)
            if self.selective:
                out = checkpoint(self.attention_core, q, k, v, use_reentrant=False)
            else:
                out = self.attention_core(q, k, v)
            out = self.o_proj(out.transpose(1, 2).reshape(b, t, self.q_dim))
            if self.post_norms is not None:
                out = self.post_norms[0](out)
            if self.dropout:
                out = F.dropout(out, self.dropout, self.training)
            x = x + out
            y = self.norm2(x)
            if self.gated:
                y = self.down(F.silu(self.gate(y)) * self.up(y))
            else:
                y = self.down(F.gelu(self.up(y), approximate="tanh"))
            if self.post_norms is not None:
                y = self.post_norms[1](y)
            if self.dropout:
                y = F.dropout(y, self.dropout, self.training)
            return x + y

    def rotate(x, rope, t):
        cos, sin = rope[0][:t], rope[1][:t]
        half = x.shape[-1] // 2
        rotated = torch.cat((-x[..., half:], x[..., :half]), dim=-1)
        return x * cos + rotated * sin

    def run_blocks(blocks, x, full_checkpointing):
        for block in blocks:
            x = checkpoint(block, x, use_reentrant=False) if full_checkpointing else block(x)
        return x

    class Stack(nn.Module):
        """Blocks only: the ``step`` probe. Loss: mean square of the output."""

        def __init__(self, s, layers, device, dtype, rope, gqa):
            super().__init__()
            self.blocks = nn.ModuleList([Block(s, device, dtype, rope, gqa)
                                         for _ in range(layers)])
            self.full = s["checkpointing"] == "full"

        def forward(self, x):
            return run_blocks(self.blocks, x, self.full).float().pow(2).mean()

    class LanguageModel(nn.Module):
        """Embedding, blocks, final norm, LM head and cross-entropy: the ``plancheck``."""

        def __init__(self, s, layers, device, dtype, rope, gqa):
            super().__init__()
            h = s["hidden"]
            self.vocab = s["vocab"]
            self.embed = nn.Embedding(s["vocab"], h, device=device, dtype=dtype)
            self.positions = None
            if s["position"] == "learned":
                self.positions = nn.Embedding(s["max_positions"], h, device=device,
                                              dtype=dtype)
            self.blocks = nn.ModuleList([Block(s, device, dtype, rope, gqa)
                                         for _ in range(layers)])
            self.norm = Norm(h, s["norm"], device, dtype) if s["final_norm"] else None
            self.head = None
            if not s["tie_embeddings"]:
                self.head = nn.Linear(h, s["vocab"], bias=False, device=device, dtype=dtype)
            self.full = s["checkpointing"] == "full"
            self.dropout = s["dropout"]

        def forward(self, tokens, targets):
            x = self.embed(tokens)
            if self.positions is not None:
                x = x + self.positions(torch.arange(tokens.shape[1], device=tokens.device))
            if self.dropout:
                x = F.dropout(x, self.dropout, self.training)
            x = run_blocks(self.blocks, x, self.full)
            if self.norm is not None:
                x = self.norm(x)
            weight = self.embed.weight if self.head is None else self.head.weight
            logits = F.linear(x, weight)
            return F.cross_entropy(logits.float().view(-1, self.vocab), targets.view(-1))

    class Lion(torch.optim.Optimizer):
        """Lion (Chen et al. 2023): sign of an interpolated momentum; one state per param."""

        def __init__(self, params, lr=1e-4, betas=(0.9, 0.99), weight_decay=0.0):
            super().__init__(params, {"lr": lr, "betas": betas, "weight_decay": weight_decay})

        @torch.no_grad()
        def step(self, closure=None):
            for group in self.param_groups:
                beta1, beta2 = group["betas"]
                for p in group["params"]:
                    if p.grad is None:
                        continue
                    state = self.state[p]
                    if not state:
                        state["exp_avg"] = torch.zeros_like(p)
                    m = state["exp_avg"]
                    update = m.mul(beta1).add_(p.grad, alpha=1 - beta1).sign_()
                    p.mul_(1 - group["lr"] * group["weight_decay"])
                    p.add_(update, alpha=-group["lr"])
                    m.mul_(beta2).add_(p.grad, alpha=1 - beta2)

    classes = {"Stack": Stack, "LanguageModel": LanguageModel, "LoraLinear": LoraLinear,
               "Lion": Lion}
    _CLASSES[key] = classes
    return classes


# --------------------------------------------------------------------------- numerics
class Numerics:
    """How a shape's precision runs on a device: parameter dtype, autocast, grad scaler."""

    def __init__(self, torch, device, precision: str, lora: bool = False) -> None:
        self.torch, self.device, self.precision = torch, device, precision
        self.notes = []
        half = {"fp16": torch.float16, "bf16": torch.bfloat16, "bf16-pure": torch.bfloat16}
        self.compute_dtype = half.get(precision, torch.float32)
        self.param_dtype = torch.bfloat16 if precision == "bf16-pure" else torch.float32
        if lora and precision in half:
            self.param_dtype = half[precision]  # a frozen 16-bit base; adapters stay fp32
        self.autocast = precision in ("fp16", "bf16") or (lora and precision == "bf16-pure")
        self.autocast_type = "cuda" if device.type in ("cuda", "rocm") else device.type
        self.scaler = None
        self.matmul_precision = "high" if precision == "tf32" else "highest"
        self.dtype_label = DTYPE_LABELS[precision]
        if precision == "tf32" and device.type not in ("cuda", "rocm"):
            self.notes.append(f"tf32 has no effect on {device.type}: measured as fp32")
            self.dtype_label = "fp32"
        if precision in ("bf16", "bf16-pure") and device.type == "cuda":
            major = int(str(device.info.get("capability", "0.0")).split(".")[0])
            if major < 8:
                self.notes.append("this GPU has no bf16 matrix units: bf16 runs emulated")
        if precision == "fp16" and device.type not in ("cuda", "rocm"):
            self.notes.append(f"fp16 without a gradient scaler on {device.type}")

    def context(self):
        if not self.autocast:
            return contextlib.nullcontext()
        return self.torch.autocast(device_type=self.autocast_type, dtype=self.compute_dtype)

    def make_scaler(self):
        """A GradScaler for fp16 on CUDA/ROCm (else None); a modest initial scale so the
        first steps are not skipped for overflow."""
        torch = self.torch
        if self.precision != "fp16" or self.device.type not in ("cuda", "rocm"):
            return None
        if hasattr(torch, "amp") and hasattr(torch.amp, "GradScaler"):
            return torch.amp.GradScaler("cuda", init_scale=1024.0)
        return torch.cuda.amp.GradScaler(init_scale=1024.0)

    def check(self) -> None:
        """Fail early (``unsupported``) when the device cannot compute in this precision."""
        torch = self.torch
        try:
            x = torch.ones(8, 8, device=self.device.id, dtype=self.param_dtype)
            with self.context():
                (x @ x).sum().item()
        except Exception as exc:
            if kit.is_oom(exc):
                raise
            raise kit.ProbeFailed("unsupported", f"{self.precision} is not supported on "
                                  f"{self.device.id}: {str(exc).splitlines()[0][:200]}") from None


def default_precision(torch, device) -> str:
    """bf16 mixed on GPUs with bf16 units (CUDA sm80+, ROCm that says so, XPU), fp16 mixed
    on older CUDA GPUs, fp32 on the CPU and MPS."""
    if device.type == "cuda":
        major = int(str(device.info.get("capability", "0.0")).split(".")[0])
        return "bf16" if major >= 8 else "fp16"
    if device.type == "rocm":
        try:
            return "bf16" if torch.cuda.is_bf16_supported() else "fp16"
        except Exception:
            return "fp16"
    if device.type == "xpu":
        return "bf16"
    return "fp32"


def _gqa_supported(torch, device) -> bool:
    """Whether SDPA takes ``enable_gqa`` (torch 2.5+): K and V then stay un-expanded."""
    try:
        q = torch.zeros(1, 2, 4, 8, device=device.id)
        k = torch.zeros(1, 1, 4, 8, device=device.id)
        torch.nn.functional.scaled_dot_product_attention(q, k, k, is_causal=True,
                                                         enable_gqa=True)
        return True
    except (TypeError, RuntimeError):
        return False


def _rope(torch, shape, device, dtype):
    if shape["position"] != "rope":
        return None
    d, s = shape["head_dim"], shape["seq"]
    inv = 1.0 / (10000.0 ** (torch.arange(0, d, 2, device=device.id, dtype=torch.float32) / d))
    freqs = torch.outer(torch.arange(s, device=device.id, dtype=torch.float32), inv)
    angles = torch.cat((freqs, freqs), dim=-1)
    return angles.cos().to(dtype), angles.sin().to(dtype)


def make_optimizer(torch, name: str, params, device):
    """The optimizer and how it runs (``fused``, ``foreach``, ``for-loop``)."""
    params = [p for p in params if p.requires_grad]
    if name == "lion":
        return _classes(torch)["Lion"](params, lr=LEARNING_RATE), "for-loop"
    if name == "adafactor":
        if not hasattr(torch.optim, "Adafactor"):
            raise kit.ProbeFailed("unsupported", "adafactor needs torch.optim.Adafactor "
                                  f"(torch 2.5+); this is torch {torch.__version__}")
        return torch.optim.Adafactor(params, lr=LEARNING_RATE), "default"
    cls = torch.optim.AdamW if name == "adamw" else torch.optim.SGD
    extra = {} if name == "adamw" else {"momentum": 0.9}
    for impl in ("fused", "foreach"):
        try:
            return cls(params, lr=LEARNING_RATE, **{impl: True}, **extra), impl
        except (RuntimeError, TypeError, ValueError):
            continue
    return cls(params, lr=LEARNING_RATE, **extra), "for-loop"


def _memory_api(torch, device):
    """The module with peak-memory statistics for ``device``, or ``None``."""
    if device.type in ("cuda", "rocm"):
        return torch.cuda
    xpu = getattr(torch, "xpu", None)
    if device.type == "xpu" and all(hasattr(xpu, name) for name in (
            "reset_peak_memory_stats", "max_memory_allocated", "max_memory_reserved")):
        return xpu
    return None


def _memory_note(device) -> str:
    return (f"peak memory is measured with max_memory_allocated/_reserved on CUDA, ROCm and "
            f"XPU; on {device.type} only time is measured")


class _Run:
    """One model, its optimizer and inputs, ready to take training steps."""

    def __init__(self, torch, device, model, numerics, optimizer_name, inputs):
        self.torch, self.device, self.model, self.numerics = torch, device, model, numerics
        self.inputs = inputs
        self.optimizer, self.optimizer_impl = make_optimizer(
            torch, optimizer_name, model.parameters(), device)
        self.scaler = numerics.make_scaler()

    def step(self, split: bool):
        """One forward + backward + optimizer step; ``(forward_backward_s, optimizer_s)``
        when ``split`` (a sync between them), else ``(step_s, 0.0)``."""
        sync = self.device.sync
        start = time.perf_counter()
        with self.numerics.context():
            loss = self.model(*self.inputs)
        if self.scaler is not None:
            self.scaler.scale(loss).backward()
        else:
            loss.backward()
        middle = None
        if split:
            sync()
            middle = time.perf_counter()
        if self.scaler is not None:
            self.scaler.step(self.optimizer)
            self.scaler.update()
        else:
            self.optimizer.step()
        self.optimizer.zero_grad(set_to_none=True)
        sync()
        end = time.perf_counter()
        if middle is None:
            return end - start, 0.0
        return middle - start, end - middle

    def optimizer_ran(self) -> bool:
        """False when every step so far was skipped (fp16 overflow): no optimizer states."""
        return bool(self.optimizer.state)


def _free(device) -> None:
    gc.collect()
    device.empty_cache()


def _set_matmul_precision(torch, value):
    previous = torch.get_float32_matmul_precision()
    torch.set_float32_matmul_precision(value)
    return previous


# --------------------------------------------------------------------------- step
def step_shape(torch, device, suite_name: str, options: dict) -> dict:
    """The step probe's shape: options over the defaults for this device and suite."""
    shape = dict(STEP_SHAPES[(device.kind, suite_name)])
    shape["layers"] = 1 if suite_name == "tiny" else 2
    shape["position"] = "rope"
    shape.update(options)
    shape.setdefault("precision", default_precision(torch, device))
    shape = complete_shape(shape)
    if shape["position"] == "learned":
        shape["position"] = "none"  # learned positions live outside the blocks
    return shape


def fit_step_shape(shape: dict, budget: float | None) -> tuple:
    """Halve micro-batch, then sequence (not below 128), then layers until
    :func:`step_memory_bytes` fits ``budget``. Returns ``(shape, notes)``; raises
    ProbeFailed("out-of-memory") when nothing fits."""
    notes = []
    if budget is None:
        return shape, notes
    shape = dict(shape)
    while step_memory_bytes(shape) > budget:
        if shape["micro_batch"] > 1:
            shape["micro_batch"] //= 2
            notes.append(f"micro_batch halved to {shape['micro_batch']} to fit the memory")
        elif shape["seq"] > 128:
            shape["seq"] = max(128, shape["seq"] // 2)
            notes.append(f"seq halved to {shape['seq']} to fit the memory")
        elif shape["layers"] > 1:
            shape["layers"] //= 2
            notes.append(f"layers halved to {shape['layers']} to fit the memory")
        else:
            raise kit.ProbeFailed("out-of-memory", "even one block (hidden "
                                  f"{shape['hidden']}, seq {shape['seq']}, micro-batch 1) "
                                  f"needs about {step_memory_bytes(shape) / 2**30:.2f} GiB; "
                                  f"{budget / 2**30:.2f} GiB may be used")
    return shape, notes


#: Measured CPU matmul rates, by dtype: the plan check and the step probe of one run share
#: them (in bf16 on a CPU without bf16 units one measurement takes seconds).
_CPU_RATES: dict = {}


def cpu_matmul_flops(torch, dtype) -> float:
    """FLOP/s of this CPU on a 256 x 512 x 512 matmul in ``dtype`` (the best of three;
    measured once per worker process)."""
    if dtype not in _CPU_RATES:
        _CPU_RATES[dtype] = _measure_cpu_matmul(torch, dtype)
    return _CPU_RATES[dtype]


def _measure_cpu_matmul(torch, dtype) -> float:
    a = torch.randn(256, 512).to(dtype)
    b = torch.randn(512, 512).to(dtype)
    a @ b  # warm-up
    best = math.inf
    for _ in range(3):
        started = time.perf_counter()
        a @ b
        best = min(best, time.perf_counter() - started)
    return 2.0 * 256 * 512 * 512 / max(best, 1e-9)


def step_flops(shape: dict) -> float:
    """Training FLOPs of one step of the step probe's blocks."""
    return (flops_per_token(shape, shape["layers"])["train"] * shape["micro_batch"]
            * shape["seq"])


def fit_cpu_step_time(shape: dict, max_flops: float, rate: float | None = None) -> tuple:
    """Halve micro-batch, then sequence (not below 128), until a step takes at most
    ``max_flops`` training FLOPs. Returns ``(shape, notes)``.

    Raises:
        ProbeFailed("unsupported"): the smallest step still needs more than
            :data:`CPU_REFUSE_FACTOR` x ``max_flops`` (the message gives the time at
            ``rate`` FLOP/s when known).
    """
    shape, notes = dict(shape), []
    while step_flops(shape) > max_flops:
        if shape["micro_batch"] > 1:
            shape["micro_batch"] //= 2
            notes.append(f"micro_batch halved to {shape['micro_batch']} to keep a CPU step "
                         "short")
        elif shape["seq"] > 128:
            shape["seq"] = max(128, shape["seq"] // 2)
            notes.append(f"seq halved to {shape['seq']} to keep a CPU step short")
        else:
            break
    if step_flops(shape) > CPU_REFUSE_FACTOR * max_flops:
        took = f" about {step_flops(shape) / rate / 60:.0f} min per step;" if rate else ""
        raise kit.ProbeFailed(
            "unsupported", f"this CPU is too slow for a {shape['precision']} step at the "
            f"plan's width (hidden {shape['hidden']}, ffn {shape['ffn']}) even at micro-batch "
            f"1 x {shape['seq']} tokens:{took} time this plan on a GPU")
    return shape, notes


def _shrink_after_oom(shape: dict) -> str | None:
    if shape["micro_batch"] > 1:
        shape["micro_batch"] //= 2
        return f"out of memory: micro_batch halved to {shape['micro_batch']}"
    if shape["seq"] > 128:
        shape["seq"] = max(128, shape["seq"] // 2)
        return f"out of memory: seq halved to {shape['seq']}"
    if shape["layers"] > 1:
        shape["layers"] //= 2
        return f"out of memory: layers halved to {shape['layers']}"
    return None


def probe_step(torch, device, suite, channel, options) -> dict:
    """The ``step`` probe (see the module docstring)."""
    try:
        checked = check_options("step", options, STEP_OPTIONS)
        requested = step_shape(torch, device, suite["name"], checked)
    except OptionError as exc:
        raise kit.ProbeFailed(exc.kind, str(exc)) from None
    numerics = Numerics(torch, device, requested["precision"])
    previous = _set_matmul_precision(torch, numerics.matmul_precision)
    try:
        numerics.check()
        if device.kind == "gpu":
            free = device.free_bytes()
            budget = free * STEP_MEMORY_SHARE if free else None
        else:
            budget = device.budget_bytes()
        shape, shrunk = fit_step_shape(requested, budget)
        if device.kind == "cpu" and "steps" not in checked:
            rate = cpu_matmul_flops(torch, numerics.compute_dtype)
            shape, notes = fit_cpu_step_time(shape, rate * CPU_STEP_TARGET_S, rate)
            shrunk += notes
        timing = dict(TIMING[suite["name"]])
        oom_retries = 0
        while True:
            out_of_memory = None
            try:
                measured = _time_step(torch, device, shape, numerics, timing, checked, channel)
                break
            except Exception as exc:
                if not kit.is_oom(exc):
                    raise
                out_of_memory = str(exc).splitlines()[0][:200] if str(exc) else "out of memory"
            _free(device)  # now that the exception (and its frames' tensors) are gone
            note = _shrink_after_oom(shape) if oom_retries < MAX_OOM_RETRIES else None
            if note is None:
                raise kit.ProbeFailed("out-of-memory", "the step probe ran out of memory even "
                                      f"at micro-batch 1, seq {shape['seq']}, "
                                      f"{shape['layers']} layer(s): {out_of_memory}")
            oom_retries += 1
            shrunk.append(note)
            channel.progress("step", 0.0, note)
    finally:
        torch.set_float32_matmul_precision(previous)
    step_s = measured["step_s"]
    tokens = shape["micro_batch"] * shape["seq"]
    flops = flops_per_token(shape, shape["layers"])
    figures = {"achieved_tflops": kit.sig(flops["train"] * tokens / step_s / 1e12),
               "model_tflops": kit.sig(flops["model_train"] * tokens / step_s / 1e12),
               "tokens_per_s": kit.sig(tokens / step_s),
               "step_s": kit.sig(step_s, 6)}
    units = {"achieved_tflops": "TFLOPS", "model_tflops": "TFLOPS", "tokens_per_s": "tokens/s",
             "step_s": "s"}
    if measured.get("peak_allocated_bytes") is not None:
        figures["peak_allocated_bytes"] = float(measured["peak_allocated_bytes"])
        units["peak_allocated_bytes"] = "bytes"
    conditions = {"device": device.id, "device_name": device.name,
                  "dtype": numerics.dtype_label}
    for name in ("hidden", "heads", "kv_heads", "head_dim", "ffn", "gated", "seq",
                 "micro_batch", "layers", "precision", "optimizer", "checkpointing",
                 "attention", "norm", "position", "dropout"):
        conditions[name] = shape[name]
    conditions.update(
        steps=measured["steps"], warmup=measured["warmup"],
        step_s_all=[kit.sig(t, 6) for t in measured["times"]],
        step_s_min=kit.sig(min(measured["times"]), 6),
        optimizer_impl=measured["optimizer_impl"], autocast=numerics.autocast,
        grad_scaler=measured["grad_scaler"],
        flops_per_token_train=flops["train"], flops_per_token_forward=flops["forward"],
        flops_per_step=flops["train"] * tokens, flops_convention=FLOPS_CONVENTION,
        tokens_per_step=tokens, params=shape["layers"] * block_params(shape),
        shrunk=shrunk, oom_retries=oom_retries,
        requested={k: requested[k] for k in ("micro_batch", "seq", "layers")},
        notes=numerics.notes + measured["notes"],
        timing="forward + backward + optimizer.step() + zero_grad per step, synced; median "
               "of the timed steps after warm-up; random activations, no data loading")
    if measured.get("peak_allocated_bytes") is None:
        conditions["memory_note"] = _memory_note(device)
    if device.type == "cpu":
        conditions["threads"] = int(torch.get_num_threads())
    return {"figures": figures, "units": units, "conditions": conditions}


def _time_step(torch, device, shape, numerics, timing, options, channel) -> dict:
    classes = _classes(torch)
    rope = _rope(torch, shape, device, numerics.compute_dtype)
    model = classes["Stack"](shape, shape["layers"], device.id, numerics.param_dtype, rope,
                             _gqa_supported(torch, device))
    model.train()
    x = torch.randn(shape["micro_batch"], shape["seq"], shape["hidden"], device=device.id,
                    dtype=numerics.param_dtype)
    run = _Run(torch, device, model, numerics, shape["optimizer"], (x,))
    memory = _memory_api(torch, device)
    if memory is not None:
        memory.reset_peak_memory_stats(device.id)
    warmup = options.get("warmup", timing["warmup"])
    device.sync()
    notes = []
    warm_s = 0.0
    for i in range(warmup):
        channel.progress("step", 0.1 * (i + 1) / max(warmup, 1), f"warm-up step {i + 1}")
        warm_s = run.step(split=False)[0]
    steps = options.get("steps")
    if steps is None:
        steps = timing["steps"]
        if warm_s > 0:
            steps = max(MIN_TIMED_STEPS, min(steps, int(timing["budget_s"] / warm_s)))
    times = []
    for i in range(steps):
        if kit.stop_requested() and len(times) >= 1:
            notes.append(f"stopped early: {len(times)} of {steps} timed steps")
            break
        times.append(run.step(split=False)[0])
        channel.progress("step", 0.1 + 0.9 * (i + 1) / steps,
                         f"step {i + 1}/{steps}: {times[-1]:.3g} s")
    if not run.optimizer_ran():
        notes.append("every optimizer step was skipped (fp16 overflow): optimizer time and "
                     "memory are missing")
    result = {"step_s": statistics.median(times), "times": times, "steps": len(times),
              "warmup": warmup, "optimizer_impl": run.optimizer_impl,
              "grad_scaler": run.scaler is not None, "notes": notes}
    if memory is not None:
        result["peak_allocated_bytes"] = int(memory.max_memory_allocated(device.id))
    return result


# --------------------------------------------------------------------------- plancheck
def plancheck_shape(torch, device, suite_name: str, options: dict) -> dict:
    """The plan check's shape: the options (the plan) over a default model."""
    key = "cpu-tiny" if (device.kind == "cpu" and suite_name == "tiny") else "default"
    shape = dict(PLANCHECK_SHAPES[key])
    shape.update(options)
    shape.setdefault("precision", default_precision(torch, device))
    shape.setdefault("depths", [1, 2])
    shape = complete_shape(shape)
    if shape["task"] == "pretrain":
        shape["task"] = "full"
    if shape["layers_full"] < shape["depths"][0]:
        raise OptionError(f"layers_full {shape['layers_full']} is below the first depth "
                          f"measured ({shape['depths'][0]})")
    return shape


def _describe(shape: dict) -> str:
    return (f"hidden {shape['hidden']}, ffn {shape['ffn']}, vocab {shape['vocab']}, seq "
            f"{shape['seq']}, micro-batch {shape['micro_batch']}, {shape['precision']}, "
            f"{shape['optimizer']}, task {shape['task']}")


def probe_plancheck(torch, device, suite, channel, options) -> dict:
    """The ``plancheck`` probe (see the module docstring)."""
    try:
        checked = check_options("plancheck", options, PLANCHECK_OPTIONS)
        shape = plancheck_shape(torch, device, suite["name"], checked)
    except OptionError as exc:
        raise kit.ProbeFailed(exc.kind, str(exc)) from None
    numerics = Numerics(torch, device, shape["precision"], lora=shape["task"] == "lora")
    depths = shape["depths"]
    if device.type == "cpu":
        need = plancheck_memory_bytes(shape, depths[1])
        free = device.free_bytes()
        if free and need > PLANCHECK_CPU_RAM_SHARE * free:
            raise kit.ProbeFailed("out-of-memory", f"the plan at depth {depths[1]} "
                                  f"({_describe(shape)}) would need about "
                                  f"{need / 2**30:.1f} GiB of RAM; {free / 2**30:.1f} GiB is "
                                  "free: check this plan on a GPU")
    timing = PLANCHECK_TIMING[suite["name"]]
    warmup = checked.get("warmup", timing["warmup"])
    steps = checked.get("steps", timing["steps"])
    if device.type == "cpu":
        rate = cpu_matmul_flops(torch, numerics.compute_dtype)
        tokens = shape["micro_batch"] * shape["seq"]
        flops = sum(flops_per_token(shape, depth, include_head=True)["train"] * tokens
                    for depth in depths) * (warmup + steps)
        if flops / rate > CPU_PLANCHECK_MAX_S:
            raise kit.ProbeFailed(
                "unsupported", f"the plan check ({_describe(shape)}) would take about "
                f"{flops / rate / 60:.0f} min on this CPU ({rate / 1e9:.2g} GFLOPS in "
                f"{shape['precision']}): check this plan on a GPU")
    memory = _memory_api(torch, device)
    previous = _set_matmul_precision(torch, numerics.matmul_precision)
    per_depth = []
    notes = list(numerics.notes)
    try:
        numerics.check()
        for index, depth in enumerate(depths):
            measured = _plancheck_depth_with_retry(torch, device, shape, depth, numerics,
                                                   warmup, steps, memory, channel, index,
                                                   per_depth)
            per_depth.append(measured)
            notes.extend(measured["notes"])
    finally:
        torch.set_float32_matmul_precision(previous)
    return _plancheck_result(torch, device, shape, numerics, per_depth, memory, notes,
                             warmup)


def _plancheck_depth_with_retry(torch, device, shape, depth, numerics, warmup, steps, memory,
                                channel, index, done) -> dict:
    """Measure one depth; after an out-of-memory, free everything and try once more (the
    allocator may have been fragmented), then give up naming the sizes."""
    failures = []
    for attempt in range(2):
        out_of_memory = None
        try:
            return _plancheck_depth(torch, device, shape, depth, numerics, warmup, steps,
                                    memory, channel, index)
        except Exception as exc:
            if not kit.is_oom(exc):
                raise
            out_of_memory = (str(exc).splitlines() or ["out of memory"])[0][:200]
        _free(device)
        failures.append(out_of_memory)
        if attempt == 0:
            channel.progress("plancheck", index / 2, f"depth {depth}: out of memory, retrying")
    message = (f"the plan does not fit at depth {depth} ({_describe(shape)}): "
               f"{failures[-1]}")
    if done and done[0].get("peak_allocated_bytes") is not None:
        message += (f"; at depth {done[0]['depth']} it peaked at "
                    f"{done[0]['peak_allocated_bytes'] / 2**30:.2f} GiB, so "
                    f"{shape['layers_full']} layers cannot fit either")
    raise kit.ProbeFailed("out-of-memory", message)


def _plancheck_depth(torch, device, shape, depth, numerics, warmup, steps, memory, channel,
                     index) -> dict:
    classes = _classes(torch)
    _free(device)  # a clean cache: the reserved peak must not count the last depth's blocks
    channel.progress("plancheck", index / 2, f"depth {depth}: building the model")
    rope = _rope(torch, shape, device, numerics.compute_dtype)
    model = classes["LanguageModel"](shape, depth, device.id, numerics.param_dtype, rope,
                                     _gqa_supported(torch, device))
    params = sum(p.numel() for p in model.parameters())
    if shape["task"] == "lora":
        _add_lora(torch, model, shape, device)
    trainable = sum(p.numel() for p in model.parameters() if p.requires_grad)
    model.train()
    b, s = shape["micro_batch"], shape["seq"]
    tokens = torch.randint(0, shape["vocab"], (b, s), device=device.id)
    targets = torch.randint(0, shape["vocab"], (b, s), device=device.id)
    device.sync()
    if memory is not None:
        memory.reset_peak_memory_stats(device.id)
    run = _Run(torch, device, model, numerics, shape["optimizer"], (tokens, targets))
    total = warmup + steps
    fb, opt, notes = [], [], []
    for i in range(total):
        if kit.stop_requested() and len(fb) >= 1:
            notes.append(f"depth {depth}: stopped early after {len(fb)} timed step(s)")
            break
        forward_backward_s, optimizer_s = run.step(split=True)
        if i >= warmup:
            fb.append(forward_backward_s)
            opt.append(optimizer_s)
        channel.progress("plancheck", (index + (i + 1) / total) / 2,
                         f"depth {depth}: step {i + 1}/{total}")
    if not fb:
        raise kit.ProbeFailed("exception", "stopped before any step was timed")
    if not run.optimizer_ran():
        notes.append(f"depth {depth}: every optimizer step was skipped (fp16 overflow)")
    measured = {"depth": depth, "params": params, "trainable": trainable,
                "forward_backward_s": statistics.median(fb), "optimizer_s": statistics.median(opt),
                "step_s": statistics.median([fb[i] + opt[i] for i in range(len(fb))]),
                "steps": len(fb), "optimizer_impl": run.optimizer_impl,
                "grad_scaler": run.scaler is not None, "notes": notes}
    if memory is not None:
        measured["peak_allocated_bytes"] = int(memory.max_memory_allocated(device.id))
        measured["peak_reserved_bytes"] = int(memory.max_memory_reserved(device.id))
    return measured


def _add_lora(torch, model, shape, device) -> None:
    """Freeze every parameter, then wrap the target linears with LoRA adapters."""
    for p in model.parameters():
        p.requires_grad_(False)
    lora = _classes(torch)["LoraLinear"]
    names = {"qv": ("q_proj", "v_proj"), "attn": ("q_proj", "k_proj", "v_proj", "o_proj"),
             "all": ("q_proj", "k_proj", "v_proj", "o_proj", "gate", "up", "down")}
    for block in model.blocks:
        for name in names[shape["lora_targets"]]:
            base = getattr(block, name, None)
            if base is not None:
                setattr(block, name, lora(base, shape["lora_rank"], shape["lora_alpha"],
                                          device.id))


def _plancheck_result(torch, device, shape, numerics, per_depth, memory, notes,
                      warmup) -> dict:
    layers = shape["layers_full"]
    depths = tuple(shape["depths"])
    one, two = per_depth
    figures, units = {}, {}

    def add(name, value, unit):
        figures[name] = value
        units[name] = unit

    for name in ("step_s", "forward_backward_s", "optimizer_s"):
        v1, v2 = kit.sig(one[name], 6), kit.sig(two[name], 6)
        per_layer, _ = extrapolate(v1, v2, layers, depths)
        if per_layer <= 0:
            notes.append(f"{name}: depth {depths[1]} was not slower than depth {depths[0]} "
                         "(timing noise); per-layer time taken as 0, so the full-depth time "
                         "is a lower bound")
            per_layer = 0.0
        per_layer = kit.sig(per_layer, 6)
        add(f"{name}_depth{depths[0]}", v1, "s")
        add(f"{name}_depth{depths[1]}", v2, "s")
        add(f"{name}_per_layer", per_layer, "s")
        add(f"{name}_full", kit.sig(v1 + (layers - depths[0]) * per_layer, 6), "s")
    tokens = shape["micro_batch"] * shape["seq"]
    add("tokens_per_s_full", kit.sig(tokens / figures["step_s_full"]), "tokens/s")
    if memory is not None:
        for name in ("peak_allocated_bytes", "peak_reserved_bytes"):
            m1, m2 = one[name], two[name]
            per_layer, full = extrapolate(m1, m2, layers, depths)
            add(f"{name}_depth{depths[0]}", float(m1), "bytes")
            add(f"{name}_depth{depths[1]}", float(m2), "bytes")
            add(f"{name}_per_layer", float(per_layer), "bytes")
            add(f"{name}_full", float(full), "bytes")
    params_per_layer, params_full = extrapolate(one["params"], two["params"], layers, depths)
    trainable_per_layer, trainable_full = extrapolate(one["trainable"], two["trainable"],
                                                      layers, depths)
    flops = flops_per_token(shape, layers, include_head=True)
    conditions = {"device": device.id, "device_name": device.name,
                  "dtype": numerics.dtype_label, "layers_full": layers, "depths": list(depths)}
    for name in ("hidden", "heads", "kv_heads", "head_dim", "ffn", "gated", "vocab", "seq",
                 "micro_batch", "precision", "optimizer", "checkpointing", "attention",
                 "norm", "norms_per_layer", "position", "tie_embeddings", "final_norm",
                 "qkv_bias", "out_bias", "mlp_bias", "dropout", "task"):
        conditions[name] = shape[name]
    if shape["task"] == "lora":
        for name in ("lora_rank", "lora_targets", "lora_alpha"):
            conditions[name] = shape[name]
    conditions.update(
        steps=min(one["steps"], two["steps"]), warmup=warmup,
        params_depth1=one["params"], params_depth2=two["params"],
        params_per_layer=int(params_per_layer), params_full=int(params_full),
        trainable_params_full=int(trainable_full),
        trainable_params_per_layer=int(trainable_per_layer),
        optimizer_impl=one["optimizer_impl"], autocast=numerics.autocast,
        grad_scaler=one["grad_scaler"], memory_measured=memory is not None,
        flops_per_token_train=flops["train"], flops_convention=FLOPS_CONVENTION,
        tokens_per_step=tokens,
        extrapolation=f"per_layer = (m{depths[1]} - m{depths[0]}) / {depths[1] - depths[0]}; "
                      f"full = m{depths[0]} + ({layers} - {depths[0]}) x per_layer",
        timing="per step: forward + backward, sync, optimizer.step() + zero_grad, sync; "
               "medians of the timed steps after warm-up; random tokens, no data loading",
        notes=notes)
    if memory is None:
        conditions["memory_note"] = _memory_note(device)
    else:
        conditions["memory_counted"] = ("max_memory_allocated: tensors only (no CUDA "
                                        "context); max_memory_reserved: the caching "
                                        "allocator's pool, also without the context")
    if device.type == "cpu":
        conditions["threads"] = int(torch.get_num_threads())
    return {"figures": figures, "units": units, "conditions": conditions}


PROBES = {"step": probe_step, "plancheck": probe_plancheck}
