"""Measured throughput fed back into time estimates (pure: no probes, no files).

A :class:`Measurement` is what a probe measured on the user's own card (or host), reduced
to what the time model needs. The kinds:

``step``
    The training-step probe: forward + backward + optimizer step of transformer blocks under
    the plan's precision. Its achieved TFLOPS times a training plan directly.
``matmul``
    The matmul probe: large matrix products. A 16-bit training plan of a layered model
    runs its kernel model with the measured rate in place of the published matmul fraction
    (:mod:`gpuadvisor.core.parallel.insitu`); a model given by parameter count, which has no
    kernels to time, at ``measured x matmul_to_step`` (an overridable assumption, default
    0.6). Used only when no step measurement at the plan's dtype exists.
``bandwidth``
    Device-memory bandwidth achieved. Decoding (inference) reads every weight and the KV
    cache once per token, so its speed is the memory bandwidth actually achieved: the
    measured rate replaces ``catalog bandwidth x bandwidth_efficiency``. Its ``basis``
    says how it was measured: ``copy`` (the bandwidth probe's device copy, read + write)
    or ``gemv`` (the decode probe: a matrix-vector product reading a weight matrix many
    times the L2 cache once, as a decode step does; ``dtype`` is the weight format read:
    ``fp16``, ``bf16``, ``int8``, ``q4``). Only a GEMV through a fused kernel is a
    bandwidth of the card (an unfused dequantize-then-multiply writes and reads the matrix
    again, so the probe stores no measurement from it).
``decode_loop``
    The plan check of an inference plan: a real decode loop (the plan's layers with
    random weights, the KV cache growing), reported as the bytes a token reads (weights,
    KV cache, LM head) x tokens/s: the bandwidth a whole decode step achieves in eager
    PyTorch, launches, norms and attention included. ``dtype`` is the weight format.
``host_bandwidth``
    The host-memory probe: host RAM read bandwidth with every thread, for CPU-only
    inference and layers left in host RAM (partial offload). ``gpu_id`` is ``None``.

:func:`select` picks, for one GPU and one dtype, the compute measurement (step before
matmul, newest first) and the bandwidth measurement (a 16-bit GEMV before a copy, newest
first) from everything measured; :func:`gpuadvisor.core.estimate.estimate` takes either one
measurement or a list. :func:`decode_bandwidth` answers the inference model's question,
"what bandwidth does decoding reach on this card for this weight format?", and
:func:`host_bandwidth` the same for the host.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass

KINDS = ("step", "matmul", "bandwidth", "decode_loop", "host_bandwidth")
#: Kinds whose figure is a bandwidth (``bandwidth_gb_s``) rather than a compute rate.
BANDWIDTH_KINDS = ("bandwidth", "decode_loop", "host_bandwidth")
#: How a ``bandwidth`` measurement was taken.
BANDWIDTH_BASES = ("copy", "gemv")
#: Weight formats the decode probe measures (see :func:`measured_format`).
WEIGHT_FORMATS = ("fp16", "bf16", "int8", "q4")
#: The formats whose GEMV is the plain (unquantized) read of a 16-bit weight.
NATIVE_FORMATS = ("fp16", "bf16")


@dataclass(frozen=True)
class Measurement:
    """Throughput measured on one GPU.

    Attributes:
        achieved_tflops: ``step``: model FLOPs per second of a whole training step;
            ``matmul``: dense matmul throughput (median over iterations); ``None`` for the
            bandwidth kinds (:data:`BANDWIDTH_KINDS`).
        dtype: the compute dtype (``fp32``, ``tf32``, ``fp16``, ``bf16``, ``fp8``); a compute
            measurement is used only when it equals the dtype the plan is timed at. For a
            ``gemv`` bandwidth and a ``decode_loop``: the weight format read
            (:data:`WEIGHT_FORMATS`); ``None`` for a copy and the host.
        when: when it was measured (UTC ISO 8601, e.g. ``2026-12-02T18:41:27Z``).
        source: where it comes from, for people (``"probe step on NVIDIA H200"``).
        gpu_id: the catalog GPU it was measured on; when given, the measurement is used only
            for that GPU (``None``: the caller vouches for the match).
        kind: one of :data:`KINDS` (see the module docstring).
        bandwidth_gb_s: the bandwidth kinds: the measured rate (GB/s = 1e9 B/s).
        shape: ``step`` and ``decode_loop``: the shape it was measured at, for people
            (``"hidden 2048, seq 1024, micro-batch 1"``).
        basis: ``bandwidth`` only: ``copy`` (the default) or ``gemv``.
    """

    achieved_tflops: float | None
    dtype: str | None
    when: str
    source: str = "probe"
    gpu_id: str | None = None
    kind: str = "matmul"
    bandwidth_gb_s: float | None = None
    shape: str | None = None
    basis: str | None = None

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"kind must be one of {', '.join(KINDS)}, got {self.kind!r}")
        if self.kind == "bandwidth":
            if self.basis is None:
                object.__setattr__(self, "basis", "copy")
            if self.basis not in BANDWIDTH_BASES:
                raise ValueError(f"basis must be one of {', '.join(BANDWIDTH_BASES)}, got "
                                 f"{self.basis!r}")
        elif self.basis is not None:
            raise ValueError(f"basis is for bandwidth measurements, not {self.kind}")
        if self.kind in BANDWIDTH_KINDS:
            _check_positive("bandwidth_gb_s", self.bandwidth_gb_s)
            if ((self.kind == "decode_loop" or self.basis == "gemv")
                    and self.dtype not in WEIGHT_FORMATS):
                raise ValueError(f"a {self.basis if self.kind == 'bandwidth' else self.kind} "
                                 f"measurement needs its weight format, one of "
                                 f"{', '.join(WEIGHT_FORMATS)}; got {self.dtype!r}")
        else:
            _check_positive("achieved_tflops", self.achieved_tflops)
            if not isinstance(self.dtype, str) or not self.dtype:
                raise ValueError(f"a {self.kind} measurement needs its dtype")

    @property
    def date(self) -> str:
        """The day it was measured (``YYYY-MM-DD``), or ``when`` as given."""
        return self.when[:10]


def _check_positive(name: str, value) -> None:
    if (isinstance(value, bool) or not isinstance(value, int | float) or not value > 0
            or not math.isfinite(value)):
        raise ValueError(f"{name} must be a positive finite number, got {value!r}")


def select(measurements: Iterable[Measurement], gpu_id: str | None, dtype: str
           ) -> tuple[Measurement | None, Measurement | None]:
    """The measurements that time a plan at ``dtype`` on ``gpu_id``.

    Returns:
        ``(compute, bandwidth)``: the newest ``step`` measurement at ``dtype``, else the
        newest ``matmul`` one (``None`` if neither); and the newest ``bandwidth`` one read
        from a 16-bit GEMV (:data:`NATIVE_FORMATS`: what an unquantized decode step reads;
        at ``dtype`` where measured, else the other 16-bit format), else the newest device
        copy. Measurements of another GPU (``gpu_id`` set and
        different) are skipped.
    """
    usable = [m for m in measurements if m.gpu_id is None or m.gpu_id == gpu_id]
    newest_first = sorted(usable, key=lambda m: m.when, reverse=True)
    compute = next((m for m in newest_first if m.kind == "step" and m.dtype == dtype), None)
    if compute is None:
        compute = next((m for m in newest_first if m.kind == "matmul" and m.dtype == dtype),
                       None)
    gemv = [m for m in newest_first if m.kind == "bandwidth" and m.basis == "gemv"
            and m.dtype in NATIVE_FORMATS]
    bandwidth = next((m for m in gemv if m.dtype == dtype), gemv[0] if gemv else None)
    if bandwidth is None:
        bandwidth = next((m for m in newest_first if m.kind == "bandwidth"
                          and m.basis == "copy"), None)
    return compute, bandwidth


# --------------------------------------------------------------------------- decoding
#: Weight formats (plan quantizations, GGUF file types, dtypes) read like one byte per weight.
_ONE_BYTE = frozenset({"int8", "q8_0", "fp8", "f8", "e4m3", "e5m2"})
#: 16-bit formats by name.
_SIXTEEN_BIT = {"none": "fp16", "fp16": "fp16", "f16": "fp16", "half": "fp16",
                "bf16": "bf16", "fp32": "fp16", "f32": "fp16", "tf32": "fp16"}
_BLOCK_QUANT_PREFIXES = ("q2", "q3", "q4", "q5", "q6", "iq", "tq", "nf4", "int4", "int3",
                         "mxfp4", "nvfp4", "fp4", "exl2", "gptq", "awq")


def measured_format(weight_format: str) -> str:
    """The format the decode probe measures that stands for ``weight_format``.

    ``none``/``fp16``/``f16`` (and ``fp32``, whose GEMV the probe does not time) ->
    ``fp16``; ``bf16`` -> ``bf16``; one byte per weight (``int8``, ``q8_0``, ``fp8``) ->
    ``int8``; a block quantization of 2 to 6 bits (``nf4``, ``int4``, ``mxfp4``, GGUF
    ``q2_k`` ... ``q6_k``, ``iq*``, ``exl2``, GPTQ/AWQ) -> ``q4``: their kernels do the same
    kind of work per byte read (unpack a few bits, scale per block), so the measured 4-bit
    GEMV is the nearest measured rate.

    Raises:
        ValueError: a name that is none of these.
    """
    name = str(weight_format).strip().lower()
    if name in WEIGHT_FORMATS:
        return name
    if name in _SIXTEEN_BIT:
        return _SIXTEEN_BIT[name]
    if name in _ONE_BYTE:
        return "int8"
    if name.startswith(_BLOCK_QUANT_PREFIXES):
        return "q4"
    raise ValueError(f"weight format: {weight_format!r} is not a dtype or quantization the "
                     "decode probe stands for (fp16, bf16, int8, q8_0, nf4, q4_k_m, ...)")


@dataclass(frozen=True)
class DecodeBandwidth:
    """The bandwidth decoding reaches on one card for one weight format, and its origin.

    Attributes:
        bandwidth_gb_s: achieved bytes per second reading the weights (GB/s = 1e9 B/s);
            use it in place of ``catalog bandwidth x an assumed fraction``.
        weight_format: the format asked for, as :func:`measured_format` reads it.
        measured_format: the format measured; a 16-bit GEMV stands for a format not
            measured (then it differs from ``weight_format``).
        basis: ``gemv`` (the decode probe), ``decode_loop`` (a plan check's decode loop)
            or ``copy`` (the bandwidth probe's device copy).
        measurement: the measurement it comes from.
        note: for people: what was measured, when, and what stands for what.
    """

    bandwidth_gb_s: float
    weight_format: str
    measured_format: str
    basis: str
    measurement: Measurement
    note: str


#: The order :func:`decode_bandwidth` looks in by default: the kernel's ceiling first.
DECODE_ORDER = ("gemv", "decode_loop", "copy")


def _basis(m: Measurement) -> str:
    return m.basis if m.kind == "bandwidth" and m.basis else m.kind


def decode_bandwidth(measurements: Iterable[Measurement], gpu_id: str | None,
                     weight_format: str, order: tuple[str, ...] = DECODE_ORDER
                     ) -> DecodeBandwidth | None:
    """The measured bandwidth to time decoding of ``weight_format`` weights on ``gpu_id``.

    Looks through ``order`` (each of ``gemv``, ``decode_loop``, ``copy``) and takes the
    newest measurement of the first basis that has one: for ``gemv`` and ``decode_loop``
    at the format itself (:func:`measured_format`), and for ``gemv`` then at a 16-bit
    format (:data:`NATIVE_FORMATS`) standing for an unmeasured one. A measurement of
    another GPU (``gpu_id`` set and different) is skipped.

    An engine whose kernels are fused and launched without gaps (llama.cpp, vLLM, MLX)
    is nearest the ``gemv`` ceiling (the default order); one that runs eager PyTorch
    (``transformers``) is nearest its own ``decode_loop``: pass
    ``order=("decode_loop", "gemv", "copy")``.

    Returns:
        A :class:`DecodeBandwidth`, or ``None`` when nothing applicable was measured.

    Raises:
        ValueError: an unknown weight format or basis.
    """
    fmt = measured_format(weight_format)
    unknown = [b for b in order if b not in DECODE_ORDER]
    if unknown:
        raise ValueError(f"order: unknown basis {unknown[0]!r}; known: "
                         f"{', '.join(DECODE_ORDER)}")
    usable = [m for m in measurements if m.kind in ("bandwidth", "decode_loop")
              and (m.gpu_id is None or m.gpu_id == gpu_id)]
    newest_first = sorted(usable, key=lambda m: m.when, reverse=True)
    for basis in order:
        of_basis = [m for m in newest_first if _basis(m) == basis]
        found = next((m for m in of_basis if basis == "copy" or m.dtype == fmt), None)
        if found is None and basis == "gemv":
            found = next((m for m in of_basis if m.dtype in NATIVE_FORMATS), None)
        if found is not None:
            return _decode_bandwidth(found, fmt, basis)
    return None


def _decode_bandwidth(m: Measurement, fmt: str, basis: str) -> DecodeBandwidth:
    measured = m.dtype if basis != "copy" else "copy"
    what = {"gemv": f"{m.dtype} GEMV", "decode_loop": f"{m.dtype} decode loop",
            "copy": "device copy"}[basis]
    note = f"measured {what} {m.date} ({m.source})"
    if basis != "copy" and measured != fmt:
        note += f"; {fmt} was not measured, the {m.dtype} GEMV stands for it"
    return DecodeBandwidth(bandwidth_gb_s=float(m.bandwidth_gb_s), weight_format=fmt,
                           measured_format=measured, basis=basis, measurement=m, note=note)


def host_bandwidth(measurements: Iterable[Measurement]) -> Measurement | None:
    """The newest host-memory measurement (``host_bandwidth``), or ``None``: the rate to
    time weights read from host RAM (CPU-only inference, layers not offloaded to a GPU)."""
    hosts = [m for m in measurements if m.kind == "host_bandwidth"]
    return max(hosts, key=lambda m: m.when) if hosts else None


__all__ = ["BANDWIDTH_BASES", "BANDWIDTH_KINDS", "DECODE_ORDER", "KINDS", "NATIVE_FORMATS",
           "WEIGHT_FORMATS", "DecodeBandwidth", "Measurement", "decode_bandwidth",
           "host_bandwidth", "measured_format", "select"]


def achieved_tflops(measured: Measurement, assumptions) -> float:
    """The achieved training throughput a compute measurement stands for: a ``step`` as
    measured, a ``matmul`` times ``assumptions.matmul_to_step`` (models without layers)."""
    if measured.kind == "step":
        return float(measured.achieved_tflops)
    return float(measured.achieved_tflops) * assumptions.matmul_to_step
