"""ExLlamaV2: EXL2 weights at any mean bit rate, a cache allocated for the whole context.

Memory (turboderp/exllamav2 ``exllamav2/model.py`` @617d697a, ``set_device_map``;
``convert.py`` @09227a7):

* weights: every block linear at the file's mean rate (``exl2-<bits>``; the converter's
  default 4.125 bits), scales included; the output head at ``head_bits`` (default 6); norms
  at 2 bytes. The token embeddings stay in system RAM (``embed_cpu=True``: the embedding
  module is placed on the CPU), 2 bytes per element.
* cache: ``max_seq_len x batch`` tokens allocated up front, K and V of every layer at 2 bytes
  (``ExLlamaV2Cache``), or the 8-bit / 4-bit caches (``ExLlamaV2Cache_Q8``/``_Q4``, taken
  here as llama.cpp's q8_0/q4_0 sizes: 8 or 4 bits plus a 16-bit scale per 32).
* scratch: the hidden state ``hidden x max_input_len x batch x 2``, the attention mask
  ``max_input_len^2 x batch x 2``, the rotary tables ``head_dim x max_seq_len x 2 x 2`` and
  the MLP's ``max_input_len x 2 x d_ff x 2`` (``max_input_len`` = 2,048 by default).
* the CUDA context.

Decode: the weights at the GPU class's streaming rate; per layer about 12 kernels (norm, a
fused QKV matmul, rotary, cache update, attention, output matmul, residual; norm, gate/up,
activation, down, residual), 4 reading weights, from a CUDA graph; host work 0.5 ms per
token (the Python generator loop; assumed).
"""

from __future__ import annotations

from gpuadvisor.core.architecture import ModelShape
from gpuadvisor.core.assumptions import Assumptions
from gpuadvisor.core.engines.base import DecodeCost, EngineResult, gpu_class, read_fraction
from gpuadvisor.core.gpu import GpuSpec
from gpuadvisor.core.plan import Plan, exl2_bits

HEAD_BITS = 6
MAX_INPUT_LEN = 2048
#: KV cache bytes per element: fp16, and the 8/4-bit caches (with a 2-byte scale per 32).
CACHE_BYTES = {None: 2.0, "fp16": 2.0, "bf16": 2.0, "fp32": 4.0, "q8_0": 34 / 32,
               "q4_0": 18 / 32}
KERNELS_PER_LAYER = 12
WEIGHT_KERNELS_PER_LAYER = 4
HOST_S_PER_TOKEN = 0.5e-3


def evaluate(model: ModelShape, plan: Plan, gpu: GpuSpec, assumptions: Assumptions
             ) -> EngineResult:
    """ExLlamaV2 running ``plan`` on ``gpu``.

    Raises:
        ValueError: a quant that is not EXL2 (ExLlamaV2 loads EXL2 and 16-bit weights), or a
            KV type it has no cache for.
    """
    if model.kind != "decoder" or model.block is None:
        raise ValueError(f"ExLlamaV2 runs decoder language models; {model.id} is not one")
    defaults: dict = {}
    quant = plan.quant
    if quant in (None, "none"):
        bits = 16.0
        defaults["bits_per_weight"] = "16 (no quantization named)"
    else:
        bits = exl2_bits(str(quant))
        if bits is None:
            raise ValueError(f"quant {quant!r}: ExLlamaV2 loads EXL2 (exl2 or exl2-<bits>)")
    if plan.kv_dtype not in CACHE_BYTES:
        raise ValueError(f"kv_dtype {plan.kv_dtype}: ExLlamaV2 has fp16, Q8 (q8_0) and Q4 "
                         "(q4_0) caches")
    p = model.params
    linear = p.linear_in_blocks
    head = model.output_matmul_params
    head_bits = bits if bits >= 16 else HEAD_BITS
    norms = p.total - linear - p.embedding - p.lm_head
    weights = (linear * bits / 8 + head * head_bits / 8 + max(norms, 0) * 2.0) / plan.n_gpus
    embd_host = model.vocab_size * model.d_model * 2.0
    b = plan.micro_batch
    max_len = plan.seq_len + plan.new_tokens
    cache = model.kv_elements_at(max_len) * b * CACHE_BYTES[plan.kv_dtype] / plan.n_gpus
    blk = model.block
    head_dim = blk.q_dim // max(blk.n_heads, 1)
    inp = min(MAX_INPUT_LEN, max(plan.seq_len, 1))
    scratch = (model.d_model * inp * b * 2 + inp * inp * b * 2 + head_dim * max_len * 4
               + inp * 2 * blk.d_ff * 2)
    context = assumptions.cuda_context_bytes
    gc = gpu_class(gpu)
    read_share, read_source = read_fraction(gpu)
    decode = DecodeCost(
        bandwidth_efficiency=read_share,
        kernels_per_step=KERNELS_PER_LAYER * model.n_layers + 3,
        kernel_gap_s=gc.graph_gap_s,
        weight_kernels_per_step=WEIGHT_KERNELS_PER_LAYER * model.n_layers + 1,
        dram_latency_s=gc.dram_latency_s,
        host_s=HOST_S_PER_TOKEN,
        source=f"{read_source}; 12 kernels per layer; host 0.5 ms (assumed)",
    )
    settings = {"bits_per_weight": bits, "head_bits": head_bits, "max_seq_len": max_len,
                "max_batch_size": b, "cache": plan.kv_dtype or "fp16",
                "max_input_len": MAX_INPUT_LEN, "embeddings": "system RAM"}
    if plan.kv_dtype is None:
        defaults["cache"] = "fp16 (ExLlamaV2Cache)"
    defaults["head_bits"] = "6 (convert.py -hb default)"
    terms = {"scratch": scratch, "cache": cache, "cuda_context": context,
             "embeddings_host": embd_host}
    return EngineResult(
        engine="exllamav2", weights=weights, activations=scratch, logits=0.0,
        kv_cache=cache, overhead=context, context=context, host_bytes=embd_host,
        decode=decode, terms=terms, settings=settings, defaults=defaults,
        flags={"bits": bits, "max_seq_len": max_len, "cache": plan.kv_dtype or "fp16"},
        kv_bytes_per_token=model.kv_elements_per_token * CACHE_BYTES[plan.kv_dtype],
        split="layer",
    )


__all__ = ["CACHE_BYTES", "HEAD_BITS", "MAX_INPUT_LEN", "evaluate"]
