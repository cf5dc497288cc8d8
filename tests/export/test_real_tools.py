"""Every export, over a spread of plans, read back by the tool that runs it, equals the plan
that was priced, or is refused with the reason.

For each training plan (one GPU, an 8-GPU node, several nodes, hybrid sharding, tensor and
pipeline parallel estimates, CPU offload, fp8, MoE) the DeepSpeed config, both accelerate
configs, the launch line and the SkyPilot task are exported as ``gpuadvisor export`` writes
them. The exported files are read by the tools themselves, all in one child process (they
import torch, which the app's own process never does):

- DeepSpeed's ``DeepSpeedConfig`` (its batch check: train_batch_size = micro-batch x
  accumulation x data-parallel ranks, its pydantic ZeRO config that refuses unknown keys);
- SkyPilot's ``Task.from_yaml``;
- accelerate's ``load_config_from_file`` (what ``accelerate launch --config_file`` reads).

What they read is compared with the estimate the export names in its first line ("Reproduce
this estimate"), which is run here: its layout (ZeRO stage, micro-batch, accumulation, data
parallel ranks, hybrid shard group, tensor/context parallel degrees) must be the file's.
Where the export is not the estimate's own layout, it says why on stderr; where a tool cannot
run a plan that fits, it refuses. No export says "will not fit" of a plan the estimate fits.
"""

from __future__ import annotations

import json
import re
import shlex
import subprocess
import sys
import textwrap

import pytest
import yaml

from tests.cli_run import run_cli

TRAINING = {
    "QLoRA 8B, one RTX 4090": ["--model", "llama-3.1-8b", "--task", "qlora", "--gpu",
                               "rtx-4090"],
    "LoRA 8B, one RTX 3090": ["--model", "llama-3.1-8b", "--task", "lora", "--gpu",
                              "rtx-3090"],
    "full 1B, one RTX 4090": ["--model", "llama-3.2-1b", "--task", "full", "--gpu",
                              "rtx-4090"],
    "full 8B, 8 H100": ["--model", "llama-3.1-8b", "--task", "full", "--gpu", "h100-sxm",
                        "--gpus", "8"],
    "full 8B, 16 H100 on two nodes": ["--model", "llama-3.1-8b", "--task", "full", "--gpu",
                                      "h100-sxm", "--gpus", "16"],
    "full 8B, 16 H100 hybrid shard": ["--model", "llama-3.1-8b", "--task", "full", "--gpu",
                                      "h100-sxm", "--gpus", "16", "--hybrid-shard"],
    "full 70B, 64 H100": ["--model", "llama-3.1-70b", "--task", "full", "--gpu", "h100-sxm",
                          "--gpus", "64"],
    "full 32B, 8 H100, tensor parallel estimate": [
        "--model", "qwen2.5-32b", "--task", "full", "--gpu", "h100-sxm", "--gpus", "8",
        "--micro-batch", "2", "--seq", "4096"],
    "optimizer offload, 2 RTX 4090": ["--model", "llama-3.1-8b", "--task", "full", "--gpu",
                                      "rtx-4090", "--gpus", "2", "--zero", "2", "--offload",
                                      "optimizer"],
    "parameter offload, one RTX 3090": ["--model", "llama-3.2-3b", "--task", "full",
                                        "--gpu", "rtx-3090", "--zero", "3", "--offload",
                                        "params"],
    "pretrain GPT-2, 8 A100": ["--model", "gpt2", "--task", "pretrain", "--gpu",
                               "a100-sxm-80gb", "--gpus", "8", "--micro-batch", "8"],
    "pretrain 1B, 8 H100, 4k": ["--model", "llama-3.2-1b", "--task", "pretrain", "--gpu",
                                "h100-sxm", "--gpus", "8", "--seq", "4096"],
    "LoRA MoE 30B-A3B, 8 H100": ["--model", "qwen3-30b-a3b", "--task", "lora", "--gpu",
                                 "h100-sxm", "--gpus", "8"],
    "full Mistral 7B, 4 A100": ["--model", "mistral-7b", "--task", "full", "--gpu",
                                "a100-sxm-80gb", "--gpus", "4"],
    "full 8B, 16 B200": ["--model", "llama-3.1-8b", "--task", "full", "--gpu", "b200",
                         "--gpus", "16"],
    "QLoRA 70B, one A100 80GB": ["--model", "llama-3.1-70b", "--task", "qlora", "--gpu",
                                 "a100-sxm-80gb"],
    "LoRA 8B, 2 RTX 4090 over PCIe": ["--model", "llama-3.1-8b", "--task", "lora", "--gpu",
                                      "rtx-4090", "--gpus", "2"],
    "full 8B fp8, 8 H100": ["--model", "llama-3.1-8b", "--task", "full", "--gpu", "h100-sxm",
                            "--gpus", "8", "--precision", "fp8"],
    "full 8B, 4 L40S": ["--model", "llama-3.1-8b", "--task", "full", "--gpu", "l40s",
                        "--gpus", "4"],
    "fp16 GPT-2 XL, 8 V100": ["--model", "gpt2-xl", "--task", "full", "--gpu",
                              "v100-sxm2-16gb", "--gpus", "8", "--precision", "fp16"],
    "ZeRO-3 3B, 4 RTX 4090": ["--model", "qwen2.5-3b", "--task", "full", "--gpu",
                              "rtx-4090", "--gpus", "4", "--zero", "3"],
    "full 8B, 8 H200, 8k": ["--model", "llama-3.1-8b", "--task", "full", "--gpu", "h200-sxm",
                            "--gpus", "8", "--seq", "8192"],
}
KINDS = ("deepspeed", "accelerate", "accelerate-fsdp", "launch", "skypilot")

SERVING = {
    "vLLM 8B, one RTX 4090, SkyPilot": ["--model", "qwen3-8b", "--framework", "vllm",
                                        "--gpu", "rtx-4090"],
    "vLLM 70B, 4 A100, SkyPilot": ["--model", "llama-3.1-70b", "--framework", "vllm",
                                   "--gpu", "a100-sxm-80gb", "--gpus", "4"],
    "vLLM fp8 8B, H100, SkyPilot": ["--model", "llama-3.1-8b", "--framework", "vllm",
                                    "--quant", "fp8", "--gpu", "h100-sxm"],
}

_READER = textwrap.dedent("""
    import json, sys, warnings
    warnings.filterwarnings("ignore")
    import deepspeed.runtime.config as dsc
    from deepspeed.runtime.config import DeepSpeedConfig
    from accelerate.commands.config.config_args import load_config_from_file
    import sky

    dsc.dist.get_rank = lambda *a, **k: 0   # no process group: this process is rank 0

    class Ranks:  # DeepSpeed asks the model-parallel unit for the data-parallel size
        def __init__(self, dp):
            self.dp = dp
        def get_data_parallel_world_size(self):
            return self.dp

    out = {}
    for path, (kind, dp) in json.load(open(sys.argv[1])).items():
        try:
            if kind == "deepspeed":
                c = DeepSpeedConfig(path, mpu=Ranks(dp))
                z = c.zero_config
                out[path] = {"stage": c.zero_optimization_stage,
                             "train_batch_size": c.train_batch_size,
                             "micro": c.train_micro_batch_size_per_gpu,
                             "accum": c.gradient_accumulation_steps,
                             "hpz": z.zero_hpz_partition_size,
                             "offload_optimizer": bool(z.offload_optimizer
                                                       and z.offload_optimizer.device == "cpu"),
                             "offload_param": bool(z.offload_param
                                                   and z.offload_param.device == "cpu")}
            elif kind == "accelerate":
                c = load_config_from_file(path)
                out[path] = {"num_processes": c.num_processes,
                             "num_machines": c.num_machines,
                             "distributed_type": str(c.distributed_type).split(".")[-1],
                             "deepspeed_config": c.deepspeed_config,
                             "fsdp_config": c.fsdp_config,
                             "parallelism_config": c.parallelism_config}
            else:
                t = sky.Task.from_yaml(path)
                (r,) = t.resources
                out[path] = {"num_nodes": t.num_nodes, "accelerators": r.accelerators,
                             "use_spot": r.use_spot, "cloud": str(r.cloud) if r.cloud else None,
                             "run": t.run, "setup": t.setup}
        except BaseException as exc:
            out[path] = {"error": f"{type(exc).__name__}: {exc}"}
    print(json.dumps(out))
""")


_cli = run_cli


def _reproduced(text: str) -> dict:
    """The estimate (JSON) of the 'Reproduce this estimate' line in an export."""
    match = re.search(r"Reproduce this estimate: (gpuadvisor estimate [^\n\"]*)", text)
    assert match, "the export does not start with its reproducing command"
    words = shlex.split(match.group(1))
    code, out, err = _cli(*words[1:], "--json", "--no-measured")
    assert code in (0, 3), err
    return json.loads(out)


def _layout(est: dict) -> dict:
    layout = est["time"].get("layout")
    if layout is None:  # one GPU, or an estimate without the layout search
        plan = est["plan"]
        layout = {"tp": 1, "pp": 1, "cp": 1, "ep": 1, "dp": plan["n_gpus"],
                  "zero": plan["zero_stage"], "hybrid_shard": False,
                  "micro_batch": plan["micro_batch"], "grad_accum": plan["grad_accum"]}
    return layout


@pytest.fixture(scope="module")
def exported(tmp_path_factory):
    """Every plan's exports, their estimates, and what the tools read (one child process)."""
    folder = tmp_path_factory.mktemp("exports")
    cases, manifest = {}, {}
    for label, flags in TRAINING.items():
        flags = [*flags, "--no-measured"]
        code, out, err = _cli("estimate", *flags, "--json")
        assert code in (0, 3), f"{label}: {err}"  # 3: it does not fit as planned
        priced = json.loads(out)
        for kind in KINDS:
            tool, extra = ("accelerate", ["--backend", "fsdp"]) if kind.endswith("fsdp") \
                else (kind, [])
            code, text, err = _cli("export", tool, *flags, *extra)
            path = folder / f"{len(cases)}.{'json' if kind == 'deepspeed' else 'yaml'}"
            case = {"label": label, "kind": kind, "code": code, "text": text, "err": err,
                    "priced": priced, "path": str(path)}
            if code == 0 and kind != "launch":
                path.write_text(text, encoding="utf-8")
                case["exported"] = _reproduced(text)
                dp = _layout(case["exported"])["dp"]
                manifest[str(path)] = ({"deepspeed": "deepspeed", "skypilot": "skypilot"}
                                       .get(kind, "accelerate"), dp)
            elif code == 0:
                case["exported"] = _reproduced(text)
            cases[(label, kind)] = case
    for label, flags in SERVING.items():
        code, text, err = _cli("export", "skypilot", *flags, "--task", "infer",
                               "--no-measured")
        assert code == 0, f"{label}: {err}"
        path = folder / f"serve-{len(cases)}.yaml"
        path.write_text(text, encoding="utf-8")
        manifest[str(path)] = ("skypilot", 1)
        cases[(label, "serve")] = {"label": label, "kind": "serve", "text": text,
                                   "path": str(path), "flags": flags}
    listing = folder / "manifest.json"
    listing.write_text(json.dumps(manifest), encoding="utf-8")
    run = subprocess.run([sys.executable, "-c", _READER, str(listing)], capture_output=True,
                         text=True, timeout=300)
    assert run.returncode == 0, run.stderr[-3000:]
    return cases, json.loads(run.stdout.strip().splitlines()[-1])


def test_the_spread_is_wide_enough(exported):
    cases, _ = exported
    assert len(TRAINING) + len(SERVING) >= 25
    written = [c for c in cases.values() if c.get("code", 0) == 0]
    assert len(written) >= 100  # 22 plans x 5 kinds, less the few refused with a reason


@pytest.mark.parametrize("label", list(TRAINING))
def test_every_training_export_runs_the_plan_it_names(exported, label):
    cases, read = exported
    for kind in KINDS:
        case = cases[(label, kind)]
        priced = case["priced"]
        if case["code"] != 0:
            # Refused: with one line naming why, and only where the priced layout is one
            # this tool cannot run or the plan is one it cannot write.
            assert case["code"] == 2, (label, kind, case["err"])
            assert case["err"].splitlines()[-1].startswith("export "), case["err"]
            continue
        est = case["exported"]
        layout = _layout(est)
        # the same training: global batch, model and task as priced
        priced_layout = _layout(priced)
        assert (layout["micro_batch"] * layout["grad_accum"] * layout["dp"]
                == priced_layout["micro_batch"] * priced_layout["grad_accum"]
                * priced_layout["dp"]), (label, kind)
        assert est["plan"]["task"] == priced["plan"]["task"]
        # No export says "will not fit" of a plan the estimate fits; and it fits as exported.
        if priced["memory"]["fits"]:
            assert "will not fit" not in case["err"], (label, kind, case["err"])
            assert est["memory"]["fits"], (label, kind)
        # The priced layout itself, unless the export says why not.
        if not case["err"]:
            assert layout == priced_layout, (label, kind)
            assert est["memory"]["per_gpu_bytes"] == pytest.approx(
                priced["memory"]["per_gpu_bytes"], rel=1e-9)
        elif priced["memory"]["fits"]:
            assert any(why in case["err"] for why in (
                "cannot run", "no ZeRO-1", "only at ZeRO-3", "under FSDP2 only")), case["err"]
        else:  # it does not fit as priced, and the export says so
            assert "will not fit as planned" in case["err"], case["err"]
        _check_file(case, layout, read.get(case["path"]), est)


def _check_file(case, layout, got, est):
    kind, plan = case["kind"], est["plan"]
    n_gpus = plan["n_gpus"]
    if kind == "launch":
        line = case["text"].strip().splitlines()[-1]
        words = shlex.split(line)
        nproc = int(words[words.index("--nproc_per_node") + 1])
        nodes = int(words[words.index("--nnodes") + 1]) if "--nnodes" in words else 1
        assert nproc * nodes == n_gpus, line
        return
    assert got is not None and "error" not in got, (case["label"], kind, got)
    if kind == "deepspeed":
        ds = json.loads(case["text"])
        assert next(iter(ds)) == "gpuadvisor"  # the reproducing line comes first
        assert got["stage"] == layout["zero"]
        assert (got["micro"], got["accum"]) == (layout["micro_batch"], layout["grad_accum"])
        assert got["train_batch_size"] == (layout["micro_batch"] * layout["grad_accum"]
                                           * layout["dp"])
        assert (got["hpz"] > 1) == bool(layout["hybrid_shard"]), got
        assert got["offload_optimizer"] == (plan["offload"] in ("optimizer", "params"))
        assert got["offload_param"] == (plan["offload"] == "params")
    elif kind.startswith("accelerate"):
        assert got["num_processes"] == n_gpus
        if got["distributed_type"] == "DEEPSPEED":
            zero = got["deepspeed_config"]
            assert zero["zero_stage"] == layout["zero"]
            assert zero["gradient_accumulation_steps"] == layout["grad_accum"]
        elif got["distributed_type"] == "FSDP":
            fsdp = got["fsdp_config"]
            assert fsdp["fsdp_version"] == 2
            assert fsdp["fsdp_reshard_after_forward"] == (layout["zero"] == 3)
            sizes = got["parallelism_config"] or {}
            assert int(sizes.get("parallelism_config_tp_size", 1)) == layout["tp"]
            assert int(sizes.get("parallelism_config_cp_size", 1)) == layout["cp"]
        else:  # replicated data parallel, with tensor parallel ranks where the plan has them
            assert got["distributed_type"] in ("MULTI_GPU", "NO") and layout["zero"] == 0
            sizes = got["parallelism_config"] or {}
            assert int(sizes.get("parallelism_config_tp_size", 1)) == layout["tp"]
            assert int(sizes.get("parallelism_config_dp_shard_size", 1)) == 1
    elif kind == "skypilot":
        ((_name, per_node),) = got["accelerators"].items()
        assert per_node * got["num_nodes"] == n_gpus, got
        if plan["offload"] == "none" and layout["zero"]:
            # the setup writes the very DeepSpeed config the run uses
            config = re.search(r"<<'EOF'\n(\{.*?\n\})\nEOF", got["setup"], re.S)
            if config:
                written = json.loads(config.group(1))
                assert written["zero_optimization"]["stage"] == layout["zero"]
                assert written["train_micro_batch_size_per_gpu"] == layout["micro_batch"]
        if got["num_nodes"] > 1:
            assert "$SKYPILOT_NODE_RANK" in got["run"] and "SKYPILOT_NODE_IPS" in got["run"]


@pytest.mark.parametrize("label", list(SERVING))
def test_a_serving_task_runs_the_priced_vllm_server(exported, label):
    cases, read = exported
    case = cases[(label, "serve")]
    got = read[case["path"]]
    assert "error" not in got, got
    _code, out, _err = _cli("estimate", *case["flags"], "--task", "infer", "--json",
                          "--no-measured")
    est = json.loads(out)
    ((_, per_node),) = got["accelerators"].items()
    assert per_node == est["plan"]["n_gpus"] and got["num_nodes"] == 1
    serve = next(line for line in got["run"].splitlines() if "vllm serve" in line)
    words = shlex.split(serve)
    assert int(words[words.index("--tensor-parallel-size") + 1]) == est["plan"]["n_gpus"]
    assert "llama-3.1" not in words[words.index("serve") + 1]  # a repository, not a preset id


def test_a_tool_that_cannot_run_the_only_fitting_layout_refuses():
    """A 32k-token LoRA of an 8B model on four RTX 4090s fits with tensor parallelism
    (pinned: accelerate's FSDP2 runs it): DeepSpeed cannot run that, and every data-parallel
    layout (even with full recomputation, micro-batch 1 and CPU offload) needs more than
    24 GiB, so the DeepSpeed export refuses (before, it wrote a config that would not fit);
    accelerate's FSDP2 runs the TP layout."""
    flags = ["--model", "llama-3.1-8b", "--task", "lora", "--gpu", "rtx-4090", "--gpus", "4",
             "--seq", "32768", "--framework", "hf", "--tp", "4", "--no-measured"]
    code, out, _ = _cli("estimate", *flags, "--json")
    est = json.loads(out)
    layout = est["time"]["layout"]
    assert est["memory"]["fits"] and layout["tp"] > 1, est["time"]["layout_text"]
    code, text, err = _cli("export", "deepspeed", *flags)
    assert code == 2 and text == ""
    assert f"uses TP {layout['tp']}, which DeepSpeed cannot run, and no layout it can run " \
           "fits" in err
    assert "accelerate with --backend fsdp" in err
    # the alternative comes with its own numbers: the priced layout's memory and time
    from gpuadvisor.core.units import format_bytes, format_duration
    assert (f"the priced layout ({format_bytes(est['memory']['per_gpu_bytes'])} per GPU, "
            f"{format_duration(est['time']['seconds'])})") in err
    code, text, err = _cli("export", "accelerate", *flags, "--backend", "fsdp")
    assert code == 0, err
    config = yaml.safe_load(text)
    assert config["parallelism_config"]["parallelism_config_tp_size"] == layout["tp"]
