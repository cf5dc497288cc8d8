"""llama.cpp (``llama-server``/``llama-cli``/``llama-bench``) and Ollama, which runs the same
core with its own defaults.

Memory on each GPU (ggml-org/llama.cpp ``src/llama-model.cpp``, ``src/llama-context.cpp``):

* weights: the GGUF tensors of the layers on the GPU. ``-ngl N`` puts the *last* N layers on
  the GPU (``i_gpu_start = n_layer - N``) and the output layer too when ``N > n_layer``;
  ``token_embd`` always stays in host memory (the input layer is assigned to the CPU: a row
  look-up needs no GPU). ``--n-cpu-moe N`` keeps the expert tensors of the first N layers in
  host memory. Several GPUs split the layers (``--split-mode layer``, the default) in
  proportion to their memory: each holds ``1/n`` of them and they run one after another.
* KV cache: ``n_ctx`` cells (``-c``, all sequences together; ``-np`` slots share it) x each
  GPU layer's K and V rows at the cache type (``-ctk/-ctv``: f16 2 bytes, q8_0 34 bytes per
  32, q4_0 18 per 32 - ggml's block layouts), padded to 256 cells; sliding-window layers keep
  their window. The cache of a CPU layer lives in host memory.
* compute buffer: the largest set of intermediate tensors alive at once in the worst-case
  graph (``n_ubatch`` = 512 tokens, f32): the logits ``n_ubatch x n_vocab`` (the graph is
  reserved with every token an output), the attention scores ``n_head x n_ubatch x n_ctx``
  without flash attention (their softmax is computed in place: ggml-alloc gives an op that
  can run in place, ``GGML_OP_SOFT_MAX`` among them, its parent's memory when nothing else
  reads it), the gated MLP's ``n_ubatch x 3 n_ff``, plus the residual stream; the largest of
  these, at 4 bytes. Ollama 0.5.4, Llama 3.1 8B, 8,192 cells, flash attention off: "CUDA0
  compute buffer size = 560.00 MiB" for 4 x (32 x 512 x 8,192 + 2 x 512 x 4,096) = 528 MiB
  (MagicWand18/Securetag-AI-Agent, runpod-deploy/logcompleto.md).
* the CUDA context (the estimator's ``cuda_context_bytes``); no caching allocator reserve
  (ggml allocates its buffers exactly).

Decode (:class:`~.base.DecodeCost`): the GPU layers' bytes at the GPU class's streaming rate,
the CPU layers' bytes at host bandwidth, plus per token the kernels of the graph:
per dense layer 19 graph nodes with flash attention (norm, scale, Q, K, V, two RoPEs, two
cache writes, attention, output projection, residual add; norm, scale, up, gate, SwiGLU,
down, residual add; ``src/models/llama.cpp`` @069be0ae), 22 without it (scores, softmax,
weighted sum and a copy replace the attention node), RMS-norm + scale fused into one kernel
(-2), one flash-attention combine kernel, and on CUDA/HIP one activation-quantization kernel
(q8_1) before each of the 7 quantized matrix-vector products (``mul_mat_vec_q``). Host work
per token by the build (:func:`.llamacpp_builds.host_s_per_token`: 0.4 ms on a current build,
0.76 ms before graph reuse became the default in August 2025). Sampling (not done by
``llama-bench``): 3 ns per vocabulary entry, i.e. 0.1 ms for 32,000 tokens (the default
chain cuts to top-k 40 first; a full 32,000-entry sort costs ~1.9 ms, PR #5085).

Prompt processing of CPU-side layers runs on the GPU when a micro-batch has 32 tokens or
more (``ggml_backend_cuda_device_offload_op``, ``min_batch_size = 32``): their weights cross
the host link once per micro-batch.

Ollama (ollama/ollama docs, @948f6933 ``docs/context-length.mdx``, ``docs/faq.md``):
``num_ctx`` 4,096 below 24 GiB of VRAM, 32,768 up to 48 GiB, 262,144 above (raised to the
plan's tokens when those are more); KV cache f16 unless ``OLLAMA_KV_CACHE_TYPE``; flash
attention as ``OLLAMA_FLASH_ATTENTION``; ``num_parallel`` 1; ``num_gpu`` (its ``-ngl``) by
default as many layers as fit.
"""

from __future__ import annotations

import math
from functools import lru_cache

from gpuadvisor.core.architecture import ModelShape
from gpuadvisor.core.assumptions import Assumptions
from gpuadvisor.core.engines.base import (
    APPLE_GPU_WIRED_FRACTION,
    DecodeCost,
    EngineResult,
    gpu_class,
    host_memory,
    loaded_latency,
    read_fraction,
    release,
)
from gpuadvisor.core.engines.llamacpp_backends import plan_backend
from gpuadvisor.core.engines.llamacpp_builds import (
    CUDA_GRAPH_RULES,
    GRAPH_REUSE_DEFAULT,
    HOST_S_PER_TOKEN,
    HOST_S_PER_TOKEN_REBUILDING,
    cuda_graphs_on,
    host_s_per_token,
)
from gpuadvisor.core.engines.llamacpp_matvec import (
    file_bytes_per_thread,
    intel_vulkan_matvec_gb_s,
    mmvf_read_gb_s,
    mmvq_read_gb_s,
)
from gpuadvisor.core.engines.ollama_graph import ollama_graph_bytes, ollama_vision_graph_bytes
from gpuadvisor.core.engines.prompt_rates import FLOAT_TYPES, llamacpp_prompt_rate
from gpuadvisor.core.ggml_types import ggml_type_named
from gpuadvisor.core.gguf_quant import (
    GGUF_FILE_TYPES,
    file_type,
    gguf_tensors,
)
from gpuadvisor.core.gpu import GpuSpec
from gpuadvisor.core.plan import Plan, is_gguf_quant
from gpuadvisor.core.units import GiB

#: Prompt tokens per micro-batch (``-ub``, llama.cpp's default 512).
UBATCH = 512
#: KV cells are allocated in multiples of this (llama.cpp pads ``n_ctx`` to 256).
KV_PAD = 256
#: CPU sampling per vocabulary entry (see the module docstring).
SAMPLING_S_PER_VOCAB = 3e-9
#: Smallest batch whose matmuls a GPU backend takes over from the CPU (op offload).
OFFLOAD_MIN_BATCH = 32
#: KV-cache element types: ggml type names.
KV_TYPES = {"fp16": "F16", "bf16": "BF16", "fp32": "F32", "q8_0": "Q8_0", "q4_0": "Q4_0"}
#: Bytes per parameter of a vision projector file (``mmproj-*-f16.gguf``, as llama.cpp's
#: converter and Ollama's library ship them): Gemma 3's 421M-parameter SigLIP tower is
#: Ollama's "projector.weights=795.9 MiB" (ollama/ollama issues #9818, PR #12000 logs).
PROJECTOR_BYTES_PER_PARAM = 2.0
#: What Ollama keeps free on each CUDA or ROCm GPU before placing layers (discover/gpu.go:
#: ``cudaMinimumMemory = 457 * format.MebiByte``, ``rocmMinimumMemory`` the same).
OLLAMA_MINIMUM_MEMORY = 457 * 2**20
#: Ollama's default context by VRAM (docs/context-length.mdx @948f6933), from release 0.15.5
#: (2026-02-03; open-webui/docs PR #1393 against Ollama's release notes).
OLLAMA_CTX_BY_VRAM = ((24, 4096), (48, 32768), (math.inf, 262144))
#: Ollama's fixed default context before that, by release: 2,048 tokens, 4,096 from 0.6.7
#: ("Ollama increased their default context size from 2048 to 4096 tokens in version v0.6.7",
#: zed-industries/zed PR #31682; ollama/ollama PR #11189 for the commit).
OLLAMA_CTX_BY_RELEASE = (((0, 6, 7), 2048), ((0, 15, 5), 4096))


def _kv_elem_bytes(kv_dtype: str) -> float:
    kind = ggml_type_named(KV_TYPES.get(kv_dtype, "F16"))
    return kind.type_size / kind.block_size


def gguf_type_for(model: ModelShape, plan: Plan, ollama: bool = False
                  ) -> tuple[str, float, str]:
    """``(file type, scale, why)``: the GGUF file type whose mixture sizes the tensors, a
    factor that makes their sum the file's exact bytes (a GGUF file read from disk), and
    where the choice came from. An Ollama plan that names no type runs what ``ollama run``
    pulls: the default library tag's type (``model.ollama_quant``)."""
    if is_gguf_quant(plan.quant):
        return plan.quant, 1.0, "plan"
    if plan.quant in (None, "mxfp4") and model.shipped_quant == "mxfp4":
        return "mxfp4_moe", 1.0, "the model ships MXFP4 experts (llama.cpp's MXFP4_MOE)"
    if plan.quant is None and model.weights_file_bytes:
        return "f16", 0.0, "the file's own tensors"
    if ollama and plan.quant is None and model.ollama_quant:
        return model.ollama_quant, 1.0, (f"the default Ollama tag's weights "
                                         f"({model.ollama_quant.upper()}, "
                                         "catalog/serving.toml)")
    if plan.quant in (None, "none"):
        return "f16", 1.0, "no quantization named: F16 (llama.cpp needs a GGUF file)"
    raise ValueError(f"quant {plan.quant!r} is not a GGUF file type: llama.cpp loads GGUF "
                     f"files ({', '.join(GGUF_FILE_TYPES)})")


@lru_cache(maxsize=64)
def _layer_split(model: ModelShape, ftype: str, file_bytes: int):
    """Per-layer bytes (experts apart), and the bytes of token_embd, output and the rest
    (cached per model shape and file type: sweeps evaluate the engine many times)."""
    n = model.n_layers
    dense = [0.0] * n
    experts = [0.0] * n
    embd = out = rest = 0.0
    for t in gguf_tensors(model, ftype):
        if t.layer >= 0:
            if t.expert:
                experts[t.layer] += t.bytes
            else:
                dense[t.layer] += t.bytes
        elif t.name == "token_embd":
            embd += t.bytes
        elif t.name == "output":
            out += t.bytes
        else:
            rest += t.bytes
    total = sum(dense) + sum(experts) + embd + out + rest
    if file_bytes and total:  # a file read from disk: its tensors' exact sum
        scale = file_bytes / total
        dense = [b * scale for b in dense]
        experts = [b * scale for b in experts]
        embd, out, rest = embd * scale, out * scale, rest * scale
    return tuple(dense), tuple(experts), embd, out, rest


def kv_cells(tokens: int) -> int:
    """KV cells llama.cpp allocates for ``tokens``: rounded up to :data:`KV_PAD`."""
    return -(-tokens // KV_PAD) * KV_PAD


def compute_buffer_bytes(model: ModelShape, n_ctx: int, flash: bool,
                         ubatch: int = UBATCH) -> float:
    """llama.cpp's compute buffer on the GPU: the worst-case graph's largest live set (see
    the module docstring), in bytes: ``4 x max(logits, scores, MLP) + 2 residual rows``."""
    blk = model.block
    h, v = model.d_model, model.vocab_size
    u = min(ubatch, max(n_ctx, 1))
    logits = u * v
    mlp = u * 3 * (blk.d_ff * max(blk.experts_per_token, 1) if blk else 4 * h)
    scores = 0 if flash or blk is None else blk.n_heads * u * n_ctx
    return 4.0 * (max(logits, mlp, scores) + 2 * u * h)


def ollama_num_ctx(gpu: GpuSpec, tokens: int, trained: int = 0,
                   given: int | None = None,
                   rel: tuple[int, ...] | None = None) -> tuple[int, str]:
    """Ollama's context: the plan's ``num_ctx`` (``given``), else its default (the
    release ``rel``'s fixed one, or, from 0.15.5 and for the current release, the one its
    VRAM picks), or the plan's tokens when more; never past the context the model was
    trained for (``trained``; Ollama cuts a larger ``num_ctx`` to the model's
    ``context_length`` with "requested context size too large for model", llm/server.go)."""
    if given is not None:
        if trained and given > trained:
            return trained, (f"num_ctx {given:,} cut to the model's {trained:,}-token "
                             "context")
        return given, "plan"
    fixed = next((ctx for before, ctx in OLLAMA_CTX_BY_RELEASE
                  if rel is not None and rel < before), None)
    if fixed is not None:
        default = fixed
        named = f"Ollama {'.'.join(map(str, rel))}'s default ({fixed:,})"
    else:
        vram_gib = gpu.memory_bytes / GiB
        default = next(ctx for limit, ctx in OLLAMA_CTX_BY_VRAM if vram_gib < limit)
        named = f"Ollama's default for {vram_gib:.0f} GiB of VRAM ({default:,})"
    if tokens > default:
        return tokens, "the plan's tokens (num_ctx set above Ollama's default)"
    if trained and default > trained:
        return trained, f"{named}, cut to the model's {trained:,}-token context"
    return default, named


def _kernels(model: ModelShape, flash: bool, cuda: bool) -> tuple[float, float]:
    """``(kernels, weight-streaming kernels)`` of one decode step (see module docstring)."""
    kernels = weight = 0.0
    for blk, count in model.blocks:
        nodes = 19 if flash else 22
        mats = 7 if blk.mlp_matrices == 3 else 6
        if blk.is_moe:  # router, softmax, top-k, weights, 3 id-matmuls, scale, combine
            nodes += 8
            mats += 1
        if blk.shared_d_ff:
            nodes += 4
            mats += 3
        per = nodes - 2 + (1 if flash else 0) + (mats if cuda else 0)
        kernels += count * per
        weight += count * mats
    tail = 3 if cuda else 2  # output norm, (quantize), output projection
    return kernels + tail + 1, weight + 1


def evaluate(model: ModelShape, plan: Plan, gpu: GpuSpec, assumptions: Assumptions, *,
             ollama: bool = False, host_bandwidth_gb_s: float | None = None,
             host_source: str = "measured", backend: str | None = None,
             build_date: str | None = None) -> EngineResult:
    """llama.cpp (or Ollama) running ``plan`` on ``gpu``: memory per GPU and decode terms.

    ``backend`` is llama.cpp's GPU backend: ``cuda``, ``hip``, ``metal`` or ``vulkan``
    (default: the GPU's own, :data:`.llamacpp_backends.BACKENDS`). CUDA and HIP quantize
    each matrix-vector product's activation first (one more kernel each); only CUDA (on
    Volta and later) replays the decode graph as a CUDA graph, the others launch kernel by
    kernel. ``build_date`` (``YYYY-MM-DD``, or an upper bound of it) models an older build's
    CUDA graphs (:func:`cuda_graphs_on`) and host work per token (:func:`host_s_per_token`);
    None is a current build.

    Raises:
        ValueError: a quant that is not a GGUF file type, ``gpu_layers`` beyond the model's
            layers + 1 (the output layer), ``n_cpu_moe`` on a dense model or beyond its
            layers.
    """
    if model.kind != "decoder" or model.block is None:
        raise ValueError(f"llama.cpp runs decoder language models; {model.id} is "
                         f"{'an encoder' if model.kind == 'encoder' else 'not one'}")
    name = "ollama" if ollama else "llama.cpp"
    n, b = model.n_layers, plan.micro_batch
    settings: dict = {}
    defaults: dict = {}
    ftype, scale, why = gguf_type_for(model, plan, ollama)
    file_bytes = model.weights_file_bytes if scale == 0.0 else 0
    dense, experts, embd, out, rest = _layer_split(model, ftype, file_bytes)
    if out == 0.0 and embd > 0.0:
        # tied embeddings: llama.cpp loads token_embd a second time as the output matrix
        # (create_tensor(..., TENSOR_DUPLICATED), llama-model.cpp), on the output layer's
        # device; Ollama's estimate counts it as the output layer too (llm/memory.go)
        out = embd
    settings["gguf_file_type"] = file_type(ftype).label if not file_bytes else "file"
    if why != "plan":
        defaults["gguf_file_type"] = why
    per_seq = plan.seq_len + plan.new_tokens
    tokens = per_seq * b
    if ollama:
        n_ctx_seq, ctx_why = ollama_num_ctx(gpu, per_seq, model.max_positions, plan.num_ctx,
                                            release(plan.engine_version))
        tokens = n_ctx_seq * b
        if ctx_why != "plan":
            defaults["num_ctx"] = ctx_why
        settings["num_ctx"] = n_ctx_seq
        settings["num_parallel"] = b
    settings["n_ctx"] = tokens
    settings["n_parallel"] = b
    flash = plan.attention == "flash"
    settings["flash_attn"] = flash
    kv_type = plan.kv_dtype or "fp16"
    if plan.kv_dtype is None:
        defaults["cache_type"] = "f16 (llama.cpp's and Ollama's default)"
    settings["cache_type_k"] = settings["cache_type_v"] = KV_TYPES.get(kv_type, "F16").lower()
    moe_layers = [i for i in range(n) if experts[i] > 0]
    if plan.n_cpu_moe:
        if not moe_layers:
            raise ValueError(f"n_cpu_moe: {model.id} has no mixture-of-experts layers")
        if plan.n_cpu_moe > n:
            raise ValueError(f"n_cpu_moe {plan.n_cpu_moe} exceeds {model.id}'s {n} layers")
    settings["n_cpu_moe"] = plan.n_cpu_moe
    kv_layer_bytes = _kv_per_layer(model, kv_cells(tokens), kv_type)
    context = assumptions.cuda_context_bytes if gpu.ecosystem != "mps" else 0.0
    compute = compute_buffer_bytes(model, kv_cells(tokens), flash)
    # A multimodal model's vision tower runs from its projector file on the first GPU
    # (llama.cpp --mmproj; Ollama reserves it before any layer: "projector.weights").
    projector = PROJECTOR_BYTES_PER_PARAM * model.params.vision
    if projector:
        settings["mmproj"] = "f16"
    ngl = plan.gpu_layers
    if ngl is not None and ngl > n + 1:
        raise ValueError(f"gpu_layers {ngl} exceeds {model.id}'s {n} layers ({n + 1} with the "
                         f"output layer); use at most {n + 1}, or leave it out for all")
    n_cpu_moe = plan.n_cpu_moe
    rel = release(plan.engine_version) if ollama else None
    if ngl is None:
        if ollama and rel is not None and rel < OLLAMA_FIT_RELEASE:
            # its own estimate's graph (fs/ggml GraphSize), not llama.cpp's buffer; several
            # GPUs reserve the partial-offload graph (llm/memory.go)
            sizes = ollama_graph_bytes(model, tokens, sum(kv_layer_bytes))
            graph = compute if sizes is None else (
                sizes[0] if plan.n_gpus > 1 else max(sizes))
            settings["ollama_graph"] = graph
            # the projector's weights and its vision graph, on the first GPU
            vision = ollama_vision_graph_bytes(model) if projector else 0.0
            ngl = _ollama_fit(gpu, dense, experts, out, kv_layer_bytes,
                              graph + projector + vision, plan.n_gpus, plan.n_cpu_moe)
            defaults["n_gpu_layers"] = (f"Ollama {plan.engine_version}: as many layers as "
                                        "its estimate fits (llm/memory.go)")
        elif gpu.unified_memory:
            # the CPU's memory is the GPU's: moving layers frees none of it
            ngl = n + 1
            defaults["n_gpu_layers"] = "all layers and the output (unified memory)"
        else:
            ngl, fitted = fit_layers(gpu, dense, experts, out + rest, kv_layer_bytes,
                                     compute + context, projector, plan.n_gpus, n_cpu_moe)
            runner = ("Ollama (0.30 on: llama-server's --fit)" if ollama
                      else "llama.cpp --fit (on by default)")
            if ngl > n and fitted == n_cpu_moe:
                defaults["n_gpu_layers"] = ("all layers and the output: they leave "
                                            f"{FIT_TARGET_MIB} MiB free ({runner})")
            else:
                defaults["n_gpu_layers"] = (f"{runner}: as many as leave {FIT_TARGET_MIB} "
                                            "MiB of each GPU free")
            if fitted != n_cpu_moe:
                defaults["n_cpu_moe"] = ("llama.cpp --fit: the experts of the first "
                                         f"{fitted} layers in host RAM first")
                n_cpu_moe = fitted
                settings["n_cpu_moe"] = n_cpu_moe
    settings["n_gpu_layers"] = ngl
    first_gpu = max(n - ngl, 0)
    on_gpu = range(first_gpu, n)
    cpu_moe = set(range(min(n_cpu_moe, n)))
    gpu_weights = sum(dense[i] for i in on_gpu) + sum(experts[i] for i in on_gpu
                                                      if i not in cpu_moe)
    out_on_gpu = ngl > n
    out = out + rest  # the output norm (and position tables) go with the output layer
    if out_on_gpu:
        gpu_weights += out
    projector_on_gpu = projector if ngl > 0 else 0.0
    gpu_weights += projector_on_gpu
    host_weights = embd + sum(dense[i] for i in range(first_gpu)) \
        + sum(experts[i] for i in range(n) if i < first_gpu or i in cpu_moe) \
        + (0.0 if out_on_gpu else out) + (projector - projector_on_gpu)
    kv_gpu = sum(kv_layer_bytes[i] for i in on_gpu)
    kv_token = _kv_per_layer(model, 1, kv_type, window=False)
    kv_read = sum(kv_token[i] for i in on_gpu)
    kv_host = sum(kv_layer_bytes[i] for i in range(first_gpu))
    n_gpus = plan.n_gpus
    gpu_layers = len(on_gpu)
    gc = gpu_class(gpu)
    host = host_memory(gpu, host_bandwidth_gb_s, host_source)
    if backend is None:
        backend, backend_why = plan_backend(plan, gpu, ollama)
        if backend_why != "plan":
            defaults["backend"] = backend_why
    if backend not in ("cuda", "hip", "metal", "vulkan"):
        raise ValueError(f"backend must be cuda, hip, metal or vulkan, got {backend!r}")
    settings["backend"] = backend
    cuda = backend in ("cuda", "hip")
    kernels, weight_kernels = _kernels(model, flash, cuda)
    share = gpu_layers / n if n else 1.0
    graphs = backend == "cuda" and cuda_graphs_on(gpu, build_date)
    host_cpu_s = host_s_per_token(build_date)
    host_note = ("llama.cpp #7456, graph rebuilt every token" if host_cpu_s > HOST_S_PER_TOKEN
                 else "llama.cpp #7456 less the rebuild PR #8366 timed")
    gap = gc.graph_gap_s if graphs else gc.stream_gap_s
    routed = _routed_fraction(model, b)
    host_read = (sum(dense[i] for i in range(first_gpu))
                 + routed * sum(experts[i] for i in range(n) if i < first_gpu or i in cpu_moe)
                 + (0.0 if out_on_gpu else out))
    mean_ctx = plan.seq_len + plan.new_tokens / 2.0
    if kv_host:
        host_read += kv_host / kv_cells(tokens) * mean_ctx * b
    vocab = model.vocab_size
    kind = settings["gguf_file_type"]
    if file_bytes and file_bytes * 8.0 / max(model.params.total, 1) >= 15.0:
        kind = "F16"  # a file of 16-bit tensors: cuBLAS, not the quantized kernels
    prompt = llamacpp_prompt_rate(gpu, backend, kind, assumptions.efficiency_infer_prefill)
    convert = 0.0
    if backend == "cuda" and kind not in FLOAT_TYPES \
            and 7.0 <= gpu.cc_number < 7.5 and model.params.total:
        # Volta: fp16 mma but no int8 mma, so a prompt micro-batch of 64 tokens or more
        # takes cuBLAS (ggml_cuda_should_use_mmq), each quantized matrix first dequantized
        # to fp16 (ggml_cuda_op_mul_mat_cublas, to_fp16_cuda): its bytes read, 2 bytes per
        # weight written.
        bytes_per_weight = (sum(dense) + sum(experts) + embd + out) / model.params.total
        convert = gpu_weights * (1.0 + 2.0 / bytes_per_weight)
    kernel_read = None
    if backend == "cuda":
        if kind in FLOAT_TYPES:
            kernel_read = mmvf_read_gb_s(gpu, b, kind)
        else:
            kernel_read = mmvq_read_gb_s(gpu, b, file_bytes_per_thread(model, ftype, routed))
    elif backend == "vulkan":
        kernel_read = intel_vulkan_matvec_gb_s(gpu, kind)
    matvec_note = ""
    if backend == "vulkan" and kernel_read is not None:
        matvec_note = (f"; Vulkan mat-vec shaders on Intel Arc read {kernel_read:.0f} GB/s "
                       f"with {kind} weights (test-backend-ops, llama.cpp PRs #17374, #24404, "
                       "#25380)")
    elif kernel_read is not None:
        latency, latency_source = loaded_latency(gpu)
        matvec_note = (f"; the mat-vec kernel's threads ask for at most {kernel_read:.0f} "
                       f"GB/s over a loaded latency of {latency * 1e6:.3f} us "
                       f"({latency_source})")
    read_share, read_source = read_fraction(gpu)
    decode = DecodeCost(
        bandwidth_efficiency=read_share,
        kernel_read_gb_s=kernel_read or 0.0,
        host_read_bytes=host_read,
        host_bandwidth_gb_s=host.bandwidth_gb_s,
        kernels_per_step=kernels * share,
        kernel_gap_s=gap,
        weight_kernels_per_step=weight_kernels * share,
        dram_latency_s=gc.dram_latency_s,
        host_s=host_cpu_s + gc.sync_s + (n_gpus - 1) * gap,
        sampling_s=SAMPLING_S_PER_VOCAB * vocab * b,
        prefill_link_bytes=host_weights - embd,
        link_gb_s=gpu.pcie_bandwidth_gb_s or 0.0,
        ubatch_tokens=UBATCH,
        convert_bytes=convert,
        source=f"{read_source}; kernels from llama.cpp's graph; host "
               f"{host_cpu_s * 1e3:.2f} ms/token ({host_note}){matvec_note}",
        prompt=prompt,
    )
    settings["host_bandwidth_gb_s"] = host.bandwidth_gb_s
    settings["host_bandwidth_source"] = host.source
    settings["cuda_graphs"] = graphs
    terms = {"compute_buffer": compute, "kv_cache": kv_gpu, "cuda_context": context,
             "projector": projector,
             "host_weights": host_weights, "host_kv_cache": kv_host,
             "token_embd_host": embd}
    flags = {"ctx_size": tokens, "n_gpu_layers": ngl, "flash_attn": flash,
             "cache_type_k": settings["cache_type_k"], "cache_type_v": settings["cache_type_v"],
             "n_cpu_moe": n_cpu_moe, "parallel": b, "gguf": settings["gguf_file_type"]}
    warnings = []
    if ollama and settings["num_ctx"] < per_seq:
        warnings.append(f"ollama: num_ctx {settings['num_ctx']:,} holds fewer tokens than the "
                        f"plan's {per_seq:,} (prompt and new tokens): Ollama cuts the prompt "
                        "to fit; raise num_ctx")
    if gpu_layers < n:
        warnings.append(f"{name}: {n - gpu_layers} of {n} layers in host RAM, read at "
                        f"{host.bandwidth_gb_s:.0f} GB/s each token")
    return EngineResult(
        engine=name,
        weights=gpu_weights / n_gpus,
        activations=compute,
        logits=0.0,
        kv_cache=kv_gpu / n_gpus,
        overhead=context,
        context=context,
        host_bytes=host_weights + kv_host,
        expert_weights=sum(experts[i] for i in on_gpu if i not in cpu_moe) / n_gpus,
        decode=decode,
        terms=terms,
        settings=settings,
        defaults=defaults,
        flags=flags,
        split="layer",
        kv_bytes_per_token=kv_read,
        capacity_fraction=APPLE_GPU_WIRED_FRACTION if gpu.vendor == "apple" else 1.0,
        warnings=warnings,
    )


def _kv_per_layer(model: ModelShape, cells: int, kv_type: str, window: bool = True
                  ) -> list[float]:
    """KV bytes of each layer for ``cells`` cells (windowed layers keep their window unless
    ``window`` is False)."""
    per: list[float] = []
    elem = _kv_elem_bytes(kv_type)
    for blk, count in model.blocks:
        kept = min(cells, blk.window) if (blk.window and window) else cells
        per += [blk.kv_elements_per_token * kept * elem] * count
    return per


def _routed_fraction(model: ModelShape, b: int) -> float:
    """Share of an MoE layer's expert bytes a step of ``b`` tokens reads (uniform routing:
    an expert is unread with probability ``(1 - k/E)^b``)."""
    moe = [blk for blk, _ in model.blocks if blk.is_moe]
    if not moe:
        return 1.0
    blk = moe[0]
    return 1.0 - (1.0 - blk.experts_per_token / blk.experts) ** b


#: The first Ollama release that runs GGUF models on llama-server and lets its ``--fit``
#: place the layers (ollama/ollama 9db4bdba, 2026-05-29, "runner: Remove CGO engines, use
#: llama-server exclusively for GGML models", first tagged v0.30.0; ``llm/llama_server.go``
#: passes no ``-ngl`` when ``num_gpu`` is unset and, with a projector, raises the fit
#: target by the projector's size and 1 GiB). Earlier releases place layers by their own
#: estimate (``llm/memory.go``, :func:`_ollama_fit`).
OLLAMA_FIT_RELEASE = (0, 30)
#: The memory ``llama.cpp --fit`` leaves free on each device, MiB (``--fit-target``; its
#: log: "cannot fulfill margin of 1024 MiB on all devices", ggml-org/llama.cpp PR #16653).
FIT_TARGET_MIB = 1024


def fit_layers(gpu: GpuSpec, dense, experts, out, kv_layer, per_gpu, first_gpu_extra,
               n_gpus: int, n_cpu_moe: int) -> tuple[int, int]:
    """``(-ngl, --n-cpu-moe)`` as ``llama.cpp --fit`` (on by default since late 2025,
    ggml-org/llama.cpp PR #16653) sets what the user left unset: everything on the GPUs when
    that leaves :data:`FIT_TARGET_MIB` free on each; else, of a mixture of experts, the
    experts' tensors go to host memory layer by layer first (attention and the shared parts
    stay: "dense-only layers"); then whole layers, the output layer before the others (the
    GPUs keep the last ``-ngl`` layers). ``per_gpu``: what each GPU holds besides the layers
    (compute buffer, CUDA context); ``first_gpu_extra``: the projector, on the first GPU.

    llama.cpp also splits a layer's tensors at the edge (attention, up, gate in turn); the
    whole layers here leave that part of a layer on the host."""
    n = len(dense)
    margin = FIT_TARGET_MIB * 1024**2
    budget = n_gpus * (gpu.usable_bytes - margin - per_gpu) - first_gpu_extra

    def used(ngl: int, cpu_moe: int) -> float:
        total = sum(dense[i] + kv_layer[i] + (experts[i] if i >= cpu_moe else 0.0)
                    for i in range(max(n - ngl, 0), n))
        return total + (out if ngl > n else 0.0)

    if used(n + 1, n_cpu_moe) <= budget:
        return n + 1, n_cpu_moe
    if any(experts):
        for k in range(n_cpu_moe + 1, n + 1):
            if used(n + 1, k) <= budget:
                return n + 1, k
        n_cpu_moe = n
    for ngl in range(n, -1, -1):
        if used(ngl, n_cpu_moe) <= budget:
            return ngl, n_cpu_moe
    return 0, n_cpu_moe


def _ollama_fit(gpu: GpuSpec, dense, experts, out, kv_layer, graph, n_gpus, n_cpu_moe):
    """Ollama's ``num_gpu`` as its memory estimate places layers (llm/memory.go,
    ``EstimateGPULayers``): on each GPU it first sets aside its minimum memory
    (:data:`OLLAMA_MINIMUM_MEMORY`, standing for the runner's CUDA context), the compute
    graph and one layer's size as a margin; then layers, each its weights and KV cache,
    while they fit the memory free; the output layer only when every layer fits. The free
    memory is what CUDA can allocate (:attr:`GpuSpec.usable_bytes`; an Ollama log's
    ``memory.available`` where one is read back)."""
    n = len(dense)
    sizes = [dense[i] + kv_layer[i] + (experts[i] if i >= n_cpu_moe else 0.0)
             for i in range(n)]
    margin = max(sizes, default=0.0)
    budget = (gpu.usable_bytes - OLLAMA_MINIMUM_MEMORY - graph - margin) * n_gpus
    used = 0.0
    layers = 0
    for i in range(n - 1, -1, -1):
        if used + sizes[i] > budget:
            break
        used += sizes[i]
        layers += 1
    if layers == n and used + out <= budget:
        return n + 1
    return layers


__all__ = ["CUDA_GRAPH_RULES", "GRAPH_REUSE_DEFAULT", "HOST_S_PER_TOKEN",
           "HOST_S_PER_TOKEN_REBUILDING", "KV_TYPES", "OLLAMA_CTX_BY_VRAM",
           "SAMPLING_S_PER_VOCAB", "UBATCH", "compute_buffer_bytes", "cuda_graphs_on",
           "evaluate", "gguf_type_for", "host_s_per_token", "kv_cells", "mmvf_read_gb_s",
           "mmvq_read_gb_s", "ollama_num_ctx"]
