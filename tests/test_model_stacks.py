"""Mixed block stacks under random numbers, and every real config.json under damage.

Properties: whatever a stack mixes (dense and MoE layers, shared experts, latent attention,
windows, q/k norms), its counts add up, active never exceeds total, the KV cache grows with
the context but never past the windows, and an estimate is finite. Damage: any integer the
importer reads, replaced by a string, a negative number or a huge one, gives one line that
names the field.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gpuadvisor.core.estimate import estimate
from gpuadvisor.core.gpu import GpuSpec
from gpuadvisor.core.kvcache import kv_cache_bytes
from gpuadvisor.core.model import ModelSpec, model_shape, spec_from_hf_config
from gpuadvisor.core.plan import Plan

HF_CONFIGS = Path(__file__).parent / "data" / "hf_configs"
GPU = GpuSpec(
    id="test-gpu", name="Test GPU", vendor="nvidia", segment="datacenter", architecture="Test",
    ecosystem="cuda", launch_year=2024, memory_gib=80, memory_type="HBM3",
    memory_bandwidth_gb_s=3000, fp32_tflops=60, fp16_tensor_tflops=900,
    bf16_tensor_tflops=900, tdp_w=700, pcie_gen=5, pcie_lanes=16, p2p_link="none",
    compute_capability="9.0", source="unit test",
)


@st.composite
def stacks(draw):
    heads = draw(st.sampled_from([2, 4, 8]))
    head_dim = draw(st.sampled_from([16, 32]))
    layers = draw(st.integers(1, 12))
    experts = draw(st.sampled_from([1, 1, 4, 8]))
    mla = draw(st.booleans())
    window = draw(st.sampled_from([0, 0, 16, 64]))
    fields = dict(
        id="s", name="s", n_layers=layers, d_model=heads * head_dim, n_heads=heads,
        n_kv_heads=heads if mla else draw(st.sampled_from([1, heads])), head_dim=head_dim,
        d_ff=draw(st.integers(8, 256)), vocab_size=draw(st.integers(10, 500)),
        max_positions=4096, qk_norm=draw(st.sampled_from(["none", "head", "full"])),
        attention_sinks=draw(st.booleans()), tied_embeddings=draw(st.booleans()),
        sliding_window=window, global_layers=draw(st.integers(0, layers)) if window else 0,
    )
    if mla:
        fields |= dict(attention="mla", kv_lora_rank=draw(st.integers(4, 64)),
                       q_lora_rank=draw(st.sampled_from([0, 24])), qk_rope_head_dim=8,
                       v_head_dim=draw(st.sampled_from([0, 16])))
    if experts > 1:
        fields |= dict(n_experts=experts, experts_per_token=draw(st.integers(1, experts)),
                       moe_d_ff=draw(st.sampled_from([0, 32])),
                       dense_layers=draw(st.integers(0, layers - 1)),
                       shared_d_ff=draw(st.sampled_from([0, 48])),
                       router_bias=draw(st.booleans()), mlp_bias=draw(st.booleans()))
    return ModelSpec(**fields)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(spec=stacks(), tokens=st.integers(1, 5000))
def test_any_stack_adds_up_and_estimates_finitely(spec, tokens):
    shape = model_shape(spec)
    counts = shape.params
    assert sum(count for _, count in shape.blocks) == spec.n_layers
    assert counts.total == (counts.embedding + counts.lm_head + counts.linear_in_blocks
                            + counts.other)
    assert 0 < counts.active <= counts.total
    plan = Plan(task="infer", seq_len=tokens, new_tokens=1)
    kv = kv_cache_bytes(spec, plan)
    assert kv <= shape.kv_elements_per_token * (tokens + 1) * 2
    assert kv_cache_bytes(spec, plan.with_changes(seq_len=tokens + 100)) >= kv
    if spec.sliding_window and spec.global_layers == 0:
        assert kv <= shape.kv_elements_per_token * spec.sliding_window * 2
    for task in ("infer", "full", "qlora"):
        e = estimate(spec, Plan(task=task, seq_len=min(tokens, 4096)), GPU)
        assert math.isfinite(e.memory.total) and e.memory.total > 0
        assert math.isfinite(e.time.seconds) and e.time.seconds > 0


def _int_keys(table: dict, prefix: str = ""):
    for key, value in table.items():
        if isinstance(value, dict) and key in ("text_config", "vision_config"):
            yield from _int_keys(value, f"{prefix}{key}.")
        elif isinstance(value, int) and not isinstance(value, bool):
            yield prefix + key


def _damaged(config: dict, path: str, value) -> dict:
    damaged = json.loads(json.dumps(config))
    table = damaged
    *outer, key = path.split(".")
    for name in outer:
        table = table[name]
    table[key] = value
    return damaged


CASES = [(p.name, key) for p in sorted(HF_CONFIGS.glob("*.json"))
         for key in _int_keys(json.loads(p.read_text(encoding="utf-8")))]


@pytest.mark.parametrize(("file_name", "key"), CASES)
def test_every_integer_a_real_config_holds_is_checked_when_read(file_name, key):
    config = json.loads((HF_CONFIGS / file_name).read_text(encoding="utf-8"))
    for bad in ("12", -3, 10**40):
        try:
            spec_from_hf_config(_damaged(config, key, bad), "x")
        except ValueError as exc:
            message = str(exc)
            assert "\n" not in message and len(message) < 400
            assert key.rsplit(".", 1)[-1] in message, message
        # no error: the importer does not read this key (token ids, rope settings, ...)


def test_step_shape_of_a_mixed_stack_averages_dense_and_expert_parts():
    from gpuadvisor.core.parallel.shape import step_shape

    spec = spec_from_hf_config(
        json.loads((HF_CONFIGS / "deepseek-r1.json").read_text(encoding="utf-8")), "r1")
    shape = step_shape(spec, Plan(task="full"))
    h, expert = 7168, 3 * 7168 * 2048
    assert (shape.n_experts, shape.d_ff) == (256, 2048)
    assert shape.expert_params == pytest.approx(58 * 256 * expert / 61)
    # MLP work per token and layer, in routed experts: 8 routed + 1 shared on 58 layers,
    # a dense 18432-wide MLP (9 experts' worth) on 3.
    assert shape.top_k == pytest.approx((58 * 9 * expert + 3 * 3 * h * 18432) / 61 / expert)
    counts = spec.params()
    outside = counts.embedding + counts.lm_head
    assert shape.block_params + shape.expert_params == pytest.approx(
        (counts.total - outside) / 61)
