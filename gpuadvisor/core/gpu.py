"""GPU specifications: one frozen record per catalog GPU, validated on construction.

Units are in the field names. Memory capacity is binary (``memory_gib``: the "GB" vendors print
for VRAM is GiB, so an RTX 4090 has 24 GiB); bandwidths are decimal GB/s (10**9 bytes per second);
compute rates are dense TFLOPS (10**12 FLOP per second, no 2:4 structured sparsity).

Which rate counts as "the" FP16 rate matters for training estimates: PyTorch matmuls in fp16/bf16
accumulate in FP32, and GeForce cards run FP32-accumulate matrix math at half the FP16-accumulate
rate NVIDIA headlines. ``fp16_tensor_tflops`` is therefore always the FP32-accumulate rate; the
GeForce headline figure is kept separately in ``fp16_acc16_tensor_tflops`` so the difference is
visible, and is never used by the estimator.

This module is pure: no I/O, no imports from outside ``gpuadvisor.core``.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from typing import Protocol, TypeVar

VENDORS = frozenset({"nvidia", "amd", "apple", "intel"})
"""Allowed values of :attr:`GpuSpec.vendor`."""

SEGMENTS = frozenset({"consumer", "workstation", "datacenter", "soc"})
"""Allowed values of :attr:`GpuSpec.segment`.

``soc`` is a GPU inside a system-on-chip sharing memory with the CPU (Apple M-series). It is not
called ``laptop-soc`` because the same chips ship in desktops (Mac Studio, Mac Pro).
"""

ECOSYSTEMS = frozenset({"cuda", "rocm", "mps", "xpu", "gaudi"})
"""Allowed values of :attr:`GpuSpec.ecosystem` (the PyTorch backend family)."""

P2P_LINKS = frozenset(
    {
        "none",
        "nvlink2",
        "nvlink3",
        "nvlink4",
        "nvlink5",
        "nvlink-bridge",
        "infinity-fabric",
        "xe-link",
        "roce",
        "unified",
    }
)
"""Allowed values of :attr:`GpuSpec.p2p_link`.

``nvlink-bridge`` is a 2-way (or 4-way) bridge between PCIe cards; ``roce`` is the RDMA over
Converged Ethernet ports integrated in Intel Gaudi; ``unified`` marks an SoC whose GPU shares one
memory with the CPU and has no GPU-to-GPU link at all.
"""

DTYPES = ("fp32", "tf32", "fp16", "bf16", "fp8")
"""Dtypes accepted by :meth:`GpuSpec.peak_tflops`."""

PCIE_GB_S_PER_LANE = {3: 0.985, 4: 1.969, 5: 3.938, 6: 7.563}
"""Per-direction PCIe throughput per lane in GB/s after line encoding, by PCIe generation."""

PCIE_LANE_COUNTS = frozenset({1, 2, 4, 8, 16})
"""Allowed values of :attr:`GpuSpec.pcie_lanes`."""

_ID_RE = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")
_COMPUTE_CAPABILITY_RE = re.compile(r"^\d+\.\d+$")
_GFX_TARGET_RE = re.compile(r"^gfx[0-9a-f]+$")


class SpecFieldError(ValueError):
    """A ``ValueError`` that says which field of a spec record is wrong.

    Attributes:
        field: Name of the offending field, as written in the catalog.
    """

    def __init__(self, field_name: str, message: str) -> None:
        super().__init__(f"{field_name}: {message}")
        self.field = field_name


@dataclass(frozen=True, kw_only=True)
class GpuSpec:
    """Published specifications of one GPU model (one catalog entry).

    All compute rates are dense (no sparsity) peak figures in TFLOPS; ``None`` means the hardware
    has no such mode. Integer inputs for float fields are accepted and stored as floats.

    Attributes:
        id: Kebab-case catalog key, e.g. ``"rtx-4090"``.
        name: Marketing name, e.g. ``"NVIDIA GeForce RTX 4090"``.
        vendor: One of :data:`VENDORS`.
        segment: One of :data:`SEGMENTS`.
        architecture: Architecture name, e.g. ``"Ada Lovelace"``.
        ecosystem: One of :data:`ECOSYSTEMS`.
        launch_year: Year the product launched.
        memory_gib: Device memory in GiB (for SoCs: the unified memory of the listed config).
        memory_type: Memory technology, e.g. ``"GDDR6X"``.
        memory_bandwidth_gb_s: Peak memory bandwidth in decimal GB/s.
        fp32_tflops: Peak non-matrix FP32 rate.
        tf32_tensor_tflops: Matrix-unit TF32 rate, ``None`` without TF32.
        fp16_tensor_tflops: Matrix-unit FP16 rate with FP32 accumulate (the rate training sees);
            for GPUs without matrix units the FP16 vector rate.
        bf16_tensor_tflops: Matrix-unit BF16 rate with FP32 accumulate, ``None`` without
            hardware bf16.
        fp8_tensor_tflops: Matrix-unit FP8 rate (FP32 accumulate where vendors distinguish),
            ``None`` without FP8.
        fp16_acc16_tensor_tflops: GeForce only: the FP16-accumulate headline rate.
        int8_tensor_tops: Matrix-unit dense INT8 rate in TOPS (INT32 accumulate; on GeForce
            the rate NVIDIA headlines, which is not halved), ``None`` when unknown or absent.
        tdp_w: Board/module power in watts.
        pcie_gen: PCIe generation of the host link, ``None`` for SoCs.
        pcie_lanes: PCIe lane count of the host link, ``None`` for SoCs.
        p2p_link: GPU-to-GPU link kind, one of :data:`P2P_LINKS`.
        p2p_bandwidth_gb_s: GPU-to-GPU bandwidth per GPU, bidirectional aggregate as vendors
            quote it; ``None`` when there is no link.
        compute_capability: CUDA compute capability (NVIDIA only, required there), e.g. ``"8.9"``.
        gfx_target: LLVM gfx target (AMD only, required there), e.g. ``"gfx942"``.
        unified_memory: ``True`` when the GPU shares memory with the CPU (Apple).
        gpu_cores: GPU cores as Apple counts them (``system_profiler`` "Total Number of
            Cores"), telling apart variants of one chip that drivers name alike; ``None``
            elsewhere.
        sm_count: NVIDIA streaming multiprocessors (the units a kernel's thread blocks are
            scheduled on): a grid of fewer blocks than SMs leaves some idle (wave
            quantization, :mod:`.parallel.gemm`). ``None`` when not recorded.
        aliases: Device names as drivers report them, for detection matching.
        reported_memory_mib: The total the driver reports (``nvidia-smi``'s ``Memory-Usage``
            denominator, NVML ``memory.total``), MiB; ``None`` when not recorded.
        cuda_memory_mib: The total CUDA reports (``cudaMemGetInfo`` / torch's
            ``total_memory``, vLLM's ``total_gpu_memory``), MiB: all a process can
            allocate; ``None`` when not recorded.
        memory_report_source: Where the two reported totals come from.
        stream_read_gb_s: A published measurement of the card's own streaming read rate
            (clpeak's global memory bandwidth, gpu-stream's read kernel), GB/s; ``None``
            where none was found (the engines use their GPU class's share of the
            datasheet).
        stream_read_source: Where that measurement was published.
        ecc_enabled: The card's ECC mode as its driver reported it (detection, NVML);
            ``None`` for a catalog card, which takes its default (:func:`inline_ecc`).
        source: Where the figures come from (document name and URL).
        notes: Caveats, derivations and uncertain figures.
    """

    id: str
    name: str
    vendor: str
    segment: str
    architecture: str
    ecosystem: str
    launch_year: int
    memory_gib: float
    memory_type: str
    memory_bandwidth_gb_s: float
    fp32_tflops: float
    tf32_tensor_tflops: float | None = None
    fp16_tensor_tflops: float
    bf16_tensor_tflops: float | None = None
    fp8_tensor_tflops: float | None = None
    fp16_acc16_tensor_tflops: float | None = None
    int8_tensor_tops: float | None = None
    tdp_w: float
    pcie_gen: int | None = None
    pcie_lanes: int | None = None
    p2p_link: str = "none"
    p2p_bandwidth_gb_s: float | None = None
    compute_capability: str | None = None
    gfx_target: str | None = None
    unified_memory: bool = False
    gpu_cores: int | None = None
    sm_count: int | None = None
    aliases: tuple[str, ...] = field(default_factory=tuple)
    reported_memory_mib: float | None = None
    cuda_memory_mib: float | None = None
    memory_report_source: str = ""
    stream_read_gb_s: float | None = None
    stream_read_source: str = ""
    ecc_enabled: bool | None = None
    source: str
    notes: str = ""

    def __post_init__(self) -> None:
        """Coerce numeric fields to float and check every field; raise :class:`SpecFieldError`."""
        self._check_identity()
        self._coerce_and_check_numbers()
        self._check_links()
        self._check_vendor_specifics()

    # -- validation -------------------------------------------------------------------------

    def _check_identity(self) -> None:
        if not isinstance(self.id, str) or not _ID_RE.match(self.id):
            raise SpecFieldError("id", f"must be kebab-case like 'rtx-4090', got {self.id!r}")
        for name in ("name", "architecture", "memory_type", "source"):
            _require_text(name, getattr(self, name))
        _require_choice("vendor", self.vendor, VENDORS)
        _require_choice("segment", self.segment, SEGMENTS)
        _require_choice("ecosystem", self.ecosystem, ECOSYSTEMS)
        if not isinstance(self.notes, str):
            raise SpecFieldError("notes", "must be a string")
        aliases = self.aliases
        if isinstance(aliases, str) or not all(isinstance(a, str) and a for a in aliases):
            raise SpecFieldError("aliases", "must be a sequence of non-empty strings")
        object.__setattr__(self, "aliases", tuple(aliases))
        if not isinstance(self.unified_memory, bool):
            raise SpecFieldError("unified_memory", "must be true or false")
        if self.ecc_enabled is not None and not isinstance(self.ecc_enabled, bool):
            raise SpecFieldError("ecc_enabled", "must be true, false or absent")
        if isinstance(self.launch_year, bool) or not isinstance(self.launch_year, int):
            raise SpecFieldError("launch_year", "must be an integer year")
        for name in ("gpu_cores", "sm_count"):
            count = getattr(self, name)
            if count is not None and (isinstance(count, bool) or not isinstance(count, int)
                                      or count < 1):
                raise SpecFieldError(name, f"must be a positive integer, got {count!r}")

    def _coerce_and_check_numbers(self) -> None:
        for name in ("memory_gib", "memory_bandwidth_gb_s", "fp32_tflops", "fp16_tensor_tflops"):
            object.__setattr__(self, name, _positive_float(name, getattr(self, name)))
        object.__setattr__(self, "tdp_w", _positive_float("tdp_w", self.tdp_w))
        for name in ("reported_memory_mib", "cuda_memory_mib"):
            value = getattr(self, name)
            if value is not None:
                value = _positive_float(name, value)
                if value > self.memory_gib * 1024 * 1.05:
                    raise SpecFieldError(name, f"{value:g} MiB is more than memory_gib "
                                               f"{self.memory_gib:g} GiB")
                object.__setattr__(self, name, value)
        if (self.reported_memory_mib or self.cuda_memory_mib) and not self.memory_report_source:
            raise SpecFieldError("memory_report_source", "name where the reported totals "
                                                         "come from")
        if self.stream_read_gb_s is not None:
            value = _positive_float("stream_read_gb_s", self.stream_read_gb_s)
            if value > self.memory_bandwidth_gb_s * 1.05:
                raise SpecFieldError("stream_read_gb_s", f"{value:g} GB/s is more than the "
                                     f"datasheet's {self.memory_bandwidth_gb_s:g}")
            object.__setattr__(self, "stream_read_gb_s", value)
            if not self.stream_read_source:
                raise SpecFieldError("stream_read_source", "name where the measurement "
                                                           "was published")
        for name in (
            "tf32_tensor_tflops",
            "bf16_tensor_tflops",
            "fp8_tensor_tflops",
            "fp16_acc16_tensor_tflops",
            "int8_tensor_tops",
            "p2p_bandwidth_gb_s",
        ):
            value = getattr(self, name)
            if value is not None:
                object.__setattr__(self, name, _positive_float(name, value))

    def _check_links(self) -> None:
        if (self.pcie_gen is None) != (self.pcie_lanes is None):
            raise SpecFieldError("pcie_lanes", "pcie_gen and pcie_lanes are set together or not")
        if self.pcie_gen is not None:
            _require_choice("pcie_gen", self.pcie_gen, frozenset(PCIE_GB_S_PER_LANE))
            _require_choice("pcie_lanes", self.pcie_lanes, PCIE_LANE_COUNTS)
        _require_choice("p2p_link", self.p2p_link, P2P_LINKS)
        has_bandwidth = self.p2p_bandwidth_gb_s is not None
        if self.p2p_link in ("none", "unified") and has_bandwidth:
            raise SpecFieldError(
                "p2p_bandwidth_gb_s", f"must be absent when p2p_link is {self.p2p_link!r}"
            )
        if self.p2p_link not in ("none", "unified") and not has_bandwidth:
            raise SpecFieldError(
                "p2p_bandwidth_gb_s", f"is required for p2p_link {self.p2p_link!r}"
            )
        if self.unified_memory != (self.p2p_link == "unified"):
            raise SpecFieldError("unified_memory", "is true exactly when p2p_link is 'unified'")
        if self.unified_memory and self.pcie_gen is not None:
            raise SpecFieldError("pcie_gen", "must be absent for a unified-memory SoC")

    def _check_vendor_specifics(self) -> None:
        cc = self.compute_capability
        if self.vendor == "nvidia":
            if not isinstance(cc, str) or not _COMPUTE_CAPABILITY_RE.match(cc):
                raise SpecFieldError("compute_capability", "NVIDIA GPUs need one, like '8.9'")
        elif cc is not None:
            raise SpecFieldError("compute_capability", "is only for NVIDIA GPUs")
        gfx = self.gfx_target
        if self.vendor == "amd":
            if not isinstance(gfx, str) or not _GFX_TARGET_RE.match(gfx):
                raise SpecFieldError("gfx_target", "AMD GPUs need one, like 'gfx942'")
        elif gfx is not None:
            raise SpecFieldError("gfx_target", "is only for AMD GPUs")
        acc16 = self.fp16_acc16_tensor_tflops
        if acc16 is not None:
            if (self.vendor, self.segment) != ("nvidia", "consumer"):
                raise SpecFieldError("fp16_acc16_tensor_tflops", "is only for GeForce cards")
            if acc16 < self.fp16_tensor_tflops:
                raise SpecFieldError(
                    "fp16_acc16_tensor_tflops", "cannot be below fp16_tensor_tflops"
                )

    # -- derived figures --------------------------------------------------------------------

    @property
    def memory_bytes(self) -> int:
        """Device memory in bytes: ``memory_gib * 2**30``, rounded to an integer."""
        return round(self.memory_gib * 2**30)

    @property
    def usable_bytes(self) -> int:
        """What a process can allocate on this card, bytes (see :func:`usable_memory`)."""
        return usable_memory(self)[0]

    @property
    def usable_source(self) -> str:
        """Where :attr:`usable_bytes` comes from, for people."""
        return usable_memory(self)[1]

    @property
    def intel_xe(self) -> str | None:
        """An Intel Arc GPU's Xe generation as its architecture names it (``Xe2`` for
        Battlemage, ``Xe`` for Alchemist), None for other cards (Gaudi included)."""
        if self.vendor != "intel" or not self.architecture.startswith("Xe"):
            return None
        return self.architecture.split("-")[0]

    @property
    def cc_number(self) -> float:
        """The CUDA compute capability as a number (``8.9``), 0 where there is none."""
        return float(self.compute_capability) if self.compute_capability else 0.0

    def peak_tflops(self, dtype: str) -> float | None:
        """Dense peak matrix rate for a training/inference dtype, in TFLOPS.

        Args:
            dtype: One of :data:`DTYPES`.

        Returns:
            ``fp32``: the FP32 vector rate. ``tf32``: the TF32 matrix rate, or the FP32 vector
            rate where the GPU has no TF32 (FP32 matmuls then run on the vector units).
            ``fp16``: the FP16 matrix rate with FP32 accumulate. ``bf16`` and ``fp8``: the matrix
            rate, or ``None`` where the hardware lacks the format; there is no silent fallback,
            the caller decides (e.g. emulate bf16, or refuse the plan).

        Raises:
            ValueError: If ``dtype`` is not one of :data:`DTYPES`.
        """
        if dtype == "fp32":
            return self.fp32_tflops
        if dtype == "tf32":
            tf32 = self.tf32_tensor_tflops
            return tf32 if tf32 is not None else self.fp32_tflops
        if dtype == "fp16":
            return self.fp16_tensor_tflops
        if dtype == "bf16":
            return self.bf16_tensor_tflops
        if dtype == "fp8":
            return self.fp8_tensor_tflops
        raise ValueError(f"dtype: expected one of {', '.join(DTYPES)}, got {dtype!r}")

    @property
    def pcie_bandwidth_gb_s(self) -> float | None:
        """Per-direction host-link throughput in GB/s: lanes × per-lane rate of the generation.

        Uses :data:`PCIE_GB_S_PER_LANE` (after 128b/130b encoding; gen6 after FLIT overhead),
        e.g. gen4 x16 = 16 × 1.969 = 31.5 GB/s. ``None`` without PCIe (SoCs).
        """
        if self.pcie_gen is None or self.pcie_lanes is None:
            return None
        return PCIE_GB_S_PER_LANE[self.pcie_gen] * self.pcie_lanes

    @property
    def interconnect_bandwidth_gb_s(self) -> float | None:
        """Per-direction GPU-to-GPU bandwidth in GB/s for the multi-GPU model.

        With a peer link (NVLink, bridge, Infinity Fabric, RoCE): ``p2p_bandwidth_gb_s / 2``,
        because vendors quote the bidirectional aggregate. Otherwise the PCIe per-direction rate
        (:attr:`pcie_bandwidth_gb_s`). That is optimistic for consumer cards, whose peer traffic
        often goes through host memory (P2P disabled by the driver) and reaches a fraction of
        it; the estimator's efficiency factor is where that belongs, not this formula. ``None``
        when the GPU has neither (SoCs).
        """
        if self.p2p_bandwidth_gb_s is not None:
            return self.p2p_bandwidth_gb_s / 2
        return self.pcie_bandwidth_gb_s



# -- the cards of a rig -------------------------------------------------------------------------
class DetectedCard(Protocol):
    """What :func:`smallest_card` reads of a detected card (``hardware.GpuInfo`` has it)."""

    index: int
    memory_total_bytes: int | None

    @property
    def is_training_gpu(self) -> bool:
        """Whether plans may use the card (not integrated, still answering)."""
        ...


CardT = TypeVar("CardT", bound=DetectedCard)


def smallest_card(gpus: Iterable[CardT]) -> CardT | None:
    """The training card with the least memory (multi-GPU plans size for it), or ``None``.

    Integrated and lost cards, and cards whose memory is unknown, are skipped; ties go to the
    lower index.
    """
    usable = [g for g in gpus if g.is_training_gpu and g.memory_total_bytes is not None]
    if not usable:
        return None
    return min(usable, key=lambda g: (g.memory_total_bytes, g.index))

def _require_text(name: str, value: object) -> None:
    if not isinstance(value, str) or not value.strip():
        raise SpecFieldError(name, "must be a non-empty string")


def _require_choice(name: str, value: object, allowed: frozenset) -> None:
    if isinstance(value, bool) or value not in allowed:
        choices = ", ".join(sorted(str(v) for v in allowed))
        raise SpecFieldError(name, f"must be one of {choices}; got {value!r}")


def _positive_float(name: str, value: object) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise SpecFieldError(name, f"must be a number, got {value!r}")
    number = float(value)
    if not math.isfinite(number) or number <= 0:
        raise SpecFieldError(name, f"must be a positive finite number, got {value!r}")
    return number


#: CUDA's total below the driver's (MiB) on the cards where both were printed: the memory the
#: driver keeps for itself (page tables, its own allocations) and no process can allocate.
#: (NVML/nvidia-smi total, CUDA total), with the sources:
CUDA_BELOW_DRIVER = {
    # nvidia-smi 24576MiB (noonghunna/club-3090#390); vLLM "total_gpu_memory=23.58GiB"
    # (vllm-project/vllm#10517, 0.6.4)
    "rtx-3090": (24576.0, 23.58 * 1024),
    # nvidia-smi 81559MiB (NVIDIA/nccl#1264); vLLM "total_gpu_memory (79.22GiB)"
    # (vllm-project/vllm PR #10511 and #12126, H100 80GB)
    "h100-sxm": (81559.0, 79.22 * 1024),
    # nvidia-smi 40960MiB (modal-labs/modal-client#2797); deviceQuery "40339 MBytes
    # (42298834944 bytes)" (bottlerocket-os/bottlerocket#3873)
    "a100-sxm-40gb": (40960.0, 42298834944 / 2**20),
    # nvidia-smi 183359MiB (NVIDIA/TensorRT-LLM#10278); cudaDeviceProp "178.35 GB" (GiB,
    # pytorch/ao#4002)
    "b200": (183359.0, 178.35 * 1024),
    # nvidia-smi 97871MiB (NVIDIA/apex#1833); torch "total_memory=96768MB" (MiB,
    # stas00/ml-engineering#60)
    "gh200": (97871.0, 96768.0),
}
#: The driver's share where a card's CUDA total was not printed: the median of
#: :data:`CUDA_BELOW_DRIVER` (430, 438, 621, 729, 1103 MiB -> 621 MiB).
DRIVER_RESERVE_MIB = sorted(a - c for a, c in CUDA_BELOW_DRIVER.values())[
    len(CUDA_BELOW_DRIVER) // 2]
#: Inline ECC on GDDR datacenter cards (T4, A10, A10G, L4, L40S, A40: on by default) keeps
#: one part in 16 for check bits: T4 15360 of 16384 MiB, L4 23034 and A10/A10G 23028 of
#: 24576, L40S 46068 of 49152 (nvidia-smi totals, modal-labs/modal-client#2797).
INLINE_ECC_SHARE = 1.0 / 16.0
#: What inline ECC costs a streaming read (decode's weight and KV-cache reads): the check
#: bits are a sixteenth of the data (:data:`INLINE_ECC_SHARE`) and travel the same bus, so of
#: every 17 bytes read 16 are data: the loss is 1/17 (5.9%). Cross-check on twins (the same
#: chip and memory with ECC on by default and off by default), llama-bench tg512 of one build
#: on RunPod (XiongjieDai/GPU-Benchmarks-on-LLM-Inference @aa72e0ec, May 2024), tokens/s
#: per datasheet GB/s of A40 over RTX A6000 and L40S over RTX 6000 Ada: Llama 3 8B F16 0.929
#: and 0.928, 8B Q4_K_M 0.956 and 0.962, 70B Q4_K_M (L40S) 0.931; mean 0.941 = 16/17.
#: NVIDIA's CUDA C++ Best Practices Guide ("Theoretical Bandwidth Calculation") gives
#: "approximately 20%" for memory transactions in general, "higher" depending on the access
#: pattern: scattered accesses fetch check bits they do not share; streams share them.
INLINE_ECC_BANDWIDTH_LOSS = 1.0 / 17.0


def ecc_is_inline(gpu: GpuSpec) -> bool:
    """Whether ``gpu`` keeps its ECC check bits in its own DRAM when ECC is on: NVIDIA cards
    with GDDR memory (HBM and unified memory keep them apart)."""
    return gpu.vendor == "nvidia" and gpu.memory_type.upper().startswith("GDDR")


def inline_ecc(gpu: GpuSpec) -> tuple[bool, str]:
    """``(whether gpu's memory carries inline ECC now, why)``: a card whose ECC is inline
    (:func:`ecc_is_inline`) with ECC on: the mode the driver reported where detection read
    it (``ecc_enabled``), else the card's default: on for datacenter cards, off for GeForce
    and workstation cards (workstation cards can turn it on)."""
    if not ecc_is_inline(gpu):
        return False, "no inline ECC (not NVIDIA GDDR memory)"
    if gpu.ecc_enabled is not None:
        return gpu.ecc_enabled, f"ECC {'on' if gpu.ecc_enabled else 'off'} (the driver's mode)"
    on = gpu.segment == "datacenter"
    return on, f"ECC {'on' if on else 'off'} (the {gpu.segment} card's default)"


def ecc_read_share(gpu: GpuSpec) -> tuple[float, str]:
    """``(share of its ECC-off bandwidth gpu reads at, why)``: 1 less
    :data:`INLINE_ECC_BANDWIDTH_LOSS` where inline ECC is on (:func:`inline_ecc`), else 1.
    The class and kernel figures it scales were measured with ECC off: an A40 read 0.977 of
    its datasheet rate, more than a card fetching check bits with every transaction can."""
    on, why = inline_ecc(gpu)
    if not on:
        return 1.0, why
    return 1.0 - INLINE_ECC_BANDWIDTH_LOSS, (
        f"{why}: the check bits, 1/16 of the data, share the bus: a streaming read keeps "
        "16 of every 17 bytes")


def usable_memory(gpu: GpuSpec) -> tuple[int, str]:
    """``(bytes, source)``: what a process can allocate on ``gpu``.

    NVIDIA: CUDA's total where the catalog records it; else the driver's reported total
    less :data:`DRIVER_RESERVE_MIB`; else the nominal size less inline ECC's share where it is on
    (:func:`inline_ecc`, :data:`INLINE_ECC_SHARE`) and the driver's reserve. Other vendors and
    unified memory: the nominal size (no reported totals recorded; Apple's wired share is
    the engines' own rule); NVIDIA's unified GB10 reports CUDA's total (the OS's MemTotal).
    """
    if gpu.vendor != "nvidia" or (gpu.unified_memory and not gpu.cuda_memory_mib):
        return gpu.memory_bytes, "the nominal size"
    if gpu.cuda_memory_mib:
        seen = gpu.memory_report_source
        return round(gpu.cuda_memory_mib * 2**20), (
            f"CUDA's total, {gpu.cuda_memory_mib:,.0f} MiB"
            + (f", as {seen} showed" if seen.startswith("your ") else ""))
    reserve = f"less the driver's {DRIVER_RESERVE_MIB:.0f} MiB"
    if gpu.reported_memory_mib:
        mib = gpu.reported_memory_mib - DRIVER_RESERVE_MIB
        return round(mib * 2**20), (f"the driver's total {gpu.reported_memory_mib:,.0f} MiB "
                                    f"{reserve}")
    mib = gpu.memory_gib * 1024
    how = f"{gpu.memory_gib:g} GiB"
    if inline_ecc(gpu)[0]:
        mib *= 1.0 - INLINE_ECC_SHARE
        how += " less inline ECC's 1/16"
    return round((mib - DRIVER_RESERVE_MIB) * 2**20), f"{how} {reserve}"


def with_reported_memory(gpu: GpuSpec, total_bytes: float, source: str, **changes) -> GpuSpec:
    """``gpu`` as a detected card whose driver reports ``total_bytes``: its memory is that
    total, and what a process can allocate follows from it (:func:`usable_memory`). The
    catalog's CUDA total is kept only when the driver reports the catalog's total."""
    mib = float(total_bytes) / 2**20
    if gpu.vendor == "nvidia" and gpu.unified_memory:
        # GB10: the total detection found is CUDA's own (the OS's MemTotal)
        return replace(gpu, memory_gib=float(total_bytes) / 2**30, cuda_memory_mib=mib,
                       memory_report_source=source, **changes)
    same = gpu.reported_memory_mib is not None and abs(gpu.reported_memory_mib - mib) < 1.0
    return replace(gpu, memory_gib=float(total_bytes) / 2**30, reported_memory_mib=mib,
                   cuda_memory_mib=gpu.cuda_memory_mib if same else None,
                   memory_report_source=(gpu.memory_report_source if same else source),
                   **changes)
