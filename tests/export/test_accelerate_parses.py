"""The accelerate configs parse with accelerate's own loader and run the estimate's layout.

``accelerate.commands.config.config_args.load_config_from_file`` is what ``accelerate
launch --config_file`` reads (it refuses unknown top-level keys); the parsed config must have
the estimate's GPUs, machines, ZeRO stage / FSDP2 resharding and N-D parallelism sizes.
"""

from __future__ import annotations

import contextlib
import io
import json

import pytest
from accelerate.commands.config.config_args import load_config_from_file

from gpuadvisor.cli import main

PLANS = [
    ("single GPU QLoRA", ["--model", "llama-3.1-8b", "--task", "qlora", "--gpu", "rtx-4090"]),
    ("8-GPU full fine-tune", ["--model", "llama-3.1-8b", "--task", "full", "--gpu",
                             "h100-sxm", "--gpus", "8"]),
    ("16 GPUs on two nodes", ["--model", "llama-3.1-8b", "--task", "full", "--gpu",
                             "h100-sxm", "--gpus", "16"]),
    ("tensor parallel", ["--model", "qwen2.5-32b", "--task", "full", "--gpu", "h100-sxm",
                         "--gpus", "8", "--micro-batch", "2", "--seq", "4096"]),
    ("hybrid shard", ["--model", "llama-3.1-8b", "--task", "full", "--gpu", "h100-sxm",
                      "--gpus", "16", "--hybrid-shard"]),
    ("optimizer offload", ["--model", "llama-3.1-8b", "--task", "full", "--gpu", "rtx-4090",
                           "--gpus", "2", "--zero", "2", "--offload", "optimizer"]),
]


def _cli(*argv: str) -> tuple[int, str]:
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        code = main(list(argv))
    return code, out.getvalue()


@pytest.mark.parametrize("backend", ["deepspeed", "fsdp"])
@pytest.mark.parametrize(("label", "flags"), PLANS, ids=[p[0] for p in PLANS])
def test_accelerate_reads_the_config_and_it_runs_the_estimates_layout(tmp_path, backend,
                                                                      label, flags):
    flags = [*flags, "--no-measured"]
    code, text = _cli("export", "accelerate", *flags, "--backend", backend)
    if code == 2:
        # Refused with a reason (FSDP offloads parameters and optimizer together only).
        assert backend == "fsdp" and "--offload" in " ".join(flags)
        return
    assert code == 0
    path = tmp_path / "accelerate.yaml"
    path.write_text(text)
    config = load_config_from_file(str(path))
    _, out = _cli("estimate", *flags, "--json")
    est = json.loads(out)
    n = est["plan"]["n_gpus"]
    assert config.num_processes == n
    layout = est["time"].get("layout")
    stage = layout["zero"] if layout else est["plan"]["zero_stage"]
    kind = str(config.distributed_type).split(".")[-1]
    if kind == "DEEPSPEED":
        assert config.deepspeed_config["zero_stage"] == stage
    elif kind == "FSDP":
        fsdp = config.fsdp_config
        assert fsdp["fsdp_version"] == 2
        mesh = config.parallelism_config
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
