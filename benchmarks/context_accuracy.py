"""Longest QLoRA context that fits: published (Hugging Face + FA2, Unsloth) vs estimated.

For every row of ``benchmarks/calibration/frameworks.json`` (Unsloth's context-length tables
for Llama 3.1 8B and Llama 3.3 70B), runs :func:`gpuadvisor.core.fit_search.longest_fitting_seq` on
the row's plan with the row's framework and GPU memory, and prints published vs estimated,
the error, and the median and largest error per framework; beside the Hugging Face rows, the
generic estimate of a plan that names no framework (``auto``). The memory sizes are read in the
unit the file names (``vram_unit``: GiB); the errors for a GB (1e9) reading follow, and the
host RAM Unsloth's offloaded checkpoints need is checked against the figures Unsloth gives.
Speed: the estimated Unsloth/Hugging Face step-time ratio beside Unsloth's own claims.

    python benchmarks/context_accuracy.py [path/to/frameworks.json]

Nothing here is fitted: the constants are the estimator's defaults (see
``gpuadvisor/core/frameworks.py`` and ``gpuadvisor/core/assumptions.py``).
"""

from __future__ import annotations

import json
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from gpuadvisor import catalog  # noqa: E402
from gpuadvisor.core.assumptions import DEFAULT_ASSUMPTIONS  # noqa: E402
from gpuadvisor.core.compute import training_time  # noqa: E402
from gpuadvisor.core.fit_search import longest_fitting_seq  # noqa: E402
from gpuadvisor.core.memory import memory_breakdown  # noqa: E402
from gpuadvisor.core.plan import Plan  # noqa: E402
from gpuadvisor.core.units import GiB  # noqa: E402

DEFAULT_PATH = ROOT / "benchmarks" / "calibration" / "frameworks.json"
UNITS = {"GiB": GiB, "GB": 1e9}


def plan_for(data: dict, framework: str) -> Plan:
    """The plan every row shares (the file's ``plan``), under ``framework``."""
    fields = {k: v for k, v in data["plan"].items() if k != "notes"}
    return Plan(**fields, framework=framework)


def _error(estimated: int, published: int | None) -> str:
    if published is None:
        return "fits" if estimated > 0 else "OOM ok"
    return f"{estimated / published - 1:+.1%}"


def context_rows(data: dict, models: dict, unit: float):
    """(row, estimated tokens) for every row, with memory read in ``unit`` bytes."""
    for row in data["rows"]:
        plan = plan_for(data, row["framework"])
        yield row, longest_fitting_seq(models[row["model"]], plan, row["vram_gb"] * unit)


def print_table(data: dict, models: dict) -> None:
    unit_name = data["vram_unit"]
    print(f"Longest context that fits (memory read as {unit_name}; plan: "
          f"{', '.join(f'{k}={v}' for k, v in data['plan'].items() if k != 'notes')})")
    print(f"{'model':14} {'memory':>7} {'framework':9} {'published':>10} {'estimated':>10} "
          f"{'error':>8}  {'GB-read':>8}  {'auto':>8}")
    other = "GB" if unit_name == "GiB" else "GiB"
    alt = {row["id"]: est for row, est in context_rows(data, models, UNITS[other])}
    errors: dict[str, list[float]] = {}
    alt_errors: dict[str, list[float]] = {}
    for row, est in context_rows(data, models, UNITS[unit_name]):
        pub = row["max_context"]
        generic = ""
        if row["framework"] == "hf":
            auto = longest_fitting_seq(models[row["model"]], plan_for(data, "auto"),
                                       row["vram_gb"] * UNITS[unit_name])
            generic = _error(auto, pub)
        print(f"{row['model']:14} {row['vram_gb']:>4} {unit_name[:2]} {row['framework']:9} "
              f"{'OOM' if pub is None else pub:>10} {est:>10} {_error(est, pub):>8}  "
              f"{_error(alt[row['id']], pub):>8}  {generic:>8}")
        if pub is not None:
            errors.setdefault(row["framework"], []).append(est / pub - 1)
            alt_errors.setdefault(row["framework"], []).append(alt[row["id"]] / pub - 1)
    print()
    for name, errs in errors.items():
        abs_errs = [abs(e) for e in errs]
        alt_abs = [abs(e) for e in alt_errors[name]]
        within = sum(e <= 0.10 for e in abs_errs)
        print(f"{name:9} rows {len(errs)}: median |error| {statistics.median(abs_errs):.1%}, "
              f"largest {max(abs_errs):.1%}, within 10%: {within}/{len(errs)}   "
              f"(GB reading: median {statistics.median(alt_abs):.1%}, "
              f"largest {max(alt_abs):.1%})")


def print_host_ram(data: dict, models: dict) -> None:
    print("\nHost RAM for Unsloth's offloaded checkpoints (published = Unsloth's arithmetic)")
    for row in data["host_ram_rows"]:
        plan = plan_for(data, row["framework"]).with_changes(seq_len=row["seq_len"])
        host = memory_breakdown(models[row["model"]], plan).cpu_bytes / GiB
        print(f"  {row['model']:14} {row['seq_len']:>7} tokens: published {row['host_gib']:>4} "
              f"GiB, estimated {host:6.1f} GiB ({host / row['host_gib'] - 1:+.1%})")


def print_speed(data: dict, models: dict, gpus: dict) -> None:
    print("\nStep time, Unsloth vs Hugging Face (batch 2, seq 2048, accumulation 4): "
          "estimated speed-up beside Unsloth's claim")
    for claim in data["speed_claims"]:
        gpu = gpus["l4" if "L4" in claim["gpu"] else "a100-sxm-80gb"]
        seconds = {}
        for fw in ("hf", "unsloth"):
            plan = plan_for(data, fw).with_changes(micro_batch=2, grad_accum=4, seq_len=2048,
                                                   dataset_samples=52_002)
            time = training_time(
                models[claim["model"]], plan, peak_tflops=gpu.peak_tflops("bf16"),
                interconnect_gb_s_=gpu.pcie_bandwidth_gb_s or 25.0,
                assumptions=DEFAULT_ASSUMPTIONS, bandwidth_gb_s=gpu.memory_bandwidth_gb_s,
                host_link_gb_s=gpu.pcie_bandwidth_gb_s)
            seconds[fw] = time.seconds
        ratio = seconds["hf"] / seconds["unsloth"]
        print(f"  {claim['model']} on {gpu.id}: estimated {ratio:.2f}x, "
              f"claimed {claim['claimed_speedup_vs_hf_fa2']}x")


def main(argv: list[str]) -> int:
    path = Path(argv[1]) if len(argv) > 1 else DEFAULT_PATH
    data = json.loads(path.read_text(encoding="utf-8"))
    models = dict(catalog.load_models())
    gpus = dict(catalog.load_gpus())
    print_table(data, models)
    print_host_ram(data, models)
    print_speed(data, models, gpus)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv))
