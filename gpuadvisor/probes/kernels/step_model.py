"""Training-step probes, the torch half: the model, its numerics, optimizer and one step.

Builds what :mod:`step` times: decoder blocks (``Stack``, for the ``step`` probe) or the
plan's whole language model (``plancheck``: embedding, blocks, final norm, LM head,
cross-entropy), with LoRA adapters where the plan has them, the optimizer (AdamW/SGD fused
or foreach where torch has them, Lion, Adafactor), autocast and the fp16 grad scaler. Like
every kernel module it needs only the standard library and the ``torch`` handed to each
function, and runs on Python 3.8+: it never imports torch or gpuadvisor. ``kit`` is the
worker module, set by the loader.
"""

from __future__ import annotations

import contextlib
import gc
import math
import time

from .step_shape import DTYPE_LABELS

kit = None  # the worker module, set by the loader before any probe runs

LEARNING_RATE = 1e-5


# --------------------------------------------------------------------------- torch modules
_CLASSES = {}


def model_classes(torch):
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


def gqa_supported(torch, device) -> bool:
    """Whether SDPA takes ``enable_gqa`` (torch 2.5+): K and V then stay un-expanded."""
    try:
        q = torch.zeros(1, 2, 4, 8, device=device.id)
        k = torch.zeros(1, 1, 4, 8, device=device.id)
        torch.nn.functional.scaled_dot_product_attention(q, k, k, is_causal=True,
                                                         enable_gqa=True)
        return True
    except (TypeError, RuntimeError):
        return False


def rope_tables(torch, shape, device, dtype):
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
        return model_classes(torch)["Lion"](params, lr=LEARNING_RATE), "for-loop"
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


def memory_api(torch, device):
    """The module with peak-memory statistics for ``device``, or ``None``."""
    if device.type in ("cuda", "rocm"):
        return torch.cuda
    xpu = getattr(torch, "xpu", None)
    if device.type == "xpu" and all(hasattr(xpu, name) for name in (
            "reset_peak_memory_stats", "max_memory_allocated", "max_memory_reserved")):
        return xpu
    return None


def memory_note(device) -> str:
    return (f"peak memory is measured with max_memory_allocated/_reserved on CUDA, ROCm and "
            f"XPU; on {device.type} only time is measured")


class TrainingRun:
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


def free_memory(device) -> None:
    gc.collect()
    device.empty_cache()


def set_matmul_precision(torch, value):
    previous = torch.get_float32_matmul_precision()
    torch.set_float32_matmul_precision(value)
    return previous


def add_lora(torch, model, shape, device) -> None:
    """Freeze every parameter, then wrap the target linears with LoRA adapters."""
    for p in model.parameters():
        p.requires_grad_(False)
    lora = model_classes(torch)["LoraLinear"]
    names = {"qv": ("q_proj", "v_proj"), "attn": ("q_proj", "k_proj", "v_proj", "o_proj"),
             "all": ("q_proj", "k_proj", "v_proj", "o_proj", "gate", "up", "down")}
    for block in model.blocks:
        for name in names[shape["lora_targets"]]:
            base = getattr(block, name, None)
            if base is not None:
                setattr(block, name, lora(base, shape["lora_rank"], shape["lora_alpha"],
                                          device.id))
