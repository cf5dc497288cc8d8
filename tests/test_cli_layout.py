"""``estimate`` with several GPUs: the parallel layout in the JSON and the text."""

from __future__ import annotations

import json

import pytest

from gpuadvisor.cli import main

PLAN_70B = ["estimate", "--model", "llama-2-70b", "--task", "pretrain", "--gpu",
            "a100-sxm-80gb", "--seq", "4096", "--tokens", "2T"]


def run_json(capsys, *argv):
    code = main([*argv, "--json"])
    out, _ = capsys.readouterr()
    data = json.loads(out)
    # Exit 3 exactly when the plan does not fit (the JSON is printed either way).
    assert code == (3 if data["memory"]["verdict"] == "does not fit" else 0)
    return data


def test_several_gpus_choose_a_layout_and_keep_every_existing_key(capsys):
    d = run_json(capsys, *PLAN_70B, "--gpus", "64", "--global-batch", "128")
    t = d["time"]
    for key in ("seconds", "gpu_hours", "tokens_per_s", "steps", "step_seconds",
                "efficiency", "bound", "gpu"):
        assert key in t
    layout = t["layout"]
    assert layout["tp"] * layout["pp"] * layout["cp"] * layout["dp"] == 64
    assert layout["micro_batch"] * layout["grad_accum"] * layout["dp"] == 128
    # 2T tokens in steps of 128 x 4096 tokens; the job's time is steps x step.
    assert t["steps"] == pytest.approx(2e12 / (128 * 4096))
    # 64 GPUs span 8 nodes: a multi-node job makes progress 90% of its wall-clock time
    # (Llama 3 paper, §3.3.4: "higher than 90% effective training time").
    assert t["goodput"] == 0.9
    assert t["seconds"] == pytest.approx(t["steps"] * t["step_seconds"] / 0.9)
    # Throughput is while training (128 x 4096 tokens per step), as MFU counts it.
    assert t["tokens_per_s"] == pytest.approx(128 * 4096 / t["step_seconds"])
    assert t["gpu_hours"] == pytest.approx(t["seconds"] * 64 / 3600)
    parts = t["breakdown_seconds_per_step"]
    assert set(parts) == {"compute", "memory_bound", "tp_comm", "cp_comm", "ep_comm",
                          "pp_bubble", "pp_comm", "dp_comm", "optimizer"}
    assert sum(parts.values()) == pytest.approx(t["step_seconds"])
    assert 0 < t["mfu"] <= t["hfu"] < 1
    assert len(t["alternatives"]) == 2
    assert all(a["step_seconds"] >= t["step_seconds"] for a in t["alternatives"])
    assert d["memory"]["fits"] is True
    assert d["memory"]["per_gpu_bytes"] == pytest.approx(t["layout_memory_per_gpu_bytes"])


def test_manual_layout_uses_exactly_the_pinned_degrees(capsys):
    d = run_json(capsys, *PLAN_70B, "--gpus", "64", "--global-batch", "128",
                 "--layout", "manual", "--tp", "8", "--pp", "4", "--zero", "1")
    layout = d["time"]["layout"]
    assert (layout["tp"], layout["pp"], layout["dp"], layout["zero"]) == (8, 4, 2, 1)
    assert layout["micro_batch"] == 1 and layout["grad_accum"] == 64


def test_a_slower_network_never_speeds_a_multi_node_job(capsys):
    fast = run_json(capsys, *PLAN_70B, "--gpus", "64", "--global-batch", "128",
                    "--network", "400g")
    slow = run_json(capsys, *PLAN_70B, "--gpus", "64", "--global-batch", "128",
                    "--network", "ethernet-25g")
    assert slow["time"]["seconds"] >= fast["time"]["seconds"]
    assert slow["time"]["cluster"]["network"] == "ethernet-25g"


def test_layout_off_keeps_the_flat_data_parallel_model(capsys):
    d = run_json(capsys, *PLAN_70B, "--gpus", "64", "--layout", "off", "--zero", "3")
    assert "layout" not in d["time"]


@pytest.mark.parametrize("argv, words", [
    (["--gpus", "1024", "--global-batch", "97"], "global batch"),
    (["--gpus", "64", "--network", "carrier-pigeon"], "network"),
    # 4 micro-batches cannot fill Megatron-LM's interleaved groups of PP 8
    (["--gpus", "64", "--layout", "manual", "--tp", "8", "--pp", "8", "--vpp", "2",
      "--global-batch", "4"], "multiple of PP 8"),
])
def test_a_layout_that_cannot_be_built_is_one_line_naming_it(capsys, argv, words):
    assert main([*PLAN_70B, *argv]) == 2
    _, err = capsys.readouterr()
    assert words in err and len(err.strip().splitlines()) == 1


def test_text_output_shows_the_decomposed_step(capsys):
    assert main([*PLAN_70B, "--gpus", "64", "--global-batch", "128"]) == 0
    out, _ = capsys.readouterr()
    assert "Layout on 64 GPUs" in out and "step" in out and "MFU" in out
    assert "runner-up" in out


@pytest.mark.parametrize(("flags", "named"), [(["--pp", "8k"], "--pp: pp 8000"),
                                              (["--tp", "3"], "--tp: tp 3")])
def test_a_pinned_degree_the_gpus_cannot_hold_is_refused_naming_its_flag(capsys, flags,
                                                                         named):
    from gpuadvisor.cli import main

    code = main(["estimate", "--model", "llama-3.1-8b", "--task", "full", "--gpu", "h100-sxm",
                 "--gpus", "8", *flags])
    assert code == 2
    err = capsys.readouterr().err
    assert named in err and "does not divide n_gpus 8" in err


def test_the_probe_history_is_read_once_per_command(monkeypatch, capsys):
    """An estimate that does not fit resolves many plans (its levers); an export whose
    layout the tool cannot run resolves two: the history file is read once either way, so
    a problem with it is said once."""
    from gpuadvisor.cli import main
    from gpuadvisor.probes import history

    reads = []
    monkeypatch.setattr(history, "measurements_for",
                        lambda gpu_id, warnings=None: reads.append(gpu_id) or [])
    main(["estimate", "--model", "llama-3.1-8b", "--task", "full", "--gpu", "rtx-4090"])
    assert reads == ["rtx-4090"]
    reads.clear()
    main(["export", "deepspeed", "--model", "qwen2.5-32b", "--task", "full", "--gpu",
          "h100-sxm", "--gpus", "8", "--micro-batch", "2", "--seq", "4096"])
    assert reads == ["h100-sxm"]
    capsys.readouterr()


GPT2_XL_8 = ["estimate", "--model", "gpt2-xl", "--task", "pretrain", "--gpu", "h100-sxm",
             "--gpus", "8", "--seq", "1024", "--tokens", "33.5B", "--global-batch", "1024"]


def test_the_kernels_follow_the_framework_unless_given(capsys):
    # Pre-training runs on Megatron by default, whose layer norms, bias-activations and
    # softmax are fused kernels: the default is what --kernels fused prints; the Hugging
    # Face path runs eager PyTorch, the default there is --kernels eager.
    megatron = run_json(capsys, *GPT2_XL_8)
    fused = run_json(capsys, *GPT2_XL_8, "--kernels", "fused")
    eager = run_json(capsys, *GPT2_XL_8, "--kernels", "eager")
    hf = run_json(capsys, *GPT2_XL_8, "--framework", "hf")
    hf_eager = run_json(capsys, *GPT2_XL_8, "--framework", "hf", "--kernels", "eager")
    assert megatron["time"]["kernels"] == "fused" and hf["time"]["kernels"] == "eager"
    assert megatron["assumptions"]["kernels"] == "fused"
    assert megatron["assumptions"]["kernels_source"] == "the megatron framework's own"
    assert eager["assumptions"]["kernels_source"] == "given"
    assert megatron["time"]["seconds"] == fused["time"]["seconds"]
    assert hf["time"]["seconds"] == hf_eager["time"]["seconds"]
    # The two kernel sets differ only in the memory-bound work of each step: the same
    # matmuls, fewer bytes moved by the fused ones.
    f = fused["time"]["breakdown_seconds_per_step"]
    e = eager["time"]["breakdown_seconds_per_step"]
    assert f["compute"] == pytest.approx(e["compute"])
    assert f["memory_bound"] < e["memory_bound"]
    saved = e["memory_bound"] - f["memory_bound"]
    assert eager["time"]["step_seconds"] - fused["time"]["step_seconds"] == pytest.approx(
        saved, rel=1e-6)
