"""The plan check of an inference plan: a real decode loop at depth 1 and 2, extrapolated to
the plan's depth, next to the estimate (``gpuadvisor probe --plan`` of an ``infer`` plan).

Bytes a decode step reads are counted by hand; the extrapolation and the rates are checked
on fixed per-depth times; the KV-cache decode is checked against a full recompute; then the
real worker runs the loop on CPU torch and the command line compares it.
"""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import pytest

from gpuadvisor.catalog import load_gpus, load_models
from gpuadvisor.cli import main
from gpuadvisor.core.plan import Plan
from gpuadvisor.probes import decode_plan, plancheck
from gpuadvisor.probes.kernels.decodecheck_shape import (
    CAPS,
    DecodeOptionError,
    bytes_per_step,
    check_options,
    complete_shape,
    head_bytes,
    kv_read_bytes,
    layer_weight_bytes,
    window,
)
from gpuadvisor.probes.protocol import Result
from gpuadvisor.probes.runner import ProbeRun

needs_torch = pytest.mark.skipif(importlib.util.find_spec("torch") is None,
                                 reason="torch is not installed (pip install torch==2.13.0)")
ROOT = Path(__file__).resolve().parents[1]

# Llama 3.1 8B (config.json: hidden 4096, 32 heads, 8 KV heads, intermediate 14336,
# vocab 128256, 32 layers).
LLAMA_8B = {"hidden": 4096, "heads": 32, "kv_heads": 8, "ffn": 14336, "vocab": 128256,
            "layers_full": 32, "seq": 2048, "new_tokens": 256, "micro_batch": 1,
            "weights": "fp16"}


# --------------------------------------------------------------------------- bytes
def test_a_llama_8b_decode_step_reads_these_bytes_counted_by_hand():
    shape = complete_shape(check_options(LLAMA_8B))
    assert shape["head_dim"] == 128
    # q and o: 4096 x 4096 x 2 = 33,554,432 each; k and v: 1024 x 4096 x 2 = 8,388,608
    # each; gate, up, down: 14336 x 4096 x 2 = 117,440,512 each; two norms 2 x 4096 x 2.
    layer = 2 * 33_554_432 + 2 * 8_388_608 + 3 * 117_440_512 + 2 * 4096 * 2
    assert layer_weight_bytes(shape, 2) == layer == 436_224_000
    # Head 128256 x 4096 x 2 and the final norm 4096 x 2.
    assert head_bytes(shape, 2) == 1_050_673_152 + 8192
    # K and V of 8 heads x 128 at context 2176 (2048 + 256 / 2), 2 bytes each.
    assert kv_read_bytes(shape, 2176, 2) == 2 * 8 * 128 * 2176 * 2 == 8_912_896
    assert bytes_per_step(shape, 32, 2176, 2, 2) == 32 * (436_224_000 + 8_912_896) + (
        1_050_681_344) == 15_295_062_016
    # q4 (20 bytes per 32 weights): the same matrices at 0.625 bytes a weight.
    q4 = complete_shape(check_options(LLAMA_8B | {"weights": "q4"}))
    assert layer_weight_bytes(q4, 2) == (layer - 16384) * 0.625 / 2 + 16384


def test_the_decode_window_is_centred_on_the_plans_mean_context():
    shape = complete_shape(check_options(LLAMA_8B))
    span = window(shape, CAPS[("cpu", "quick")])  # 128 prompt tokens, 16 steps, 2 warm-up
    assert (span["prefill_tokens"], span["decode_tokens"], span["warmup"]) == (128, 16, 2)
    # The steps write positions 2168 .. 2183: the mean context (position + 1) is 2176.5,
    # the plan's seq + new_tokens / 2 = 2176 and a half step.
    assert span["first_position"] == 2048 + 128 - 8 == 2168
    assert span["mean_context"] == 2176.5
    assert span["max_context"] == 2184
    short = window(complete_shape(check_options({"seq": 8, "new_tokens": 4})),
                   CAPS[("cpu", "quick")])
    assert short["prefill_tokens"] == 8 and short["first_position"] == 8 + 2  # after warm-up


@pytest.mark.parametrize(("options", "message"), [
    ({"hidden": 0}, "hidden must be a positive whole number"),
    ({"weights": "q3"}, "weights must be one of fp32, fp16, bf16, int8, q4"),
    ({"depths": [2, 1]}, "two increasing positive whole numbers"),
    ({"nonsense": 1}, "unknown option"),
    ({"hidden": 4096}, "option heads is needed with hidden"),
])
def test_bad_options_are_refused_naming_the_option(options, message):
    with pytest.raises(DecodeOptionError, match=message):
        complete_shape(check_options(options))


def test_q4_weights_need_whole_groups_and_heads_must_share_kv_heads_evenly():
    with pytest.raises(DecodeOptionError, match=r"ffn \(88\) to be a multiple of 32"):
        complete_shape(check_options({**LLAMA_8B, "ffn": 88, "weights": "q4"}))
    with pytest.raises(DecodeOptionError, match="heads 32 is not a multiple of kv_heads 6"):
        complete_shape(check_options({**LLAMA_8B, "kv_heads": 6}))


# --------------------------------------------------------------------------- torch side
SCENARIOS = r'''
import json, sys
sys.path.insert(0, sys.argv[1])
import torch
from gpuadvisor.probes import worker

worker.load_kernels()
check = worker.RUNNERS["decodecheck"].__globals__
shape_mod = worker.import_kernel("decodecheck_shape")

class Channel:
    def progress(self, probe, fraction, message):
        pass

cpu = worker.Device(torch, worker.cpu_device(torch))
tiny = dict(worker.SUITES[("cpu", "tiny")], name="tiny")
seen = {}

# The KV-cache decode step equals a full recompute of the sequence (fp32, no RoPE).
torch.manual_seed(0)
shape = shape_mod.complete_shape({"weights": "fp32"})
dtypes = {"act": torch.float32, "act_name": "fp32"}
model = check["_Model"](torch, cpu, shape, dtypes, 2, 40)
tokens = torch.randint(0, shape["vocab"], (1, 33))
with torch.inference_mode():
    model.prefill_logits(tokens[:, :32])
    stepped = model.step_logits(tokens[:, 32], 32)
    full = model.prefill_logits(tokens)
seen["step_matches_recompute"] = bool(torch.allclose(stepped, full, rtol=1e-4, atol=1e-4))
seen["max_difference"] = float((stepped - full).abs().max())

# Fixed times per depth: steps of 10 and 15 ms, prefills of 40 and 60 ms.
def fixed(torch_, device, shape, span, dtypes, depth, channel, index):
    return {"depth": depth, "prefill_s": 0.02 + 0.02 * depth, "step_s": 0.005 + 0.005 * depth,
            "step_s_mean": 0.0, "steps": span["decode_tokens"], "kernels": ["F.linear"],
            "fused": True, "weights_bytes": 1_572_864}
real_depth = check["_depth"]
check["_depth"] = fixed
seen["fixed"] = worker.RUNNERS["decodecheck"](torch, cpu, tiny, Channel(), {})
check["_depth"] = real_depth

try:
    worker.RUNNERS["decodecheck"](torch, cpu, tiny, Channel(), {"weights": "q5"})
except worker.ProbeFailed as exc:
    seen["bad"] = [exc.kind, str(exc)]
# Far more than this machine has: refused before anything is built.
try:
    worker.RUNNERS["decodecheck"](torch, cpu, tiny, Channel(),
                                  {"hidden": 65536, "heads": 64, "ffn": 262144,
                                   "vocab": 256000, "layers_full": 100, "seq": 1024})
except worker.ProbeFailed as exc:
    seen["too_big"] = [exc.kind, str(exc)]
print(json.dumps(seen))
'''


@pytest.fixture(scope="module")
def scenarios():
    done = subprocess.run([sys.executable, "-c", SCENARIOS, str(ROOT)], capture_output=True,
                          text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


@needs_torch
def test_a_decode_step_with_the_kv_cache_equals_recomputing_the_whole_sequence(scenarios):
    assert scenarios["step_matches_recompute"], scenarios["max_difference"]


@needs_torch
def test_times_extrapolate_linearly_to_full_depth_and_give_tokens_and_bandwidth(scenarios):
    result = scenarios["fixed"]
    figures, conditions = result["figures"], result["conditions"]
    # The default model: 8 layers, prompt 64 (16 prefilled), 16 new (4 timed), batch 1.
    assert (conditions["layers_full"], conditions["prefill_tokens"],
            conditions["decode_tokens"]) == (8, 16, 4)
    # Steps: 10 ms at depth 1, 15 at depth 2 -> 5 ms a layer -> 10 + 7 x 5 = 45 ms.
    assert figures["decode_step_s_per_layer"] == pytest.approx(0.005)
    assert figures["decode_step_s_full"] == pytest.approx(0.045)
    assert figures["tokens_per_s_full"] == pytest.approx(1 / 0.045, rel=1e-5)
    # Prefill of 16 tokens: 40 and 60 ms, scaled to the 64-token prompt (x 4): 160 and
    # 240 ms -> 80 ms a layer -> 160 + 7 x 80 = 720 ms.
    assert figures["prefill_s_full"] == pytest.approx(0.72)
    # Bytes a step reads (fp16): 8 layers x (1,573,888 of weights + 37,120 of K and V at
    # the mean context 72.5) + 1,049,088 of head and final norm = 13,937,152.
    assert conditions["mean_context"] == 72.5
    assert figures["bytes_per_token_full"] == pytest.approx(13_937_152, rel=1e-5)
    assert figures["achieved_gb_s_full"] == pytest.approx(13_937_152 / 0.045 / 1e9, rel=1e-5)
    assert figures["layer_gb_s"] == pytest.approx((1_573_888 + 37_120) / 0.005 / 1e9,
                                                  rel=1e-5)
    assert result["units"]["tokens_per_s_full"] == "tokens/s"


@needs_torch
def test_bad_options_and_a_model_too_big_for_memory_are_clear_errors(scenarios):
    assert scenarios["bad"][0] == "bad-option" and "weights must be one of" in scenarios["bad"][1]
    kind, message = scenarios["too_big"]
    assert kind == "out-of-memory"
    assert message.startswith("the decode check at depth 2 needs about ")
    assert "GiB is free here" in message


@needs_torch
def test_the_real_worker_runs_the_decode_loop_on_the_cpu():
    from gpuadvisor.probes.runner import run_probes

    run = run_probes(["decodecheck"], device="cpu", timeout_s=120, extra_args=["--tiny"])
    assert run.status == "ok", run.errors
    figures = run.result("decodecheck").figures
    assert figures["tokens_per_s_full"] > 0 and figures["decode_step_s_full"] > 0
    # The counted bytes do not depend on timing: 13,937,152 at 6 figures.
    assert figures["bytes_per_token_full"] == 13_937_200.0
    # Weights: 8 x 1,573,888 + 1,049,088 = 13,640,192 at 6 figures.
    assert figures["weights_bytes_full"] == 13_640_200.0
    assert run.result("decodecheck").conditions["fused"] is True


# --------------------------------------------------------------------------- app side
MODELS = load_models()
GPUS = load_gpus()
LLAMA = MODELS["llama-3.1-8b"]


@pytest.mark.parametrize(("plan", "weights"), [
    (Plan(task="infer", precision="bf16"), "bf16"),
    (Plan(task="infer", precision="fp16"), "fp16"),
    (Plan(task="infer", precision="bf16", quant="q4_k_m"), "q4"),
    (Plan(task="infer", precision="bf16", quant="nf4"), "q4"),
    (Plan(task="infer", precision="bf16", quant="int8"), "int8"),
    (Plan(task="infer", precision="bf16", quant="q8_0"), "int8"),
])
def test_an_inference_plan_builds_its_weight_format(plan, weights):
    options = decode_plan.probe_options(LLAMA, plan)
    check = options["decodecheck"]
    assert check["weights"] == weights
    assert options["decode"] == {"formats": [weights]}
    assert (check["hidden"], check["heads"], check["kv_heads"], check["ffn"],
            check["vocab"], check["layers_full"]) == (4096, 32, 8, 14336, 128256, 32)
    assert (check["seq"], check["new_tokens"], check["micro_batch"]) == (
        plan.seq_len, plan.new_tokens, plan.micro_batch)


@pytest.mark.parametrize(("model", "plan", "why"), [
    ("llama-3.1-8b", Plan(task="full"), "training plans are checked by training steps"),
    ("llama-3.1-8b", Plan(task="infer", n_gpus=2), "n_gpus 2"),
    ("mixtral-8x7b", Plan(task="infer"), "mixture of experts"),
])
def test_a_plan_the_decode_check_cannot_build_is_refused_saying_why(model, plan, why):
    with pytest.raises(ValueError, match=why):
        decode_plan.decode_options_for(MODELS[model], plan)


def test_the_plan_check_chooses_by_task():
    infer = decode_plan.check_probe_options(LLAMA, Plan(task="infer"))
    train = decode_plan.check_probe_options(MODELS["llama-3.2-1b"],
                                            Plan(task="full", seq_len=512))
    assert decode_plan.check_probes(infer) == ["decodecheck", "decode"]
    assert decode_plan.check_probes(train) == ["plancheck", "step"]
    with pytest.raises(ValueError, match="inference"):  # the training check still refuses
        plancheck.options_for(LLAMA, Plan(task="infer"))


def test_compare_puts_measured_decode_next_to_the_estimate():
    from gpuadvisor.core.estimate import estimate

    plan = Plan(task="infer", precision="bf16", seq_len=2048, new_tokens=256)
    est = estimate(LLAMA, plan, GPUS["rtx-4090"])
    check = Result("decodecheck", {"tokens_per_s_full": 40.0, "prefill_s_full": 0.5,
                                   "achieved_gb_s_full": 620.0,
                                   "bytes_per_token_full": 15.5e9},
                   {}, {"device": "cuda:0", "device_name": "NVIDIA GeForce RTX 4090",
                        "weights": "bf16", "layers_full": 32, "depths": [1, 2],
                        "context": 2176, "decode_tokens": 64, "prefill_tokens": 2048})
    gemv = Result("decode", {"bf16_gb_s": 900.0}, {}, {"device": "cuda:0"})
    comparison = decode_plan.compare(ProbeRun("ok", None, results=(check, gemv)), est)
    tokens = comparison.row("decode_tokens_per_s")
    assert tokens.estimated == pytest.approx(est.time.decode_tokens_per_s)
    assert tokens.diff_pct == pytest.approx(100 * (40 - tokens.estimated) / tokens.estimated)
    assumed = est.assumptions["memory_bandwidth_gb_s"] * est.assumptions["bandwidth_efficiency"]
    assert assumed == pytest.approx(1008 * 0.8)  # the RTX 4090's 1008 GB/s x 0.8
    assert comparison.row("decode_gb_s").estimated == pytest.approx(assumed)
    assert comparison.row("gemv_gb_s").measured == 900.0
    assert comparison.row("prefill_s").estimated == pytest.approx(est.time.prefill_seconds)
    assert any("reached 69% of the GEMV bandwidth" in n for n in comparison.notes)
    assert comparison.summary.startswith("On NVIDIA GeForce RTX 4090, decoding ran at 40.0 "
                                         "tokens/s against an estimated ")
    text = plancheck.format_comparison(comparison)
    assert "decode tokens per second" in text and "40 tokens/s" in text
    with pytest.raises(ValueError, match="the decode check gave no result"):
        decode_plan.compare(ProbeRun("error", None), est)


INFER_MODEL = {"id": "tiny-llama", "name": "Tiny Llama", "kind": "decoder", "n_layers": 6,
               "d_model": 64, "n_heads": 4, "n_kv_heads": 2, "d_ff": 192, "vocab_size": 256,
               "max_positions": 512, "mlp": "gated", "norm": "rmsnorm", "position": "rope"}


@needs_torch
def test_probe_plan_of_an_inference_plan_runs_the_decode_loop_and_compares(
        tmp_path, capsys, monkeypatch):
    from gpuadvisor.probes import runner

    monkeypatch.setenv("OMP_NUM_THREADS", "1")  # a tiny model; robust on a busy machine
    seen = []
    real = runner.run_probes

    def spy(probes, **kwargs):
        seen.append((tuple(probes), kwargs.get("options")))
        return real(probes, **kwargs)

    monkeypatch.setattr(runner, "run_probes", spy)
    real_options = decode_plan.probe_options

    def smaller_gemv(model, plan):  # the GEMV pass at 4 MiB: seconds, not a minute
        options = real_options(model, plan)
        options["decode"]["target_bytes"] = 4 * 2**20
        return options

    monkeypatch.setattr(decode_plan, "probe_options", smaller_gemv)
    path = tmp_path / "infer.gpuplan"
    path.write_text(json.dumps({
        "schema_version": 1, "app": "gpuadvisor", "model": {"custom": INFER_MODEL},
        "plan": {"task": "infer", "precision": "bf16", "micro_batch": 1, "seq_len": 64,
                 "new_tokens": 32}, "gpu": "rtx-4090"}), encoding="utf-8")
    code = main(["probe", "--plan", str(path), "--device", "cpu", "--python", sys.executable,
                 "--no-remember", "--no-save", "--json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    probes, options = next(s for s in seen if s[0])
    assert probes == ("decodecheck", "decode")
    assert options["decodecheck"]["weights"] == "bf16"
    assert options["decode"]["formats"] == ["bf16"]
    data = json.loads(out)
    assert data["status"] == "ok" and set(data["run"]["results"]) == {"decodecheck", "decode"}
    comparison = data["comparison"]
    assert comparison["estimate_gpu"] == "rtx-4090" and comparison["layers_full"] == 6
    figures = data["run"]["results"]["decodecheck"]["figures"]
    row = comparison["rows"]["decode_tokens_per_s"]
    assert row["measured"] == figures["tokens_per_s_full"] > 0
    assert row["estimated"] > 0
    assert comparison["rows"]["gemv_gb_s"]["measured"] > 0
