"""What every inference engine shares: the records an engine returns and the cost of a token.

A decode step of a memory-bound engine costs more than ``bytes / bandwidth``:

``step = max(gpu_bytes / (BW x eta), compute) + host_bytes / host_BW
+ kernels x (gap + ...) + host work``

* ``eta``: the fraction of the datasheet bandwidth a streaming read reaches on that class of
  GPU (:data:`GPU_CLASSES`, from the gpu-stream ``read`` kernel, te42kyfo/gpu-benches
  @1c36d509, as collected in ``benchmarks/calibration/kernels.json``).
* ``gap``: the time one small kernel costs in a chain of dependent kernels - launched from a
  CUDA graph (llama.cpp captures its decode graph on NVIDIA Ampere and later since
  ggml-org/llama.cpp PR #6766, Volta and Turing too since PR #25749) or from a stream
  (AMD: llama.cpp's HIP build has graphs off by default). From the gpu-small-kernels
  benchmark (same repository): a 64 kB SCALE kernel back to back, 1.26-1.34 us per kernel
  from a graph on H200/A100, 0.94-1.09 us on L40/A40, 2.05 us on MI210 with or without
  hipGraph, 3.3 us on an RX 6900 XT.
* each kernel that streams weights also waits one DRAM latency before its data flows (its
  loads cannot start before the previous kernel's results exist): gpu-latency, same
  repository, at a 122 MiB working set (past every last-level cache, before TLB misses
  dominate): A100 0.57 us, H100 PCIe 0.65, L40 0.63 (at 181 MiB), MI210 0.63, RX 6900 XT
  0.43.
* host work per token (graph preparation, synchronisation, the logits read back, sampling)
  is the engine's own figure, with its source in its module.

Kernel counts come from each engine's graph (its module says how). Everything here is pure:
an engine module fills :class:`EngineResult` from a model shape, a plan and a GPU.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from gpuadvisor.core.engines.prompt_rates import PromptRate
from gpuadvisor.core.gpu import GpuSpec, ecc_read_share

_BENCH = "te42kyfo/gpu-benches @1c36d509"


@dataclass(frozen=True)
class GpuClass:
    """How one class of GPU behaves under a chain of small memory-bound kernels.

    Attributes:
        name: the class (``nvidia-hbm``, ``nvidia-gddr``, ``amd-hbm``, ``amd-gddr``,
            ``apple``, ``intel``).
        read_fraction: achieved / datasheet bandwidth of a streaming read.
        graph_gap_s: seconds per small kernel launched from a CUDA/HIP graph.
        stream_gap_s: seconds per small kernel launched one by one on a stream.
        dram_latency_s: a load's round trip to device memory.
        source: where the figures come from.
        sync_s: a per-token wait for the GPU's work to come back to the host beyond the
            kernels themselves (Metal: a command buffer's trip to ``waitUntilCompleted``).
        loaded_latency_s: a load's round trip with 1,024 threads of each SM reading at
            once (the queues make it longer than ``dram_latency_s``): what
            :func:`resident_read_gb_s` divides the bytes in flight by; None where no
            occupancy sweep was measured.
    """

    name: str
    read_fraction: float
    graph_gap_s: float
    stream_gap_s: float
    dram_latency_s: float
    source: str
    sync_s: float = 0.0
    loaded_latency_s: float | None = None


#: The classes, with the measurements behind each figure.
GPU_CLASSES: dict[str, GpuClass] = {c.name: c for c in (
    GpuClass("nvidia-hbm", 0.964, 1.30e-6, 2.53e-6, 0.61e-6,
             f"{_BENCH}: gpu-stream read / datasheet, median of V100 0.963, A100-40 0.965, "
             "A100-80 0.871, H100 PCIe 0.971; small kernels A100-80 1.34/2.62 us and H200 "
             "1.26/2.43 us (graph/stream); latency A100-80 0.571, H100 PCIe 0.650 us; "
             "under load (gpu-stream read at 1,024 threads per SM: SMs x 1,024 x 8 B / "
             "GB/s) A100-40 0.849, A100-80 0.789, H100 PCIe 0.741, H200 0.633 us, median "
             "0.765",
             loaded_latency_s=0.765e-6),
    GpuClass("nvidia-gddr", 0.978, 1.02e-6, 1.86e-6, 0.63e-6,
             f"{_BENCH}: gpu-stream read / datasheet L40 0.978, A40 0.977; small kernels "
             "L40 0.94/1.64 us, A40 1.09/2.1 us (graph/stream); latency L40 0.632 us; "
             "under load (gpu-stream read, the most threads per SM before the read "
             "saturates) A40 0.623 us at 512, L40 0.473 at 256: 0.623, a bound from below",
             loaded_latency_s=0.623e-6),
    GpuClass("amd-hbm", 0.821, 2.05e-6, 2.05e-6, 0.64e-6,
             f"{_BENCH}: gpu-stream read MI210 1345 of 1638 GB/s (0.821; MI300X 0.792, "
             "MI350X 0.864 in kernels.json); small kernels MI210 2.05 us, no gain from "
             "hipGraph; latency MI210 0.639 us"),
    GpuClass("amd-gddr", 0.980, 3.3e-6, 3.3e-6, 0.43e-6,
             f"{_BENCH}: RX 6900 XT gpu-stream read 502 of 512 GB/s, small kernels 3.3 us "
             "(64 kB at 20 GB/s, graph or not), latency 0.43 us"),
    GpuClass("apple", 0.85, 2.0e-6, 2.0e-6, 0.60e-6,
             "read fraction and dispatch assumed (no published achieved-bandwidth or "
             "dispatch measurement of Apple GPUs was found): read fraction between the "
             "measured HBM parts (0.82-0.97), dispatch as AMD's stream launches, latency as "
             "other DRAM; 2.5 ms per token for the command buffer's round trip (Apple, Metal "
             "Performance Shaders 'Tuning Hints': 'up to 2.5 ms just to get an empty command "
             "buffer through the pipeline to where waitUntilCompleted returns')",
             sync_s=2.5e-3),
    GpuClass("intel", 0.96, 1.86e-6, 1.86e-6, 0.63e-6,
             "read fraction: llama.cpp's Vulkan f32 mat-vec (test-backend-ops MUL_MAT "
             "4096 x 14336, n=1) on an Arc B570, 361 of 380 GB/s, and an Arc Pro B50, 218 "
             "of 224 (Mesa 26.1.4, ggml-org/llama.cpp PR #25380); kernel launches and "
             "latency assumed as NVIDIA GDDR cards launched from a stream (no Intel "
             "measurement)"),
)}


def gpu_class(gpu: GpuSpec) -> GpuClass:
    """The :data:`GPU_CLASSES` entry for ``gpu``: by vendor, and for NVIDIA/AMD by memory
    kind (HBM or not)."""
    hbm = "HBM" in gpu.memory_type.upper()
    if gpu.vendor == "nvidia":
        return GPU_CLASSES["nvidia-hbm" if hbm else "nvidia-gddr"]
    if gpu.vendor == "amd":
        return GPU_CLASSES["amd-hbm" if hbm else "amd-gddr"]
    if gpu.vendor == "apple":
        return GPU_CLASSES["apple"]
    return GPU_CLASSES["intel"]


def read_fraction(gpu: GpuSpec) -> tuple[float, str]:
    """``(achieved / datasheet bandwidth of a streaming read, where it comes from)`` on
    ``gpu``: the card's own published measurement where the catalog has one
    (``stream_read_gb_s``: a T4 reads 263 of its 320 GB/s in clpeak, where the GDDR
    datacenter cards of its class read 0.978), as it was measured; else its
    :func:`gpu_class`'s, less inline ECC's cost where ECC is on (:func:`ecc_read_share`)."""
    if gpu.stream_read_gb_s:
        share = min(1.0, gpu.stream_read_gb_s / gpu.memory_bandwidth_gb_s)
        return share, (f"{gpu.name} read {gpu.stream_read_gb_s:g} of "
                       f"{gpu.memory_bandwidth_gb_s:g} GB/s ({gpu.stream_read_source})")
    gc = gpu_class(gpu)
    ecc, ecc_source = ecc_read_share(gpu)
    source = f"{gc.name}: {gc.source}"
    if ecc != 1.0:
        source = f"{source}; x {ecc:.3f}: {ecc_source}"
    return gc.read_fraction * ecc, source


#: NVIDIA's register file per SM since Kepler (CUDA C++ Programming Guide, "Technical
#: Specifications per Compute Capability": 64K 32-bit registers per multiprocessor).
REGISTERS_PER_SM = 65536


def max_threads_per_sm(gpu: GpuSpec) -> int:
    """Resident threads an NVIDIA SM holds at most (CUDA C++ Programming Guide, technical
    specifications): 1,024 on Turing (7.5), 1,536 on 8.6, 8.7, 8.9 and 12.x, 2,048 on the
    others (6.x, 7.0, 7.2, 8.0, 9.0, 10.x)."""
    cc = gpu.cc_number
    if 7.5 <= cc < 8.0:
        return 1024
    if cc in (8.6, 8.7, 8.9) or cc >= 12.0:
        return 1536
    return 2048


def resident_threads(gpu: GpuSpec, block_threads: int, registers: int) -> int:
    """Threads of one kernel an SM holds at once: whole blocks, as many as the register file
    and the SM's thread limit allow (registers are given per thread in steps of 8, the
    allocation granularity of 256 per warp)."""
    regs = -(-registers // 8) * 8
    blocks = REGISTERS_PER_SM // (regs * block_threads)
    return min(blocks * block_threads, max_threads_per_sm(gpu) // block_threads * block_threads)


#: A load's round trip under load measured on the card itself, by catalog id: gpu-stream's
#: read kernel (one 8-byte load per thread) at 1,024 threads per SM (blockSize 512, two
#: blocks an SM), before the read saturates, as SMs x 1,024 x 8 B / the GB/s it read
#: (te42kyfo/gpu-benches @1c36d509 gpu-stream/<card>.txt). Other cards take their class's
#: median (:attr:`GpuClass.loaded_latency_s`). The files do not say SXM or PCIe: both parts
#: of a memory size share the chip, the SM count and the HBM stacks.
def _card_latencies() -> dict[str, tuple[float, str]]:
    sweeps = (  # (catalog ids, SMs, GB/s read at 1,024 threads per SM, file)
        (("v100-sxm2-16gb", "v100-sxm2-32gb", "v100-pcie-16gb", "v100-pcie-32gb"), 80, 746,
         "v100.txt"),
        (("a100-pcie-40gb", "a100-sxm-40gb"), 108, 1042, "a100_40.txt"),
        (("a100-pcie-80gb", "a100-sxm-80gb"), 108, 1122, "a100_80.txt"),
        (("h100-pcie",), 114, 1261, "h100_pcie.txt"),
        (("h200-sxm", "h200-nvl"), 132, 1707, "h200.txt"))
    return {gpu_id: (sms * 1024 * 8 / (gb_s * 1e9),
                     f"{_BENCH} gpu-stream/{file}: read {gb_s:,} GB/s at 1,024 threads per SM "
                     f"({sms} SMs x 1,024 x 8 B in flight)")
            for ids, sms, gb_s, file in sweeps for gpu_id in ids}


CARD_LOADED_LATENCY_S: dict[str, tuple[float, str]] = _card_latencies()


def loaded_latency(gpu: GpuSpec) -> tuple[float | None, str]:
    """``(seconds, where from)``: a load's round trip with the SMs full of readers on
    ``gpu``: its own measurement (:data:`CARD_LOADED_LATENCY_S`), else its class's median
    (None where no occupancy sweep of the class was measured)."""
    if gpu.id in CARD_LOADED_LATENCY_S:
        return CARD_LOADED_LATENCY_S[gpu.id]
    gc = gpu_class(gpu)
    return gc.loaded_latency_s, f"{gc.name}: {gc.source}"


def resident_read_gb_s(gpu: GpuSpec, threads_per_sm: int, bytes_per_thread: float) -> float | None:
    """The most a kernel whose threads each keep ``bytes_per_thread`` of loads in flight
    can read, by Little's law: bytes in flight over the whole GPU / the loaded latency
    (``sm_count x threads_per_sm x bytes_per_thread / loaded latency``, :func:`loaded_latency`),
    in GB/s.

    A kernel with few bytes in flight cannot fill a wide memory system: te42kyfo/gpu-benches'
    gpu-stream read kernel (one 8-byte load per thread) reads 1,122 GB/s of an A100-80's
    1,769 at 1,024 threads per SM, 746 of a V100's 866. None when the GPU's SM count or
    its loaded latency is not known (no ceiling)."""
    latency, _ = loaded_latency(gpu)
    if not gpu.sm_count or latency is None:
        return None
    return gpu.sm_count * threads_per_sm * bytes_per_thread / latency / 1e9


#: Share of unified memory a Mac's GPU may wire by default (``recommendedMaxWorkingSetSize``,
#: about 75%; ``sudo sysctl iogpu.wired_limit_mb`` raises it): Metal engines (llama.cpp, MLX)
#: fit their buffers in it.
APPLE_GPU_WIRED_FRACTION = 0.75


# --------------------------------------------------------------------------- host memory
#: Host memory a rig of each GPU segment typically has, peak GB/s = channels x 8 bytes x
#: MT/s (JEDEC data rates): a desktop's two DDR5-5600 channels (89.6 GB/s), a GPU server's
#: eight DDR5-4800 channels (Intel Sapphire Rapids, AMD Genoa runs 12; 307.2 GB/s).
HOST_PEAK_GB_S = {"consumer": 2 * 8 * 5.6, "workstation": 4 * 8 * 4.8,
                  "datacenter": 8 * 8 * 4.8}
#: Fraction of that peak a CPU's streaming read reaches (assumed: the host-memory probe
#: replaces it with a measurement).
HOST_READ_FRACTION = 0.70


@dataclass(frozen=True)
class HostMemory:
    """The host RAM bandwidth used for layers kept on the CPU.

    Attributes:
        bandwidth_gb_s: achieved GB/s.
        source: ``measured ...``, ``plan``, ``unified memory`` or how it was assumed.
    """

    bandwidth_gb_s: float
    source: str


def host_memory(gpu: GpuSpec, measured_gb_s: float | None = None,
                measured_source: str = "measured") -> HostMemory:
    """Host RAM bandwidth for CPU-side layers: a measurement when there is one (the host
    memory probe, or ``--host-bandwidth``), the GPU's own memory on a unified-memory SoC,
    else :data:`HOST_PEAK_GB_S` of the GPU's segment x :data:`HOST_READ_FRACTION`.

    Raises:
        ValueError: a measured value that is not a positive finite number.
    """
    if measured_gb_s is not None:
        if isinstance(measured_gb_s, bool) or not measured_gb_s > 0 \
                or measured_gb_s == float("inf"):
            raise ValueError(f"host bandwidth must be a positive number of GB/s, got "
                             f"{measured_gb_s!r}")
        return HostMemory(float(measured_gb_s), measured_source)
    if gpu.unified_memory:
        return HostMemory(gpu.memory_bandwidth_gb_s * read_fraction(gpu)[0],
                          "unified memory: the GPU's own bandwidth")
    segment = "consumer" if gpu.segment == "soc" else gpu.segment
    peak = HOST_PEAK_GB_S.get(segment, HOST_PEAK_GB_S["consumer"])
    return HostMemory(peak * HOST_READ_FRACTION,
                      f"assumed: {peak:.1f} GB/s peak ({segment} host) x "
                      f"{HOST_READ_FRACTION:g}")


def release(version: str | None) -> tuple[int, ...] | None:
    """``"0.6.4.post1"`` -> ``(0, 6, 4)``; ``None`` for the current release."""
    if not version:
        return None
    parts = []
    for word in version.split(".")[:3]:
        digits = "".join(ch for ch in word if ch.isdigit()) if word[:1].isdigit() else ""
        if not digits:
            break
        parts.append(int(digits))
    return tuple(parts) or None


#: Matmuls of at least this many tokens (a prompt micro-batch, or a decode step of as many
#: sequences) take llama.cpp's cuBLAS path on Volta (``MMQ_DP4A_MAX_BATCH_SIZE``, 64:
#: ``ggml_cuda_should_use_mmq`` keeps MMQ below it on cards with fp16 mma but no int8 mma).
CONVERT_MIN_TOKENS = 64


# --------------------------------------------------------------------------- records
@dataclass(frozen=True)
class DecodeCost:
    """What a decode step costs on an engine besides the weights on the GPU.

    :func:`gpuadvisor.core.inference_time.inference_time` adds these terms to the step:
    ``max(gpu_bytes / (peak_bw x bandwidth_efficiency), compute) + host_bytes / host_bw
    + fixed_s``.

    Attributes:
        bandwidth_efficiency: achieved fraction of the GPU's datasheet bandwidth.
        kernel_read_gb_s: the most the engine's weight-streaming kernel reads, whatever
            the memory could give (:func:`resident_read_gb_s`: its bytes in flight over the
            loaded latency); 0 = no such ceiling. A measured bandwidth (a streaming copy at
            full occupancy) does not lift it.
        host_read_bytes: bytes read from host RAM per step (layers or experts on the CPU).
        host_bandwidth_gb_s: the host RAM's achieved bandwidth.
        kernels_per_step: GPU kernels launched per step.
        kernel_gap_s: seconds each costs in a dependent chain.
        weight_kernels_per_step: kernels that stream weights (each waits one DRAM latency).
        dram_latency_s: that latency.
        host_s: host work per step (graph preparation, synchronisation, logits read back).
        sampling_s: choosing the next token on the CPU (0 for a benchmark that does not
            sample, such as ``llama-bench``).
        pipelined_host_s: host work per step that runs while the GPU works on the step
            before (a loop that queues step n+1 before it waits on step n, as mlx-lm's
            ``mx.async_eval`` does): it costs nothing unless it is longer than the GPU's
            step, which it then sets (:attr:`.compute.DecodeStep.host_floor_s`).
        prefill_link_bytes: weight bytes copied to the GPU per prompt micro-batch (llama.cpp
            runs large matmuls of CPU-side layers on the GPU, copying their weights).
        link_gb_s: the host link's bandwidth for that copy.
        ubatch_tokens: prompt tokens per micro-batch.
        convert_bytes: bytes moved to convert the weights before the matmuls of a pass of at
            least :data:`CONVERT_MIN_TOKENS` tokens (a prompt micro-batch, or a decode step of
            that many sequences), at the streaming rate: llama.cpp on Volta dequantizes each
            quantized matrix to fp16 for cuBLAS (it reads the matrix and writes 2 bytes per
            weight).
        source: where the engine's constants come from (for people).
        prompt: the achieved rate of the engine's matrix multiplies (its prompt kernel for
            the backend and weight type, :mod:`.prompt_rates`), or None when no published
            figure covers it (the plan's peak x the default prefill efficiency).
    """

    bandwidth_efficiency: float
    kernel_read_gb_s: float = 0.0
    host_read_bytes: float = 0.0
    host_bandwidth_gb_s: float = 0.0
    kernels_per_step: float = 0.0
    kernel_gap_s: float = 0.0
    weight_kernels_per_step: float = 0.0
    dram_latency_s: float = 0.0
    host_s: float = 0.0
    sampling_s: float = 0.0
    pipelined_host_s: float = 0.0
    prefill_link_bytes: float = 0.0
    link_gb_s: float = 0.0
    ubatch_tokens: int = 512
    convert_bytes: float = 0.0
    source: str = ""
    prompt: PromptRate | None = None

    @property
    def prefill_tflops(self) -> float:
        """The prompt kernel's TFLOP/s (0 without one)."""
        return 0.0 if self.prompt is None else self.prompt.tflops

    @property
    def fixed_s(self) -> float:
        """Per-step seconds that do not depend on bytes: kernel gaps, the DRAM latency of
        each weight-streaming kernel, host work and sampling."""
        return (self.kernels_per_step * self.kernel_gap_s
                + self.weight_kernels_per_step * self.dram_latency_s + self.host_s
                + self.sampling_s)

    def convert_passes(self, tokens: int) -> int:
        """Prompt micro-batches of ``tokens`` that convert the weights first: those of at
        least :data:`CONVERT_MIN_TOKENS` tokens (0 when the engine converts nothing)."""
        if not self.convert_bytes or self.ubatch_tokens < CONVERT_MIN_TOKENS:
            return 0
        full, last = divmod(int(tokens), self.ubatch_tokens)
        return full + (1 if last >= CONVERT_MIN_TOKENS else 0)

    def step_converts(self, sequences: int) -> bool:
        """Whether a decode step of ``sequences`` converts the weights first."""
        return bool(self.convert_bytes) and sequences >= CONVERT_MIN_TOKENS

    @property
    def host_read_s(self) -> float:
        """Seconds to read the CPU-side weights once (0 when none)."""
        if not self.host_read_bytes:
            return 0.0
        return self.host_read_bytes / (self.host_bandwidth_gb_s * 1e9)


@dataclass(frozen=True)
class EngineResult:
    """One engine's view of an inference plan.

    Attributes:
        engine: the engine (``llama.cpp``, ``ollama``, ``vllm``, ``exllamav2``, ``mlx``,
            ``transformers``).
        weights: weight bytes on each GPU.
        activations: the engine's working buffers on each GPU (llama.cpp's compute buffer,
            vLLM's profiled activation peak, ExLlamaV2's scratch).
        logits: output buffers (when the engine counts them apart).
        kv_cache: KV-cache bytes on each GPU (vLLM: the whole pool it reserves).
        overhead: CUDA context, CUDA graphs, the reserve an engine leaves unused.
        context: the part of ``overhead`` that exists before any tensor.
        host_bytes: host RAM the engine fills (CPU layers, embeddings kept on the CPU).
        decode: the decode-step terms (None: today's bytes / bandwidth model).
        terms: named byte terms for people and JSON (``compute_buffer``, ``cuda_graphs``...).
        settings: the engine settings used (name -> value), defaults included.
        defaults: which of ``settings`` were the engine's defaults (name -> why).
        flags: what an export passes to the engine (name -> value).
        capacity_tokens: vLLM: tokens the KV pool holds (0 elsewhere).
        kv_bytes_per_token: KV-cache bytes per token and sequence a step reads on the GPU(s),
            every layer taken as global (windowed layers are capped by the time model).
        refuses: why the engine would refuse to start (vLLM without room for one sequence),
            or None.
        budget: the engine reserves a set share of the GPU's memory whatever the plan asks
            (vLLM's ``gpu_memory_utilization``): its total is that reservation, so whether
            the plan fits is said by ``refuses`` and ``tight``, not by the total's share of
            the card.
        tight: why a plan on such an engine runs but short of room (vLLM's KV pool holding
            fewer full sequences than ``max_num_seqs``: the rest wait), or None.
        capacity_fraction: the share of the GPU's memory the engine may fill (Apple GPUs:
            :data:`APPLE_GPU_WIRED_FRACTION`; 1 elsewhere).
        split: how several GPUs share the model: ``tensor`` (every GPU holds a slice of
            every layer and they work at once: a step reads the per-GPU bytes) or ``layer``
            (each holds whole layers and they work in turn: a step reads all of them).
        warnings: what the user should know.
        expert_weights: the routed experts' share of ``weights`` as the engine stores them
            (None: the engine does not say; the decode step's read is then scaled by
            :func:`~..inference_time.decode_weight_fraction`).
    """

    engine: str
    weights: float
    activations: float
    logits: float
    kv_cache: float
    overhead: float
    context: float = 0.0
    host_bytes: float = 0.0
    decode: DecodeCost | None = None
    terms: dict = field(default_factory=dict)
    settings: dict = field(default_factory=dict)
    defaults: dict = field(default_factory=dict)
    flags: dict = field(default_factory=dict)
    capacity_tokens: float = 0.0
    kv_bytes_per_token: float = 0.0
    refuses: str | None = None
    budget: bool = False
    tight: str | None = None
    capacity_fraction: float = 1.0
    split: str = "tensor"
    warnings: list = field(default_factory=list)
    expert_weights: float | None = None

    def to_json(self) -> dict:
        """JSON-ready: the engine, its terms, settings and decode terms."""
        data = {"name": self.engine, "split": self.split, "terms": dict(self.terms),
                "settings": dict(self.settings), "defaults": dict(self.defaults),
                "host_bytes": self.host_bytes}
        if self.capacity_tokens:
            data["kv_capacity_tokens"] = self.capacity_tokens
        if self.refuses:
            data["refuses"] = self.refuses
        if self.capacity_fraction != 1.0:
            data["capacity_fraction"] = self.capacity_fraction
        if self.decode is not None:
            d = self.decode
            data["decode"] = {
                "bandwidth_efficiency": d.bandwidth_efficiency,
                "host_read_bytes": d.host_read_bytes,
                "host_bandwidth_gb_s": d.host_bandwidth_gb_s,
                "kernels_per_step": d.kernels_per_step,
                "kernel_gap_s": d.kernel_gap_s,
                "weight_kernels_per_step": d.weight_kernels_per_step,
                "dram_latency_s": d.dram_latency_s,
                "host_s": d.host_s,
                "sampling_s": d.sampling_s,
                "pipelined_host_s": d.pipelined_host_s,
                "fixed_s": d.fixed_s,
                "convert_bytes": d.convert_bytes,
                "source": d.source,
            }
            if d.prompt is not None:
                data["decode"]["prefill_tflops"] = d.prompt.tflops
                data["decode"]["prefill_source"] = d.prompt.source
        return data


__all__ = ["APPLE_GPU_WIRED_FRACTION", "CARD_LOADED_LATENCY_S", "CONVERT_MIN_TOKENS",
           "GPU_CLASSES", "HOST_PEAK_GB_S", "HOST_READ_FRACTION", "REGISTERS_PER_SM",
           "DecodeCost", "EngineResult", "GpuClass", "HostMemory", "gpu_class", "host_memory",
           "loaded_latency", "max_threads_per_sm", "release", "resident_read_gb_s",
           "resident_threads"]
