"""Single-stream decode speed of engines other than llama.cpp against published runs.

Reads ``benchmarks/calibration/engine_decode.json`` (ExLlamaV2's and mlx-lm's published
tokens/s, each with its source and settings) and estimates each row as a user would plan it
(``gpuadvisor estimate --framework <engine> --quant <q> --seq <prompt> --new-tokens <n>`` on
the row's catalog GPU). Prints each row, the median error by engine and by GPU group, and
the naive ``datasheet bandwidth / weight bytes`` beside it. llama.cpp's rows are
``decode_accuracy.py``'s.

    python benchmarks/engine_decode_accuracy.py
"""

from __future__ import annotations

import json
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from gpuadvisor import catalog  # noqa: E402
from gpuadvisor.core.estimate import estimate  # noqa: E402
from gpuadvisor.core.plan import Plan  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
from decode_accuracy import group  # noqa: E402  (llama.cpp's rows group the same way)

PATH = ROOT / "benchmarks" / "calibration" / "engine_decode.json"
#: The calibration file's engine names -> the plan's framework.
FRAMEWORKS = {"exllamav2": "exllamav2", "mlx": "mlx"}


def run_row(row: dict, gpus: dict, models: dict) -> tuple[float, float]:
    """``(estimated, naive)`` decode tokens/s of one row."""
    gpu, model = gpus[row["catalog_id"]], models[row["preset"]]
    plan = Plan(task="infer", framework=FRAMEWORKS[row["engine"]], quant=row["quant"],
                seq_len=max(1, int(row["prompt_tokens"])), new_tokens=int(row["new_tokens"]))
    result = estimate(model, plan, gpu)
    naive = gpu.memory_bandwidth_gb_s * 1e9 / result.memory.weights
    return result.time.decode_tokens_per_s, naive


def rows_with_estimates(path: Path = PATH) -> list[dict]:
    """Every row with ``estimate``, ``naive`` and ``group`` added."""
    data = json.loads(path.read_text(encoding="utf-8"))
    gpus, models = catalog.load_gpus(), catalog.load_models()
    out = []
    for row in data["rows"]:
        est, naive = run_row(row, gpus, models)
        out.append({**row, "estimate": est, "naive": naive,
                    "group": group(gpus[row["catalog_id"]])})
    return out


def _median_err(rows: list[dict], key: str) -> float:
    return statistics.median(abs(r[key] / r["tokens_per_s"] - 1) for r in rows)


def main() -> int:
    rows = rows_with_estimates()
    print(f"{'id':7} {'engine':10} {'gpu':16} {'model':15} {'quant':9} {'pub':>7} {'est':>7} "
          f"{'err':>6} {'naive':>7} {'err':>6}")
    for r in rows:
        pub = r["tokens_per_s"]
        print(f"{r['id']:7} {r['engine']:10} {r['catalog_id'][:16]:16} {r['model'][:15]:15} "
              f"{r['quant'] or '16-bit':9} {pub:7.1f} {r['estimate']:7.1f} "
              f"{r['estimate'] / pub - 1:+6.0%} "
              f"{r['naive']:7.1f} {r['naive'] / pub - 1:+6.0%}")
    print(f"\n{'group':28} {'rows':>4}  median |err| est    naive")
    groups: dict[str, list[dict]] = {}
    for r in rows:
        groups.setdefault(r["engine"], []).append(r)
        groups.setdefault(f"{r['engine']} / {r['group']}", []).append(r)
    groups["all"] = rows
    for name, members in groups.items():
        print(f"{name:28} {len(members):>4}  {_median_err(members, 'estimate'):>13.1%}"
              f"  {_median_err(members, 'naive'):>6.1%}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
