"""The plan check, app side (``gpuadvisor.probes.plancheck``) and ``probe --plan``.

options_for is checked against catalog presets; compare against hand-computed figures from
a synthetic GPU result and a real estimate; the command line end to end with the real
worker on CPU torch and a tiny custom model.
"""

from __future__ import annotations

import importlib.util
import json
import sys

import pytest

from gpuadvisor import catalog
from gpuadvisor.cli import main
from gpuadvisor.core.estimate import estimate
from gpuadvisor.core.plan import Plan
from gpuadvisor.probes import plancheck
from gpuadvisor.probes.protocol import Error, Hello, Result
from gpuadvisor.probes.runner import ProbeRun

HAS_TORCH = importlib.util.find_spec("torch") is not None
GiB = 2**30


@pytest.fixture(scope="module")
def models():
    return catalog.load_models()


@pytest.fixture(scope="module")
def gpus():
    return catalog.load_gpus()


# --------------------------------------------------------------------------- options_for
def test_options_for_a_llama_preset_carry_its_exact_architecture(models):
    # meta-llama/Llama-3.1-8B config.json: hidden 4096, 32 heads, 8 KV heads, intermediate
    # 14336, vocab 128256, 32 layers, untied embeddings.
    plan = Plan(task="full", precision="bf16", micro_batch=2, seq_len=4096,
                checkpointing="full", optimizer="adamw")
    options = plancheck.options_for(models["llama-3.1-8b"], plan)
    assert {k: options[k] for k in ("hidden", "heads", "kv_heads", "head_dim", "ffn", "vocab",
                                    "layers_full")} == {
        "hidden": 4096, "heads": 32, "kv_heads": 8, "head_dim": 128, "ffn": 14336,
        "vocab": 128256, "layers_full": 32}
    assert options["gated"] is True and options["norm"] == "rmsnorm"
    assert options["tie_embeddings"] is False and options["position"] == "rope"
    assert (options["seq"], options["micro_batch"], options["precision"],
            options["checkpointing"], options["task"]) == (4096, 2, "bf16", "full", "full")
    assert options["depths"] == [1, 2] and options["dropout"] == 0.0


def test_options_for_gpt2_keep_its_learned_positions_biases_and_dropout(models):
    options = plancheck.options_for(models["gpt2"], Plan(seq_len=1024))
    assert (options["hidden"], options["heads"], options["ffn"], options["vocab"],
            options["layers_full"]) == (768, 12, 3072, 50257, 12)
    assert options["position"] == "learned" and options["max_positions"] == 1024
    assert options["gated"] is False and options["norm"] == "layernorm"
    assert options["qkv_bias"] and options["out_bias"] and options["mlp_bias"]
    assert options["tie_embeddings"] is True and options["dropout"] == 0.1


def test_lora_plans_pass_rank_and_targets_and_skip_the_block_step(models):
    plan = Plan(task="lora", lora_rank=8, lora_targets="qv")
    options = plancheck.probe_options(models["llama-3.2-1b"], plan)
    assert set(options) == {"plancheck"}
    assert options["plancheck"]["task"] == "lora"
    assert (options["plancheck"]["lora_rank"], options["plancheck"]["lora_targets"]) == (8, "qv")
    # QLoRA is passed on: the worker answers "unsupported", naming bitsandbytes.
    qlora = plancheck.options_for(models["llama-3.2-1b"], Plan(task="qlora"))
    assert qlora["task"] == "qlora" and qlora["quant"] == "nf4-dq"


def test_step_options_are_the_plans_block_shape(models):
    options = plancheck.probe_options(models["tinyllama-1.1b"],
                                      Plan(seq_len=2048, micro_batch=4, precision="fp16"))
    step = options["step"]
    assert (step["hidden"], step["heads"], step["kv_heads"], step["ffn"], step["seq"],
            step["micro_batch"], step["precision"]) == (2048, 32, 4, 5632, 2048, 4, "fp16")
    assert "vocab" not in step and "layers" not in step


@pytest.mark.parametrize(("preset", "plan", "words"), [
    ("resnet-50", Plan(seq_len=1), "opaque"),
    ("bert-base-uncased", Plan(seq_len=128), "encoder"),
    ("mixtral-8x7b", Plan(), "mixture of experts"),
    ("llama-3.2-1b", Plan(task="infer"), "inference"),
    ("llama-3.2-1b", Plan(n_gpus=2), "n_gpus 2"),
    ("llama-3.2-1b", Plan(zero_stage=2), "zero_stage 2"),
    ("llama-3.2-1b", Plan(zero_stage=1, offload="optimizer"), "zero_stage 1"),
    ("gpt2", Plan(seq_len=2048), "1024 learned positions"),
])
def test_models_and_plans_the_check_cannot_build_are_clear_errors(models, preset, plan, words):
    with pytest.raises(ValueError, match=words):
        plancheck.options_for(models[preset], plan)


# --------------------------------------------------------------------------- compare
def gpu_result(**figures) -> Result:
    base = {"step_s_full": 0.52, "forward_backward_s_full": 0.45, "optimizer_s_full": 0.05,
            "peak_allocated_bytes_full": 20.0 * GiB, "peak_reserved_bytes_full": 22.0 * GiB}
    base.update(figures)
    units = {name: "bytes" if "bytes" in name else "s" for name in base}
    conditions = {"device": "cuda:0", "device_name": "NVIDIA H200", "layers_full": 22,
                  "depths": [1, 2], "memory_measured": True, "params_full": 1_100_048_384,
                  "notes": ["a measurement note"]}
    return Result("plancheck", base, units, conditions)


@pytest.fixture(scope="module")
def tinyllama_estimate(models, gpus):
    plan = Plan(task="full", precision="bf16", micro_batch=1, seq_len=2048, grad_accum=4,
                dataset_tokens=1e9)
    return estimate(models["tinyllama-1.1b"], plan, gpus["h200-sxm"],
                    reference_gpu=gpus["a100-sxm-80gb"])


def test_compare_maps_allocated_memory_to_the_tensor_terms(tinyllama_estimate):
    comparison = plancheck.compare(gpu_result(), tinyllama_estimate)
    m = tinyllama_estimate.memory
    tensors = m.weights + m.gradients + m.optimizer + m.activations + m.logits + m.kv_cache
    row = comparison.row("peak_allocated_bytes")
    assert row.measured == 20.0 * GiB
    assert row.estimated == pytest.approx(tensors, rel=1e-12)
    assert row.diff_pct == pytest.approx(100 * (20.0 * GiB - tensors) / tensors)
    reserved = comparison.row("peak_reserved_bytes")
    assert reserved.estimated == pytest.approx(m.total - m.context_bytes, rel=1e-12)
    whole = comparison.row("gpu_memory_bytes")
    assert whole.measured == pytest.approx(22.0 * GiB + m.context_bytes)
    assert whole.estimated == pytest.approx(m.total)


def test_compare_scales_the_measured_step_by_gradient_accumulation(tinyllama_estimate):
    comparison = plancheck.compare(gpu_result(), tinyllama_estimate)
    t = tinyllama_estimate.time
    step = 4 * 0.45 + 0.05  # 4 micro-batches forward+backward, one optimizer step
    assert comparison.row("step_s").measured == pytest.approx(step)
    assert comparison.row("step_s").estimated == pytest.approx(t.step_seconds)
    assert comparison.row("job_s").measured == pytest.approx(step * t.steps)
    assert comparison.row("job_s").estimated == pytest.approx(t.seconds)
    assert comparison.row("tokens_per_s").measured == pytest.approx(4 * 2048 / step)
    assert comparison.row("achieved_tflops").measured == pytest.approx(
        tinyllama_estimate.flops.train * 4 * 2048 / step / 1e12)
    assert comparison.row("step_s").diff_pct == pytest.approx(
        100 * (step - t.step_seconds) / t.step_seconds)


def test_compare_says_it_in_one_sentence_and_as_json(tinyllama_estimate):
    comparison = plancheck.compare(gpu_result(), tinyllama_estimate)
    assert comparison.summary.startswith("On NVIDIA H200, the plan peaked at 20.00 GiB")
    assert "an optimizer step took 1.85 s" in comparison.summary
    assert "a measurement note" in comparison.notes
    assert not any("parameters" in note for note in comparison.notes)  # counts agree
    data = json.loads(json.dumps(comparison.to_json()))
    assert data["rows"]["step_s"]["unit"] == "s"
    assert data["estimate_gpu"] == "h200-sxm" and data["memory_measured"] is True
    text = plancheck.format_comparison(comparison)
    assert "peak memory: tensors" in text and "20.00 GiB" in text and "optimizer step" in text


def test_a_cpu_result_compares_time_only_and_says_why(tinyllama_estimate):
    result = gpu_result()
    figures = {k: v for k, v in result.figures.items() if not k.startswith("peak_")}
    conditions = dict(result.conditions, device="cpu", device_name="AMD EPYC",
                      memory_measured=False, memory_note="on cpu only time is measured",
                      params_full=123)
    comparison = plancheck.compare({"figures": figures, "conditions": conditions},
                                   tinyllama_estimate)
    assert comparison.row("peak_allocated_bytes") is None
    assert comparison.row("step_s") is not None
    assert "on cpu only time is measured" in comparison.notes
    assert any("the model built has 123 parameters" in n for n in comparison.notes)
    assert comparison.summary.startswith("On the CPU, an optimizer step took")


def test_compare_without_a_plancheck_result_says_what_failed(tinyllama_estimate):
    run = ProbeRun(status="error", hello=None, errors=(
        Error("plancheck", "out-of-memory", "the plan does not fit at depth 1"),))
    with pytest.raises(ValueError, match="does not fit at depth 1"):
        plancheck.compare(run, tinyllama_estimate)


def test_the_estimate_is_for_the_gpu_measured_else_the_plans(models):
    from gpuadvisor.workspace.planfile import parse_plan_dict

    document = parse_plan_dict({"schema_version": 1, "model": {"preset": "tinyllama-1.1b"},
                                "plan": {"seq_len": 2048}, "gpu": "rtx-4090"})
    hello = Hello(1, {"python": "3", "torch": "2"}, devices=(
        {"id": "cuda:0", "type": "cuda", "name": "NVIDIA H200",
         "memory_total_bytes": 150_000_000_000}, {"id": "cpu", "type": "cpu", "name": "x"}))
    on_gpu = ProbeRun("ok", hello, results=(Result("plancheck", {}, {}, {"device": "cuda:0"}),))
    on_cpu = ProbeRun("ok", hello, results=(Result("plancheck", {}, {}, {"device": "cpu"}),))
    assert plancheck.estimate_for(document, on_gpu).gpu.id == "h200-sxm"
    assert plancheck.estimate_for(document, on_cpu).gpu.id == "rtx-4090"


def test_percent_difference():
    assert plancheck.percent_difference(110.0, 100.0) == pytest.approx(10.0)
    assert plancheck.percent_difference(90.0, 100.0) == pytest.approx(-10.0)
    assert plancheck.percent_difference(1.0, 0.0) is None
    assert plancheck.percent_difference(None, 1.0) is None


# --------------------------------------------------------------------------- probe --plan
TINY_MODEL = {"id": "tiny-llama", "name": "Tiny Llama", "kind": "decoder", "n_layers": 6,
              "d_model": 32, "n_heads": 4, "n_kv_heads": 2, "d_ff": 88, "vocab_size": 256,
              "max_positions": 128, "mlp": "gated", "norm": "rmsnorm", "position": "rope"}


def write_plan(tmp_path, model=None, **plan):
    data = {"schema_version": 1, "app": "gpuadvisor",
            "model": model or {"custom": TINY_MODEL},
            "plan": {"task": "full", "precision": "fp32", "micro_batch": 2, "seq_len": 32,
                     "grad_accum": 2, "dataset_tokens": 1e6, **plan},
            "gpu": "rtx-4090"}
    path = tmp_path / "tiny.gpuplan"
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def run_cli(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.skipif(not HAS_TORCH, reason="torch is not installed")
def test_probe_plan_runs_the_real_worker_and_compares_on_cpu(tmp_path, capsys, monkeypatch):
    from gpuadvisor.probes import runner

    monkeypatch.setenv("OMP_NUM_THREADS", "1")  # tiny models; robust on a busy machine
    limits = []
    real = runner.run_probes

    def spy(probes, **kwargs):
        limits.append(kwargs["timeout_s"])
        return real(probes, **kwargs)

    monkeypatch.setattr(runner, "run_probes", spy)
    path = write_plan(tmp_path)
    code, out, err = run_cli(capsys, "probe", "--plan", str(path), "--device", "cpu",
                             "--python", sys.executable, "--no-remember", "--no-save",
                             "--json")
    assert code == 0, err
    # The plan check trains the plan's real width: the plan check's limit (900 s, as on the
    # Probe page), not the quick suite's 180 s.
    assert limits == [runner.TIMEOUTS_S["plancheck"]] and limits[0] > runner.TIMEOUTS_S["quick"]
    data = json.loads(out)
    assert data["status"] == "ok" and data["errors"] == []
    assert set(data["run"]["results"]) == {"plancheck", "step"}
    comparison = data["comparison"]
    assert comparison["device"] == "cpu" and comparison["memory_measured"] is False
    assert comparison["estimate_gpu"] == "rtx-4090" and comparison["layers_full"] == 6
    figures = data["run"]["results"]["plancheck"]["figures"]
    step = comparison["rows"]["step_s"]
    assert step["measured"] == pytest.approx(
        2 * figures["forward_backward_s_full"] + figures["optimizer_s_full"])
    assert step["measured"] > 0 and step["estimated"] > 0
    assert "peak_allocated_bytes" not in comparison["rows"]
    assert not any("parameters" in note for note in comparison["notes"])  # counts agree
    step_conditions = data["run"]["results"]["step"]["conditions"]
    assert (step_conditions["hidden"], step_conditions["seq"],
            step_conditions["micro_batch"]) == (32, 32, 2)


def test_probe_plan_with_a_bad_file_is_one_line_and_exit_2(tmp_path, capsys):
    bad = tmp_path / "bad.gpuplan"
    bad.write_text("{not json", encoding="utf-8")
    code, out, err = run_cli(capsys, "probe", "--plan", str(bad))
    assert code == 2 and out == ""
    assert len(err.strip().splitlines()) == 1
    assert "--plan" in err and "not valid JSON" in err
    code, _, err = run_cli(capsys, "probe", "--plan", str(tmp_path / "missing.gpuplan"))
    assert code == 2 and "file not found" in err


def test_probe_plan_with_a_model_it_cannot_build_is_exit_2(tmp_path, capsys):
    path = write_plan(tmp_path, model={"preset": "resnet-50"}, seq_len=1)
    code, out, err = run_cli(capsys, "probe", "--plan", str(path))
    assert code == 2 and out == ""
    assert "opaque" in err and len(err.strip().splitlines()) == 1


def test_probe_plan_refuses_other_probes(tmp_path, capsys):
    path = write_plan(tmp_path)
    code, _, err = run_cli(capsys, "probe", "--plan", str(path), "--probes", "matmul")
    assert code == 2 and "--plan" in err and "--probes" in err
