"""The loss over the vocabulary as each framework runs it: the bytes a layout step charges and
the buffers the layout's memory holds follow the plan's framework (and whether the step's
kernels are fused), the same loss the single-GPU memory model counts.

Expectations are hand counts of each loss's passes (see ``frameworks.LOSS_BYTES_PER_VOCAB``):
Hugging Face's upcast 18 + 22 = 40 bytes per token and vocabulary entry, Megatron's
vocabulary-parallel loss 38 + 14 = 52, one fused kernel 2 + 4 = 6, Cut Cross-Entropy 0 with
the head's forward GEMM run again in the backward pass.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from gpuadvisor import catalog
from gpuadvisor.core.assumptions import DEFAULT_ASSUMPTIONS as A
from gpuadvisor.core.memory import memory_breakdown
from gpuadvisor.core.parallel.search import layout_memory
from gpuadvisor.core.parallel.shape import step_shape
from gpuadvisor.core.parallel.step import loss_bytes_per_token
from gpuadvisor.core.plan import Plan

V = 128_256  # Llama 3.1's vocabulary


@pytest.fixture(scope="module")
def llama():
    return catalog.load_models()["llama-3.1-8b"]


def _plan(framework, task="full", **changes):
    return Plan(task=task, framework=framework, precision="bf16", seq_len=2048, micro_batch=2,
                checkpointing="none", attention="flash", **changes)


@pytest.mark.parametrize(("framework", "task", "kernels", "per_vocab"), [
    ("hf", "full", "eager", 40.0),        # the upcast's passes
    ("hf", "full", "fused", 6.0),         # one fused kernel (llm.c, torch.compile)
    ("torchtune", "full", "eager", 40.0),  # the same passes a chunk at a time
    ("megatron", "pretrain", "eager", 52.0),
    ("megatron", "pretrain", "fused", 52.0),  # Megatron-LM keeps its own (unfused default)
    ("unsloth", "full", "eager", 0.0),    # Cut Cross-Entropy: logits stay on chip
])
def test_the_step_charges_the_frameworks_own_loss(llama, framework, task, kernels, per_vocab):
    shape = step_shape(llama, _plan(framework, task))
    assert float(loss_bytes_per_token(shape, 1, kernels)) == pytest.approx(per_vocab * V)
    # a vocabulary-parallel head splits it over the tensor-parallel ranks
    assert float(loss_bytes_per_token(shape, 4, kernels)) == pytest.approx(per_vocab * V / 4)


def test_a_model_without_a_head_moves_no_loss_bytes(llama):
    headless = replace(step_shape(llama, _plan("hf")), head=False)
    assert float(loss_bytes_per_token(headless, 1)) == 0.0


def _layout_logits(model, plan, kernels):
    _, terms = layout_memory(model, plan, A, step_shape(model, plan), tp=1, pp=1, vpp=1, cp=1,
                             ep=1, dp=1, zero=0, shard=1, micro_batch=plan.micro_batch,
                             grad_accum=1, kernels=kernels)
    return float(terms["logits"])


@pytest.mark.parametrize(("framework", "task"), [("hf", "full"), ("megatron", "pretrain"),
                                                 ("unsloth", "full"), ("torchtune", "full")])
def test_the_layouts_loss_buffers_are_the_single_gpu_memory_models(llama, framework, task):
    """One GPU laid out is the single-GPU plan: both count the framework's loss buffers
    (Hugging Face 10 b s V, Megatron 6 b s V, Unsloth 4 b s, torchtune (6 + 4/8) b s V)."""
    plan = _plan(framework, task)
    single = memory_breakdown(llama, plan, A).logits
    assert _layout_logits(llama, plan, "eager") == pytest.approx(single, rel=1e-12)
    b, s = 2, 2048
    expected = {"hf": 10.0 * b * s * V, "megatron": 6.0 * b * s * V, "unsloth": 4.0 * b * s,
                "torchtune": 6.5 * b * s * V}[framework]
    assert single == pytest.approx(expected, rel=1e-12)


def test_a_fused_loss_keeps_the_logits_and_a_log_sum_exp(llama):
    """Under fused kernels a PyTorch loss is one kernel: the 16-bit logits the head wrote
    (its backward writes the gradient over them) and an fp32 log-sum-exp per token:
    2 b s V + 4 b s; Megatron's own loss keeps its softmax (6 b s V) either way."""
    b, s = 2, 2048
    assert _layout_logits(llama, _plan("hf"), "fused") == pytest.approx(
        2.0 * b * s * V + 4.0 * b * s, rel=1e-12)
    assert _layout_logits(llama, _plan("megatron", "pretrain"), "fused") == pytest.approx(
        6.0 * b * s * V, rel=1e-12)


def test_only_cut_cross_entropy_rebuilds_the_logits_backward(llama):
    """Unsloth's loss moves no logits but runs the head's forward GEMM again in the backward
    pass; the other frameworks keep the logits they wrote."""
    from gpuadvisor.core.frameworks import loss_recomputes_logits
    kinds = {fw: step_shape(llama, _plan(fw, task)).loss
             for fw, task in (("hf", "full"), ("unsloth", "full"), ("megatron", "pretrain"))}
    assert kinds == {"hf": "upcast", "unsloth": "cce", "megatron": "vocab_parallel"}
    assert [loss_recomputes_logits(k) for k in kinds.values()] == [False, True, False]


def test_cut_cross_entropys_second_head_gemm_is_hardware_work(llama):
    """Unsloth over 2 GPUs (data parallel, no recomputation): the hardware FLOPs exceed the
    model FLOPs by the head's forward GEMM run again, 2 h V per token; Hugging Face's equal."""
    from gpuadvisor.core.estimate import estimate
    from gpuadvisor.core.parallel.plan_time import LayoutRequest
    from gpuadvisor.core.parallel.search import Constraints
    from gpuadvisor.core.resolve import with_layout
    gpu = catalog.load_gpus()["h100-sxm"]
    extra = {}
    for fw in ("hf", "unsloth"):
        plan = _plan(fw, n_gpus=2, grad_accum=1, dataset_tokens=1e9)  # full 2,048-token rows
        request = LayoutRequest(mode="manual", global_batch=4, kernels="eager",
                                constraints=Constraints(tp=1, pp=1, zero=1, micro_batch=2))
        parts = with_layout(estimate(llama, plan, gpu), A, request).layout.chosen.parts
        extra[fw] = float(parts.hardware_flops_per_gpu) - float(parts.flops_per_gpu)
    tokens_per_gpu = 2 * 2048  # one micro-batch of 2 x 2048 a step on each GPU
    assert extra["hf"] == pytest.approx(0.0, abs=1.0)
    assert extra["unsloth"] == pytest.approx(2.0 * 4096 * V * tokens_per_gpu, rel=1e-9)
