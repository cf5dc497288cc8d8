"""The inference plan check, the pure half: options, the decode window, bytes (no torch).

A helper of :mod:`decodecheck` (no ``PROBES``). Like every kernel module it needs only the
standard library and runs on Python 3.8+; it never imports torch or gpuadvisor, so tests
load it alone.

What one decode step reads (:func:`bytes_per_step`), for ``L`` layers at context ``n``
(the tokens the new one attends to, itself included) and ``b`` sequences:

* every layer's weights once: the projections ``q`` (``heads x head_dim`` by ``hidden``),
  ``k`` and ``v`` (``kv_heads x head_dim`` by ``hidden`` each), ``o`` (``hidden`` by
  ``heads x head_dim``), the MLP (``gate`` and ``up``: ``ffn x hidden``, ``down``:
  ``hidden x ffn``; no ``gate`` without a gated MLP) in the weight format
  (:func:`decode_shape.weight_bytes`), and two norm vectors of ``hidden`` at the
  activation width;
* every layer's KV cache up to ``n``: ``2 x b x kv_heads x head_dim x n x kv bytes``;
* the final norm and the LM head (``vocab x hidden``, in the weight format) once.

The embedding is read one row per token (negligible, not counted). That is the byte count
of the memory-bound decode model (weights + KV per token) that the estimator uses, so
``bytes / measured step time`` is the bandwidth the loop achieved.
"""

from __future__ import annotations

from .decode_shape import weight_bytes

#: Options the ``decodecheck`` probe takes.
INTS = ("hidden", "heads", "kv_heads", "head_dim", "ffn", "vocab", "layers_full", "seq",
        "new_tokens", "micro_batch", "prefill_tokens", "decode_tokens", "warmup")
BOOLS = ("gated",)
CHOICES = {"norm": ("rmsnorm", "layernorm"),
           "weights": ("fp32", "fp16", "bf16", "int8", "q4"),
           "kv_dtype": ("fp32", "fp16", "bf16", "fp8", "int8", "q8_0", "q4_0")}
OPTIONS = frozenset((*INTS, *BOOLS, *CHOICES, "depths"))

#: The model without options: a small Llama-like decoder (tests and a first look).
DEFAULT_SHAPE = {"hidden": 256, "heads": 4, "kv_heads": 2, "ffn": 768, "vocab": 2048,
                 "layers_full": 8, "seq": 64, "new_tokens": 16, "micro_batch": 1,
                 "gated": True, "norm": "rmsnorm", "weights": "fp16", "depths": [1, 2]}

#: Most prompt tokens prefilled, decode steps timed and warm-up steps, per (device kind,
#: suite): a plan's prompt and generation are longer than a CPU should run, so the probe
#: prefills a part of the prompt (and scales its time to the whole prompt) and times a
#: window of decode steps centred on the plan's mean context (the cache before it holds
#: random values, as after the real prefill).
CAPS = {
    ("cpu", "tiny"): {"prefill_tokens": 16, "decode_tokens": 4, "warmup": 1},
    ("cpu", "quick"): {"prefill_tokens": 128, "decode_tokens": 16, "warmup": 2},
    ("cpu", "full"): {"prefill_tokens": 512, "decode_tokens": 48, "warmup": 3},
    ("gpu", "tiny"): {"prefill_tokens": 64, "decode_tokens": 8, "warmup": 2},
    ("gpu", "quick"): {"prefill_tokens": 2048, "decode_tokens": 64, "warmup": 4},
    ("gpu", "full"): {"prefill_tokens": 8192, "decode_tokens": 128, "warmup": 8},
}
#: The largest share of the free memory the model at its larger depth may take: the
#: host's available RAM on the CPU, the device's free memory on a GPU.
MEMORY_SHARE = {"cpu": 0.5, "gpu": 0.9}

#: Bytes per element of the activation and KV dtypes built.
DTYPE_BYTES = {"fp32": 4, "fp16": 2, "bf16": 2}


class DecodeOptionError(ValueError):
    """An option the probe cannot use; ``kind`` is the protocol error kind."""

    def __init__(self, message: str, kind: str = "bad-option") -> None:
        super().__init__(message)
        self.kind = kind


def check_options(options: dict) -> dict:
    """Validate the options (names, types, choices); raises :class:`DecodeOptionError`."""
    if not isinstance(options, dict):
        raise DecodeOptionError("decodecheck: options must be an object")
    unknown = sorted(set(options) - OPTIONS)
    if unknown:
        raise DecodeOptionError(f"decodecheck: unknown option(s) {', '.join(unknown)}; "
                                f"known: {', '.join(sorted(OPTIONS))}")
    clean = {}
    for name, value in options.items():
        if name in INTS and (isinstance(value, bool) or not isinstance(value, int)
                             or value <= 0):
            raise DecodeOptionError(f"decodecheck: option {name} must be a positive whole "
                                    f"number, got {value!r}")
        if name in BOOLS and not isinstance(value, bool):
            raise DecodeOptionError(f"decodecheck: option {name} must be true or false, "
                                    f"got {value!r}")
        if name in CHOICES and value not in CHOICES[name]:
            raise DecodeOptionError(f"decodecheck: option {name} must be one of "
                                    f"{', '.join(CHOICES[name])}; got {value!r}")
        if name == "depths" and (
                not isinstance(value, list) or len(value) != 2
                or any(isinstance(d, bool) or not isinstance(d, int) or d <= 0 for d in value)
                or value[0] >= value[1]):
            raise DecodeOptionError("decodecheck: option depths must be two increasing "
                                    f"positive whole numbers like [1, 2], got {value!r}")
        clean[name] = value
    return clean


def complete_shape(options: dict) -> dict:
    """The options over :data:`DEFAULT_SHAPE` (the default model only where no width is
    given), with ``head_dim`` derived and the shape checked."""
    shape = dict(DEFAULT_SHAPE) if "hidden" not in options else {
        "gated": True, "norm": "rmsnorm", "weights": "fp16", "depths": [1, 2],
        "micro_batch": 1, "new_tokens": 256}
    shape.update(options)
    for name in ("hidden", "heads", "ffn", "vocab", "layers_full", "seq"):
        if name not in shape:
            raise DecodeOptionError(f"decodecheck: option {name} is needed with hidden")
    shape.setdefault("kv_heads", shape["heads"])
    if "head_dim" not in shape:
        if shape["hidden"] % shape["heads"]:
            raise DecodeOptionError(f"decodecheck: hidden {shape['hidden']} is not a multiple "
                                    f"of heads {shape['heads']}: give head_dim")
        shape["head_dim"] = shape["hidden"] // shape["heads"]
    if shape["heads"] % shape["kv_heads"]:
        raise DecodeOptionError(f"decodecheck: heads {shape['heads']} is not a multiple of "
                                f"kv_heads {shape['kv_heads']}")
    if shape["layers_full"] < shape["depths"][0]:
        raise DecodeOptionError(f"decodecheck: layers_full {shape['layers_full']} is below "
                                f"the first depth measured ({shape['depths'][0]})")
    if shape["weights"] == "q4":
        for name, cols in (("hidden", shape["hidden"]), ("ffn", shape["ffn"]),
                           ("heads x head_dim", shape["heads"] * shape["head_dim"])):
            if cols % 32:
                raise DecodeOptionError(f"decodecheck: q4 weights need {name} ({cols}) to "
                                        "be a multiple of 32 (whole groups)", "unsupported")
    return shape


def window(shape: dict, caps: dict) -> dict:
    """Which tokens are prefilled and which decode steps timed.

    ``prefill_tokens`` = min(seq, cap); ``decode_tokens`` = min(new_tokens, cap) timed
    steps, centred on the plan's mean context ``seq + new_tokens / 2`` (the context at
    which the estimator times decoding): the first writes position ``first = max(prefill,
    seq + new_tokens // 2 - decode_tokens // 2)``, after ``warmup`` untimed steps just
    before it. ``mean_context`` is the mean over the timed steps of the context each
    attends to (position + 1); ``max_context`` the cache length built.
    """
    prefill = min(shape["seq"], shape.get("prefill_tokens", caps["prefill_tokens"]))
    steps = min(shape["new_tokens"], shape.get("decode_tokens", caps["decode_tokens"]))
    warmup = shape.get("warmup", caps["warmup"])
    first = max(prefill + warmup, shape["seq"] + shape["new_tokens"] // 2 - steps // 2)
    return {"prefill_tokens": prefill, "decode_tokens": steps, "warmup": warmup,
            "first_position": first, "max_context": first + steps,
            "mean_context": first + (steps + 1) / 2}


def layer_matrices(shape: dict) -> list:
    """``(name, rows, cols)`` of one layer's weight matrices (see the module docstring)."""
    h, q, kv, f = (shape["hidden"], shape["heads"] * shape["head_dim"],
                   shape["kv_heads"] * shape["head_dim"], shape["ffn"])
    matrices = [("q", q, h), ("k", kv, h), ("v", kv, h), ("o", h, q)]
    if shape["gated"]:
        matrices.append(("gate", f, h))
    return [*matrices, ("up", f, h), ("down", h, f)]


def layer_weight_bytes(shape: dict, act_bytes: int) -> int:
    """Bytes of one layer's weights: its matrices in the weight format and two norm
    vectors of ``hidden`` at ``act_bytes`` each."""
    fmt = shape["weights"]
    return (sum(weight_bytes(rows, cols, fmt) for _, rows, cols in layer_matrices(shape))
            + 2 * shape["hidden"] * act_bytes)


def head_bytes(shape: dict, act_bytes: int) -> int:
    """Bytes of the LM head (``vocab x hidden`` in the weight format) and the final norm."""
    return weight_bytes(shape["vocab"], shape["hidden"], shape["weights"]) + (
        shape["hidden"] * act_bytes)


def kv_read_bytes(shape: dict, context: float, kv_bytes: int) -> float:
    """Bytes of one layer's KV cache a step reads at ``context``:
    ``2 x b x kv_heads x head_dim x context x kv_bytes`` (K and V)."""
    return (2.0 * shape["micro_batch"] * shape["kv_heads"] * shape["head_dim"] * context
            * kv_bytes)


def bytes_per_step(shape: dict, layers: int, context: float, act_bytes: int,
                   kv_bytes: int) -> float:
    """Bytes one decode step reads with ``layers`` layers (see the module docstring)."""
    per_layer = layer_weight_bytes(shape, act_bytes) + kv_read_bytes(shape, context, kv_bytes)
    return layers * per_layer + head_bytes(shape, act_bytes)


def memory_bytes(shape: dict, depth: int, max_context: int, act_bytes: int,
                 kv_bytes: int) -> float:
    """Rough bytes of the model at ``depth``: weights, head, embedding (``vocab x
    hidden`` at ``act_bytes``) and the KV cache of ``max_context`` positions."""
    cache = depth * kv_read_bytes(shape, max_context, kv_bytes)
    return (depth * layer_weight_bytes(shape, act_bytes) + head_bytes(shape, act_bytes)
            + shape["vocab"] * shape["hidden"] * act_bytes + cache)
