"""Training runs that completed: is each said to fit at its published layout?

Reads ``benchmarks/calibration/completed_runs.json`` (NeMo and Megatron-Bridge performance
tables on H100 80GB, each row with its source) and estimates every run as ``gpuadvisor
estimate`` would with the table's GPUs, layout (TP, PP, virtual stages, CP, EP), micro and
global batch, sequence and precision, ZeRO-1 (the recipes' distributed optimizer), and the
rest at gpuadvisor's defaults. Prints the memory per GPU by term and the verdict; a row the
estimator cannot express says why (``gap``). Beside it, a naive count: 18 bytes per
parameter (Megatron's non-distributed mixed precision) over the model-parallel GPUs, plus
nothing for activations.

    python benchmarks/completed_runs.py
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from gpuadvisor import catalog  # noqa: E402
from gpuadvisor.core.model import model_shape  # noqa: E402
from tests.cli_run import run_cli  # noqa: E402
from tests.test_completed_runs import _flags as flags  # noqa: E402  (the test's own flags)

GiB = 2**30
DATA = ROOT / "benchmarks" / "calibration" / "completed_runs.json"


def estimate(row: dict) -> tuple[dict | None, str]:
    """The estimate's JSON (None when the layout cannot be given) and the CLI's message."""
    code, out, err = run_cli("estimate", *flags(row))
    if code not in (0, 3):
        return None, err.strip().splitlines()[-1] if err.strip() else f"exit {code}"
    return json.loads(out), ""


def naive_fits(row: dict, models) -> bool:
    params = float(model_shape(models[row["preset"]]).params.total)
    return 18 * params / (row["tp"] * row["pp"] * row["ep"]) <= 80e9


def main() -> None:
    rows = json.loads(DATA.read_text())["rows"]
    models = catalog.load_models()
    said, naive = 0, 0
    print(f"{'id':8s} {'run':18s} {'GPUs':>5s} {'layout':22s} {'per GPU':>9s}  verdict  naive")
    for row in rows:
        est, why = estimate(row)
        lay = (f"TP{row['tp']} PP{row['pp']}" + (f" VPP{row['vpp']}" if row["vpp"] > 1 else "")
               + (f" CP{row['cp']}" if row["cp"] > 1 else "")
               + (f" EP{row['ep']}" if row["ep"] > 1 else ""))
        n = naive_fits(row, models)
        naive += n
        if est is None:
            print(f"{row['id']:8s} {row['model'][:18]:18s} {row['n_gpus']:5d} {lay:22s} "
                  f"{'-':>9s}  cannot say ({why})  {'fits' if n else 'no'}")
            continue
        mem = est["memory"]
        fits = bool(mem["fits"])
        said += fits
        b = mem["breakdown"]
        parts = " ".join(f"{k[0]} {b[k] / GiB:.1f}" for k in
                         ("weights", "gradients", "optimizer", "activations", "logits",
                          "overhead"))
        print(f"{row['id']:8s} {row['model'][:18]:18s} {row['n_gpus']:5d} {lay:22s} "
              f"{mem['per_gpu_bytes'] / GiB:6.1f} GiB  {'fits' if fits else 'NO  '}     "
              f"{'fits' if n else 'no':5s}  ({parts})")
    print(f"\ncompleted runs said to fit: {said} of {len(rows)} (naive 18 B/param: {naive})")


if __name__ == "__main__":
    main()
