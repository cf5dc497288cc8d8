"""A training step's efficiency from its kernels (gpuadvisor.core.parallel.insitu).

The flat time model (FLOPs over peak x efficiency) and the layout model must agree with one
GPU's work at the published kernel rates divided by the in-situ factor; each check below
derives the expected figure from that definition or from a physical ordering, not from the
code's own output.
"""

from __future__ import annotations

import pytest

from gpuadvisor.core.assumptions import DEFAULT_ASSUMPTIONS, Assumptions
from gpuadvisor.core.estimate import estimate
from gpuadvisor.core.model import ModelSpec
from gpuadvisor.core.parallel.insitu import gpu_rates, kernel_efficiency, one_gpu_work_seconds
from gpuadvisor.core.parallel.plan_time import anchored_rates
from gpuadvisor.core.plan import Plan
from gpuadvisor.core.resolve import with_layout
from tests.test_compute import LLAMA2_7B, make_gpu

GPU = make_gpu()  # 100 TFLOPS 16-bit peak, 2000 GB/s; no published fractions: the defaults
PLAN = Plan(task="pretrain", precision="bf16", seq_len=2048, micro_batch=4,
            dataset_tokens=1e9)
TOKENS_PER_STEP = 4 * 2048


def test_one_gpu_is_timed_at_kernel_rates_over_the_in_situ_factor():
    result = estimate(LLAMA2_7B, PLAN, GPU)
    rates, _ = gpu_rates(GPU, "bf16")
    work = one_gpu_work_seconds(LLAMA2_7B, PLAN, rates)  # seconds per step at kernel rates
    k = DEFAULT_ASSUMPTIONS.insitu_factor
    steps = 1e9 / TOKENS_PER_STEP
    assert result.time.compute_seconds_per_step == pytest.approx(work / k, rel=1e-9)
    assert result.time.seconds == pytest.approx(steps * work / k, rel=1e-9)


def test_the_in_situ_factor_scales_time_inversely():
    base = estimate(LLAMA2_7B, PLAN, GPU).time.seconds
    half = estimate(LLAMA2_7B, PLAN, GPU, Assumptions(
        insitu_factor=DEFAULT_ASSUMPTIONS.insitu_factor / 2)).time.seconds
    assert half == pytest.approx(2.0 * base, rel=1e-9)


def test_several_gpus_run_each_kernel_at_the_in_situ_share_of_its_published_rate():
    plan = PLAN.with_changes(n_gpus=4)
    one = estimate(LLAMA2_7B, plan, GPU)
    rates, _ = gpu_rates(GPU, "bf16")
    anchor = one.time.compute_seconds_per_step / TOKENS_PER_STEP
    _, scale = anchored_rates(LLAMA2_7B, plan, rates, anchor)
    assert scale == pytest.approx(DEFAULT_ASSUMPTIONS.insitu_factor, rel=1e-9)
    laid = with_layout(one, DEFAULT_ASSUMPTIONS)
    assert laid.layout is not None and laid.layout.n_gpus == 4


def test_a_bigger_model_reaches_a_larger_share_of_peak():
    # Wider GEMMs amortise the memory-bound work (norms, activations: bytes grow with h,
    # FLOPs with h^2), so MFU grows with the hidden size on the same GPU.
    small = ModelSpec(id="s", name="s", n_layers=12, d_model=768, n_heads=12, d_ff=2048,
                      vocab_size=32000)
    effs = [estimate(m, PLAN, GPU).assumptions["efficiency"] for m in (small, LLAMA2_7B)]
    assert effs[0] < effs[1]


def test_a_gpu_with_less_bandwidth_per_flop_reaches_less_of_its_peak():
    # Same peak, half the memory bandwidth: memory-bound kernels take twice as long.
    slow = make_gpu(memory_bandwidth_gb_s=1000)
    fast = estimate(LLAMA2_7B, PLAN, GPU).assumptions["efficiency"]
    assert estimate(LLAMA2_7B, PLAN, slow).assumptions["efficiency"] < fast


def test_models_without_layers_keep_the_assumed_efficiencies():
    opaque = ModelSpec(id="o", name="o", kind="opaque", params_override=1_000_000_000,
                       flops_per_sample=2e9)
    r = estimate(opaque, Plan(task="pretrain", dataset_samples=1000), GPU)
    assert r.assumptions["efficiency"] == DEFAULT_ASSUMPTIONS.efficiency_train
    assert "efficiency_basis" not in r.assumptions
    r = estimate(opaque, Plan(task="pretrain", precision="fp8", dataset_samples=1000),
                 make_gpu(fp8_tensor_tflops=200))
    assert r.assumptions["efficiency"] == DEFAULT_ASSUMPTIONS.efficiency_fp8


def test_fp8_runs_the_linears_at_the_fp8_fraction_and_the_rest_at_16_bit():
    # Transformer Engine's recipe on a GPU without published fp8 figures: linears at 0.74 of
    # the 200 TFLOPS fp8 peak (the median of the mamf-fp8 rows); attention and the output
    # layer 16-bit: 0.60 and 0.80 of the 100 TFLOPS 16-bit peak = 0.30 and 0.40 of fp8's.
    fp8 = make_gpu(fp8_tensor_tflops=200)
    rates, _ = gpu_rates(fp8, "fp8")
    assert rates.peak_flops == 200e12
    assert rates.matmul_fraction == pytest.approx(0.74)
    assert rates.attention_fraction == pytest.approx(0.30)
    assert rates.head_fraction == pytest.approx(0.40)
    plan = PLAN.with_changes(precision="fp8")
    r = estimate(LLAMA2_7B, plan, fp8)
    work = one_gpu_work_seconds(LLAMA2_7B, plan, rates)
    assert r.time.compute_seconds_per_step == pytest.approx(
        work / DEFAULT_ASSUMPTIONS.insitu_factor, rel=1e-9)
    # Faster than 16-bit on the same card, but not twice: casts, attention and the head.
    bf16 = estimate(LLAMA2_7B, PLAN, fp8).time.seconds
    assert 0.5 * bf16 < r.time.seconds < bf16


def test_fp8_cast_bytes_follow_transformer_engines_cast_transpose():
    # One Llama-2-7B block (h = q = kv = 4096, f = 11008, gated): inputs of the four linears
    # h + q + h + f, outputs (q + 2 kv) + h + 2 f + h; each element cast with its transpose:
    # read 2 bytes, write 1 + 1.
    from gpuadvisor.core.parallel.shape import step_shape
    from gpuadvisor.core.parallel.step import fp8_cast_bytes_per_token

    shape = step_shape(LLAMA2_7B, PLAN)
    inputs = 4096 + 4096 + 4096 + 11008
    outputs = 3 * 4096 + 4096 + 2 * 11008 + 4096
    assert fp8_cast_bytes_per_token(shape, 1) == pytest.approx(4 * (inputs + outputs))
    assert fp8_cast_bytes_per_token(shape, 4) == pytest.approx(inputs + outputs)


def test_qlora_dequantization_is_counted_once():
    # The kernel model moves the packed weights itself; the flat model's QLoRA factor is
    # divided out so the time equals the kernel work over k, not 1.3x more.
    plan = Plan(task="qlora", seq_len=1024, micro_batch=2, dataset_samples=100)
    result = estimate(LLAMA2_7B, plan, GPU)
    rates, _ = gpu_rates(GPU, "bf16")
    work = one_gpu_work_seconds(LLAMA2_7B, plan, rates)
    assert result.time.compute_seconds_per_step == pytest.approx(
        work / DEFAULT_ASSUMPTIONS.insitu_factor, rel=1e-6)


@pytest.mark.parametrize("value", [0.0, -0.1, 1.5])
def test_an_in_situ_factor_outside_0_1_is_refused(value):
    with pytest.raises(ValueError, match="insitu_factor"):
        Assumptions(insitu_factor=value)
    with pytest.raises(ValueError, match="insitu_factor"):
        kernel_efficiency(LLAMA2_7B, PLAN, GPU, "bf16", train_flops_per_step=1.0,
                          insitu_factor=value)


def test_the_estimate_reads_norm_and_positions_from_the_spec():
    # A GPT-style block (LayerNorm, learned positions: no rotary kernels) moves fewer eager
    # bytes than a Llama-style one; the estimate must time the model it was given.
    gpt = ModelSpec(id="g", name="g", n_layers=24, d_model=2048, n_heads=16, d_ff=8192,
                    vocab_size=50257, mlp="gelu", norm="layernorm", position="learned",
                    max_positions=2048)
    llama_like = ModelSpec(id="l", name="l", n_layers=24, d_model=2048, n_heads=16, d_ff=8192,
                           vocab_size=50257, mlp="gelu", norm="rmsnorm", position="rope",
                           max_positions=2048)
    rates, _ = gpu_rates(GPU, "bf16")
    k = DEFAULT_ASSUMPTIONS.insitu_factor
    times = []
    for model in (gpt, llama_like):
        work = one_gpu_work_seconds(model, PLAN, rates)
        step = estimate(model, PLAN, GPU).time.compute_seconds_per_step
        assert step == pytest.approx(work / k, rel=1e-9)
        times.append(step)
    assert times[0] < times[1]  # no rotary, a one-kernel LayerNorm
