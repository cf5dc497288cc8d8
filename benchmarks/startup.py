"""Cold start of the desktop app: process start to the first painted main window.

    python benchmarks/startup.py [--runs 5]

Each run is a fresh interpreter running ``python -m gpuadvisor gui --startup-probe`` on Qt's
offscreen platform with an empty settings folder; the app prints the wall-clock time of the
window's first paint (inputs, verdict, time and levers for the default plan) and of the
charts' first paint (they are built right after the window appears, because importing
pyqtgraph alone takes about half a second), then exits. The figures are those times minus
the moment the benchmark started the process, so interpreter start, imports, catalog loading
and the first estimate all count. One discarded warm-up run fills the operating system's file
cache and Python's bytecode cache first, as on any second launch. Goal: the window painted
within 1.5 s (median).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from gpuadvisor.gui.app import CHARTS_PAINT_MARK, FIRST_PAINT_MARK  # noqa: E402

GOAL_S = 1.5


def paint_times(command: list[str], config_dir: str, cwd: Path | None = None
                ) -> tuple[float, float]:
    """Seconds from starting ``command`` (an app started with ``gui --startup-probe``) to its
    first painted window, and to its first painted charts."""
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", GPUADVISOR_CONFIG_DIR=config_dir)
    start = time.time()
    result = subprocess.run([*command, "gui", "--startup-probe"], capture_output=True,
                            text=True, env=env, cwd=cwd, timeout=120)
    marks = {}
    for line in result.stdout.splitlines():
        name, _, value = line.partition(" ")
        if name in (FIRST_PAINT_MARK, CHARTS_PAINT_MARK):
            marks[name] = float(value) - start
    if len(marks) != 2:
        raise RuntimeError(f"paint marks missing (exit {result.returncode}): "
                           f"{result.stdout[-300:]} {result.stderr[-800:]}")
    return marks[FIRST_PAINT_MARK], marks[CHARTS_PAINT_MARK]


def one_run(config_dir: str) -> tuple[float, float]:
    """The app from this checkout: seconds to the first painted window and charts."""
    return paint_times([sys.executable, "-m", "gpuadvisor"], config_dir, cwd=ROOT)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as config_dir:
        one_run(config_dir)  # warm-up: file cache and .pyc files
        runs = [one_run(config_dir) for _ in range(args.runs)]
    window = statistics.median(r[0] for r in runs)
    charts = statistics.median(r[1] for r in runs)
    verdict = "ok" if window <= GOAL_S else "SLOW"
    print("cold start, offscreen, fresh interpreter per run (seconds from process start):")
    print("  window painted: " + ", ".join(f"{r[0]:.2f}" for r in runs))
    print("  charts painted: " + ", ".join(f"{r[1]:.2f}" for r in runs))
    print(f"median of {len(runs)}: window {window:.2f} s (goal <= {GOAL_S:.1f} s) {verdict}; "
          f"charts {charts:.2f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
