"""How long the probe suites take, and what they measure, on this machine.

    python benchmarks/probe_suite.py [--full] [--device cpu|0] [--python PATH] [--json OUT]

Runs the suite the app runs (``gpuadvisor.probes.runner.SUITE_PROBES``: matmul, bandwidth,
transfer, step) in the real worker subprocess, exactly as ``gpuadvisor probe`` does, and
prints the wall time of the whole run (interpreter start and torch import included), the
time of each probe (from its first progress line to its result) and every figure with its %
of the catalog peak where a catalog card matched. Goals for the quick suite: under 60 s on a
CPU (auto-sized problems), under 30 s on a GPU. Nothing is saved to the probe history.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from gpuadvisor import catalog  # noqa: E402
from gpuadvisor.probes.compare import versus_catalog  # noqa: E402
from gpuadvisor.probes.history import stored_runs_of  # noqa: E402
from gpuadvisor.probes.protocol import Progress, Result  # noqa: E402
from gpuadvisor.probes.runner import SUITE_PROBES, run_probes  # noqa: E402

GOAL_S = {"cpu": 60.0, "gpu": 30.0}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--full", action="store_true", help="the full suite")
    parser.add_argument("--device", default="auto")
    parser.add_argument("--python", default=sys.executable)
    parser.add_argument("--json", metavar="OUT", help="also write the run as JSON here")
    args = parser.parse_args()

    first_seen: dict[str, float] = {}
    finished: dict[str, float] = {}

    def on_message(message) -> None:
        now = time.monotonic()
        if isinstance(message, Progress):
            first_seen.setdefault(message.probe, now)
        elif isinstance(message, Result):
            finished[message.probe] = now

    started = time.monotonic()
    run = run_probes(SUITE_PROBES, python=args.python, device=args.device,
                     quick=not args.full, timeout_s=900, on_message=on_message)
    wall = time.monotonic() - started
    devices = {r.conditions.get("device") for r in run.results}
    kind = "cpu" if devices == {"cpu"} else "gpu"
    suite = "full" if args.full else "quick"
    print(f"{suite} suite on {', '.join(sorted(map(str, devices))) or '?'}: status {run.status}, "
          f"{wall:.1f} s wall (goal for a {kind}: under {GOAL_S[kind]:.0f} s for quick)")
    for probe in SUITE_PROBES:
        if probe in finished and probe in first_seen:
            print(f"  {probe:<10} {finished[probe] - first_seen[probe]:6.1f} s")
    gpus = catalog.load_gpus()
    for stored in stored_runs_of(run):
        gpu = gpus.get(stored.catalog_id) if stored.catalog_id else None
        rows = {(r.probe, r.figure): r for r in versus_catalog(stored, gpu)}
        print(f"{stored.device_name} (catalog: {stored.catalog_id or 'no match'})")
        for probe, result in stored.results.items():
            for name, value in result["figures"].items():
                row = rows.get((probe, name))
                share = (f"  {row.percent:5.1f}% of {row.theoretical:.4g} {row.basis}"
                         if row is not None and row.percent is not None else "")
                unit = result["units"].get(name, "")
                print(f"  {probe + '.' + name:<34} {value:>10.4g} {unit}{share}")
    for error in run.errors:
        print(f"  error {error.probe}: {error.kind}: {error.message}")
    if args.json:
        Path(args.json).write_text(json.dumps(run.to_json(), indent=1) + "\n", encoding="utf-8")
    return 0 if run.ok else 1


if __name__ == "__main__":
    sys.exit(main())
