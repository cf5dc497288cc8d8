"""Training runs that completed are said to fit.

The rows of ``benchmarks/calibration/completed_runs.json`` ran on H100 80GB at the layouts
NeMo and Megatron-Bridge published (sources in each row). Estimated with those layouts, the
distributed optimizer (ZeRO-1) the recipes set and gpuadvisor's defaults for the rest, each
must fit; a row marked ``gap`` (a layout the estimator cannot express) must be refused with
a message naming the flag, never mis-sized.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.cli_run import run_cli

ROWS = json.loads((Path(__file__).resolve().parents[1] / "benchmarks" / "calibration"
                   / "completed_runs.json").read_text())["rows"]


def _flags(row: dict) -> list[str]:
    out = ["--model", row["preset"], "--task", row["task"], "--gpu", row["gpu"],
           "--gpus", str(row["n_gpus"]), "--global-batch", str(row["global_batch"]),
           "--micro-batch", str(row["micro_batch"]), "--seq", str(row["seq"]),
           "--tp", str(row["tp"]), "--pp", str(row["pp"]), "--cp", str(row["cp"]),
           "--ep", str(row["ep"]), "--precision", row["precision"], "--zero", "1",
           "--tokens", "1B", "--no-measured", "--json"]
    return out + (["--vpp", str(row["vpp"])] if row["vpp"] > 1 else [])


def test_the_table_is_the_issue_size():
    assert len([r for r in ROWS if "gap" not in r]) >= 16
    assert all(r["source"] for r in ROWS)


@pytest.mark.parametrize("row", ROWS, ids=[r["id"] for r in ROWS])
def test_a_run_that_completed_is_said_to_fit(row):
    code, out, err = run_cli("estimate", *_flags(row))
    if "gap" in row:
        assert code == 2 and "--ep" in err, err
        return
    assert code == 0, err
    est = json.loads(out)
    assert est["memory"]["fits"], (row["id"], est["memory"]["per_gpu_bytes"] / 2**30)
    layout = est["time"]["layout"]
    assert (layout["tp"], layout["pp"], layout["cp"], layout["ep"]) == (
        row["tp"], row["pp"], row["cp"], row["ep"])
    assert layout["micro_batch"] * layout["grad_accum"] * layout["dp"] == row["global_batch"]
