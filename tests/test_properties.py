"""Property tests: no crash on any valid plan, and memory moves the right way with each knob.

The model specs have 16 layers: ZeRO-3 keeps two gathered blocks (the running one and the
prefetched one), which for a model of one or two blocks is most of the model and can exceed
what sharding saves; real transformers have far more blocks than that.
"""

from __future__ import annotations

import math

import numpy as np
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from gpuadvisor.core.assumptions import DEFAULT_ASSUMPTIONS
from gpuadvisor.core.estimate import estimate
from gpuadvisor.core.gpu import GpuSpec
from gpuadvisor.core.memory import TERMS, activation_bytes, memory_breakdown
from gpuadvisor.core.model import ModelSpec
from gpuadvisor.core.plan import (
    ATTENTION,
    CHECKPOINTING,
    LORA_TARGETS,
    OPTIMIZERS,
    PRECISIONS,
    Plan,
)

SETTINGS = settings(max_examples=150, deadline=None)

MODELS = {
    "decoder-dense": ModelSpec(
        id="gpt-like", name="GPT-like", n_layers=16, d_model=256, n_heads=8, d_ff=1024,
        vocab_size=5000, max_positions=1024, mlp="gelu", norm="layernorm",
        position="learned", tied_embeddings=True, qkv_bias=True, out_bias=True,
        mlp_bias=True,
    ),
    "decoder-gqa": ModelSpec(
        id="llama-like", name="LLaMA-like", n_layers=16, d_model=512, n_heads=8,
        n_kv_heads=2, d_ff=1376, vocab_size=32000,
    ),
    "decoder-moe": ModelSpec(
        id="moe", name="MoE", n_layers=16, d_model=256, n_heads=8, n_kv_heads=4, d_ff=512,
        vocab_size=8000, n_experts=8, experts_per_token=2,
    ),
    "encoder": ModelSpec(
        id="bert-like", name="BERT-like", kind="encoder", n_layers=16, d_model=256,
        n_heads=4, d_ff=1024, vocab_size=30522, max_positions=512, type_vocab_size=2,
        mlp="gelu", norm="layernorm", position="learned", qkv_bias=True, out_bias=True,
        mlp_bias=True, final_norm=False, embedding_norm=True, pooler=True,
    ),
    "opaque": ModelSpec(
        id="cnn", name="CNN", kind="opaque", params_override=25_000_000,
        flops_per_sample=8e9, sample_unit="224x224 image",
        activation_bytes_per_sample=100e6,
    ),
}


def _gpu(**changes) -> GpuSpec:
    fields = dict(
        id="h100-like", name="H100-like", vendor="nvidia", segment="datacenter",
        architecture="Hopper", ecosystem="cuda", launch_year=2022, memory_gib=80,
        memory_type="HBM3", memory_bandwidth_gb_s=3350, fp32_tflops=67,
        fp16_tensor_tflops=989, bf16_tensor_tflops=989, fp8_tensor_tflops=1979, tdp_w=700,
        pcie_gen=5, pcie_lanes=16, p2p_link="nvlink4", p2p_bandwidth_gb_s=900,
        compute_capability="9.0", source="property test",
    )
    fields.update(changes)
    return GpuSpec(**fields)


GPUS = [
    _gpu(),
    # A PCIe card without bf16 or fp8 units (V100-like): exercises the peak fallbacks.
    _gpu(id="v100-like", name="V100-like", memory_gib=16, memory_bandwidth_gb_s=900,
         fp32_tflops=14, fp16_tensor_tflops=112, bf16_tensor_tflops=None,
         fp8_tensor_tflops=None, pcie_gen=3, p2p_link="none", p2p_bandwidth_gb_s=None,
         compute_capability="7.0"),
]


@st.composite
def plans(draw, tasks=("pretrain", "full", "lora", "qlora", "infer"), min_gpus=1):
    """A model name and a valid plan for it (None when the drawn fields are inconsistent)."""
    model_name = draw(st.sampled_from(sorted(MODELS)))
    task = draw(st.sampled_from(tasks))
    fields = dict(
        task=task,
        precision=draw(st.sampled_from(PRECISIONS)),
        optimizer=draw(st.sampled_from(OPTIMIZERS)),
        micro_batch=draw(st.integers(1, 64)),
        grad_accum=draw(st.integers(1, 8)),
        seq_len=draw(st.integers(16, 32768)),
        checkpointing=draw(st.sampled_from(CHECKPOINTING)),
        attention=draw(st.sampled_from(ATTENTION)),
        n_gpus=draw(st.integers(min_gpus, 16)),
        zero_stage=draw(st.integers(0, 3)),
        offload=draw(st.sampled_from(("none", "none", "optimizer", "params"))),
        new_tokens=draw(st.integers(1, 1024)),
    )
    if task in ("lora", "qlora"):
        fields["lora_rank"] = draw(st.none() | st.integers(1, 256))
        fields["lora_targets"] = draw(st.sampled_from(LORA_TARGETS))
    if task == "qlora":
        fields["quant"] = draw(st.sampled_from((None, "int8", "nf4", "nf4-dq")))
    if task == "infer":
        fields["quant"] = draw(st.sampled_from((None, "none", "int8", "nf4", "nf4-dq")))
        fields["kv_dtype"] = draw(st.sampled_from((None, "fp16", "bf16", "fp8", "int8")))
        if draw(st.booleans()):
            fields["dataset_samples"] = draw(st.integers(1, 10_000))
    elif draw(st.booleans()):
        if model_name == "opaque":
            fields["dataset_samples"] = draw(st.integers(1, 10**7))
            fields["epochs"] = draw(st.floats(0.5, 5))
        else:
            fields["dataset_tokens"] = draw(st.floats(1e6, 1e13))
    if draw(st.booleans()):
        fields["efficiency"] = draw(st.floats(0.05, 1.0))
    try:
        plan = Plan(**fields)
    except ValueError:
        return model_name, None
    return model_name, plan


def _finite_nonneg(value) -> bool:
    value = float(value)
    return math.isfinite(value) and value >= 0


# --------------------------------------------------------------------------- no crash
@SETTINGS
@given(drawn=plans(), gpu=st.sampled_from(GPUS), with_gpu=st.booleans())
def test_estimate_never_raises_and_every_figure_is_finite_and_non_negative(drawn, gpu,
                                                                           with_gpu):
    model_name, plan = drawn
    assume(plan is not None)
    model = MODELS[model_name]
    est = estimate(model, plan, gpu if with_gpu else None, reference_gpu=gpu)
    for term in TERMS:
        assert _finite_nonneg(getattr(est.memory, term)), term
    assert _finite_nonneg(est.memory.cpu_bytes)
    assert _finite_nonneg(est.memory.context_bytes)
    assert est.memory.total > 0
    t = est.time
    for name in ("seconds", "gpu_hours", "tokens_per_s", "tokens_per_s_per_gpu", "steps",
                 "step_seconds", "compute_seconds_per_step", "comm_seconds_per_step",
                 "flops_total", "achieved_tflops_per_gpu", "efficiency", "interconnect_gb_s",
                 "prefill_seconds", "decode_tokens_per_s"):
        assert _finite_nonneg(getattr(t, name)), name
    assert t.seconds > 0
    assert est.flops.forward >= 0 and est.flops.train >= 0
    assert isinstance(est.to_json(), dict)


# --------------------------------------------------------------------------- monotonicity
@SETTINGS
@given(drawn=plans(), extra=st.integers(1, 64))
def test_memory_total_never_decreases_with_micro_batch(drawn, extra):
    model_name, plan = drawn
    assume(plan is not None)
    model = MODELS[model_name]
    small = memory_breakdown(model, plan)
    big = memory_breakdown(model, plan.with_changes(micro_batch=plan.micro_batch + extra))
    assert big.total >= small.total * (1 - 1e-12)


@SETTINGS
@given(drawn=plans(), extra=st.integers(1, 32768))
def test_memory_total_never_decreases_with_sequence_length(drawn, extra):
    model_name, plan = drawn
    assume(plan is not None)
    model = MODELS[model_name]
    short = memory_breakdown(model, plan)
    long = memory_breakdown(model, plan.with_changes(seq_len=plan.seq_len + extra))
    assert long.total >= short.total * (1 - 1e-12)


def _zero_pair(plan: Plan):
    """The plan at its ZeRO stage k and at k + 1 (None when either is not a valid plan)."""
    assume(plan.zero_stage < 3)
    try:
        return plan, plan.with_changes(zero_stage=plan.zero_stage + 1)
    except ValueError:
        return None


@SETTINGS
@given(drawn=plans(tasks=("pretrain", "full"), min_gpus=2))
def test_next_zero_stage_never_needs_more_memory_per_gpu_for_full_training(drawn):
    model_name, plan = drawn
    assume(plan is not None)
    pair = _zero_pair(plan)
    assume(pair is not None)
    model = MODELS[model_name]
    lower, higher = (memory_breakdown(model, p).total for p in pair)
    assert higher <= lower * (1 + 1e-12)


@SETTINGS
@given(drawn=plans(tasks=("lora", "qlora", "infer"), min_gpus=2))
def test_next_zero_stage_never_needs_more_memory_per_gpu_for_adapters_and_inference(drawn):
    model_name, plan = drawn
    assume(plan is not None)
    pair = _zero_pair(plan)
    assume(pair is not None)
    model = MODELS[model_name]
    lower, higher = (memory_breakdown(model, p).total for p in pair)
    assert higher <= lower * (1 + 1e-12)


def _activations_by_checkpointing(model_name: str, plan: Plan) -> list[float]:
    model = MODELS[model_name]
    return [activation_bytes(model, plan.with_changes(checkpointing=c), DEFAULT_ASSUMPTIONS)
            for c in ("none", "selective", "full")]


@SETTINGS
@given(drawn=plans(tasks=("pretrain", "full", "lora", "qlora")))
def test_checkpointing_none_ge_selective_ge_full_with_flash_attention(drawn):
    model_name, plan = drawn
    assume(plan is not None)
    plan = plan.with_changes(attention="flash")
    none, selective, full = _activations_by_checkpointing(model_name, plan)
    assert none >= selective * (1 - 1e-12)
    assert selective >= full * (1 - 1e-12)


@SETTINGS
@given(drawn=plans(tasks=("pretrain", "full", "lora", "qlora")))
def test_checkpointing_none_ge_selective_ge_full_with_eager_attention(drawn):
    model_name, plan = drawn
    assume(plan is not None)
    plan = plan.with_changes(attention="eager")
    none, selective, full = _activations_by_checkpointing(model_name, plan)
    assert none >= selective * (1 - 1e-12)
    assert selective >= full * (1 - 1e-12)


@SETTINGS
@given(drawn=plans())
def test_more_gpus_never_increase_model_states_per_gpu_with_zero3(drawn):
    model_name, plan = drawn
    assume(plan is not None)
    try:
        plan = plan.with_changes(zero_stage=3)
    except ValueError:
        assume(False)
    model = MODELS[model_name]
    counts = np.arange(1, 17)
    states = np.broadcast_to(memory_breakdown(model, plan, n_gpus=counts).model_states,
                             counts.shape)
    assert np.all(np.diff(states) <= np.abs(states[:-1]) * 1e-12)
