"""Partial recomputation (Megatron-LM's ``--recompute-method block``): N layers recomputed,
the others keep every activation; memory and time between no and full checkpointing."""

from __future__ import annotations

import json

import pytest

from gpuadvisor import catalog
from gpuadvisor.core.assumptions import DEFAULT_ASSUMPTIONS as A
from gpuadvisor.core.compute import flops_per_token
from gpuadvisor.core.memory import activation_bytes
from gpuadvisor.core.model import model_shape
from gpuadvisor.core.plan import Plan
from tests.cli_run import run_cli

LLAMA = catalog.load_models()["llama-3.1-8b"]
L = 32


def plan(checkpointing="full", **fields):
    return Plan(task="full", micro_batch=2, seq_len=2048, checkpointing=checkpointing,
                **fields)


def test_recomputing_n_layers_keeps_the_others_whole():
    b, s, h, e = 2, 2048, 4096, 2
    outside = 2 * b * s * h * e
    none = activation_bytes(LLAMA, plan("none"), A)
    full = activation_bytes(LLAMA, plan(), A)
    per_block = (none - outside) / L  # every block's saved tensors (uniform blocks)
    for n in (1, 8, 31):
        partial = activation_bytes(LLAMA, plan(recompute_layers=n), A)
        # the recomputed layers keep their input (s b h), the rest their whole set
        assert partial == pytest.approx(full + (L - n) * (per_block - b * s * h * e))
        assert full < partial  # (one layer recomputed can cost a working set more than none)
    assert activation_bytes(LLAMA, plan(recompute_layers=L), A) == pytest.approx(full)
    assert activation_bytes(LLAMA, plan(recompute_layers=500), A) == pytest.approx(full)


def test_only_the_recomputed_share_pays_a_second_forward():
    m = model_shape(LLAMA)
    none = flops_per_token(m, plan("none")).train
    full = flops_per_token(m, plan()).train
    fwd = flops_per_token(m, plan()).forward
    assert full - none == pytest.approx(fwd)  # a whole forward again
    assert flops_per_token(m, plan(recompute_layers=8)).train - none == pytest.approx(fwd / 4)


@pytest.mark.parametrize("fields, message", [
    ({"checkpointing": "none", "recompute_layers": 4}, "needs checkpointing full"),
    ({"framework": "unsloth", "recompute_layers": 4}, "unsloth recomputes every layer"),
    ({"recompute_layers": 0}, "whole number of layers"),
])
def test_a_partial_recomputation_that_cannot_run_says_why(fields, message):
    values = {"checkpointing": "full", **fields}
    with pytest.raises(ValueError, match=message):
        Plan(task="full", **values)


def test_the_command_line_takes_it_and_a_layout_runs_faster_with_it():
    flags = ["estimate", "--model", "llama-3.1-8b", "--task", "full", "--gpu", "h100-sxm",
             "--checkpointing", "full", "--seq", "4096", "--no-measured", "--json"]

    code, out, _ = run_cli(*flags)
    every = json.loads(out)
    code2, out2, _ = run_cli(*flags, "--recompute-layers", "16")
    half = json.loads(out2)
    assert code in (0, 3) and code2 in (0, 3)  # printed (3: does not fit)
    assert half["plan"]["recompute_layers"] == 16
    assert half["memory"]["breakdown"]["activations"] > every["memory"]["breakdown"]["activations"]
    assert half["time"]["seconds"] < every["time"]["seconds"]
    code, _, err = run_cli("estimate", "--model", "llama-3.1-8b", "--task", "qlora",
                           "--gpu", "rtx-4090", "--checkpointing", "full",
                           "--recompute-layers", "4")
    assert code == 2 and "recompute_layers" in err and "QLoRA" in err


def test_an_export_runs_full_recomputation_and_says_so():
    code, out, err = run_cli("export", "deepspeed", "--model", "llama-3.1-8b", "--task",
                             "full", "--gpu", "h100-sxm", "--checkpointing", "full",
                             "--recompute-layers", "16", "--no-measured")
    assert code == 0, err
    config = json.loads(out)
    assert "--recompute-layers" not in config["gpuadvisor"]
    assert "--checkpointing full" in config["gpuadvisor"]
    assert "DeepSpeed recomputes every layer" in err
