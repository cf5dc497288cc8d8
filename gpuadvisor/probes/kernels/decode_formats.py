"""Decode probes, the torch half: weight matrices in each format and their GEMV.

A helper of :mod:`decode` and :mod:`decodecheck` (no ``PROBES``). :func:`make_weight`
stores a random ``rows x cols`` matrix in a format of :data:`decode_shape.FORMATS` and
returns a :class:`Weight` whose ``apply(x)`` computes ``x @ W.T`` the fastest way this
torch has:

``fp16``, ``bf16`` (and ``fp32`` for the plan check)
    ``torch.nn.functional.linear`` (cuBLAS/hipBLAS/oneDNN GEMV).
``int8``
    ``torch._weight_int8pack_mm(x, w_int8, scales)``: one fused kernel reading the int8
    matrix and its per-row scales. Where this torch has no such kernel for the device,
    the matrix is dequantized to the activation dtype and multiplied (unfused: it writes
    and reads a 16-bit copy, so what it measures is not the card's bandwidth).
``q4``
    ``torch._weight_int4pack_mm`` (CUDA, tinygemm, needs compute capability 8.0+) or
    ``torch._weight_int4pack_mm_for_cpu``: fused, reading packed 4-bit values and a
    bf16 scale and zero per group of 32. Elsewhere: unpack the nibbles, ``(q - zero) x
    scale`` per group, multiply (unfused, as for int8).

``Weight.fused`` says which ran; ``Weight.nbytes`` is what the stored tensors hold (the
test checks it against :func:`decode_shape.weight_bytes`). Like every kernel module this
needs only the standard library and the ``torch`` handed to it; ``kit`` is the worker.
"""

from __future__ import annotations

from .decode_shape import Q4_GROUP, weight_bytes

kit = None  # the worker module, set by the loader before any probe runs

#: Scale of the random weights (like an initialised layer: values stay finite in fp16);
#: uniform in ±WEIGHT_RANGE, which has this standard deviation (range / sqrt(3)).
WEIGHT_STD = 0.02
WEIGHT_RANGE = WEIGHT_STD * 3 ** 0.5
#: ``inner_k_tiles`` of CUDA's int4 packing (tinygemm accepts 2, 4 or 8).
INNER_K_TILES = 8


class Weight:
    """One weight matrix in one format.

    Attributes:
        rows, cols: the matrix is ``rows x cols`` (out x in features).
        fmt: its format; kernel: what ``apply`` runs, for people; fused: whether one kernel
            reads the stored format directly (else a 16-bit copy is made each call).
        nbytes: bytes of the stored tensors (values and scales/zeros).
        apply: ``x [m, cols] -> [m, rows]``.
    """

    def __init__(self, rows, cols, fmt, tensors, apply, kernel, fused):
        self.rows, self.cols, self.fmt = rows, cols, fmt
        self.tensors = tensors
        self.apply = apply
        self.kernel = kernel
        self.fused = fused
        self.nbytes = sum(int(t.numel()) * int(t.element_size()) for t in tensors)


def activation_dtype(torch, device):
    """bf16 where the device runs it, else fp16: the activations of the quantized GEMVs
    (the fused int4 kernels take bf16 only)."""
    if kit.dtype_unsupported(torch, device, torch.bfloat16) is None:
        return torch.bfloat16
    return torch.float16


def make_weight(torch, device, rows: int, cols: int, fmt: str, act_dtype, fused=True):
    """A random ``rows x cols`` matrix stored in ``fmt`` on ``device`` (see the module
    docstring). ``fused=False`` takes the unfused path even where a fused kernel exists
    (tests compare the two). An out-of-memory propagates."""
    if fmt in ("fp16", "bf16", "fp32"):
        dtype = {"fp16": torch.float16, "bf16": torch.bfloat16, "fp32": torch.float32}[fmt]
        w = torch.empty(rows, cols, device=device.id, dtype=dtype)
        w.uniform_(-WEIGHT_RANGE, WEIGHT_RANGE)
        linear = torch.nn.functional.linear
        return Weight(rows, cols, fmt, [w], lambda x: linear(x, w), "F.linear", True)
    if fmt == "int8":
        return _int8(torch, device, rows, cols, act_dtype, fused)
    if fmt == "q4":
        return _q4(torch, device, rows, cols, act_dtype, fused)
    raise ValueError(f"unknown weight format {fmt!r}")


def _works(fn, x) -> bool:
    """Whether ``fn(x)`` runs here (a kernel missing for this device raises)."""
    try:
        fn(x).float().sum().item()
        return True
    except Exception as exc:
        if kit.is_oom(exc):
            raise
        return False


def _int8(torch, device, rows, cols, act_dtype, fused):
    w = torch.randint(-127, 128, (rows, cols), device=device.id, dtype=torch.int8)
    scales = torch.rand(rows, device=device.id, dtype=act_dtype) * (WEIGHT_STD / 64)
    probe = torch.zeros(1, cols, device=device.id, dtype=act_dtype)
    packed_mm = getattr(torch, "_weight_int8pack_mm", None)
    if fused and packed_mm is not None and _works(lambda x: packed_mm(x, w, scales), probe):
        return Weight(rows, cols, "int8", [w, scales], lambda x: packed_mm(x, w, scales),
                      "torch._weight_int8pack_mm", True)
    linear = torch.nn.functional.linear

    def dequantized(x):
        return linear(x, w.to(act_dtype)) * scales

    return Weight(rows, cols, "int8", [w, scales], dequantized,
                  "dequantize to 16 bits, then F.linear (unfused)", False)


def q4_values(torch, device, rows, cols):
    """Random 4-bit values 0..15, as int32 ``rows x cols``."""
    return torch.randint(0, 16, (rows, cols), device=device.id, dtype=torch.int32)


def pack_nibbles(torch, values):
    """``rows x cols`` values 0..15 -> ``rows x cols/2`` uint8: even columns in the high
    nibble, odd in the low (the order CUDA's int4 packing takes)."""
    return ((values[:, ::2] << 4) | values[:, 1::2]).to(torch.uint8)


def unpack_nibbles(torch, packed):
    """The inverse of :func:`pack_nibbles`: ``rows x cols/2`` uint8 -> ``rows x cols``
    int values 0..15."""
    high = (packed >> 4).to(torch.int16)
    low = (packed & 15).to(torch.int16)
    return torch.stack((high, low), dim=-1).reshape(packed.shape[0], -1)


def dequantize_q4(torch, packed, scales, zeros, dtype):
    """``(q - zero) x scale`` per group of :data:`Q4_GROUP` along the columns: the 16-bit
    matrix an unfused 4-bit GEMV multiplies by. ``scales`` and ``zeros`` are
    ``rows x cols/32``."""
    q = unpack_nibbles(torch, packed).to(dtype)
    rows, cols = q.shape
    grouped = q.reshape(rows, cols // Q4_GROUP, Q4_GROUP)
    return ((grouped - zeros.unsqueeze(-1)) * scales.unsqueeze(-1)).reshape(rows, cols)


def _q4(torch, device, rows, cols, act_dtype, fused):
    groups = cols // Q4_GROUP
    values = q4_values(torch, device, rows, cols)
    probe = torch.zeros(1, cols, device=device.id, dtype=torch.bfloat16)
    if fused:
        made = _q4_fused(torch, device, rows, cols, values, groups, probe)
        if made is not None:
            return made
    packed = pack_nibbles(torch, values)
    del values
    scales = torch.rand(rows, groups, device=device.id, dtype=act_dtype) * (WEIGHT_STD / 8)
    zeros = torch.full((rows, groups), 8.0, device=device.id, dtype=act_dtype)
    linear = torch.nn.functional.linear

    def dequantized(x):
        return linear(x, dequantize_q4(torch, packed, scales, zeros, act_dtype))

    return Weight(rows, cols, "q4", [packed, scales, zeros], dequantized,
                  "unpack nibbles, (q - zero) x scale per group of 32, then F.linear "
                  "(unfused)", False)


def _q4_fused(torch, device, rows, cols, values, groups, probe):
    """The fused 4-bit matrix (tinygemm on CUDA, its CPU twin), or ``None`` where this
    torch has neither for the device."""
    scales_zeros = torch.rand(groups, rows, 2, device=device.id, dtype=torch.bfloat16)
    try:
        if device.type == "cpu":
            convert = torch._convert_weight_to_int4pack_for_cpu
            mm = torch._weight_int4pack_mm_for_cpu
            packed = convert(values, 1)
            kernel = "torch._weight_int4pack_mm_for_cpu"
        elif device.type == "cuda":
            convert, mm = torch._convert_weight_to_int4pack, torch._weight_int4pack_mm
            packed = convert(pack_nibbles(torch, values), INNER_K_TILES)
            kernel = "torch._weight_int4pack_mm (tinygemm)"
        else:
            return None
    except Exception as exc:  # no such op, or not for this device or shape
        if kit.is_oom(exc):
            raise
        return None

    def apply(x):
        return mm(x, packed, Q4_GROUP, scales_zeros)

    if not _works(apply, probe):
        return None
    weight = Weight(rows, cols, "q4", [packed, scales_zeros], apply, kernel, True)
    if weight.nbytes != weight_bytes(rows, cols, "q4"):
        # A packing with padding: count what is stored, say so in the kernel's name.
        weight.kernel += f" (stores {weight.nbytes} bytes)"
    return weight
