"""Training-step probes, the planning half: option checks, shapes, FLOPs, sizes and times.

Pure functions of the probes' shapes (dicts of ``hidden``, ``heads``, ``ffn``, ``seq``, ...):
no torch here, so tests load this file by path and call them directly. Like every kernel
module it needs only the standard library and runs on Python 3.8+; ``kit`` (the worker
module, set by the loader) gives :class:`ProbeFailed` to the fitting functions.

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
FLOPS_CONVENTION = ("1 multiply-add = 2 FLOPs; forward = 2 x matmul params + 4*s*q per layer "
                    "(x0.5 causal flash); train = 3 x forward (+ a block forward with full "
                    "checkpointing, + attention with selective), as gpuadvisor.core.compute")


class OptionError(ValueError):
    """An option the probe cannot use: ``kind`` is the protocol error kind to report."""

    def __init__(self, message: str, kind: str = "unsupported") -> None:
        super().__init__(message)
        self.kind = kind


# --------------------------------------------------------------------------- options and counts
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



# --------------------------------------------------------------------------- fitting
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


def shrink_after_oom(shape: dict) -> str | None:
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

def describe_plan(shape: dict) -> str:
    """The plan in one line, for messages."""
    return (f"hidden {shape['hidden']}, ffn {shape['ffn']}, vocab {shape['vocab']}, seq "
            f"{shape['seq']}, micro-batch {shape['micro_batch']}, {shape['precision']}, "
            f"{shape['optimizer']}, task {shape['task']}")
