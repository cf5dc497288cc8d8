"""Memory per GPU, checked against hand derivations and published figures.

Every expected value below is worked out in the test from the architecture numbers (or taken
from the cited publication), never copied from the code's output.
"""

from __future__ import annotations

import numpy as np
import pytest

from gpuadvisor.core import memory
from gpuadvisor.core.assumptions import Assumptions
from gpuadvisor.core.memory import (
    QUANT_BYTES,
    _block_elements,
    activation_bytes,
    kv_cache_bytes,
    logits_bytes,
    memory_breakdown,
)
from gpuadvisor.core.model import ModelSpec
from gpuadvisor.core.plan import Plan
from gpuadvisor.core.units import GB, GiB

DEFAULTS = Assumptions()

# --------------------------------------------------------------------------- model specs
# Llama-2-7B (Touvron et al. 2023; HF meta-llama/Llama-2-7b-hf config.json).
LLAMA2_7B = ModelSpec(
    id="llama-2-7b", name="Llama-2-7B", n_layers=32, d_model=4096, n_heads=32,
    d_ff=11008, vocab_size=32000,
)
# Llama-3.1-8B (HF meta-llama/Llama-3.1-8B config.json): GQA with 8 KV heads of 128.
LLAMA31_8B = ModelSpec(
    id="llama-3.1-8b", name="Llama-3.1-8B", n_layers=32, d_model=4096, n_heads=32,
    n_kv_heads=8, d_ff=14336, vocab_size=128256,
)
# Mixtral-8x7B (HF mistralai/Mixtral-8x7B-v0.1 config.json): 8 experts, top-2.
MIXTRAL = ModelSpec(
    id="mixtral", name="Mixtral-8x7B", n_layers=32, d_model=4096, n_heads=32, n_kv_heads=8,
    d_ff=14336, vocab_size=32000, n_experts=8, experts_per_token=2,
)
# A GPT block as Korthikanti et al. analyse it: LayerNorm, GELU MLP with d_ff = 4h, biases,
# learned positions, dropout. h=1024, a=16, L=24 (GPT-2 medium's shape).
GPT_MEDIUM = ModelSpec(
    id="gpt-medium", name="GPT medium", n_layers=24, d_model=1024, n_heads=16, d_ff=4096,
    vocab_size=50257, max_positions=1024, mlp="gelu", norm="layernorm", position="learned",
    tied_embeddings=True, qkv_bias=True, out_bias=True, mlp_bias=True,
)
# GPT-2 small (124M): tied embeddings.
GPT2_SMALL = ModelSpec(
    id="gpt2", name="GPT-2", n_layers=12, d_model=768, n_heads=12, d_ff=3072,
    vocab_size=50257, max_positions=1024, mlp="gelu", norm="layernorm", position="learned",
    tied_embeddings=True, qkv_bias=True, out_bias=True, mlp_bias=True,
)
# BERT-base (Devlin et al. 2019; HF bert-base-uncased).
BERT_BASE = ModelSpec(
    id="bert-base", name="BERT-base", kind="encoder", n_layers=12, d_model=768, n_heads=12,
    d_ff=3072, vocab_size=30522, max_positions=512, type_vocab_size=2, mlp="gelu",
    norm="layernorm", position="learned", qkv_bias=True, out_bias=True, mlp_bias=True,
    final_norm=False, embedding_norm=True, pooler=True,
)
# ZeRO paper's 7.5B model, by parameter count only.
ZERO_7_5B = ModelSpec(
    id="zero-7.5b", name="7.5B", kind="opaque", params_override=7_500_000_000,
    flops_per_sample=1,
)

# Llama-2-7B's block linears and LM head, by hand:
#   per block: q, k, v, o = 4 * 4096 * 4096; gate, up, down = 3 * 4096 * 11008
LLAMA2_LINEAR = 32 * (4 * 4096 * 4096 + 3 * 4096 * 11008)  # 6,476,005,376
LLAMA2_HEAD = 32000 * 4096  # untied LM head, 131,072,000
LLAMA2_EMBED = 32000 * 4096
LLAMA2_NORMS = 32 * 2 * 4096 + 4096  # two RMSNorms per block + final norm
LLAMA2_TOTAL = LLAMA2_LINEAR + LLAMA2_HEAD + LLAMA2_EMBED + LLAMA2_NORMS
# Meta publishes 6,738,415,616 (HF model card / PEFT's "all params" minus adapters).
assert LLAMA2_TOTAL == 6_738_415_616


def test_llama2_7b_hand_count_matches_the_model_spec():
    counts = LLAMA2_7B.params()
    assert counts.total == LLAMA2_TOTAL
    assert counts.linear_in_blocks == LLAMA2_LINEAR
    assert counts.lm_head == LLAMA2_HEAD


# --------------------------------------------------------------------------- ZeRO paper
# Rajbhandari et al. 2019, "ZeRO: Memory Optimizations Toward Training Trillion Parameter
# Models", arXiv 1910.02054, Figure 1: Psi = 7.5B, N_d = 64, K = 12 (mixed-precision Adam).
ZERO_PUBLISHED_GB = {0: 120.0, 1: 31.4, 2: 16.6, 3: 1.88}


@pytest.mark.parametrize("stage", [0, 1, 2, 3])
def test_zero_paper_model_states_for_7_5b_params_on_64_gpus(stage):
    psi, n = 7_500_000_000, 64
    by_formula = {
        0: 2 * psi + 2 * psi + 12 * psi,  # fp16 params + fp16 grads + (fp32 master, m, v)
        1: 2 * psi + 2 * psi + 12 * psi / n,  # P_os
        2: 2 * psi + (2 + 12) * psi / n,  # P_os+g
        3: (2 + 2 + 12) * psi / n,  # P_os+g+p
    }[stage]
    plan = Plan(task="full", precision="fp16", zero_stage=stage, n_gpus=n)
    got = memory_breakdown(ZERO_7_5B, plan, Assumptions(mixed_style="master")).model_states
    assert got == pytest.approx(by_formula, rel=1e-12)
    assert got / GB == pytest.approx(ZERO_PUBLISHED_GB[stage], rel=0.02)


def test_default_amp_mixed_precision_is_18_bytes_per_param_for_an_opaque_model():
    # HF accounting for torch.autocast + AdamW: fp32 params 4 + 16-bit copy 2 + fp32 grads 4
    # + two fp32 moments 8 = 18 bytes/param; for an opaque model every param is a "linear".
    psi = 7_500_000_000
    plan = Plan(task="full", precision="bf16", zero_stage=0, n_gpus=1)
    got = memory_breakdown(ZERO_7_5B, plan).model_states
    assert got == pytest.approx((4 + 2 + 4 + 8) * psi, rel=1e-12)


def test_default_amp_model_states_count_16bit_copy_of_block_linears_and_lm_head_only():
    # Embeddings and norms are not autocast to 16 bit, so their 2-byte copy is absent.
    plan = Plan(task="full", precision="bf16", zero_stage=0, n_gpus=1)
    mem = memory_breakdown(LLAMA2_7B, plan)
    fp32_params = 4 * LLAMA2_TOTAL
    copy16 = 2 * (LLAMA2_LINEAR + LLAMA2_HEAD)
    assert mem.weights == pytest.approx(fp32_params + copy16, rel=1e-12)
    assert mem.gradients == pytest.approx(4 * LLAMA2_TOTAL, rel=1e-12)
    assert mem.optimizer == pytest.approx(8 * LLAMA2_TOTAL, rel=1e-12)
    assert mem.model_states == pytest.approx(
        18 * LLAMA2_TOTAL - 2 * (LLAMA2_EMBED + LLAMA2_NORMS), rel=1e-12
    )


def test_amp_16bit_copy_includes_a_tied_output_projection():
    # With tied embeddings the LM head is F.linear(hidden, wte.weight): autocast casts the
    # embedding matrix to 16 bit for that matmul and keeps the copy for the backward pass,
    # exactly as it does for an untied head. GPT-2 small: V*h = 50257 * 768 = 38,597,376.
    h, f, v, p, layers = 768, 3072, 50257, 1024, 12
    block_linear = layers * (4 * h * h + 2 * h * f)  # 84,934,656
    per_block_other = (3 * h + h) + (f + h) + 2 * (2 * h)  # qkv+out biases, MLP biases, 2 LN
    total = v * h + p * h + block_linear + layers * per_block_other + 2 * h
    assert total == 124_439_808  # GPT-2's published 124M (HF gpt2)
    plan = Plan(task="full", precision="bf16", zero_stage=0)
    weights = memory_breakdown(GPT2_SMALL, plan).weights
    assert weights == pytest.approx(4 * total + 2 * (block_linear + v * h), rel=1e-12)


# --------------------------------------------------------------------------- activations
def _korthikanti_per_layer(s, b, h, a):
    """Korthikanti et al. 2022, eq. 1 (t = 1): s b h (34 + 5 a s / h) bytes per layer."""
    return s * b * h * (34 + 5 * a * s / h)


def test_gpt_block_elements_match_korthikanti_eager_with_dropout():
    s, b, h, a = 512, 4, 1024, 16
    plan = Plan(task="full", precision="bf16", attention="eager", micro_batch=b, seq_len=s)
    elems, mask_bytes = _block_elements(GPT_MEDIUM, plan, b, s, "scores", True)
    # 2-byte elements: LN1 in, QKV in, Q, K, V, out-proj in, LN2 in, MLP in  = 8 sbh
    #                  GELU in, GELU out (4h each)                             = 8 sbh
    #                  softmax out, dropout out                                = 2 a s^2 b
    # 1-byte masks:    attention-output dropout, MLP-output dropout            = 2 sbh
    #                  attention-probability dropout                           = a s^2 b
    assert elems == 16 * s * b * h + 2 * a * s * s * b
    assert mask_bytes == 2 * s * b * h + a * s * s * b
    assert 2 * elems + mask_bytes == pytest.approx(_korthikanti_per_layer(s, b, h, a))


def test_gpt_activations_eager_no_checkpointing_are_korthikanti_per_layer_plus_outside():
    s, b, h, a, layers = 512, 4, 1024, 16, 24
    plan = Plan(task="full", precision="bf16", attention="eager", checkpointing="none",
                micro_batch=b, seq_len=s)
    outside = 2 * s * b * h * 2  # embedding output + final-norm input, 2 bytes each
    expected = layers * _korthikanti_per_layer(s, b, h, a) + outside
    assert activation_bytes(GPT_MEDIUM, plan, DEFAULTS) == pytest.approx(expected, rel=1e-12)


def test_gpt_activations_with_flash_attention_drop_the_5as_over_h_term():
    s, b, h, a, layers = 512, 4, 1024, 16, 24
    plan = Plan(task="full", precision="bf16", attention="flash", checkpointing="none",
                micro_batch=b, seq_len=s)
    # Korthikanti without the score terms, plus flash's fp32 log-sum-exp (a s b x 4 bytes).
    per_layer = 34 * s * b * h + 4 * a * s * b
    outside = 2 * s * b * h * 2
    expected = layers * per_layer + outside
    assert activation_bytes(GPT_MEDIUM, plan, DEFAULTS) == pytest.approx(expected, rel=1e-12)
    eager = activation_bytes(GPT_MEDIUM, plan.with_changes(attention="eager"), DEFAULTS)
    assert eager - expected == pytest.approx(layers * (5 * a * s * s * b - 4 * a * s * b))


@pytest.mark.parametrize("attention", ["eager", "flash"])
def test_gpt_activations_with_full_recompute_are_2sbh_per_layer_plus_one_block(attention):
    s, b, h, a, layers = 512, 4, 1024, 16, 24
    plan = Plan(task="full", precision="bf16", attention=attention, checkpointing="full",
                micro_batch=b, seq_len=s)
    kept_inputs = layers * 2 * s * b * h  # Korthikanti: 2sbhL with full recomputation
    if attention == "eager":
        recomputed_block = _korthikanti_per_layer(s, b, h, a)
    else:
        recomputed_block = 34 * s * b * h + 4 * a * s * b
    outside = 2 * s * b * h * 2
    expected = kept_inputs + recomputed_block + outside
    assert activation_bytes(GPT_MEDIUM, plan, DEFAULTS) == pytest.approx(expected, rel=1e-12)


def test_gpt_activations_with_selective_recompute_and_eager_attention():
    # Selective recomputation (Korthikanti Sec. 4.2) keeps Q, K, V and recomputes the
    # attention core: 34 sbh per layer kept. During the backward pass the core of one layer
    # at a time is recomputed, so that layer's softmax output, dropout mask and dropout
    # output (5 a s^2 b bytes) are alive at the peak, just as full recomputation counts one
    # recomputed block. Eager kernels have no log-sum-exp.
    s, b, h, a, layers = 512, 4, 1024, 16, 24
    plan = Plan(task="full", precision="bf16", attention="eager", checkpointing="selective",
                micro_batch=b, seq_len=s)
    outside = 2 * s * b * h * 2
    expected = layers * 34 * s * b * h + 5 * a * s * s * b + outside
    assert activation_bytes(GPT_MEDIUM, plan, DEFAULTS) == pytest.approx(expected, rel=1e-12)


@pytest.mark.parametrize("eager", [True, False])
def test_gated_gqa_block_elements_follow_the_docstring_derivation(eager):
    h, q, k, f, a = 4096, 4096, 8 * 128, 14336, 32
    b, s = 2, 1024
    sb = s * b
    plan = Plan(task="full", precision="bf16", micro_batch=b, seq_len=s)
    elems, extra = _block_elements(LLAMA31_8B, plan, b, s, "scores" if eager else "flash",
                                   False)
    attn_norm_in = sb * h
    qkv_in = sb * h
    # eager: Q, K expanded to all heads, V expanded, softmax output
    eager_core = 2 * sb * q + sb * q + a * s * s * b
    # flash: Q, K, V un-expanded (the fp32 log-sum-exp is a fixed 4 bytes per head and token)
    flash_core = sb * (q + 2 * k)
    core = eager_core if eager else flash_core
    out_proj_in = sb * q
    mlp_norm_in_and_mlp_in = 2 * sb * h
    gated_mlp = 4 * sb * f  # gate out, up out, act(gate), product
    expected = attn_norm_in + qkv_in + core + out_proj_in + mlp_norm_in_and_mlp_in + gated_mlp
    assert elems == expected
    # LLaMA-style models train without dropout: no masks; flash keeps 4 a s b bytes of LSE.
    assert extra == (0 if eager else 4 * a * sb)


def test_llama_activations_are_layers_times_block_plus_outside():
    b, s, layers, h = 1, 4096, 32, 4096
    q, k, f, a = 4096, 1024, 14336, 32
    sb = s * b
    plan = Plan(task="full", precision="bf16", attention="flash", micro_batch=b, seq_len=s)
    block = sb * h + sb * h + sb * (q + 2 * k) + sb * q + 2 * sb * h + 4 * sb * f
    lse = 4 * a * sb  # fp32 log-sum-exp, bytes
    expected = layers * (block * 2 + lse) + 2 * sb * h * 2
    assert activation_bytes(LLAMA31_8B, plan, DEFAULTS) == pytest.approx(expected, rel=1e-12)


def test_gradient_checkpointing_lowers_activations():
    plan = Plan(task="full", precision="bf16", attention="eager", micro_batch=4, seq_len=512)
    none = activation_bytes(GPT_MEDIUM, plan, DEFAULTS)
    selective = activation_bytes(GPT_MEDIUM, plan.with_changes(checkpointing="selective"),
                                 DEFAULTS)
    full = activation_bytes(GPT_MEDIUM, plan.with_changes(checkpointing="full"), DEFAULTS)
    assert none > selective > full
    # Full recompute keeps about 2sbhL + one block instead of L blocks: > 5x less here.
    assert full < none / 5


def test_fp32_training_doubles_activation_bytes_of_16bit_training_but_not_the_fp32_lse():
    b, s, a, layers = 2, 1024, 32, 32
    plan = Plan(task="full", precision="bf16", micro_batch=b, seq_len=s)
    a16 = activation_bytes(LLAMA31_8B, plan, DEFAULTS)
    a32 = activation_bytes(LLAMA31_8B, plan.with_changes(precision="fp32"), DEFAULTS)
    lse = layers * 4 * a * s * b  # flash's log-sum-exp is fp32 in both cases
    assert a32 - lse == pytest.approx(2 * (a16 - lse), rel=1e-12)


# --------------------------------------------------------------------------- LoRA / QLoRA
def test_lora_rank8_qv_on_llama2_7b_trains_4_2m_params_as_peft_prints():
    # PEFT, LoraConfig(r=8, target_modules=["q_proj", "v_proj"]) on Llama-2-7B prints
    # "trainable params: 4,194,304 || all params: 6,742,609,920".
    per_layer = 8 * (4096 + 4096) + 8 * (4096 + 4096)  # A (r x d_in) + B (d_out x r), q and v
    adapters = 32 * per_layer
    assert adapters == 4_194_304
    assert adapters + LLAMA2_TOTAL == 6_742_609_920
    plan = Plan(task="lora", precision="bf16", lora_rank=8, lora_targets="qv")
    assert memory.trainable_params(LLAMA2_7B, plan) == adapters


def test_lora_gradients_and_optimizer_states_cover_only_the_adapters():
    adapters = 32 * 8 * 4 * 4096  # 4,194,304 (see above)
    plan = Plan(task="lora", precision="bf16", lora_rank=8, lora_targets="qv")
    mem = memory_breakdown(LLAMA2_7B, plan)
    assert mem.weights == pytest.approx(2 * LLAMA2_TOTAL + 4 * adapters, rel=1e-12)
    assert mem.gradients == pytest.approx(4 * adapters, rel=1e-12)  # fp32 adapter grads
    assert mem.optimizer == pytest.approx(8 * adapters, rel=1e-12)  # AdamW m and v in fp32


def test_nf4_bytes_per_weight_are_half_a_byte_plus_an_fp32_absmax_per_64():
    assert QUANT_BYTES["nf4"] == pytest.approx(0.5 + 4 / 64)
    assert QUANT_BYTES["nf4-dq"] == pytest.approx(0.5 + 1 / 64 + 4 / (64 * 256))


def test_double_quantization_costs_0_127_bits_of_constants_per_param():
    # Dettmers et al. 2023, QLoRA, Sec. 3 "Double Quantization": constants shrink from
    # 32/64 = 0.5 bits to 8/64 + 32/(64*256) = 0.127 bits per parameter.
    bits = 8 * QUANT_BYTES["nf4-dq"]
    assert bits - 4 == pytest.approx(0.127, abs=0.001)
    assert 8 * QUANT_BYTES["nf4"] - 4 == pytest.approx(0.5)


@pytest.mark.parametrize("quant", ["nf4", "nf4-dq", "int8"])
def test_qlora_quantizes_block_linears_and_keeps_embeddings_head_and_norms_at_2_bytes(quant):
    per_weight = {"nf4": 0.5 + 4 / 64, "nf4-dq": 0.5 + 1 / 64 + 4 / (64 * 256),
                  "int8": 1.0}[quant]
    # QLoRA's recipe: rank 64 on every block linear. Per layer: q, k, v, o are 4096 x 4096
    # (d_in + d_out = 8192 each); gate, up, down are 4096 x 11008 (15104 each).
    adapters = 32 * 64 * (4 * 8192 + 3 * (4096 + 11008))
    assert adapters == 159_907_840  # PEFT's printed count for this config
    # Axolotl casts embeddings, head and norms back to bf16 after PEFT's k-bit preparation
    # (plain Hugging Face + PEFT keeps them in fp32: tests/test_frameworks.py).
    plan = Plan(task="qlora", precision="bf16", quant=quant, lora_rank=64, lora_targets="all",
                framework="axolotl")
    mem = memory_breakdown(LLAMA2_7B, plan)
    unquantized = LLAMA2_EMBED + LLAMA2_HEAD + LLAMA2_NORMS
    expected = LLAMA2_LINEAR * per_weight + unquantized * 2 + adapters * 4
    assert mem.weights == pytest.approx(expected, rel=1e-12)


def test_qlora_defaults_to_nf4_with_double_quantization():
    plan = Plan(task="qlora", precision="bf16", lora_rank=64)
    default = memory_breakdown(LLAMA2_7B, plan).weights
    explicit = memory_breakdown(LLAMA2_7B, plan.with_changes(quant="nf4-dq")).weights
    assert default == explicit


def test_zero3_shards_the_frozen_base_weights_of_lora_across_gpus():
    # DeepSpeed ZeRO-3 and FSDP FULL_SHARD partition every parameter, frozen or not (this is
    # how QLoRA + FSDP fits a 70B base on two 24 GB cards). Weights per GPU = all / N.
    n = 4
    adapters = 32 * 8 * 4 * 4096
    plan = Plan(task="lora", precision="bf16", lora_rank=8, lora_targets="qv",
                zero_stage=3, n_gpus=n)
    weights = memory_breakdown(LLAMA2_7B, plan).weights
    assert weights == pytest.approx((2 * LLAMA2_TOTAL + 4 * adapters) / n, rel=1e-9)


# --------------------------------------------------------------------------- KV cache, logits
def test_llama31_8b_kv_cache_is_1_gib_per_8192_tokens_in_16_bit():
    # 2 (K and V) x 32 layers x 8 kv heads x 128 head_dim x 2 bytes = 131,072 B = 128 KiB/token
    per_token = 2 * 32 * 8 * 128 * 2
    assert per_token * 8192 == GiB
    plan = Plan(task="infer", precision="bf16", seq_len=8192 - 256, new_tokens=256,
                micro_batch=1)
    assert kv_cache_bytes(LLAMA31_8B, plan) == pytest.approx(1 * GiB, rel=1e-12)
    assert kv_cache_bytes(LLAMA31_8B, plan.with_changes(micro_batch=4)) == pytest.approx(4 * GiB)
    fp8 = plan.with_changes(kv_dtype="fp8")
    assert kv_cache_bytes(LLAMA31_8B, fp8) == pytest.approx(0.5 * GiB, rel=1e-12)


def test_kv_cache_is_zero_for_training():
    plan = Plan(task="full", precision="bf16")
    assert kv_cache_bytes(LLAMA31_8B, plan) == 0


def test_decoder_logits_cost_10_bytes_per_vocab_entry_in_16_bit_training():
    # 16-bit logits (2) + fp32 upcast (4) + fp32 log-softmax saved for backward (4).
    b, s, v = 2, 4096, 128256
    plan = Plan(task="full", precision="bf16", micro_batch=b, seq_len=s)
    assert logits_bytes(LLAMA31_8B, plan) == pytest.approx(b * s * v * 10, rel=1e-12)
    fp32 = plan.with_changes(precision="fp32")
    assert logits_bytes(LLAMA31_8B, fp32) == pytest.approx(b * s * v * 8, rel=1e-12)


def test_encoder_classification_logits_are_negligible_but_masked_lm_pretraining_is_not():
    b, s, v = 32, 512, 30522
    finetune = Plan(task="full", precision="bf16", micro_batch=b, seq_len=s)
    assert logits_bytes(BERT_BASE, finetune) == 0
    pretrain = finetune.with_changes(task="pretrain")
    assert logits_bytes(BERT_BASE, pretrain) == pytest.approx(b * s * v * 10, rel=1e-12)


def test_bert_base_param_count_matches_published():
    # HF bert-base-uncased BertModel: 109,482,240 parameters.
    assert BERT_BASE.params().total == 109_482_240


# --------------------------------------------------------------------------- optimizers
TINY = ModelSpec(id="tiny", name="tiny", n_layers=2, d_model=8, n_heads=2, n_kv_heads=1,
                 d_ff=16, vocab_size=32)
# head_dim 4, q = 8, kv = 4. Parameters by hand:
#   embedding 32*8 = 256; LM head 256;
#   per block: q 8*8 + k 8*4 + v 8*4 + o 8*8 = 192; gate/up/down 3*8*16 = 384 -> 576
#   norms: 2 per block * 8 * 2 blocks + final 8 = 40
TINY_TOTAL = 256 + 256 + 2 * 576 + 40  # 1704


def test_tiny_model_hand_count():
    assert TINY.params().total == TINY_TOTAL


@pytest.mark.parametrize(
    ("optimizer", "bytes_per_param"),
    [("adamw", 8), ("adamw8bit", 2), ("sgd", 4), ("lion", 4)],
)
def test_optimizer_state_bytes_per_param_in_fp32_training(optimizer, bytes_per_param):
    # AdamW: m, v fp32; bitsandbytes 8-bit AdamW: m, v one byte each; SGD momentum: one fp32
    # buffer; Lion: one fp32 momentum. fp32 training has no separate master copy.
    plan = Plan(task="full", precision="fp32", optimizer=optimizer)
    got = memory_breakdown(LLAMA2_7B, plan).optimizer
    assert got == pytest.approx(bytes_per_param * LLAMA2_TOTAL, rel=1e-12)


@pytest.mark.parametrize(
    ("optimizer", "bytes_per_param"),
    [("adamw", 4), ("adamw8bit", 2), ("sgd", 2), ("lion", 2)],
)
def test_pure_bf16_halves_32_bit_optimizer_states(optimizer, bytes_per_param):
    plan = Plan(task="full", precision="bf16-pure", optimizer=optimizer)
    mem = memory_breakdown(LLAMA2_7B, plan)
    assert mem.optimizer == pytest.approx(bytes_per_param * LLAMA2_TOTAL, rel=1e-12)
    assert mem.weights == pytest.approx(2 * LLAMA2_TOTAL, rel=1e-12)
    assert mem.gradients == pytest.approx(2 * LLAMA2_TOTAL, rel=1e-12)


def test_adafactor_keeps_factored_rows_plus_cols_far_below_adamw():
    # Factored second moment: rows + cols per matrix, full size per vector, no first moment.
    #   per block: q (8 in, 8 out) 16, k 8+4 = 12, v 12, o 16, gate 8+16, up 8+16, down 16+8
    per_block = 16 + 12 + 12 + 16 + 3 * 24  # 128
    matrices = 2 * per_block + (32 + 8) + (32 + 8)  # + embedding + untied LM head
    vectors = 40  # the norms
    expected = (matrices + vectors) * 4  # fp32 states
    plan = Plan(task="full", precision="fp32", optimizer="adafactor")
    got = memory_breakdown(TINY, plan).optimizer
    assert got == pytest.approx(expected, rel=1e-12)
    adamw = memory_breakdown(TINY, plan.with_changes(optimizer="adamw")).optimizer
    assert adamw == pytest.approx(8 * TINY_TOTAL)
    assert got < adamw / 8


def test_adafactor_on_llama2_is_a_tiny_fraction_of_adamw():
    plan = Plan(task="full", precision="fp32", optimizer="adafactor")
    got = memory_breakdown(LLAMA2_7B, plan).optimizer
    per_block = 4 * (4096 + 4096) + 3 * (4096 + 11008)
    elements = 32 * per_block + 2 * (32000 + 4096) + LLAMA2_NORMS
    assert got == pytest.approx(4 * elements, rel=1e-12)
    assert got < 0.001 * 8 * LLAMA2_TOTAL


# --------------------------------------------------------------------------- offload
def test_optimizer_offload_puts_no_optimizer_bytes_on_the_gpu_and_reports_cpu_bytes():
    psi = LLAMA2_TOTAL
    plan = Plan(task="full", precision="bf16", zero_stage=2, n_gpus=4, offload="optimizer")
    mem = memory_breakdown(LLAMA2_7B, plan)
    assert mem.optimizer == 0
    # CPU: fp32 master 4 + AdamW m, v 8 + fp32 gradient copy 4 = 16 bytes/param.
    assert mem.cpu_bytes == pytest.approx(16 * psi, rel=1e-12)
    # GPU keeps 16-bit params (2) and ZeRO-2-sharded 16-bit gradients (2 / 4).
    assert mem.weights == pytest.approx(2 * psi, rel=1e-12)
    assert mem.gradients == pytest.approx(2 * psi / 4, rel=1e-12)


def test_parameter_offload_with_zero3_moves_the_weights_to_the_cpu():
    psi = LLAMA2_TOTAL
    plan = Plan(task="full", precision="bf16", zero_stage=3, n_gpus=4, offload="params")
    mem = memory_breakdown(LLAMA2_7B, plan)
    assert mem.weights == 0
    assert mem.optimizer == 0
    assert mem.cpu_bytes == pytest.approx((16 + 2) * psi, rel=1e-12)


@pytest.mark.parametrize("stage", [0, 1, 2])
def test_parameter_offload_needs_zero_stage_3(stage):
    with pytest.raises(ValueError, match="zero_stage 3"):
        Plan(task="full", precision="bf16", zero_stage=stage, n_gpus=4, offload="params")


def test_no_offload_means_no_cpu_bytes():
    assert memory_breakdown(LLAMA2_7B, Plan(task="full")).cpu_bytes == 0


# --------------------------------------------------------------------------- MoE
def test_mixtral_total_and_active_params_by_hand():
    # Mistral AI: 46.7B total, 12.9B active per token (their 12.9B counts the input
    # embedding table; the active count here leaves that row lookup out).
    attn = 4096 * 4096 * 2 + 2 * 4096 * 1024  # q, o + k, v (8 kv heads x 128)
    expert = 3 * 4096 * 14336
    router = 4096 * 8
    norms = 2 * 4096
    total = 32 * (attn + 8 * expert + router + norms) + 2 * 32000 * 4096 + 4096
    active = 32 * (attn + 2 * expert + router + norms) + 32000 * 4096 + 4096  # LM head only
    counts = MIXTRAL.params()
    assert counts.total == total == 46_702_792_704
    assert counts.active == active == 12_879_925_248 - 32000 * 4096


def test_moe_weights_hold_all_experts_but_activations_route_top_k():
    plan = Plan(task="full", precision="bf16-pure", micro_batch=1, seq_len=4096)
    mem = memory_breakdown(MIXTRAL, plan)
    assert mem.weights == pytest.approx(2 * 46_702_792_704, rel=1e-12)
    # Each token passes through 2 experts: the 4 s b f gated-MLP terms appear twice ...
    b, s, f = 1, 4096, 14336
    dense_twin = ModelSpec(id="dense", name="dense", n_layers=32, d_model=4096, n_heads=32,
                           n_kv_heads=8, d_ff=14336, vocab_size=32000)
    moe, _ = _block_elements(MIXTRAL, plan, b, s, "flash", False)
    dense, _ = _block_elements(dense_twin, plan, b, s, "flash", False)
    # ... and so does each expert's dispatched input (s b h).
    assert moe - dense == (2 - 1) * (4 * s * b * f + s * b * 4096)


# --------------------------------------------------------------------------- Plan validation
@pytest.mark.parametrize(
    ("changes", "field"),
    [
        ({"micro_batch": 0}, "micro_batch"),
        ({"micro_batch": -2}, "micro_batch"),
        ({"seq_len": 0}, "seq_len"),
        ({"n_gpus": 0}, "n_gpus"),
        ({"grad_accum": 1.5}, "grad_accum"),
        ({"task": "full", "lora_rank": 8}, "lora_rank"),
        ({"task": "qlora", "quant": "none"}, "quant"),
        ({"task": "full", "quant": "nf4"}, "quant"),
        ({"optimizer": "adam_bogus"}, "optimizer"),
        ({"precision": "fp4"}, "precision"),
        ({"zero_stage": 4}, "zero_stage"),
        ({"efficiency": 1.5}, "efficiency"),
        ({"dataset_tokens": 1e9, "dataset_samples": 10}, "dataset_tokens"),
    ],
)
def test_invalid_plan_raises_value_error_naming_the_field(changes, field):
    with pytest.raises(ValueError, match=field):
        Plan(**changes)


# --------------------------------------------------------------------------- array inputs
@pytest.mark.parametrize(
    "plan",
    [
        Plan(task="full", precision="bf16", seq_len=1024, n_gpus=4, zero_stage=0),
        Plan(task="qlora", precision="bf16", seq_len=512, attention="eager"),
        Plan(task="infer", precision="bf16", seq_len=2048, n_gpus=2),
        Plan(task="full", precision="bf16", checkpointing="full", zero_stage=3, n_gpus=8),
    ],
)
def test_memory_breakdown_with_array_micro_batch_matches_scalar_calls(plan):
    batches = np.array([1, 2, 3, 8, 32])
    swept = memory_breakdown(LLAMA31_8B, plan, micro_batch=batches)
    for i, b in enumerate(batches):
        one = memory_breakdown(LLAMA31_8B, plan.with_changes(micro_batch=int(b)))
        for term in memory.TERMS:
            got = np.broadcast_to(getattr(swept, term), batches.shape)[i]
            assert got == pytest.approx(getattr(one, term), rel=1e-12), term
        assert np.broadcast_to(swept.total, batches.shape)[i] == pytest.approx(one.total)


def test_memory_breakdown_with_array_n_gpus_matches_scalar_calls():
    plan = Plan(task="full", precision="bf16", zero_stage=3, n_gpus=2)
    counts = np.array([1, 2, 4, 16])
    swept = memory_breakdown(LLAMA31_8B, plan, n_gpus=counts)
    for i, n in enumerate(counts):
        one = memory_breakdown(LLAMA31_8B, plan.with_changes(n_gpus=int(n)))
        assert np.broadcast_to(swept.total, counts.shape)[i] == pytest.approx(one.total)


def test_nccl_memory_follows_the_group_size_it_was_measured_at():
    """NCCL's buffers per GPU: none alone; 544 MB in a group of 2 and 688 MB in a group of
    3-4 (NVIDIA/nccl issue 964, A100 NVLink, after a first all-reduce); the 8-GPU figure
    (``nccl_bytes``, 1.45 GiB, stas00's ml-engineering) from 5 GPUs on; an override below
    those caps them."""
    from gpuadvisor.core.assumptions import DEFAULT_ASSUMPTIONS, nccl_memory

    a = DEFAULT_ASSUMPTIONS
    assert [float(nccl_memory(a, n)) for n in (1, 2, 3, 4, 5, 8)] == [
        0.0, 544e6, 688e6, 688e6, a.nccl_bytes, a.nccl_bytes]
    low = a.with_overrides({"nccl_bytes": 100e6})
    assert float(nccl_memory(low, 2)) == 100e6 and float(nccl_memory(low, 8)) == 100e6
