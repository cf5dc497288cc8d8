"""Inference time: prefill and decode of a plan on a GPU, the one model every engine's
estimate runs through (:mod:`.engines` adds each engine's own decode terms), and the share
of an MoE's weights a step reads.

Conventions as in :mod:`.compute`: one multiply-add = 2 FLOPs; the GPU figures may be NumPy
arrays, so a whole catalog sweep is one call.
"""

from __future__ import annotations

import numpy as np

from .assumptions import DEFAULT_ASSUMPTIONS, Assumptions
from .compute import (
    DecodeStep,
    TimeEstimate,
    _attention_flops,
    _time_estimate,
    default_efficiency,
    flops_per_token,
)
from .memory import weight_bytes, weight_quant
from .model import ModelLike, model_shape
from .plan import Plan
from .quant import QUANT_BYTES


def routed_expert_fraction(model: ModelLike, b) -> float:
    """Share of an MoE model's routed-expert bytes a decode step of ``b`` tokens reads: each
    token picks k of E experts, so an expert is unread with probability ``(1 - k/E)^b``
    (uniform routing)."""
    m = model_shape(model)
    moe = [blk for blk, _ in m.blocks if blk.experts > 1]
    if not moe:
        return 1.0
    blk = moe[0]
    return 1.0 - (1.0 - blk.experts_per_token / blk.experts) ** np.asarray(b, dtype=float)


def decode_weight_fraction(model: ModelLike, plan: Plan, b=None):
    """Share of the resident weight bytes one decode step reads (1 for dense models).

    A decode step of ``b`` sequences routes ``b`` tokens; each picks k of the E experts of
    an MoE layer, so an expert is left unread with probability ``(1 - k/E)^b`` (uniform
    routing) and its bytes are not read that step. Everything else (attention, shared
    experts, dense layers, embeddings) is read every step.
    """
    m = model_shape(model)
    if not m.has_moe or plan.task != "infer":
        return 1.0
    moe = [(blk, count) for blk, count in m.blocks if blk.experts > 1]
    b = plan.micro_batch if b is None else b
    quant = weight_quant(m, plan)
    bytes16 = 4.0 if plan.precision == "fp32" else (1.0 if plan.precision == "fp8" else 2.0)
    per_weight = bytes16
    if quant != "none":
        per_weight = QUANT_BYTES[quant]
        if quant == m.shipped_quant:
            per_weight = (m.shipped_quant_bytes or per_weight) if "experts" in \
                m.shipped_quant_groups else max(bytes16, 2.0)
    total = weight_bytes(m, plan, DEFAULT_ASSUMPTIONS, 1)
    if plan.quant is None and m.weights_file_bytes:  # a file's tensors: their mean width
        per_weight = m.weights_file_bytes / max(m.params.total, 1)
    unread = sum(count * blk.experts * blk.expert_weights * per_weight
                 * (1.0 - blk.experts_per_token / blk.experts) ** np.asarray(b, dtype=float)
                 for blk, count in moe)
    return 1.0 - unread / total


def _prefill_seconds(m, plan: Plan, forward_flops, achieved, streamed, resident_bytes,
                     expert_bytes, chunk_tokens: int):
    """The prompt's prefill: ``b x s`` tokens in forward passes of ``chunk_tokens`` (the
    engine's prompt micro-batch: llama.cpp's ``n_ubatch``, vLLM's token budget; one pass
    without an engine). Each pass takes the longer of its matmuls (``tokens x forward
    FLOPs / achieved``) and one read of the weights it uses (``bytes / achieved
    bandwidth``: every weight is read at least once per pass, whatever the number of
    tokens; of an MoE's experts, those its tokens are routed to). A short prompt is
    weight-read bound: 40 tokens of a 7B model at 16 bits read 15 GB, 51 ms on an L4's
    300 GB/s, while their matmuls take 10 ms at half its 121 TFLOPS. (The same roofline,
    "TTFT = max(2 N B S / FLOPs rate, 2 N / HBM rate)", vllm-project/vllm issue #770,
    comment of 2024-12-03, after Hugging Face's TGI benchmarking blog.)"""
    total = plan.micro_batch * plan.seq_len
    chunk = max(int(chunk_tokens), 1)
    full, last = divmod(total, chunk)

    def read(tokens: int):
        if m.has_moe and expert_bytes is not None:
            return (resident_bytes - expert_bytes
                    + expert_bytes * routed_expert_fraction(m, tokens))
        if m.has_moe:
            return resident_bytes * decode_weight_fraction(m, plan, tokens)
        return resident_bytes

    def one(tokens: int):
        return np.maximum(tokens * forward_flops / achieved, read(tokens) / streamed)

    seconds = full * one(chunk) if full else 0.0
    return seconds + (one(last) if last else 0.0)


def inference_time(
    model: ModelLike,
    plan: Plan,
    *,
    peak_tflops,
    bandwidth_gb_s,
    resident_bytes,
    kv_bytes_per_token,
    assumptions: Assumptions = DEFAULT_ASSUMPTIONS,
    efficiency: float | None = None,
    decode=None,
    expert_bytes=None,
) -> TimeEstimate:
    """Time to serve ``micro_batch`` sequences: prefill the prompt, decode ``new_tokens``.

    ``expert_bytes``: the routed experts' share of ``resident_bytes`` as the engine stores
    them (a GGUF file's own mixture); the step then reads the rest and the routed share of
    those (:func:`routed_expert_fraction`).

    Prefill: ``b s x forward FLOPs / (peak x efficiency)``, but never shorter than one read
    of the weights per prompt pass (:func:`_prefill_seconds`). Each decode step
    reads every resident weight byte (of an MoE, only the experts its tokens are routed to:
    :func:`decode_weight_fraction`) and the KV cache once and does ``b x forward`` FLOPs, so
    a step takes ``max(bytes / (bandwidth x bw_efficiency), flops / achieved)``; KV is taken
    at the mean context ``s + new_tokens / 2``. With ``dataset_samples`` the job is that
    many sequences in batches of ``micro_batch``. ``kv_bytes_per_token`` is the cache per token
    and sequence with every layer global; layers with a window read at most their window.

    ``decode`` (an engine's :class:`~.engines.base.DecodeCost`) replaces
    ``bandwidth_efficiency`` with the engine's streaming rate and adds what a
    bytes / bandwidth model misses: a step becomes ``max(GPU bytes / (bandwidth x
    decode.bandwidth_efficiency), compute) + host bytes / host bandwidth + decode.fixed_s``
    (the step's streaming rate no more than ``decode.kernel_read_gb_s``, its kernel's own
    ceiling; no shorter than ``decode.pipelined_host_s``, host work that overlaps the GPU)
    (kernel gaps, DRAM latencies, host work, sampling), and a prompt micro-batch of
    ``decode.ubatch_tokens`` (32 tokens or more) first copies ``decode.prefill_link_bytes`` of
    CPU-side weights over the host link, and moves ``decode.convert_bytes`` at the
    streaming rate when the engine converts its weights first (so does a decode step of
    that many sequences). ``decode.prefill_tflops``,
    when the engine knows the rate of its matmul kernel (:mod:`.engines.prompt_rates`),
    times the prompt's and the steps' FLOPs instead of ``peak x efficiency`` (unless the
    plan gives its own efficiency).
    """
    eff = default_efficiency(plan, assumptions) if efficiency is None else efficiency
    b, s, new = plan.micro_batch, plan.seq_len, plan.new_tokens
    achieved = np.asarray(peak_tflops, dtype=float) * 1e12 * eff
    m = model_shape(model)
    per_token = flops_per_token(m, plan)
    bw_eff = assumptions.bandwidth_efficiency if decode is None else decode.bandwidth_efficiency
    streamed = np.asarray(bandwidth_gb_s, dtype=float) * 1e9 * bw_eff
    if decode is not None and decode.prefill_tflops and plan.efficiency is None:
        # The engine's own matmul kernel (its backend, the weights' type): a published rate,
        # for the prompt and for a decode step's matmuls alike; the efficiency reported is
        # that rate over the plan's peak.
        achieved = np.full_like(achieved, decode.prefill_tflops * 1e12)
        eff = achieved / (np.asarray(peak_tflops, dtype=float) * 1e12)
    prefill = _prefill_seconds(m, plan, per_token.forward, achieved, streamed,
                               resident_bytes, expert_bytes,
                               b * s if decode is None else decode.ubatch_tokens)
    mean_ctx = s + new / 2.0
    # Each generated token attends to its whole context: no causal half to skip.
    decode_fwd = per_token.forward
    if m.kind != "opaque":
        decode_fwd = per_token.matmul_forward + _attention_flops(m, mean_ctx, 1.0, decode=True)
    if m.has_moe and expert_bytes is not None:
        # An MoE decode step reads only the experts its b tokens are routed to.
        resident_bytes = (resident_bytes - expert_bytes
                          + expert_bytes * routed_expert_fraction(m, b))
    elif m.has_moe:
        resident_bytes = resident_bytes * decode_weight_fraction(m, plan, b)
    if m.windowed:
        # kv_bytes_per_token is the all-global figure; windowed layers keep their window.
        kept = m.kv_elements_at(mean_ctx) / max(m.kv_elements_per_token, 1)
        read = resident_bytes + kv_bytes_per_token * b * kept
    else:
        read = resident_bytes + kv_bytes_per_token * b * mean_ctx
    step_streamed = streamed
    if decode is not None and decode.kernel_read_gb_s:
        # a decode step's matrix-vector kernel cannot keep more bytes in flight than its
        # threads ask for (the prompt's matrix kernels and the weight conversion can)
        step_streamed = np.minimum(streamed, decode.kernel_read_gb_s * 1e9)
    memory_time = read / step_streamed
    weights_time = resident_bytes / step_streamed
    compute_time = b * decode_fwd / achieved
    fixed = floor = 0.0
    if decode is not None:
        floor = decode.pipelined_host_s
        memory_time = memory_time + decode.host_read_s
        weights_time = weights_time + decode.host_read_s
        fixed = decode.fixed_s
        if decode.step_converts(b):
            fixed = fixed + decode.convert_bytes / streamed
        if decode.prefill_link_bytes and decode.link_gb_s and b * s >= 32:
            micro_batches = np.ceil(b * s / decode.ubatch_tokens)
            prefill = prefill + micro_batches * decode.prefill_link_bytes / (
                decode.link_gb_s * 1e9)
        if decode.convert_bytes:
            # each micro-batch that takes the cuBLAS path converts the weights first
            prefill = prefill + decode.convert_passes(b * s) \
                * decode.convert_bytes / streamed
    parts = DecodeStep(memory_s=memory_time, weights_s=weights_time, compute_s=compute_time,
                       fixed_s=fixed, prompt_token_s=per_token.forward / achieved,
                       host_floor_s=floor)
    # host work a pipelined loop overlaps with the GPU's step shows only past that step
    decode_step = parts.seconds()
    batch_seconds = prefill + new * decode_step
    batches = 1.0
    if plan.dataset_samples is not None:
        batches = float(np.ceil(plan.dataset_samples * plan.epochs / b))
    seconds = batches * batch_seconds
    decode_rate = b / decode_step
    n = plan.n_gpus
    return _time_estimate(
        seconds=seconds,
        gpu_hours=seconds * n / 3600.0,
        tokens_per_s=batches * b * new / seconds,
        tokens_per_s_per_gpu=batches * b * new / seconds / n,
        steps=batches,
        step_seconds=batch_seconds,
        compute_seconds_per_step=prefill,
        comm_seconds_per_step=0.0 * prefill,
        flops_total=batches * b * (s * per_token.forward + new * decode_fwd),
        achieved_tflops_per_gpu=achieved / 1e12,
        efficiency=eff,
        interconnect_gb_s=0.0 * prefill,
        prefill_seconds=prefill,
        decode_tokens_per_s=decode_rate,
        bound=np.where(floor > parts.on_gpu(), "host",
                       np.where(memory_time >= compute_time, "memory bandwidth", "compute")),
        decode_step=parts,
    )


__all__ = ["decode_weight_fraction", "inference_time", "routed_expert_fraction"]
