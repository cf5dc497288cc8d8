"""Memory of a parallel layout, term by term, as the tools that run such layouts keep it.

Each expectation is derived by hand from the tool's code (cited) and the model's shape, not
read back from the estimator:

* fp8 (Transformer Engine): a linear layer saves its input as the 1-byte fp8 cast it
  multiplied (transformer_engine/pytorch/module/linear.py at NVIDIA/TransformerEngine@d0067d0d);
* a fused SwiGLU saves only its input (Megatron-Core ``fused_bias_swiglu.py``);
* ZeRO shards over the data- and context-parallel ranks (context-parallel ranks hold the same
  weights); experts only over their own replicas;
* mixed precision keeps torch.amp's fp32 weights without ZeRO and 16-bit weights with an fp32
  master copy among the (sharded) optimizer states with it.
"""

from __future__ import annotations

import pytest

from gpuadvisor import catalog
from gpuadvisor.core.assumptions import DEFAULT_ASSUMPTIONS as A
from gpuadvisor.core.memory import activation_bytes
from gpuadvisor.core.model import model_shape
from gpuadvisor.core.parallel.search import layout_memory
from gpuadvisor.core.parallel.shape import step_shape
from gpuadvisor.core.plan import Plan


def _params(model) -> float:
    return float(model_shape(model).params.total)


@pytest.fixture(scope="module")
def models():
    return catalog.load_models()


def _acts(model, **plan):
    p = Plan(task=plan.pop("task", "pretrain"), seq_len=4096, micro_batch=1,
             checkpointing="none", attention="flash", **plan)
    return activation_bytes(model, p, A)


def test_fp8_linears_save_one_byte_inputs(models):
    """Llama 3.1 8B (h = q = 4,096, k = 1,024, f = 14,336, 32 layers), 4,096 tokens: in bf16
    the q/k/v, MLP and down inputs take 2 bytes and the output projection's input is
    FlashAttention's output; under fp8 those four inputs take 1 byte and the attention output
    stays 2 bytes beside the projection's 1-byte copy. Per token and layer,
    bf16: 2 (h + q + h + f); fp8: 1 (h + q + h + f) + 2 q; bf16 - fp8 = 2h - q + f."""
    m = models["llama-3.1-8b"]
    h, q, f, layers, tokens = 4096, 4096, 14336, 32, 4096
    saved = _acts(m, precision="bf16") - _acts(m, precision="fp8")
    assert saved == pytest.approx(layers * tokens * (2 * h - q + f), rel=1e-12)


def test_fp8_does_not_shrink_what_lora_adapters_save(models):
    """A frozen base linear saves nothing; the adapters keep their 16-bit inputs either way."""
    m = models["llama-3.1-8b"]
    assert _acts(m, task="lora", precision="fp8") == pytest.approx(
        _acts(m, task="lora", precision="bf16"), rel=1e-12)


def test_a_fused_swiglu_saves_one_mlp_width_less(models):
    """act(gate) is rebuilt in the backward pass: f elements of 2 bytes fewer per token and
    layer."""
    m = models["llama-3.1-8b"]
    p = Plan(task="pretrain", seq_len=4096, micro_batch=1, checkpointing="none")
    eager = activation_bytes(m, p, A)
    fused = activation_bytes(m, p, A, fused_mlp=True)
    assert eager - fused == pytest.approx(32 * 4096 * 14336 * 2, rel=1e-12)


def _memory(model, plan, **layout):
    shape = step_shape(model, plan)
    base = dict(tp=1, pp=1, vpp=1, cp=1, ep=1, dp=1, zero=1, micro_batch=1, grad_accum=8)
    base.update(layout)
    base["shard"] = base["dp"]
    _, terms = layout_memory(model, plan, A, shape, **base)
    return {k: float(v) for k, v in terms.items()}


def test_zero_shards_over_context_parallel_ranks_too(models):
    """DP 4 x CP 2 shards the optimizer states eight ways, as DP 8 does."""
    m = models["llama-3.1-8b"]
    plan = Plan(task="pretrain", n_gpus=8, zero_stage=1, seq_len=8192)
    with_cp = _memory(m, plan, dp=4, cp=2)
    without = _memory(m, plan, dp=8)
    assert with_cp["optimizer"] == pytest.approx(without["optimizer"], rel=1e-12)
    # the master copy, the moments: 12 bytes per parameter over 8 ranks
    assert with_cp["optimizer"] == pytest.approx(12 * _params(m) / 8, rel=0.02)


def test_mixed_precision_with_zero_keeps_16_bit_weights_and_shards_the_master(models):
    """ZeRO paper's 2 + 2 + 12/N bytes per parameter (Rajbhandari et al. 2020, §3): bf16
    weights and gradients on every rank, fp32 master + Adam moments sharded. Without ZeRO,
    torch.amp's fp32 weights and gradients."""
    m = models["llama-3.1-8b"]
    plan = Plan(task="pretrain", n_gpus=8, zero_stage=1, precision="bf16")
    n = _params(m)
    z1 = _memory(m, plan, dp=8, zero=1)
    assert z1["weights"] == pytest.approx(2 * n, rel=0.01)
    assert z1["gradients"] == pytest.approx(2 * n, rel=0.01)
    assert z1["optimizer"] == pytest.approx(12 * n / 8, rel=0.01)
    z0 = _memory(m, plan.with_changes(zero_stage=0), dp=8, zero=0)
    assert z0["gradients"] == pytest.approx(4 * n, rel=0.01)
    assert z0["optimizer"] == pytest.approx(8 * n, rel=0.01)


def test_experts_shard_only_over_their_replicas(models):
    """Qwen3-30B-A3B with EP 16 on 16 GPUs: each expert lives on one rank, so ZeRO-1 cannot
    shard its optimizer states; the dense part shards 16 ways."""
    m = models["qwen3-30b-a3b"]
    plan = Plan(task="pretrain", n_gpus=16, zero_stage=1, precision="bf16")
    shape = step_shape(m, plan)
    experts = shape.n_layers * shape.expert_params / 16  # 1/16 of every layer's experts
    dense = shape.n_layers * shape.block_params + shape.outside_params
    got = _memory(m, plan, dp=16, ep=16)
    assert got["optimizer"] == pytest.approx(12 * (experts + dense / 16), rel=0.01)


def test_expert_parallelism_folds_over_tensor_parallel_ranks_when_it_must():
    """EP 32 on TP 2 x DP 16 cannot come from the 16 data-parallel ranks alone: the expert
    groups span the tensor-parallel pairs and each expert stays whole (Megatron-Core's MoE
    parallel folding, expert tensor parallel 1). EP 8 divides DP 16: experts split like the
    attention (ETP 2). EP 64 fits neither way."""
    from gpuadvisor.core.parallel.layout import Layout

    assert Layout(tp=2, dp=16, ep=32).etp == 1
    assert Layout(tp=2, dp=16, ep=8).etp == 2
    assert "EP 32 (ETP 1)" in Layout(tp=2, dp=16, ep=32).describe()
    with pytest.raises(ValueError, match="tp x dp x cp"):
        Layout(tp=2, dp=16, ep=64)


def test_folded_experts_are_whole_on_each_rank(models):
    """Qwen3-235B-A22B (128 experts per layer) on TP 2 x PP 8 x DP 16 with EP 32: each rank
    holds 128 / 32 = 4 whole experts of each of its 94 / 8 -> 12 layers, not half of 8."""
    from gpuadvisor.core.parallel.step import local_params

    m = models["qwen3-235b-a22b"]
    shape = step_shape(m, Plan(task="pretrain", n_gpus=256))
    folded = local_params(shape, 2, 8, 32, etp=1)
    dense = local_params(shape, 2, 8, 1) - 12 * shape.expert_params / 2
    assert folded - dense == pytest.approx(12 * shape.expert_params / 32, rel=1e-12)
