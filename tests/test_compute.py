"""FLOPs, throughput and time, checked against hand derivations and published figures.

GPUs are built directly as :class:`GpuSpec` records so these tests do not depend on the
catalog's data.
"""

from __future__ import annotations

import pytest

from gpuadvisor.core.assumptions import Assumptions
from gpuadvisor.core.compute import (
    attention_flops_per_token,
    comm_bytes_per_step,
    flops_per_token,
    training_time,
)
from gpuadvisor.core.estimate import estimate
from gpuadvisor.core.gpu import GpuSpec
from gpuadvisor.core.model import ModelSpec
from gpuadvisor.core.plan import Plan

DEFAULTS = Assumptions()


def make_gpu(**changes) -> GpuSpec:
    """A made-up datacenter GPU; tests override the figures they reason about."""
    fields = dict(
        id="test-gpu", name="Test GPU", vendor="nvidia", segment="datacenter",
        architecture="Test", ecosystem="cuda", launch_year=2024, memory_gib=80,
        memory_type="HBM3", memory_bandwidth_gb_s=2000, fp32_tflops=50,
        fp16_tensor_tflops=100, bf16_tensor_tflops=100, tdp_w=400, pcie_gen=4, pcie_lanes=16,
        p2p_link="none", compute_capability="8.0", source="unit test",
    )
    fields.update(changes)
    return GpuSpec(**fields)


# --------------------------------------------------------------------------- models
# Llama-2-7B (HF meta-llama/Llama-2-7b-hf config.json).
LLAMA2_7B = ModelSpec(
    id="llama-2-7b", name="Llama-2-7B", n_layers=32, d_model=4096, n_heads=32,
    d_ff=11008, vocab_size=32000,
)
LLAMA2_LINEAR = 32 * (4 * 4096 * 4096 + 3 * 4096 * 11008)  # q, k, v, o + gate, up, down
LLAMA2_HEAD = 32000 * 4096
LLAMA2_TOTAL = LLAMA2_LINEAR + LLAMA2_HEAD + 32000 * 4096 + 32 * 2 * 4096 + 4096
assert LLAMA2_TOTAL == 6_738_415_616  # Meta's published count

# Llama-3.1-8B (HF meta-llama/Llama-3.1-8B config.json).
LLAMA31_8B = ModelSpec(
    id="llama-3.1-8b", name="Llama-3.1-8B", n_layers=32, d_model=4096, n_heads=32,
    n_kv_heads=8, d_ff=14336, vocab_size=128256,
)
LLAMA31_LINEAR = 32 * (2 * 4096 * 4096 + 2 * 4096 * 1024 + 3 * 4096 * 14336)
LLAMA31_TOTAL = LLAMA31_LINEAR + 2 * 128256 * 4096 + 32 * 2 * 4096 + 4096
assert LLAMA31_TOTAL == 8_030_261_248  # Meta's published count

# GPT-2 small (124M), tied embeddings: the LM head is still a V x h matmul.
GPT2_SMALL = ModelSpec(
    id="gpt2", name="GPT-2", n_layers=12, d_model=768, n_heads=12, d_ff=3072,
    vocab_size=50257, max_positions=1024, mlp="gelu", norm="layernorm", position="learned",
    tied_embeddings=True, qkv_bias=True, out_bias=True, mlp_bias=True,
)
GPT2_LINEAR = 12 * (4 * 768 * 768 + 2 * 768 * 3072)  # 84,934,656
GPT2_HEAD = 50257 * 768  # 38,597,376

BERT_BASE = ModelSpec(
    id="bert-base", name="BERT-base", kind="encoder", n_layers=12, d_model=768, n_heads=12,
    d_ff=3072, vocab_size=30522, max_positions=512, type_vocab_size=2, mlp="gelu",
    norm="layernorm", position="learned", qkv_bias=True, out_bias=True, mlp_bias=True,
    final_norm=False, embedding_norm=True, pooler=True,
)

OPAQUE = ModelSpec(id="cnn", name="CNN", kind="opaque", params_override=25_000_000,
                   flops_per_sample=8e9, sample_unit="224x224 image")


def llama2_attention(s, causal_half=True):
    """4 L s q (QK^T and PV, 2 FLOPs per multiply-add), halved for causal flash kernels."""
    return 4 * 32 * s * 4096 * (0.5 if causal_half else 1.0)


# --------------------------------------------------------------------------- FLOPs per token
def test_attention_flops_are_4_l_s_q_halved_for_causal_flash_decoders():
    flash = Plan(task="full", seq_len=4096, attention="flash")
    assert attention_flops_per_token(LLAMA2_7B, flash) == 4 * 32 * 4096 * 4096 * 0.5
    eager = flash.with_changes(attention="eager")
    assert attention_flops_per_token(LLAMA2_7B, eager) == 4 * 32 * 4096 * 4096
    # Encoders are bidirectional: nothing to skip even with a flash kernel.
    bert = Plan(task="full", seq_len=512, attention="flash")
    assert attention_flops_per_token(BERT_BASE, bert) == 4 * 12 * 512 * 768


def test_full_training_is_3_forwards_of_2n_plus_attention():
    s = 4096
    plan = Plan(task="pretrain", precision="bf16", seq_len=s)
    fpt = flops_per_token(LLAMA2_7B, plan)
    n_mm = LLAMA2_LINEAR + LLAMA2_HEAD  # embedding lookups cost nothing
    forward = 2 * n_mm + llama2_attention(s)
    assert fpt.matmul_forward == 2 * n_mm
    assert fpt.attention_forward == llama2_attention(s)
    assert fpt.forward == pytest.approx(forward, rel=1e-12)
    assert fpt.train == pytest.approx(3 * forward, rel=1e-12)
    # The 6N rule of thumb (Kaplan et al. 2020) within a few percent at this length.
    assert fpt.train == pytest.approx(6 * LLAMA2_TOTAL, rel=0.08)


def test_full_recompute_adds_one_forward_and_selective_adds_the_attention():
    s = 4096
    plan = Plan(task="full", precision="bf16", seq_len=s)
    forward = 2 * (LLAMA2_LINEAR + LLAMA2_HEAD) + llama2_attention(s)
    full = flops_per_token(LLAMA2_7B, plan.with_changes(checkpointing="full"))
    assert full.train == pytest.approx(4 * forward, rel=1e-12)
    selective = flops_per_token(LLAMA2_7B, plan.with_changes(checkpointing="selective"))
    assert selective.train == pytest.approx(3 * forward + llama2_attention(s), rel=1e-12)


def test_lora_skips_weight_gradients_of_the_frozen_base():
    s, r = 2048, 16
    plan = Plan(task="lora", precision="bf16", seq_len=s, lora_rank=r, lora_targets="all")
    n_mm = LLAMA2_LINEAR + LLAMA2_HEAD
    n_lora = 32 * r * (4 * (4096 + 4096) + 3 * (4096 + 11008))
    attn = llama2_attention(s)
    # forward 2 N_mm + attn; backward: input gradients 2 N_mm + 2 attn (no weight gradients)
    # plus forward + both gradients of the adapters: 6 N_lora.
    expected = 4 * n_mm + 3 * attn + 6 * n_lora
    assert flops_per_token(LLAMA2_7B, plan).train == pytest.approx(expected, rel=1e-12)
    recompute = plan.with_changes(checkpointing="full")
    expected_full = expected + 2 * n_mm + 2 * n_lora + attn
    assert flops_per_token(LLAMA2_7B, recompute).train == pytest.approx(expected_full,
                                                                        rel=1e-12)


def test_encoder_finetune_has_no_lm_head_matmul_but_pretraining_does():
    s = 512
    attn = 4 * 12 * s * 768
    finetune = flops_per_token(BERT_BASE, Plan(task="full", seq_len=s))
    assert finetune.forward == pytest.approx(2 * GPT2_LINEAR + attn, rel=1e-12)
    pretrain = flops_per_token(BERT_BASE, Plan(task="pretrain", seq_len=s))
    assert pretrain.forward == pytest.approx(2 * (GPT2_LINEAR + 30522 * 768) + attn,
                                             rel=1e-12)


def test_inference_has_a_forward_and_no_training_flops():
    plan = Plan(task="infer", precision="bf16", seq_len=1024)
    fpt = flops_per_token(LLAMA2_7B, plan)
    assert fpt.train == 0
    assert fpt.forward == pytest.approx(2 * (LLAMA2_LINEAR + LLAMA2_HEAD)
                                        + llama2_attention(1024), rel=1e-12)


def test_opaque_models_train_at_3x_the_published_forward_flops_per_sample():
    plan = Plan(task="full", precision="bf16")
    assert flops_per_token(OPAQUE, plan).train == 3 * 8e9
    assert flops_per_token(OPAQUE, plan.with_changes(checkpointing="full")).train == 4 * 8e9
    lora = Plan(task="lora", precision="bf16")
    assert flops_per_token(OPAQUE, lora).train == 2 * 8e9


# --------------------------------------------------------------------------- training time
def test_gpt2_small_training_time_on_one_gpu_by_hand():
    s, tokens, peak, eff = 1024, 1e9, 100.0, 0.5
    gpu = make_gpu(bf16_tensor_tflops=peak)
    plan = Plan(task="pretrain", precision="bf16", micro_batch=8, seq_len=s,
                dataset_tokens=tokens, efficiency=eff)
    forward = 2 * (GPT2_LINEAR + GPT2_HEAD) + 4 * 12 * s * 768 * 0.5
    per_token = 3 * forward  # 797,815,296 FLOPs
    seconds = tokens * per_token / (peak * 1e12 * eff)  # ~15,956 s, about 4.4 hours
    est = estimate(GPT2_SMALL, plan, gpu)
    assert est.time.flops_total == pytest.approx(tokens * per_token, rel=1e-12)
    assert est.time.seconds == pytest.approx(seconds, rel=1e-9)
    assert est.time.gpu_hours == pytest.approx(seconds / 3600, rel=1e-9)
    assert est.time.tokens_per_s == pytest.approx(tokens / seconds, rel=1e-9)
    assert est.time.comm_seconds_per_step == 0


def test_fp16_plan_is_timed_at_the_fp16_rate_and_bf16_falls_back_with_a_warning():
    gpu = make_gpu(fp16_tensor_tflops=125, bf16_tensor_tflops=None, fp32_tflops=15.7)
    plan = Plan(task="pretrain", precision="fp16", seq_len=1024, dataset_tokens=1e9,
                efficiency=0.5)
    per_token = 3 * (2 * (GPT2_LINEAR + GPT2_HEAD) + 4 * 12 * 1024 * 768 * 0.5)
    fp16 = estimate(GPT2_SMALL, plan, gpu)
    assert fp16.time.seconds == pytest.approx(1e9 * per_token / (125e12 * 0.5), rel=1e-9)
    bf16 = estimate(GPT2_SMALL, plan.with_changes(precision="bf16"), gpu)
    assert bf16.time.seconds == pytest.approx(1e9 * per_token / (15.7e12 * 0.5), rel=1e-9)
    assert any("bf16" in w for w in bf16.warnings)


def test_qlora_pays_the_dequantization_overhead():
    gpu = make_gpu()
    lora = Plan(task="lora", precision="bf16", seq_len=512, dataset_tokens=1e7,
                efficiency=0.4)
    qlora = lora.with_changes(task="qlora")
    ratio = estimate(LLAMA2_7B, qlora, gpu).time.seconds / estimate(LLAMA2_7B, lora,
                                                                     gpu).time.seconds
    assert ratio == pytest.approx(DEFAULTS.qlora_dequant_overhead, rel=1e-9)


# --------------------------------------------------------------------------- multi-GPU
def test_ddp_all_reduce_moves_2_n_minus_1_over_n_of_the_gradient_bytes():
    n = 8
    plan = Plan(task="full", precision="bf16", zero_stage=0, n_gpus=n)
    # torch.autocast keeps fp32 gradients: 4 bytes per parameter travel.
    expected = 2 * (n - 1) / n * 4 * LLAMA2_TOTAL
    assert comm_bytes_per_step(LLAMA2_7B, plan, DEFAULTS, n) == pytest.approx(expected,
                                                                               rel=1e-12)
    pure = plan.with_changes(precision="bf16-pure")
    assert comm_bytes_per_step(LLAMA2_7B, pure, DEFAULTS, n) == pytest.approx(
        2 * (n - 1) / n * 2 * LLAMA2_TOTAL, rel=1e-12)


def test_zero2_and_zero3_traffic_by_hand():
    n, accum = 4, 3
    share = (n - 1) / n
    z2 = Plan(task="full", precision="bf16", zero_stage=2, n_gpus=n, grad_accum=accum)
    # reduce-scatter of 16-bit gradients every micro-step + all-gather of 16-bit params.
    assert comm_bytes_per_step(LLAMA2_7B, z2, DEFAULTS, n) == pytest.approx(
        share * (accum * 2 * LLAMA2_TOTAL + 2 * LLAMA2_TOTAL), rel=1e-12)
    z3 = z2.with_changes(zero_stage=3)
    # forward all-gather + backward all-gather + gradient reduce-scatter, per micro-step.
    assert comm_bytes_per_step(LLAMA2_7B, z3, DEFAULTS, n) == pytest.approx(
        3 * share * accum * 2 * LLAMA2_TOTAL, rel=1e-12)


def _llama2_step_compute_s(peak_tflops, eff, s=4096, micro_batch=1):
    per_token = 3 * (2 * (LLAMA2_LINEAR + LLAMA2_HEAD) + llama2_attention(s))
    return per_token * s * micro_batch / (peak_tflops * 1e12 * eff)


@pytest.mark.parametrize(("link_gb_s", "exposed"), [(16 * 1.969, True), (300.0, False)])
def test_exposed_comm_is_what_overlap_cannot_hide(link_gb_s, exposed):
    n = 8
    plan = Plan(task="pretrain", precision="bf16", zero_stage=0, n_gpus=n, seq_len=4096,
                dataset_tokens=1e9)
    t = training_time(LLAMA2_7B, plan, peak_tflops=312, interconnect_gb_s_=link_gb_s,
                      efficiency=0.4)
    compute = _llama2_step_compute_s(312, 0.4)
    comm = 2 * (n - 1) / n * 4 * LLAMA2_TOTAL / (link_gb_s * 1e9)
    hidden = DEFAULTS.comm_overlap * compute
    assert t.compute_seconds_per_step == pytest.approx(compute, rel=1e-9)
    assert t.comm_seconds_per_step == pytest.approx(max(0.0, comm - hidden), abs=1e-12)
    assert t.step_seconds == pytest.approx(compute + max(0.0, comm - hidden), rel=1e-9)
    assert (t.comm_seconds_per_step > 0) is exposed


def test_a_pcie_card_scales_worse_than_an_nvlink_card():
    # A100 SXM: NVLink 3, 600 GB/s bidirectional = 300 GB/s each way (A100 datasheet).
    # A100 PCIe without a bridge: PCIe 4.0 x16 = 16 lanes x 1.969 GB/s = 31.5 GB/s each way.
    nvlink = make_gpu(id="sxm", bf16_tensor_tflops=312, p2p_link="nvlink3",
                      p2p_bandwidth_gb_s=600)
    pcie = make_gpu(id="pcie", bf16_tensor_tflops=312)
    plan = Plan(task="pretrain", precision="bf16", seq_len=4096, dataset_tokens=1e9,
                efficiency=0.4)
    compute = _llama2_step_compute_s(312, 0.4)
    comm_bytes = 2 * 7 / 8 * 4 * LLAMA2_TOTAL
    speedups = {}
    for gpu, link in ((nvlink, 300.0), (pcie, 16 * 1.969)):
        one = estimate(LLAMA2_7B, plan, gpu).time.seconds
        eight = estimate(LLAMA2_7B, plan.with_changes(n_gpus=8), gpu).time.seconds
        speedups[gpu.id] = one / eight
        exposed = max(0.0, comm_bytes / (link * 1e9) - 0.5 * compute)
        assert one / eight == pytest.approx(8 * compute / (compute + exposed), rel=1e-9)
    assert speedups["sxm"] == pytest.approx(8.0)
    assert speedups["pcie"] / speedups["sxm"] < 0.7


def test_jobs_beyond_one_node_use_the_network_bandwidth():
    plan = Plan(task="pretrain", precision="bf16", seq_len=4096, dataset_tokens=1e9,
                n_gpus=16)
    t = training_time(LLAMA2_7B, plan, peak_tflops=312, interconnect_gb_s_=300.0,
                      efficiency=0.4)
    assert t.interconnect_gb_s == DEFAULTS.inter_node_gb_s  # 200 Gb/s per GPU = 25 GB/s
    compute = _llama2_step_compute_s(312, 0.4)
    comm = 2 * 15 / 16 * 4 * LLAMA2_TOTAL / 25e9
    assert t.comm_seconds_per_step == pytest.approx(comm - 0.5 * compute, rel=1e-9)


# --------------------------------------------------------------------------- calibration
def test_llama2_7b_pretraining_gpu_hours_within_25_percent_of_meta():
    # Touvron et al. 2023, "Llama 2", Table 2: 7B took 184,320 A100-80GB GPU-hours for 2.0T
    # tokens at 4k context. A100 dense bf16 peak: 312 TFLOPS (NVIDIA A100 datasheet).
    s, tokens, peak, eff = 4096, 2.0e12, 312.0, 0.40
    plan = Plan(task="pretrain", precision="bf16", seq_len=s, micro_batch=1,
                dataset_tokens=tokens, n_gpus=1)
    per_token = 3 * (2 * (LLAMA2_LINEAR + LLAMA2_HEAD) + 4 * 32 * s * 4096 * 0.5)
    gpu_hours = tokens * per_token / (peak * 1e12 * eff) / 3600  # ~190,800
    t = training_time(LLAMA2_7B, plan, peak_tflops=peak, interconnect_gb_s_=300.0,
                      efficiency=eff)
    assert t.gpu_hours == pytest.approx(gpu_hours, rel=1e-9)
    assert t.gpu_hours == pytest.approx(184_320, rel=0.25)


# --------------------------------------------------------------------------- inference
H100_LIKE = dict(id="h100-like", memory_bandwidth_gb_s=3350, bf16_tensor_tflops=989,
                 fp16_tensor_tflops=989)  # H100 SXM5 datasheet: 3.35 TB/s, 989 TFLOPS dense


def test_batch_1_decode_is_memory_bandwidth_bound():
    s, new = 1024, 256
    gpu = make_gpu(**H100_LIKE)
    plan = Plan(task="infer", precision="bf16", micro_batch=1, seq_len=s, new_tokens=new)
    weights = 2 * LLAMA31_TOTAL  # every weight read once per generated token
    kv_per_token = 2 * 32 * 8 * 128 * 2  # K and V, 32 layers, 8 kv heads x 128, 2 bytes
    mean_context = s + new / 2
    read = weights + kv_per_token * mean_context
    tokens_per_s = 3350e9 * DEFAULTS.bandwidth_efficiency / read  # ~166 tokens/s
    est = estimate(LLAMA31_8B, plan, gpu)
    assert est.time.bound == "memory bandwidth"
    assert est.time.decode_tokens_per_s == pytest.approx(tokens_per_s, rel=1e-9)
    prefill = s * (2 * (LLAMA31_LINEAR + 128256 * 4096) + 4 * 32 * s * 4096 * 0.5) / (
        989e12 * DEFAULTS.efficiency_infer_prefill)
    assert est.time.prefill_seconds == pytest.approx(prefill, rel=1e-9)
    assert est.time.seconds == pytest.approx(prefill + new / tokens_per_s, rel=1e-9)


def test_decode_attention_flops_count_the_whole_context():
    # Prefill with a causal kernel averages s/2 keys per query, hence the x 0.5; a generated
    # token attends to its whole context, so decode costs 4 L c q FLOPs at context c.
    s, new, b = 1024, 256, 8
    gpu = make_gpu(**H100_LIKE)
    plan = Plan(task="infer", precision="bf16", micro_batch=b, seq_len=s, new_tokens=new)
    n_mm = LLAMA31_LINEAR + 128256 * 4096
    prefill_per_token = 2 * n_mm + 4 * 32 * s * 4096 * 0.5
    decode_per_token = 2 * n_mm + 4 * 32 * (s + new / 2) * 4096
    expected = b * (s * prefill_per_token + new * decode_per_token)
    assert estimate(LLAMA31_8B, plan, gpu).time.flops_total == pytest.approx(expected,
                                                                             rel=1e-9)
