"""How long the Plan page takes to react to an input change, offscreen.

    python benchmarks/redraw.py

Changes the micro-batch back and forth on the Plan page and times, per change: the estimate
and sweeps (core), updating every chart and panel (widgets), and painting the page (a grab of
the whole window, which forces a full paint). Prints medians in milliseconds.
"""

from __future__ import annotations

import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ.setdefault("GPUADVISOR_CONFIG_DIR", tempfile.mkdtemp(prefix="gpuadvisor-bench-"))


def main() -> int:
    from PySide6.QtWidgets import QApplication

    from gpuadvisor.gui.main_window import MainWindow

    app = QApplication.instance() or QApplication([])
    window = MainWindow(persist=False, interactive=False)
    window.resize(1600, 1000)
    window.show()
    page = window.plan_page
    page.ensure_charts()
    for _ in range(5):
        app.processEvents()

    update_ms, paint_ms = [], []
    for i in range(20):
        start = time.perf_counter()
        page.state.update(micro_batch=2 if i % 2 == 0 else 1)
        # The page coalesces changes with a zero-delay timer: let it run.
        for _ in range(3):
            app.processEvents()
        mid = time.perf_counter()
        window.grab()
        end = time.perf_counter()
        update_ms.append((mid - start) * 1000)
        paint_ms.append((end - mid) * 1000)
    update, paint = statistics.median(update_ms), statistics.median(paint_ms)
    print(f"input change -> estimate + widgets updated: {update:6.1f} ms (median of 20)")
    print(f"full-window paint after the change:          {paint:6.1f} ms")
    print(f"total per change:                            {update + paint:6.1f} ms "
          f"(a 60 Hz frame is 16.7 ms; ~100 ms is where lag becomes visible)")
    window.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
