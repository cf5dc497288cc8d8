"""Fine-tuning frameworks: each framework's memory terms, checked against hand derivations.

The expected values are worked out here from the tiny model's widths and the formulas the
frameworks' own code implies (see gpuadvisor/core/frameworks.py for the sources), never
copied from the code's output.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from gpuadvisor.cli import main
from gpuadvisor.core import framework_speed, frameworks
from gpuadvisor.core.assumptions import Assumptions
from gpuadvisor.core.compute import training_time
from gpuadvisor.core.fit_search import largest_fitting_micro_batch, longest_fitting_seq
from gpuadvisor.core.memory import activation_bytes, memory_breakdown
from gpuadvisor.core.model import ModelSpec
from gpuadvisor.core.plan import Plan
from gpuadvisor.core.units import GiB

DEFAULTS = Assumptions()
ROOT = Path(__file__).resolve().parents[1]

# A tiny LLaMA-style decoder: h = 8, 2 heads of 4 (q = 8), one KV head (k = 4), gated MLP
# f = 16, V = 32, L = 2, untied head.
TINY = ModelSpec(id="tiny", name="tiny", n_layers=2, d_model=8, n_heads=2, n_kv_heads=1,
                 d_ff=16, vocab_size=32)
H, Q, K, F, A, V, L = 8, 8, 4, 16, 2, 32, 2
# LoRA rank 4 on every linear: per block q (8+8), k (8+4), v (8+4), o (8+8), gate (8+16),
# up (8+16), down (16+8) -> 4 * 128 = 512 adapter weights per block.
RANK = 4
ADAPTERS = L * RANK * (16 + 12 + 12 + 16 + 24 + 24 + 24)
TINY_TOTAL = 1704  # tests/test_memory.py counts it by hand
LINEAR = L * 576  # block linears, quantized by QLoRA
B, S = 2, 64


def qlora(framework: str = "auto", **changes) -> Plan:
    values = dict(task="qlora", precision="bf16", lora_rank=RANK, lora_targets="all",
                  micro_batch=B, seq_len=S, checkpointing="full", attention="flash",
                  optimizer="adamw8bit", framework=framework)
    values.update(changes)
    return Plan(**values)


# --------------------------------------------------------------------------- default
@pytest.mark.parametrize("plan", [
    qlora(), Plan(task="full", micro_batch=B, seq_len=S, checkpointing="full"),
    Plan(task="lora", lora_rank=RANK, micro_batch=B, seq_len=S)])
def test_a_plan_naming_no_framework_is_hugging_face(plan):
    # The default (auto) is Hugging Face transformers + PEFT: the same memory, term by term.
    named = plan.with_changes(framework="hf")
    assert frameworks.framework_of(plan) is frameworks.framework_named("hf")
    assert memory_breakdown(TINY, plan) == memory_breakdown(TINY, named)
    assert frameworks.framework_assumptions(TINY, plan)["framework"] == "hf"


def test_hf_logits_are_the_full_upcast_10_bytes_per_entry():
    # bf16 logits (2) + fp32 upcast (4) + fp32 log-softmax kept for the backward pass (4).
    plan = Plan(task="full", micro_batch=B, seq_len=S, framework="hf")
    assert memory_breakdown(TINY, plan).logits == pytest.approx(B * S * V * 10, rel=1e-12)
    assert memory_breakdown(TINY, plan.with_changes(framework="axolotl")).logits == \
        pytest.approx(B * S * V * 10, rel=1e-12)


def test_backward_working_set_is_added_to_a_full_fine_tune_without_checkpointing():
    # The gradient arriving at a block (h) and the gated MLP's d(act*up), d act, d up (3f),
    # in 16-bit; no recomputed output without checkpointing.
    plan = Plan(task="full", precision="bf16", micro_batch=B, seq_len=S, framework="hf")
    added = memory_breakdown(TINY, plan).activations - activation_bytes(TINY, plan, DEFAULTS)
    assert added == pytest.approx(B * S * 2 * (H + 3 * F), rel=1e-12)
    full = plan.with_changes(checkpointing="full")
    added = memory_breakdown(TINY, full).activations - activation_bytes(TINY, full, DEFAULTS)
    assert added == pytest.approx(B * S * 2 * (H + 3 * F + H), rel=1e-12)


def test_hf_qlora_keeps_an_fp32_residual_stream():
    # Per block and token (module docstring table): attention norm input 4h, three bf16
    # casts for the q/k/v adapters 3*2h, FlashAttention's Q, K, V 2(q+2k), output 2q and
    # LSE 4a, MLP norm input 4h, gate/up adapter casts 2*2h, gate out, act, up out 3*4f,
    # the down adapter's cast 2f, seven LoRA-B inputs 7*2r.
    block = (4 * H + 6 * H + 2 * (Q + 2 * K) + 2 * Q + 4 * A + 4 * H + 4 * H + 12 * F
             + 2 * F + 7 * 2 * RANK)
    sbh = B * S * H
    kept = 4 * sbh * L  # every block's input fp32 (the fp32 embedding's output first)
    outside = 4 * sbh + 4 * sbh  # fp32 embedding output and final-norm input
    backward = B * S * 4 * (H + 3 * F + H)  # fp32: dY, 3 MLP gradients, recomputed output
    expected = kept + B * S * block + outside + backward
    assert memory_breakdown(TINY, qlora("hf")).activations == pytest.approx(expected, rel=1e-12)


def test_hf_qlora_weights_hold_the_fp32_upcast_and_a_bf16_copy_of_the_head():
    # prepare_model_for_kbit_training leaves every unquantized parameter in fp32: the
    # embedding (V*h = 256), LM head (256) and norms (40) at 4 bytes instead of 2; autocast
    # runs the head's matmul on a bf16 copy (2 * 256) the backward pass keeps.
    unquantized = TINY_TOTAL - LINEAR
    assert unquantized == 256 + 256 + 40
    nf4_dq = 0.5 + 1 / 64 + 4 / (64 * 256)
    bf16 = LINEAR * nf4_dq + 2 * unquantized + 4 * ADAPTERS  # Axolotl casts them back
    assert memory_breakdown(TINY, qlora("axolotl")).weights == pytest.approx(bf16, rel=1e-12)
    hf = LINEAR * nf4_dq + 4 * unquantized + 2 * V * H + 4 * ADAPTERS
    assert memory_breakdown(TINY, qlora()).weights == pytest.approx(hf, rel=1e-12)  # default
    assert memory_breakdown(TINY, qlora("hf")).weights == pytest.approx(hf, rel=1e-12)
    for other in ("unsloth", "axolotl", "torchtune"):  # all keep the unquantized in bf16
        assert frameworks.kbit_upcast_weight_bytes(TINY, qlora(other)) == 0


def test_qlora_sharded_by_fsdp_or_zero3_is_not_upcast():
    # TRL's SFTTrainer skips prepare_model_for_kbit_training when the 4-bit base is sharded
    # ("QLoRA + FSDP / DS-Zero3 - one should never call ... prepare_model_for_kbit_training",
    # trl/trainer/sft_trainer.py): the unquantized parameters stay 16-bit, the stream bf16
    one = qlora("hf")
    sharded = one.with_changes(n_gpus=2, zero_stage=3)
    assert frameworks.kbit_upcast_weight_bytes(TINY, one) > 0
    assert frameworks.kbit_upcast_weight_bytes(TINY, sharded) == 0
    nf4_dq = 0.5 + 1 / 64 + 4 / (64 * 256)
    unquantized = TINY_TOTAL - LINEAR
    expected = (LINEAR * nf4_dq + 2 * unquantized + 4 * ADAPTERS) / 2  # sharded over 2
    assert memory_breakdown(TINY, sharded).weights == pytest.approx(expected, rel=1e-12)
    # ZeRO-2 keeps the whole base on every GPU: TRL prepares (upcasts) it as on one GPU
    zero2 = one.with_changes(n_gpus=2, zero_stage=2)
    assert frameworks.kbit_upcast_weight_bytes(TINY, zero2) == \
        frameworks.kbit_upcast_weight_bytes(TINY, one)


def test_axolotl_qlora_casts_norms_back_so_its_residual_stream_is_bf16():
    plan = qlora("axolotl")
    generic = activation_bytes(TINY, plan, DEFAULTS)
    backward = B * S * 2 * (H + 3 * F + H)  # bf16: dY, 3 MLP gradients, recomputed output
    assert memory_breakdown(TINY, plan).activations == pytest.approx(generic + backward,
                                                                     rel=1e-12)


def test_qlora_overhead_holds_one_dequantized_copy_of_the_largest_linear():
    # The largest block linear is gate/up/down, h x f = 128 weights, dequantized to 16 bits.
    assert frameworks.dequant_buffer_bytes(TINY, qlora("hf")) == 2 * H * F
    assert frameworks.dequant_buffer_bytes(TINY, qlora("unsloth")) == 2 * H * F
    assert frameworks.dequant_buffer_bytes(TINY, qlora()) == 2 * H * F  # default: hf
    lora = Plan(task="lora", lora_rank=RANK, framework="hf")
    assert frameworks.dequant_buffer_bytes(TINY, lora) == 0
    with_buffer = memory_breakdown(TINY, qlora("hf"))
    context = DEFAULTS.cuda_context_bytes
    tensors = (with_buffer.weights + with_buffer.gradients + with_buffer.optimizer
               + with_buffer.activations + with_buffer.logits + 2 * H * F)
    reserve = DEFAULTS.allocator_reserve_fraction * tensors
    assert with_buffer.overhead == pytest.approx(context + reserve + 2 * H * F, rel=1e-12)


# --------------------------------------------------------------------------- Unsloth
def test_unsloth_cut_cross_entropy_keeps_an_fp32_log_sum_exp_per_token():
    assert memory_breakdown(TINY, qlora("unsloth")).logits == pytest.approx(4 * B * S)


# Six tiny layers and sequences long enough (2 x 131072 x 8 x 2 bytes = 4 MiB per block
# input) that Unsloth offloads them: inputs of 2 MiB or less stay on the GPU.
TINY6 = ModelSpec(id="tiny6", name="tiny6", n_layers=6, d_model=8, n_heads=2, n_kv_heads=1,
                  d_ff=16, vocab_size=32)
LONG = 131_072


def test_unsloth_offloaded_checkpointing_keeps_three_block_inputs_on_the_gpu():
    e, layers = 2, 6
    sbh = B * LONG * H
    # Generic block (bf16): both norms' inputs, the q/k/v and MLP inputs, Q, K, V, the
    # o_proj input, the gated MLP's gate, up, act, product, the seven LoRA intermediates;
    # plus FlashAttention's fp32 LSE. Fused LoRA_MLP keeps gate and up only: minus 2f.
    block = e * (4 * H + (Q + 2 * K) + Q + 4 * F + 7 * RANK) + 4 * A - e * 2 * F
    on_gpu = 3 * sbh * e  # the last block's input and two reload buffers
    outside = 2 * sbh * e
    backward = B * LONG * e * (H + F + H)  # dY, LoRA_MLP's DW, the recomputed output
    mem = memory_breakdown(TINY6, qlora("unsloth", seq_len=LONG))
    assert mem.activations == pytest.approx(on_gpu + B * LONG * block + outside + backward,
                                            rel=1e-12)
    assert mem.cpu_bytes == pytest.approx((layers - 1) * sbh * 2, rel=1e-12)


def test_unsloth_keeps_block_inputs_of_2_mib_or_less_on_the_gpu():
    s = LONG // 2  # 2 x 65536 x 8 x 2 bytes = 2 MiB exactly: not offloaded
    short = qlora("unsloth", seq_len=s)
    mem = memory_breakdown(TINY6, short)
    assert mem.cpu_bytes == 0 and framework_speed.offload_bytes_per_step(TINY6, short) == 0
    generic = activation_bytes(TINY6, short, DEFAULTS)  # all six inputs on the GPU
    fused = B * s * 2 * 2 * F  # the recomputed block keeps no act(gate) and product
    backward = B * s * 2 * (H + F + H)
    assert mem.activations == pytest.approx(generic - fused + backward, rel=1e-12)


def test_unsloth_without_checkpointing_keeps_every_block_and_offloads_nothing():
    plan = qlora("unsloth", checkpointing="none")
    mem = memory_breakdown(TINY, plan)
    generic = activation_bytes(TINY, plan, DEFAULTS)
    fused_saving = L * B * S * 2 * 2 * F
    backward = B * S * 2 * (H + F)
    assert mem.activations == pytest.approx(generic - fused_saving + backward, rel=1e-12)
    assert mem.cpu_bytes == 0


def test_unsloth_host_ram_matches_unsloths_own_arithmetic_for_llama_33_70b():
    # unsloth.ai/blog/llama3-3: "89,000 x 80 x 8192 x 2 bytes = 109GB of system RAM".
    llama70 = ModelSpec(id="l70", name="l70", n_layers=80, d_model=8192, n_heads=64,
                        n_kv_heads=8, d_ff=28672, vocab_size=128256)
    plan = qlora("unsloth", seq_len=89_000, micro_batch=1, lora_rank=32)
    # The last block's input is never offloaded: 79 of the 80 inputs are in host RAM.
    host = memory_breakdown(llama70, plan).cpu_bytes
    assert host == 89_000 * 79 * 8192 * 2
    assert host / GiB == pytest.approx(109, rel=0.02)  # Unsloth's "109GB" (GiB)


# --------------------------------------------------------------------------- torchtune
def test_torchtune_chunked_cross_entropy_upcasts_one_of_eight_chunks():
    # 8 bf16 chunks (2) + fp32 log-softmax of every chunk (4) + one chunk's upcast (4/8).
    plan = qlora("torchtune")
    assert memory_breakdown(TINY, plan).logits == pytest.approx(B * S * V * 6.5, rel=1e-12)
    fp32 = Plan(task="full", precision="fp32", micro_batch=B, seq_len=S, framework="torchtune")
    assert memory_breakdown(TINY, fp32).logits == pytest.approx(B * S * V * 8, rel=1e-12)


def test_torchtune_lora_adapters_gradients_and_adamw_states_are_bf16():
    plan = Plan(task="lora", precision="bf16", lora_rank=RANK, optimizer="adamw",
                framework="torchtune")
    mem = memory_breakdown(TINY, plan)
    assert mem.weights == pytest.approx(2 * TINY_TOTAL + 2 * ADAPTERS, rel=1e-12)
    assert mem.gradients == pytest.approx(2 * ADAPTERS, rel=1e-12)
    assert mem.optimizer == pytest.approx(4 * ADAPTERS, rel=1e-12)  # two bf16 moments
    hf = memory_breakdown(TINY, plan.with_changes(framework="hf"))
    assert hf.gradients == pytest.approx(4 * ADAPTERS) and hf.optimizer == pytest.approx(
        8 * ADAPTERS)


def test_torchtune_full_fine_tune_trains_in_pure_bf16():
    plan = Plan(task="full", precision="bf16", optimizer="adamw", framework="torchtune")
    mem = memory_breakdown(TINY, plan)
    assert mem.weights == pytest.approx(2 * TINY_TOTAL)
    assert mem.gradients == pytest.approx(2 * TINY_TOTAL)
    assert mem.optimizer == pytest.approx(4 * TINY_TOTAL)
    used = frameworks.framework_assumptions(TINY, plan)
    assert used["precision_as"].startswith("bf16-pure")


# --------------------------------------------------------------------------- names
@pytest.mark.parametrize("name", ["nope", "HF", "", "llama.cpp"])
def test_a_name_that_is_no_fine_tuning_framework_is_refused_naming_the_choices(name):
    with pytest.raises(ValueError, match=r"fine-tuning framework.*hf, unsloth, torchtune"):
        frameworks.framework_named(name)


@pytest.mark.parametrize(("changes", "words"), [
    ({"framework": "nope"}, "framework"),
    ({"framework": "vllm"}, "inference engine"),
    ({"task": "infer", "framework": "unsloth"}, "is for training"),
])
def test_plans_with_bad_framework_names_raise_naming_the_field(changes, words):
    with pytest.raises(ValueError, match=words):
        Plan(**changes)


def test_assumptions_name_the_framework_and_each_default():
    used = frameworks.framework_assumptions(TINY, qlora("unsloth"))
    assert used["framework"] == "unsloth"
    assert "Cut Cross-Entropy" in used["loss_buffers"]
    assert "host RAM" in used["checkpointing_as"]
    assert used["checkpoint_host_bytes_per_token"] == 2 * (L - 1) * H
    assert used["lora_kernels"].startswith("fused")
    assert used["dequant_buffer_bytes"] == 2 * H * F
    hf = frameworks.framework_assumptions(TINY, qlora("hf"))
    assert hf["framework"] == "hf" and hf["qlora_unquantized_dtype"].startswith("fp32")
    assert frameworks.framework_assumptions(TINY, Plan(task="infer")) == {}


# --------------------------------------------------------------------------- CLI
def test_cli_estimate_with_framework_unsloth(capsys):
    argv = ["estimate", "--model", "llama-3.1-8b", "--task", "qlora", "--checkpointing",
            "full", "--seq", "2048", "--gpu", "rtx-4090", "--json"]
    results = {}
    for name in ("hf", "unsloth"):
        assert main([*argv, "--framework", name]) == 0
        out, _ = capsys.readouterr()
        results[name] = json.loads(out)
    unsloth, hf = results["unsloth"], results["hf"]
    assert unsloth["plan"]["framework"] == "unsloth"
    # Offloaded checkpoints: 31 of 32 block inputs of 2048 tokens x 4096 x 2 bytes.
    assert unsloth["memory"]["cpu_offload_bytes"] == 31 * 2048 * 4096 * 2
    assert hf["memory"]["cpu_offload_bytes"] == 0
    # No logits kept: 4 bytes per token against 10 bytes per vocabulary entry.
    assert unsloth["memory"]["breakdown"]["logits"] == 4 * 2048
    assert hf["memory"]["breakdown"]["logits"] == 10 * 2048 * 128256
    assert unsloth["memory"]["per_gpu_bytes"] < hf["memory"]["per_gpu_bytes"]


def test_cli_refuses_an_unknown_framework(capsys):
    code = main(["estimate", "--model", "llama-3.1-8b", "--task", "qlora", "--framework",
                 "megatron"])
    assert code == 2
    assert "framework" in capsys.readouterr().err


# --------------------------------------------------------------------------- fit search
@pytest.mark.parametrize("framework", ["hf", "unsloth", "torchtune"])
def test_longest_fitting_seq_is_the_last_length_that_fits(framework):
    plan = qlora(framework, micro_batch=1)
    capacity = memory_breakdown(TINY, plan.with_changes(seq_len=5000)).total + 1.0
    s = longest_fitting_seq(TINY, plan, capacity)
    assert s >= 5000
    assert memory_breakdown(TINY, plan.with_changes(seq_len=s)).total <= capacity
    assert memory_breakdown(TINY, plan.with_changes(seq_len=s + 1)).total > capacity


def test_longest_fitting_seq_edges_and_bad_capacity():
    plan = qlora("hf")
    assert longest_fitting_seq(TINY, plan, 1.0) == 0
    assert longest_fitting_seq(TINY, plan, 1e15, limit=1000) == 1000
    for bad in (0, -5.0, float("nan"), True, "24GB"):
        with pytest.raises(ValueError, match="capacity"):
            longest_fitting_seq(TINY, plan, bad)


def test_largest_fitting_micro_batch_is_the_last_batch_that_fits():
    plan = qlora("unsloth", seq_len=512)
    capacity = memory_breakdown(TINY, plan.with_changes(micro_batch=37)).total + 1.0
    b = largest_fitting_micro_batch(TINY, plan, capacity)
    assert b == 37


# --------------------------------------------------------------------------- speed
def test_hf_time_is_unchanged_and_unsloth_removes_memory_passes_at_the_bandwidth():
    llama8 = ModelSpec(id="l8", name="l8", n_layers=32, d_model=4096, n_heads=32,
                       n_kv_heads=8, d_ff=14336, vocab_size=128256)
    plan = qlora("hf", seq_len=2048, micro_batch=2, grad_accum=4, dataset_samples=1000)
    kwargs = dict(peak_tflops=121.0, interconnect_gb_s_=32.0, bandwidth_gb_s=300.0,
                  host_link_gb_s=32.0)
    hf = training_time(llama8, plan, **kwargs)
    bare = training_time(llama8, plan, peak_tflops=121.0, interconnect_gb_s_=32.0)
    auto = training_time(llama8, plan.with_changes(framework="auto"), **kwargs)
    assert hf.seconds == bare.seconds == auto.seconds  # no framework term for hf
    uns_plan = plan.with_changes(framework="unsloth")
    uns = training_time(llama8, uns_plan, **kwargs)
    tokens = 2 * 2048 * 4
    saved = tokens * framework_speed.fused_bytes_saved_per_token(llama8, uns_plan) / (300e9 * 0.8)
    cce = tokens * 2 * 4096 * 128256 / (121e12 * DEFAULTS.efficiency_train)
    assert uns.step_seconds == pytest.approx(hf.step_seconds - saved + cce, rel=1e-9)


def test_offloaded_checkpoints_cost_time_only_beyond_the_compute():
    plan = qlora("unsloth", seq_len=LONG, micro_batch=B)
    moved = framework_speed.offload_bytes_per_step(TINY, plan)
    assert moved == 2 * (L - 1) * B * LONG * H * 2  # out and back, all but the last block
    saved = B * LONG * framework_speed.fused_bytes_saved_per_token(TINY, plan) / (1e9 * 0.8)
    step = framework_speed.step_seconds(TINY, plan, 1.0, 1e15, bandwidth_gb_s=1e3,
                                   host_link_gb_s=1.0)
    assert step == pytest.approx(1.0 + 2 * H * V * B * LONG / 1e15 - saved / 1e3)  # hidden
    slow = framework_speed.step_seconds(TINY, plan, 1e-9, 1e15, bandwidth_gb_s=1.0,
                                   host_link_gb_s=1e-9)
    assert slow == pytest.approx(moved / 1.0)  # copy takes moved bytes at 1 B/s
    # Without the GPU's bandwidth the framework leaves the step as it is.
    assert framework_speed.step_seconds(TINY, plan, 1.0, 1e15, host_link_gb_s=1e-9) == 1.0


def test_fused_savings_count_the_loss_passes_only_for_cut_cross_entropy():
    assert framework_speed.fused_bytes_saved_per_token(TINY, qlora("hf")) == 0
    assert framework_speed.fused_bytes_saved_per_token(TINY, qlora("torchtune")) == 0
    with_cce = framework_speed.fused_bytes_saved_per_token(TINY, qlora("unsloth"))
    assert with_cce > 40 * V
    assert framework_speed.extra_flops_per_token(TINY, qlora("unsloth")) == 2 * H * V


def test_step_seconds_broadcast_over_gpu_arrays():
    plan = qlora("unsloth")
    out = framework_speed.step_seconds(TINY, plan, np.array([1.0, 2.0]), 1e12,
                                  bandwidth_gb_s=np.array([100.0, 1000.0]))
    assert out.shape == (2,) and np.all(out < np.array([1.0, 2.0]) + 1e-3)


# --------------------------------------------------------------------------- data file
def test_published_context_rows_carry_sources_and_unsloth_beats_hf_everywhere():
    data = json.loads((ROOT / "benchmarks/calibration/frameworks.json").read_text("utf-8"))
    by_key = {}
    for row in data["rows"]:
        assert row["source"] and row["as_of"] and row["conditions"]
        assert row["framework"] in frameworks.FRAMEWORKS
        by_key[(row["model"], row["vram_gb"], row["framework"])] = row["max_context"]
    for (model, vram, name), value in by_key.items():
        if name == "unsloth":
            hf = by_key[(model, vram, "hf")]
            assert hf is None or value > hf
