"""``gpuadvisor probe --history``: the stored probe runs per device, with the change from one
run to the next."""

from __future__ import annotations

import argparse
import sys

from .args import InputError, json_text


def command(args: argparse.Namespace) -> int:
    """``probe --history``: stored runs per device, oldest first, with changes."""
    from gpuadvisor.probes import history

    warnings: list[str] = []
    try:
        stored = history.runs(warnings=warnings)
    except OSError as exc:
        raise InputError(f"probe history: cannot read {history.history_dir()}: {exc}") from None
    for warning in warnings:
        print(f"gpuadvisor probe: {warning}".replace("\n", " "), file=sys.stderr)
    if args.json:
        print(json_text({"folder": str(history.history_dir()),
                         "runs": [r.to_json() for r in stored]}))
        return 0
    if not stored:
        print(f"No probe runs stored yet in {history.history_dir()} "
              "(run: gpuadvisor probe)")
        return 0
    print(_history_text(history.history_dir(), stored))
    return 0


def _history_text(folder, stored) -> str:
    """The stored runs grouped by device, each figure with its change from the run before."""
    from gpuadvisor.probes.compare import diff_runs

    by_device: dict[str, list] = {}
    for run in stored:
        by_device.setdefault(run.device_key, []).append(run)
    lines = [f"Probe history in {folder}"]
    for runs in by_device.values():
        first = runs[-1]
        card = f" = {first.catalog_id}" if first.catalog_id else ""
        lines.append(f"\n{first.device_name}{card} ({len(runs)} run(s))")
        previous = None
        for run in runs:
            torch = run.versions.get("torch") or "?"
            lines.append(f"  {run.timestamp}  torch {torch}  probes: {', '.join(run.results)}")
            changes = {(d.probe, d.figure): d for d in diff_runs(previous, run)} \
                if previous is not None else {}
            for probe, result in run.results.items():
                for name, value in result.get("figures", {}).items():
                    if not isinstance(value, int | float) or name.endswith("_max_tflops"):
                        continue
                    unit = result.get("units", {}).get(name, "")
                    change = changes.get((probe, name))
                    note = (f"  ({change.change_pct:+.1f}% vs previous)"
                            if change is not None and change.change_pct is not None else "")
                    lines.append(f"    {probe + '.' + name:<34} {value:>10.4g} {unit}{note}")
            previous = run
    return "\n".join(lines)
