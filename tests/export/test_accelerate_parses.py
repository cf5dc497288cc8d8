"""The accelerate configs parse with accelerate's own loader and run the estimate's layout.

``accelerate.commands.config.config_args.load_config_from_file`` is what ``accelerate
launch --config_file`` reads (it refuses unknown top-level keys); the parsed config must have
the estimate's GPUs, machines, ZeRO stage / FSDP2 resharding and N-D parallelism sizes.
accelerate imports torch, so it reads the files in a child process (the app's own process
must never import torch: tests/gui/test_app.py checks that).
"""

from __future__ import annotations

import contextlib
import io
import json
import subprocess
import sys
import textwrap

import pytest

from gpuadvisor.cli import main

PLANS = [
    ("single GPU QLoRA", ["--model", "llama-3.1-8b", "--task", "qlora", "--gpu", "rtx-4090"]),
    ("8-GPU full fine-tune", ["--model", "llama-3.1-8b", "--task", "full", "--gpu",
                             "h100-sxm", "--gpus", "8"]),
    ("16 GPUs on two nodes", ["--model", "llama-3.1-8b", "--task", "full", "--gpu",
                             "h100-sxm", "--gpus", "16"]),
    # accelerate's FSDP2 runs a pinned tensor degree (N-D parallelism_config)
    ("tensor parallel", ["--model", "qwen2.5-32b", "--task", "full", "--gpu", "h100-sxm",
                         "--gpus", "8", "--micro-batch", "2", "--seq", "4096",
                         "--framework", "hf", "--tp", "2"]),
    ("hybrid shard", ["--model", "llama-3.1-8b", "--task", "full", "--gpu", "h100-sxm",
                      "--gpus", "16", "--hybrid-shard"]),
    ("optimizer offload", ["--model", "llama-3.1-8b", "--task", "full", "--gpu", "rtx-4090",
                           "--gpus", "2", "--zero", "2", "--offload", "optimizer"]),
]


_READER = textwrap.dedent("""
    import json, sys
    from accelerate.commands.config.config_args import load_config_from_file
    out = {}
    for path in sys.argv[1:]:
        c = load_config_from_file(path)
        out[path] = {"num_processes": c.num_processes,
                     "distributed_type": str(c.distributed_type).split(".")[-1],
                     "deepspeed_config": c.deepspeed_config, "fsdp_config": c.fsdp_config,
                     "parallelism_config": c.parallelism_config}
    print(json.dumps(out))
""")


def _read_with_accelerate(paths) -> dict:
    result = subprocess.run([sys.executable, "-c", _READER, *map(str, paths)],
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


@pytest.fixture(scope="module")
def exported(tmp_path_factory):
    """Every plan's accelerate config for both backends, with its estimate, and what
    accelerate read from each file (one child process for all of them)."""
    folder = tmp_path_factory.mktemp("accelerate")
    cases = {}
    for label, flags in PLANS:
        # packed 2,048-token sequences: the layouts these plans were chosen to show (the
        # real-tools spread in test_real_tools.py covers the default padded job)
        flags = [*flags, "--packing", "--no-measured"]
        _, out = _cli("estimate", *flags, "--json")
        for backend in ("deepspeed", "fsdp"):
            code, text = _cli("export", "accelerate", *flags, "--backend", backend)
            path = folder / f"{label.replace(' ', '-')}-{backend}.yaml"
            if code == 0:
                path.write_text(text)
            cases[(label, backend)] = (code, path, json.loads(out), flags)
    read = _read_with_accelerate(p for code, p, _, _ in cases.values() if code == 0)
    return cases, read


def _cli(*argv: str) -> tuple[int, str]:
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        code = main(list(argv))
    return code, out.getvalue()


@pytest.mark.parametrize("backend", ["deepspeed", "fsdp"])
@pytest.mark.parametrize("label", [p[0] for p in PLANS])
def test_accelerate_reads_the_config_and_it_runs_the_estimates_layout(exported, backend,
                                                                      label):
    cases, read = exported
    code, path, est, flags = cases[(label, backend)]
    if code == 2:
        # Refused with a reason (FSDP offloads parameters and optimizer together only).
        assert backend == "fsdp" and "--offload" in flags
        return
    assert code == 0
    config = read[str(path)]
    n = est["plan"]["n_gpus"]
    assert config["num_processes"] == n
    layout = est["time"].get("layout")
    stage = layout["zero"] if layout else est["plan"]["zero_stage"]
    kind = config["distributed_type"]
    hybrid_below_3 = bool(layout and layout["hybrid_shard"] and layout["zero"] != 3)
    if layout and (layout["tp"] > 1 or hybrid_below_3) and backend == "deepspeed":
        # DeepSpeed cannot run TP, and shards inside nodes only at ZeRO-3: the file runs the
        # fastest plan it can, the one its reproducing line names (export/runnable.py)
        line = path.read_text().splitlines()
        reproduce = next(x for x in line if "gpuadvisor estimate" in x)
        stage = int(reproduce.split("--zero ")[1].split()[0])
        assert "--tp 1" in reproduce
        if hybrid_below_3:
            assert stage == 3
    if kind == "DEEPSPEED":
        assert config["deepspeed_config"]["zero_stage"] == stage
    elif kind == "FSDP":
        assert config["fsdp_config"]["fsdp_version"] == 2
        mesh = config["parallelism_config"]
        if mesh:
            sizes = [mesh[f"parallelism_config_{k}"] for k in
                     ("dp_replicate_size", "dp_shard_size", "tp_size", "cp_size")]
            assert sizes[0] * sizes[1] * sizes[2] * sizes[3] == n
            if layout and layout["tp"] > 1:
                assert sizes[2] == layout["tp"]
            if layout and layout["hybrid_shard"]:
                assert sizes[0] > 1
    else:
        assert stage == 0 and kind in ("NO", "MULTI_GPU")


def test_the_tensor_parallel_plan_is_read_as_its_mesh(exported):
    """The tensor-parallel layout of Qwen2.5 32B on 8 H100s reaches accelerate as a mesh of
    the same tensor degree times the shards left (not silently flattened to data
    parallel)."""
    cases, read = exported
    _, path, est, _ = cases[("tensor parallel", "fsdp")]
    tp = est["time"]["layout"]["tp"]
    assert tp > 1
    mesh = read[str(path)]["parallelism_config"]
    assert mesh["parallelism_config_tp_size"] == tp
    assert (mesh["parallelism_config_dp_shard_size"]
            * mesh["parallelism_config_dp_replicate_size"]) == 8 // tp
