"""MLX (``mlx-lm``) on Apple silicon: unified memory, of which the GPU may wire a share.

Memory:

* usable: macOS lets the GPU wire about 75% of unified memory by default
  (``recommendedMaxWorkingSetSize``; ``sudo sysctl iogpu.wired_limit_mb`` raises it, as the
  mlx-lm README advises for large models). The fit is judged against that share.
* weights: 16-bit, or mlx-lm's affine quantization (``mlx_lm.convert -q``: group size 64,
  an fp16 scale and an fp16 bias per group) of every linear *and* the embedding:
  ``bits + 32/64`` bits per weight; ``int4`` = 4.5 bits, ``int8`` = 8.5, ``int3`` = 3.5.
* KV cache: 2 bytes per element (``KVCache``), grown in steps of 256 tokens.
* working set: one layer's activations of the prompt chunk (``prefill_step_size`` 2,048
  tokens) and the fp32 logits of the last token.

Decode: the weights at the class's streaming rate; about 15 kernels per layer (MLX's lazy
graph, one dispatch per op after fusion of elementwise ops), 7 reading weights, and 8 more in
a mixture-of-experts block (:data:`MOE_EXTRA_KERNELS`). The host's
work per token, 0.5 ms of graph construction in Python (assumed) and the command buffer's
trip back to the CPU (the Apple class's ``sync_s``), overlaps the GPU's: since mlx-lm's
"Use async eval" (ml-explore/mlx-examples #670, 2024-04-11) ``generate_step`` builds and
queues token n+1 (``mx.async_eval``) before it waits on token n (``y.item()``), so the GPU
always has the next step queued and the host's round shows only where it is longer than the
GPU's step (:attr:`.base.DecodeCost.pipelined_host_s`). llama.cpp's Metal backend waits for
each token's logits before it builds the next graph, so there they add up.
"""

from __future__ import annotations

from gpuadvisor.core.architecture import ModelShape
from gpuadvisor.core.assumptions import Assumptions
from gpuadvisor.core.engines.base import (
    APPLE_GPU_WIRED_FRACTION,
    DecodeCost,
    EngineResult,
    gpu_class,
    read_fraction,
)
from gpuadvisor.core.engines.prompt_rates import mlx_prompt_rate
from gpuadvisor.core.gpu import GpuSpec
from gpuadvisor.core.plan import Plan

USABLE_FRACTION = APPLE_GPU_WIRED_FRACTION
GROUP_SIZE = 64
#: Bits of mlx-lm's quantization per plan quant name.
BITS = {"int8": 8, "int4": 4, "int3": 3, "nf4": 4, "nf4-dq": 4, "mxfp4": 4}
KV_STEP = 256
PREFILL_STEP = 2048
KERNELS_PER_LAYER = 15
WEIGHT_KERNELS_PER_LAYER = 7
#: What a mixture-of-experts block dispatches beyond a dense MLP's four kernels (gate, up,
#: down, the fused SwiGLU) at a one-token step, counted from mlx-lm's
#: ``Qwen3MoeSparseMoeBlock`` and ``SwitchGLU`` (models/qwen3_moe.py, switch_layers.py @d78bf58):
#: the router's matmul, softmax, argpartition, take_along_axis, the scores' sum and division,
#: the weighting multiply and the sum over experts (8 more; the three expert matmuls are
#: ``gather_qmm`` in place of the dense ones), of which one (the router) reads weights.
MOE_EXTRA_KERNELS = 8
MOE_EXTRA_WEIGHT_KERNELS = 1
HOST_S_PER_TOKEN = 0.5e-3


def evaluate(model: ModelShape, plan: Plan, gpu: GpuSpec, assumptions: Assumptions
             ) -> EngineResult:
    """mlx-lm running ``plan`` on an Apple GPU.

    Raises:
        ValueError: a GPU without unified memory (MLX runs on Apple silicon), or a quant
            mlx-lm has no format for.
    """
    if gpu.vendor != "apple":
        raise ValueError(f"MLX runs on Apple silicon; {gpu.name} is not an Apple GPU")
    if model.kind != "decoder" or model.block is None:
        raise ValueError(f"mlx-lm runs decoder language models; {model.id} is not one")
    defaults: dict = {"usable_memory_fraction": "macOS GPU wired limit (~75% of RAM)"}
    quant = plan.quant or "none"
    if quant == "none":
        per_weight = 2.0
    elif quant in BITS:
        per_weight = (BITS[quant] + 32 / GROUP_SIZE) / 8
    else:
        raise ValueError(f"quant {quant!r}: mlx-lm quantizes to 3, 4 or 8 bits (int3, "
                         "int4, int8)")
    p = model.params
    quantized = p.linear_in_blocks + p.embedding + p.lm_head
    weights = quantized * per_weight + (p.total - quantized) * 2.0
    b = plan.micro_batch
    tokens = plan.seq_len + plan.new_tokens
    cells = -(-tokens // KV_STEP) * KV_STEP
    kv = model.kv_elements_at(cells) * b * 2.0
    blk = model.block
    chunk = min(PREFILL_STEP, max(plan.seq_len, 1)) * b
    working = chunk * (4 * model.d_model + 3 * blk.d_ff) * 2.0 + b * model.vocab_size * 4.0
    gc = gpu_class(gpu)
    prompt = mlx_prompt_rate(gpu)
    read_share, read_source = read_fraction(gpu)
    moe_layers = sum(count for blk, count in model.blocks if blk.experts > 1)
    decode = DecodeCost(
        bandwidth_efficiency=read_share,
        kernels_per_step=KERNELS_PER_LAYER * model.n_layers + MOE_EXTRA_KERNELS * moe_layers + 3,
        kernel_gap_s=gc.stream_gap_s,
        weight_kernels_per_step=(WEIGHT_KERNELS_PER_LAYER * model.n_layers
                                 + MOE_EXTRA_WEIGHT_KERNELS * moe_layers + 1),
        dram_latency_s=gc.dram_latency_s,
        pipelined_host_s=HOST_S_PER_TOKEN + gc.sync_s,
        ubatch_tokens=PREFILL_STEP,
        source=f"{read_source}; 15 kernels per layer; host 0.5 ms (assumed) and the command "
               "buffer's round trip, overlapped with the GPU's step (mx.async_eval)",
        prompt=prompt,
    )
    settings = {"bits_per_weight": per_weight * 8, "group_size": GROUP_SIZE,
                "usable_memory_fraction": USABLE_FRACTION, "kv_cache": "fp16"}
    return EngineResult(
        engine="mlx", weights=weights, activations=working, logits=0.0, kv_cache=kv,
        overhead=0.0, decode=decode,
        # the routed experts, stored at the same width as every quantized linear
        expert_weights=sum(count * blk.experts * blk.expert_weights
                           for blk, count in model.blocks if blk.experts > 1) * per_weight,
        terms={"working_set": working, "kv_cache": kv,
               "usable_bytes": USABLE_FRACTION * gpu.memory_bytes},
        settings=settings, defaults=defaults, capacity_fraction=USABLE_FRACTION,
        kv_bytes_per_token=model.kv_elements_per_token * 2.0,
        flags={"bits": BITS.get(quant), "max_kv_size": tokens},
    )


__all__ = ["BITS", "GROUP_SIZE", "MOE_EXTRA_KERNELS", "USABLE_FRACTION", "evaluate"]
