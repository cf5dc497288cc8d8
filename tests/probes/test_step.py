"""The training-step kernels (``kernels/step.py``): ``step`` and ``plancheck``.

The kernel's pure functions (FLOP and parameter counts, extrapolation, option checks) are
tested here directly: the file imports no torch. The probes themselves run in the REAL
worker on CPU torch, in subprocesses, so torch never enters the test process.
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from gpuadvisor.core.compute import flops_per_token as core_flops_per_token
from gpuadvisor.core.model import ModelSpec
from gpuadvisor.core.plan import Plan
from gpuadvisor.probes.runner import WORKER_SCRIPT, run_probes

KERNEL = WORKER_SCRIPT.with_name("kernels") / "step_shape.py"
HAS_TORCH = importlib.util.find_spec("torch") is not None
needs_torch = pytest.mark.skipif(not HAS_TORCH, reason="torch is not installed")


@pytest.fixture(scope="module")
def kernel():
    """The kernel's planning module, loaded by path as the worker loads it (but without
    torch)."""
    torch_before = "torch" in sys.modules
    spec = importlib.util.spec_from_file_location("_test_step_kernel", KERNEL)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert ("torch" in sys.modules) == torch_before, "loading the kernel imported torch"
    return module


def tiny_shape(kernel, **changes):
    shape = {"hidden": 8, "heads": 2, "kv_heads": 2, "ffn": 16, "gated": False, "seq": 4,
             "micro_batch": 1, "layers": 1, "precision": "fp32", "vocab": 10}
    shape.update(changes)
    return kernel.complete_shape(shape)


# --------------------------------------------------------------------------- pure functions
def test_flops_of_a_tiny_block_match_a_hand_derivation(kernel):
    # h = 8, 2 heads of 4 (q = k = 8), GELU MLP f = 16, s = 4, one layer:
    # matmul weights = q 8*8 + k,v 2*8*8 + o 8*8 + up/down 2*8*16 = 64+128+64+256 = 512
    # forward = 2*512 (matmuls) + 4*s*q*0.5 (causal flash) = 1024 + 64 = 1088 per token
    # training = 3 * 1088 = 3264; full checkpointing adds a forward: 3264 + 1088 = 4352.
    shape = tiny_shape(kernel)
    flops = kernel.flops_per_token(shape, layers=1)
    assert flops["matmul_forward"] == 1024
    assert flops["attention_forward"] == 64
    assert flops["forward"] == 1088
    assert flops["train"] == flops["model_train"] == 3264
    full = kernel.flops_per_token(tiny_shape(kernel, checkpointing="full"), layers=1)
    assert full["train"] == 4352 and full["model_train"] == 3264
    # eager attention computes the whole square: 4*4*8 = 128; with the 10 x 8 LM head
    # (80 weights, 160 FLOPs): forward = 1024 + 128 + 160 = 1312.
    eager = kernel.flops_per_token(tiny_shape(kernel, attention="eager"), 1, include_head=True)
    assert eager["forward"] == 1312


@pytest.mark.parametrize("plan", [
    Plan(task="full", seq_len=64),
    Plan(task="full", seq_len=64, checkpointing="full"),
    Plan(task="full", seq_len=64, checkpointing="selective", attention="eager"),
    Plan(task="lora", seq_len=64, lora_rank=4, lora_targets="qv", checkpointing="full"),
])
def test_plancheck_flops_follow_the_estimators_convention(kernel, plan):
    model = ModelSpec(id="t", name="t", n_layers=3, d_model=64, n_heads=4, n_kv_heads=2,
                      d_ff=176, vocab_size=512, max_positions=512)
    shape = kernel.complete_shape({
        "hidden": 64, "heads": 4, "kv_heads": 2, "ffn": 176, "vocab": 512, "seq": 64,
        "micro_batch": 1, "precision": "bf16", "checkpointing": plan.checkpointing,
        "attention": plan.attention, "task": "lora" if plan.is_adapter else "full",
        **({"lora_rank": 4, "lora_targets": "qv"} if plan.is_adapter else {})})
    ours = kernel.flops_per_token(shape, layers=3, include_head=True)
    core = core_flops_per_token(model, plan)
    assert ours["forward"] == pytest.approx(core.forward, rel=1e-12)
    assert ours["train"] == pytest.approx(core.train, rel=1e-12)


@pytest.mark.parametrize("spec", [
    ModelSpec(id="llama-ish", name="l", n_layers=5, d_model=64, n_heads=4, n_kv_heads=2,
              d_ff=176, vocab_size=500, max_positions=128),
    ModelSpec(id="gpt2-ish", name="g", n_layers=3, d_model=48, n_heads=3, d_ff=192,
              vocab_size=300, max_positions=96, mlp="gelu", norm="layernorm",
              position="learned", tied_embeddings=True, qkv_bias=True, out_bias=True,
              mlp_bias=True),
    ModelSpec(id="gemma-ish", name="m", n_layers=4, d_model=64, n_heads=4, n_kv_heads=1,
              head_dim=32, d_ff=128, vocab_size=256, max_positions=64, norms_per_layer=4,
              tied_embeddings=True),
])
def test_parameter_counts_match_the_model_spec(kernel, spec):
    from gpuadvisor.probes.plancheck import options_for

    shape = kernel.complete_shape(options_for(spec, Plan(seq_len=32)))
    built = kernel.outside_params(shape) + spec.n_layers * kernel.block_params(shape)
    assert built == spec.params().total
    assert spec.n_layers * kernel.lora_params_per_layer(
        kernel.complete_shape(dict(shape, task="lora", lora_rank=8, lora_targets="all"))
    ) == spec.lora_params(8, "all")


def test_extrapolation_to_full_depth_is_linear(kernel):
    # m1 = 10, m2 = 13: 3 per layer; 22 layers: 10 + 21 * 3 = 73.
    assert kernel.extrapolate(10.0, 13.0, 22) == (3.0, 73.0)
    # Depths 2 and 4: (16 - 10) / 2 = 3 per layer; 10 layers: 10 + (10 - 2) * 3 = 34.
    assert kernel.extrapolate(10.0, 16.0, 10, depths=(2, 4)) == (3.0, 34.0)
    assert kernel.extrapolate(5, 5, 80) == (0.0, 5.0)


def test_the_step_shape_shrinks_micro_batch_then_sequence_to_fit(kernel):
    shape = tiny_shape(kernel, hidden=256, heads=4, ffn=704, seq=1024, micro_batch=8,
                       layers=2)
    need = kernel.step_memory_bytes(shape)
    fitted, notes = kernel.fit_step_shape(shape, need * 0.999)
    assert (fitted["micro_batch"], fitted["seq"]) == (4, 1024)
    assert notes == ["micro_batch halved to 4 to fit the memory"]
    params_only = kernel.step_memory_bytes(dict(shape, micro_batch=1, seq=128))
    fitted, notes = kernel.fit_step_shape(shape, params_only * 1.001)
    assert (fitted["micro_batch"], fitted["seq"], fitted["layers"]) == (1, 128, 2)
    assert notes[-1] == "seq halved to 128 to fit the memory"
    assert kernel.fit_step_shape(shape, None) == (shape, [])


def test_on_a_cpu_the_step_is_cut_to_what_the_cpu_does_in_seconds(kernel):
    # The 1B plan's shape: micro-batch 4 x 2048 tokens of two blocks, hidden 2048, ffn 8192.
    shape = tiny_shape(kernel, hidden=2048, heads=16, kv_heads=16, ffn=8192, gated=True,
                       seq=2048, micro_batch=4, layers=2)
    # Per layer 4 x 2048^2 (attention) + 3 x 2048 x 8192 (gated MLP) = 67.1M weights; train
    # = 3 x forward = 6 FLOPs per weight per token, plus attention scores: > 0.8 GFLOP/token.
    per_token = kernel.flops_per_token(shape, 2)["train"]
    assert per_token > 6 * 2 * (4 * 2048**2 + 3 * 2048 * 8192)
    fitted, notes = kernel.fit_cpu_step_time(shape, 1e11)
    # 0.1 TFLOP: 8192 tokens -> micro-batch 2, 1, then seq 1024, 512, 256, 128 (the floor).
    assert (fitted["micro_batch"], fitted["seq"], fitted["hidden"]) == (1, 128, 2048)
    assert notes[:2] == ["micro_batch halved to 2 to keep a CPU step short",
                         "micro_batch halved to 1 to keep a CPU step short"]
    assert notes[-1] == "seq halved to 128 to keep a CPU step short" and len(notes) == 6
    # A block small enough is left alone: hidden 256 at 512 tokens is ~0.003 TFLOP.
    small = tiny_shape(kernel, hidden=256, heads=4, ffn=704, seq=256, micro_batch=2, layers=2)
    assert kernel.fit_cpu_step_time(small, 1e11) == (small, [])
    # A CPU that does bf16 at 0.2 GFLOPS gets 1 GFLOP per 5 s step: even 128 tokens (~0.1
    # TFLOP, ~9 min) is far over, and the probe says so instead of running for an hour.
    from gpuadvisor.probes import worker

    kernel.kit = worker  # as the worker sets it before a probe runs
    with pytest.raises(worker.ProbeFailed, match="about 9 min per step") as failed:
        kernel.fit_cpu_step_time(dict(shape, precision="bf16"), 1e9, rate=0.2e9)
    assert failed.value.kind == "unsupported"


@pytest.mark.parametrize(("options", "words"), [
    ({"precision": "fp8"}, "Transformer Engine"),
    ({"optimizer": "adamw8bit"}, "bitsandbytes"),
    ({"task": "qlora"}, "4-bit base"),
    ({"quant": "nf4"}, "quantized base"),
    ({"hidden": -3}, "positive whole number"),
    ({"depths": [2, 1]}, "increasing"),
    ({"widht": 5}, "unknown option(s) widht"),
])
def test_options_the_kernel_cannot_run_are_named(kernel, options, words):
    with pytest.raises(kernel.OptionError) as raised:
        kernel.check_options("plancheck", options, kernel.PLANCHECK_OPTIONS)
    assert words in str(raised.value)
    assert raised.value.kind == "unsupported"


# --------------------------------------------------------------------------- the real worker
TINY_PLAN = {"hidden": 32, "heads": 4, "kv_heads": 2, "ffn": 88, "vocab": 256, "seq": 32,
             "micro_batch": 2, "layers_full": 6, "precision": "fp32"}


#: One torch thread: tiny models gain nothing from more, and a busy test machine makes
#: spinning thread pools slow by orders of magnitude.
ONE_THREAD = {"OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}


@pytest.fixture(scope="module")
def cpu_run():
    if not HAS_TORCH:
        pytest.skip("torch is not installed")
    with pytest.MonkeyPatch.context() as patch:
        for name, value in ONE_THREAD.items():
            patch.setenv(name, value)
        return run_probes(["step", "plancheck"], device="cpu", timeout_s=90,
                          extra_args=["--tiny"], options={"plancheck": TINY_PLAN})


@needs_torch
def test_the_step_probe_reports_throughput_with_its_shape(cpu_run, kernel):
    assert cpu_run.status == "ok", cpu_run.errors
    step = cpu_run.result("step")
    figures, conditions = step.figures, step.conditions
    assert figures["step_s"] > 0 and figures["tokens_per_s"] > 0
    assert figures["achieved_tflops"] > 0
    assert step.units == {"achieved_tflops": "TFLOPS", "model_tflops": "TFLOPS",
                          "tokens_per_s": "tokens/s", "step_s": "s"}
    assert conditions["dtype"] == "fp32" and conditions["precision"] == "fp32"
    assert (conditions["hidden"], conditions["seq"], conditions["micro_batch"],
            conditions["layers"]) == (128, 128, 2, 1)
    assert conditions["steps"] >= 2 and conditions["warmup"] >= 1
    tokens = 128 * 2
    flops = kernel.flops_per_token(kernel.complete_shape(
        {"hidden": 128, "heads": 4, "ffn": 352, "seq": 128, "micro_batch": 2,
         "precision": "fp32"}), layers=1)
    assert conditions["flops_per_token_train"] == flops["train"]
    assert figures["achieved_tflops"] == pytest.approx(
        flops["train"] * tokens / figures["step_s"] / 1e12, rel=2e-3)
    assert figures["tokens_per_s"] == pytest.approx(tokens / figures["step_s"], rel=2e-3)
    assert "peak_allocated_bytes" not in figures and "memory_note" in conditions


@needs_torch
def test_plancheck_extrapolates_time_from_depth_1_and_2(cpu_run):
    check = cpu_run.result("plancheck")
    f, c = check.figures, check.conditions
    assert f["step_s_depth1"] > 0 and f["step_s_depth2"] > 0
    for name in ("step_s", "forward_backward_s", "optimizer_s"):
        per_layer = f[f"{name}_per_layer"]
        # Timing noise may make depth 2 no slower: the per-layer time is then 0, not < 0.
        assert per_layer == pytest.approx(max(f[f"{name}_depth2"] - f[f"{name}_depth1"], 0),
                                          rel=1e-5, abs=1e-9)
        assert f[f"{name}_full"] == pytest.approx(f[f"{name}_depth1"] + 5 * per_layer,
                                                  rel=1e-5)
    assert f["tokens_per_s_full"] == pytest.approx(64 / f["step_s_full"], rel=2e-3)
    assert c["layers_full"] == 6 and c["depths"] == [1, 2]
    assert c["memory_measured"] is False and "only time is measured" in c["memory_note"]
    assert not any(name.startswith("peak_") for name in f)
    spec = ModelSpec(id="t", name="t", n_layers=6, d_model=32, n_heads=4, n_kv_heads=2,
                     d_ff=88, vocab_size=256, max_positions=64)
    assert c["params_full"] == spec.params().total
    assert c["params_depth2"] - c["params_depth1"] == c["params_per_layer"]


SCENARIOS = textwrap.dedent("""
    import json, sys
    sys.path.insert(0, sys.argv[1])
    import torch
    from gpuadvisor.probes import worker
    worker.load_kernels()
    step, plancheck = worker.RUNNERS["step"], worker.RUNNERS["plancheck"]
    kernel = step.__globals__
    class Channel:
        def __init__(self): self.lines = []
        def progress(self, probe, fraction, message): self.lines.append(message)
    device = worker.Device(torch, worker.cpu_device(torch))
    tiny = dict(worker.SUITES[("cpu", "tiny")], name="tiny")
    base = {"hidden": 32, "heads": 4, "ffn": 64, "vocab": 128, "seq": 16, "micro_batch": 1,
            "layers_full": 4, "steps": 1, "warmup": 1}
    out = {}
    def run(name, fn, options):
        try:
            result = fn(torch, device, tiny, Channel(), options)
            out[name] = {"figures": result["figures"], "conditions": result["conditions"]}
        except worker.ProbeFailed as exc:
            out[name] = {"error": exc.kind, "message": str(exc)}
    run("gpt2", plancheck, dict(base, gated=False, norm="layernorm", position="learned",
        max_positions=32, tie_embeddings=True, qkv_bias=True, out_bias=True, mlp_bias=True,
        dropout=0.1, attention="eager", checkpointing="selective"))
    run("lora_bf16", plancheck, dict(base, task="lora", lora_rank=4, lora_targets="all",
        precision="bf16", kv_heads=2))
    run("gemma_full_ckpt_sgd", plancheck, dict(base, kv_heads=1, head_dim=16,
        norms_per_layer=4, checkpointing="full", optimizer="sgd"))
    run("lion_pure_bf16", plancheck, dict(base, optimizer="lion", precision="bf16-pure"))
    run("adafactor_step", step, {"hidden": 32, "heads": 2, "ffn": 64, "seq": 16,
        "optimizer": "adafactor", "steps": 1, "warmup": 1})
    run("qlora", plancheck, dict(base, task="qlora"))
    run("fp8_step", step, {"precision": "fp8"})
    # Out of memory: the step probe retries smaller; the plan check does not shrink the plan.
    real_time_step = kernel["_time_step"]
    def tight(torch_, device_, shape, *args):
        if shape["micro_batch"] > 1:
            raise RuntimeError("CUDA out of memory. Tried to allocate 2.00 GiB")
        return real_time_step(torch_, device_, shape, *args)
    kernel["_time_step"] = tight
    run("step_oom", step, {"hidden": 32, "heads": 2, "ffn": 64, "seq": 16, "micro_batch": 4,
        "steps": 1, "warmup": 1})
    kernel["_time_step"] = real_time_step
    calls = []
    def no_room(*args):
        calls.append(args[3])
        raise RuntimeError("CUDA out of memory. Tried to allocate 30.00 GiB")
    kernel["_plancheck_depth"] = no_room
    run("plan_oom", plancheck, dict(base))
    out["plan_oom_depths_tried"] = calls
    # A CPU at 1 kFLOPS: the plan check and the step are refused before any step runs.
    kernel["cpu_matmul_flops"] = lambda torch_, dtype: 1e3
    run("slow_cpu_plan", plancheck, dict(base))
    run("slow_cpu_step", step, {"hidden": 32, "heads": 2, "ffn": 64, "seq": 16})
    print(json.dumps(out))
""")


@pytest.fixture(scope="module")
def scenarios():
    if not HAS_TORCH:
        pytest.skip("torch is not installed")
    root = str(Path(__file__).resolve().parents[2])
    done = subprocess.run([sys.executable, "-c", SCENARIOS, root], capture_output=True,
                          text=True, timeout=120, env=dict(os.environ, **ONE_THREAD))
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.splitlines()[-1])


@pytest.mark.parametrize(("name", "spec", "trainable"), [
    ("gpt2", ModelSpec(id="g", name="g", n_layers=4, d_model=32, n_heads=4, d_ff=64,
                       vocab_size=128, max_positions=32, mlp="gelu", norm="layernorm",
                       position="learned", tied_embeddings=True, qkv_bias=True,
                       out_bias=True, mlp_bias=True), None),
    ("lora_bf16", ModelSpec(id="l", name="l", n_layers=4, d_model=32, n_heads=4,
                            n_kv_heads=2, d_ff=64, vocab_size=128, max_positions=32),
     ("all", 4)),
    ("gemma_full_ckpt_sgd", ModelSpec(id="m", name="m", n_layers=4, d_model=32, n_heads=4,
                                      n_kv_heads=1, head_dim=16, d_ff=64, vocab_size=128,
                                      max_positions=32, norms_per_layer=4), None),
    ("lion_pure_bf16", ModelSpec(id="n", name="n", n_layers=4, d_model=32, n_heads=4,
                                 d_ff=64, vocab_size=128, max_positions=32), None),
])
@needs_torch
def test_every_architecture_option_builds_the_counted_model(scenarios, name, spec, trainable):
    result = scenarios[name]
    assert "error" not in result, result
    conditions = result["conditions"]
    assert conditions["params_full"] == spec.params().total
    if trainable is None:
        assert conditions["trainable_params_full"] == spec.params().total
    else:
        assert conditions["trainable_params_full"] == spec.lora_params(trainable[1],
                                                                       trainable[0])
    assert result["figures"]["step_s_full"] > 0


@needs_torch
def test_dtype_labels_follow_the_precision(scenarios):
    assert scenarios["lora_bf16"]["conditions"]["dtype"] == "bf16"
    assert scenarios["lion_pure_bf16"]["conditions"]["dtype"] == "bf16"
    assert scenarios["adafactor_step"]["conditions"]["optimizer"] == "adafactor"


@needs_torch
def test_unsupported_plans_fail_with_a_clear_message(scenarios):
    assert scenarios["qlora"]["error"] == "unsupported"
    assert "bitsandbytes" in scenarios["qlora"]["message"]
    assert "task lora" in scenarios["qlora"]["message"]
    assert scenarios["fp8_step"]["error"] == "unsupported"
    assert "fp8" in scenarios["fp8_step"]["message"]


@needs_torch
def test_the_step_probe_retries_smaller_after_out_of_memory(scenarios):
    conditions = scenarios["step_oom"]["conditions"]
    assert conditions["micro_batch"] == 1
    assert conditions["requested"]["micro_batch"] == 4
    assert conditions["oom_retries"] == 2
    assert conditions["shrunk"] == ["out of memory: micro_batch halved to 2",
                                    "out of memory: micro_batch halved to 1"]


@needs_torch
def test_the_plan_check_reports_a_plan_that_does_not_fit_without_shrinking_it(scenarios):
    assert scenarios["plan_oom"]["error"] == "out-of-memory"
    message = scenarios["plan_oom"]["message"]
    assert "does not fit at depth 1" in message
    assert "hidden 32" in message and "vocab 128" in message and "seq 16" in message
    assert scenarios["plan_oom_depths_tried"] == [1, 1]  # one retry, same size


def test_a_cpu_far_too_slow_for_the_plan_is_told_so_at_once(scenarios):
    plan = scenarios["slow_cpu_plan"]
    assert plan["error"] == "unsupported"
    assert "min on this CPU (1e-06 GFLOPS in fp32)" in plan["message"]
    step = scenarios["slow_cpu_step"]
    assert step["error"] == "unsupported" and "time this plan on a GPU" in step["message"]
