"""The model description (ModelShape): derived once per spec, consistent with the counts.

Expected numbers are worked out from the architecture numbers in the test (HF config.json of
each model), never copied from the code's output.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from gpuadvisor.core import model as model_module
from gpuadvisor.core.architecture import ModelShape
from gpuadvisor.core.estimate import estimate
from gpuadvisor.core.fit import levers
from gpuadvisor.core.gpu import GpuSpec
from gpuadvisor.core.kvcache import kv_cache_bytes
from gpuadvisor.core.memory import memory_breakdown
from gpuadvisor.core.model import ModelSpec, model_shape
from gpuadvisor.core.plan import Plan

# Llama-3.1-8B (HF meta-llama/Llama-3.1-8B config.json): GQA with 8 KV heads of 128.
LLAMA31_8B = ModelSpec(
    id="llama-3.1-8b", name="Llama-3.1-8B", n_layers=32, d_model=4096, n_heads=32,
    n_kv_heads=8, d_ff=14336, vocab_size=128256,
)
# Mixtral-8x7B (HF mistralai/Mixtral-8x7B-v0.1 config.json): 8 experts, top-2.
MIXTRAL = ModelSpec(
    id="mixtral-8x7b", name="Mixtral-8x7B", n_layers=32, d_model=4096, n_heads=32,
    n_kv_heads=8, d_ff=14336, vocab_size=32000, n_experts=8, experts_per_token=2,
)
# GPT-2 small (HF openai-community/gpt2): LayerNorm, GELU, biases, tied embeddings.
GPT2 = ModelSpec(
    id="gpt2", name="GPT-2", n_layers=12, d_model=768, n_heads=12, d_ff=3072,
    vocab_size=50257, max_positions=1024, mlp="gelu", norm="layernorm", position="learned",
    tied_embeddings=True, qkv_bias=True, out_bias=True, mlp_bias=True,
)
RESNET = ModelSpec(id="resnet-50", name="ResNet-50", kind="opaque",
                   params_override=25_557_032, flops_per_sample=8.2e9)


def make_gpu(**changes) -> GpuSpec:
    fields = dict(
        id="test-gpu", name="Test GPU", vendor="nvidia", segment="datacenter",
        architecture="Test", ecosystem="cuda", launch_year=2024, memory_gib=24,
        memory_type="HBM3", memory_bandwidth_gb_s=2000, fp32_tflops=50,
        fp16_tensor_tflops=100, bf16_tensor_tflops=100, tdp_w=400, pcie_gen=4, pcie_lanes=16,
        p2p_link="none", compute_capability="8.0", source="unit test",
    )
    fields.update(changes)
    return GpuSpec(**fields)


def test_the_shape_is_derived_once_per_spec_and_shared_by_equal_specs():
    shape = model_shape(LLAMA31_8B)
    assert model_shape(LLAMA31_8B) is shape
    twin = ModelSpec(**{**LLAMA31_8B.__dict__, "extra": {"note": "not compared"}})
    assert model_shape(twin) is shape
    assert model_shape(shape) is shape
    assert LLAMA31_8B.params() is shape.params


def test_llama_block_widths_and_weights_follow_the_config():
    block = model_shape(LLAMA31_8B).block
    h, q, k, f = 4096, 32 * 128, 8 * 128, 14336
    assert (block.d_model, block.q_dim, block.kv_dim, block.d_ff) == (h, q, k, f)
    assert block.attention_weights == h * q + 2 * h * k + q * h
    assert block.expert_weights == 3 * h * f
    assert block.linear_weights == block.linear_weights_active
    assert block.linear_weights == h * q + 2 * h * k + q * h + 3 * h * f
    assert block.other_params == 2 * h  # two RMSNorms, no biases


def test_block_linears_times_layers_are_the_counted_block_linears():
    for spec in (LLAMA31_8B, MIXTRAL, GPT2):
        shape = model_shape(spec)
        assert shape.params.linear_in_blocks == spec.n_layers * shape.block.linear_weights
        assert shape.params.linear_in_blocks_active == (
            spec.n_layers * shape.block.linear_weights_active)


def test_mixtral_experts_stored_and_used_per_token():
    block = model_shape(MIXTRAL).block
    expert = 3 * 4096 * 14336
    assert (block.experts, block.experts_per_token) == (8, 2)
    assert block.linear_weights - block.linear_weights_active == (8 - 2) * expert
    assert block.other_params == 2 * 4096 + 4096 * 8  # norms + router


def test_kv_elements_per_token_are_k_and_v_of_every_layer():
    assert model_shape(LLAMA31_8B).kv_elements_per_token == 2 * 32 * 8 * 128
    assert model_shape(GPT2).kv_elements_per_token == 2 * 12 * 768
    plan = Plan(task="infer", micro_batch=1, seq_len=1000, new_tokens=24)
    # fp16 cache: 2 bytes per element, 1024 tokens.
    assert kv_cache_bytes(LLAMA31_8B, plan) == 2 * 32 * 8 * 128 * 1024 * 2


def test_lora_widths_give_the_adapter_counts():
    shape = model_shape(LLAMA31_8B)
    h, q, k, f = 4096, 4096, 1024, 14336
    assert shape.lora_params(8, "qv") == 8 * ((h + q) + (h + k)) * 32
    assert shape.lora_params(16, "all") == 16 * ((h + q) + 2 * (h + k) + (q + h) + 3 * (h + f)) * 32
    assert LLAMA31_8B.lora_params(16, "all") == shape.lora_params(16, "all")
    with pytest.raises(ValueError, match="lora_targets"):
        shape.lora_params(8, "mlp")


def test_output_matmul_counts_for_decoders_and_masked_lm_only():
    gpt2 = model_shape(GPT2)
    assert gpt2.head_matmul_params("full") == 50257 * 768  # tied, still a matmul
    bert = model_shape(ModelSpec(
        id="bert", name="BERT", kind="encoder", n_layers=12, d_model=768, n_heads=12,
        d_ff=3072, vocab_size=30522, max_positions=512, mlp="gelu", norm="layernorm",
        position="learned", final_norm=False, pooler=True, embedding_norm=True,
        type_vocab_size=2))
    assert bert.head_matmul_params("pretrain") == 30522 * 768
    assert bert.head_matmul_params("full") == 0
    assert bert.params.lm_head == 0


def test_opaque_model_has_no_block_and_no_kv_cache():
    shape = model_shape(RESNET)
    assert shape.block is None and shape.is_opaque
    assert shape.params.total == shape.params.active == 25_557_032
    assert shape.kv_elements_per_token == 0
    assert shape.head_matmul_params("full") == 0


@pytest.mark.parametrize("plan", [
    Plan(task="full", checkpointing="selective", attention="eager", micro_batch=2),
    Plan(task="qlora", checkpointing="full", optimizer="adafactor"),
    Plan(task="full", n_gpus=4, zero_stage=3, offload="params"),
    Plan(task="infer", micro_batch=4, seq_len=4096),
])
def test_memory_takes_the_spec_or_its_shape_alike(plan):
    for spec in (LLAMA31_8B, MIXTRAL, GPT2):
        assert memory_breakdown(spec, plan) == memory_breakdown(model_shape(spec), plan)


def _shape_lookups() -> int:
    info = model_module._describe.cache_info()
    return info.hits + info.misses


def test_an_estimate_reads_the_model_shape_once():
    gpu = make_gpu()
    for plan in (Plan(task="full", n_gpus=2, zero_stage=2),
                 Plan(task="lora", offload="optimizer", zero_stage=2),
                 Plan(task="infer", micro_batch=8)):
        before = _shape_lookups()
        estimate(LLAMA31_8B, plan, gpu)
        assert _shape_lookups() - before == 1


def test_levers_read_the_shape_once_per_estimate(monkeypatch):
    from gpuadvisor.core import fit

    calls = []

    def counted(*args, **kwargs):
        calls.append(args[1])
        return estimate(*args, **kwargs)

    # Timed by the estimate alone (the default, resolve, also lays out the "more GPUs"
    # lever, whose layout search reads the cached shape again).
    monkeypatch.setattr(fit, "estimate", counted)
    before = _shape_lookups()
    found = levers(LLAMA31_8B, Plan(task="full", micro_batch=8), make_gpu(), timed=counted)
    assert found and len(calls) > len(found)
    assert _shape_lookups() - before == len(calls)


def test_model_shape_is_a_frozen_record():
    shape = model_shape(GPT2)
    assert isinstance(shape, ModelShape)
    with pytest.raises(AttributeError):
        shape.n_layers = 1  # type: ignore[misc]


# ------------------------------------------------------------------ mixed block stacks
# A small DeepSeek-style stack, by hand: h 64, 4 heads, latent attention (q rank 32, kv rank
# 16, rope 8, nope 16, value 16), 1 dense layer (f 128) then 3 MoE layers of 8 experts (f 32,
# top-2) with one shared expert of 32.
TINY_MLA = ModelSpec(
    id="tiny-mla", name="tiny MLA", n_layers=4, d_model=64, n_heads=4, head_dim=24, d_ff=128,
    vocab_size=100, max_positions=256, attention="mla", q_lora_rank=32, kv_lora_rank=16,
    qk_rope_head_dim=8, v_head_dim=16, n_experts=8, experts_per_token=2, moe_d_ff=32,
    dense_layers=1, shared_d_ff=32,
)


def test_latent_attention_and_shared_experts_count_term_by_term():
    h, a = 64, 4
    attention = (h * 32 + 32 * a * 24  # q down, q up (24 = nope 16 + rope 8)
                 + h * (16 + 8)  # joint kv down-projection + rope key
                 + 16 * a * (16 + 16)  # kv up: nope keys and values
                 + a * 16 * h)  # output
    attn_norms = 32 + 16  # q_a and kv_a RMSNorms
    dense = 3 * h * 128
    moe = 8 * 3 * h * 32 + 3 * h * 32 + h * 8  # experts, shared, router
    moe_active = 2 * 3 * h * 32 + 3 * h * 32 + h * 8
    norms = 2 * h
    outside = 100 * h + 100 * h + h  # embedding, untied head, final norm
    counts = TINY_MLA.params()
    assert counts.total == outside + 4 * (attention + attn_norms + norms) + dense + 3 * moe
    # active: the input embedding (100 x h) is looked up, not multiplied
    assert counts.active == (outside - 100 * h + 4 * (attention + attn_norms + norms) + dense
                             + 3 * moe_active)
    kinds = {(blk.experts, blk.d_ff, blk.shared_d_ff): n for blk, n in model_shape(TINY_MLA).blocks}
    assert kinds == {(1, 128, 0): 1, (8, 32, 32): 3}
    assert model_shape(TINY_MLA).block.experts == 8  # the most common kind
    assert model_shape(TINY_MLA).kv_elements_per_token == 4 * (16 + 8)


def test_latent_attention_flops_use_the_query_key_and_value_head_sizes():
    from gpuadvisor.core.compute import attention_flops_per_token

    plan = Plan(task="full", seq_len=100, attention="eager")
    # QK^T over a x 24 and PV over a x 16 per key: 2 s (q + v) per layer, 4 layers.
    assert attention_flops_per_token(TINY_MLA, plan) == 2.0 * 4 * 100 * (4 * 24 + 4 * 16)


WINDOWED = ModelSpec(
    id="windowed", name="windowed", n_layers=6, d_model=64, n_heads=4, d_ff=128,
    vocab_size=100, max_positions=8192, sliding_window=512, global_layers=2,
)


def test_windowed_layers_attend_and_cache_at_most_their_window():
    from gpuadvisor.core.compute import attention_flops_per_token

    s, w, q = 4096, 512, 64
    flash = attention_flops_per_token(WINDOWED, Plan(task="full", seq_len=s))
    span = w - w * w / (2 * s)  # mean keys per query under a causal 512-token window
    assert flash == pytest.approx(2 * 4.0 * s * q * 0.5 + 4 * 2.0 * span * (q + q))
    short = attention_flops_per_token(WINDOWED, Plan(task="full", seq_len=256))
    assert short == pytest.approx(6 * 4.0 * 256 * q * 0.5)  # inside the window: as global
    eager = attention_flops_per_token(WINDOWED, Plan(task="full", seq_len=s, attention="eager"))
    assert eager == 6 * 4.0 * s * q  # the eager kernel computes the masked square anyway
    plan = Plan(task="infer", seq_len=3000, new_tokens=96)
    assert kv_cache_bytes(WINDOWED, plan) == (2 * 3096 + 4 * 512) * 2 * q * 2


def test_shared_expert_adds_its_own_mlp_activations():
    from gpuadvisor.core.memory import _block_elements

    plan = Plan(task="full", seq_len=64, micro_batch=2)
    moe_block = model_shape(TINY_MLA).block
    plain = replace(moe_block, shared_d_ff=0, shared_weights=0)
    with_shared, _ = _block_elements(moe_block, plan, 2, 64, "flash", False)
    alone, _ = _block_elements(plain, plan, 2, 64, "flash", False)
    sb = 2 * 64
    assert with_shared - alone == sb * 64 + sb * 32 * 4  # MLP input + gate, up, act, product
