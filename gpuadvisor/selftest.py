"""``gpuadvisor --self-test``: does this installation work, end to end, without a screen?

Checks, in order, and stops at the first failure:

1. the catalog loads (GPUs, models, offers) and a typical plan estimates (QLoRA of
   Llama 3.1 8B on an RTX 4090: it must fit, with a positive time);
2. this machine's hardware detection runs (no GPU is fine; torch is not asked);
3. the probe worker script exists as a file (the user's Python runs it by path);
4. the Chinese translation loads and translates;
5. every page of the main window renders to a PNG that is not trivial: large enough, and
   not one flat colour (a page that failed to draw, or drew nothing, is a few colours).

It runs on Qt's ``offscreen`` platform unless the caller chose one (``QT_QPA_PLATFORM=xcb``
under Xvfb tests the real X11 plugin), with settings and data in a temporary folder, so it
never reads or writes the user's own; the pages show a demo rig. It prints one line, and
exits 0 when everything passed, 1 otherwise (the line then names the step and the problem).
Installers run it after installing (``packaging/smoke.sh``); so can a user who reports a bug.
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

#: Window size the pages are rendered at.
WINDOW_SIZE = (1400, 900)
#: A rendered page smaller than this (PNG bytes) is taken as empty.
MIN_PNG_BYTES = 4_000
#: ...and so is one with fewer distinct colours than this (text alone brings dozens, from
#: anti-aliasing; a blank or single-colour page has one or two).
MIN_COLOURS = 24
#: ...or one where a single colour (the background) covers more than this share of the
#: pixels. A page of a few paragraphs of text leaves about 98% to its background.
MAX_DOMINANT_SHARE = 0.995
#: Demo rig shown on the Rig page (stable content, whatever this machine has).
DEMO_RIG = "mixed"
#: The typical plan estimated: QLoRA of Llama 3.1 8B on an RTX 4090 with full activation
#: checkpointing, other settings at the command line's defaults (the plan a bare
#: ``gpuadvisor`` shows in a terminal without a display).
TYPICAL_MODEL = "llama-3.1-8b"
TYPICAL_GPU = "rtx-4090"
TYPICAL_PLAN = {"task": "qlora", "checkpointing": "full"}
#: Keep the PNGs in this folder instead of a temporary one that is removed afterwards.
KEEP_DIR_ENV = "GPUADVISOR_SELFTEST_DIR"

EXIT_OK = 0
EXIT_FAILED = 1


class SelfTestError(Exception):
    """A check failed; ``step`` names it, the message says what was wrong."""

    def __init__(self, step: str, message: str) -> None:
        super().__init__(message)
        self.step = step


@dataclass(frozen=True)
class PageImage:
    """One rendered page and what was measured on it."""

    name: str
    path: Path
    width_px: int
    height_px: int
    png_bytes: int
    colours: int
    dominant_share: float


def image_stats(path: Path) -> tuple[int, int, int, float]:
    """``(width_px, height_px, distinct colours, share of the most common colour)`` of a PNG.

    Raises:
        ValueError: the file is not a readable image.
    """
    import numpy as np
    from PySide6.QtGui import QImage

    image = QImage(str(path))
    if image.isNull():
        raise ValueError(f"{path} is not a readable image")
    image = image.convertToFormat(QImage.Format.Format_RGB32)
    width, height = image.width(), image.height()
    words_per_line = image.bytesPerLine() // 4
    pixels = np.frombuffer(image.constBits(), dtype=np.uint32,
                           count=words_per_line * height).reshape(height, words_per_line)
    _, counts = np.unique(pixels[:, :width], return_counts=True)
    return width, height, int(counts.size), float(counts.max()) / (width * height)


def check_page_image(name: str, path: Path) -> PageImage:
    """Measure a rendered page and raise :class:`SelfTestError` when it looks empty."""
    if not path.is_file():
        raise SelfTestError(f"render {name}", f"no image written to {path}")
    size = path.stat().st_size
    try:
        width, height, colours, dominant = image_stats(path)
    except ValueError as exc:
        raise SelfTestError(f"render {name}", str(exc)) from None
    page = PageImage(name, path, width, height, size, colours, dominant)
    problems = []
    if size < MIN_PNG_BYTES:
        problems.append(f"{size} bytes < {MIN_PNG_BYTES}")
    if colours < MIN_COLOURS:
        problems.append(f"{colours} colours < {MIN_COLOURS}")
    if dominant > MAX_DOMINANT_SHARE:
        problems.append(f"one colour covers {dominant:.1%} of it")
    if problems:
        raise SelfTestError(f"render {name}",
                            f"page looks empty ({', '.join(problems)}): {path}")
    return page


@contextmanager
def _private_environment(root: Path) -> Iterator[None]:
    """Settings, data and caches under ``root``; a headless Qt platform unless one was
    chosen. Restores the environment afterwards."""
    from gpuadvisor.probes.history import DATA_DIR_ENV
    from gpuadvisor.workspace.settings import CONFIG_DIR_ENV

    changes = {CONFIG_DIR_ENV: str(root / "config"), DATA_DIR_ENV: str(root / "data"),
               # platformdirs' caches (compiled translations) on Linux and BSD:
               "XDG_CACHE_HOME": str(root / "cache")}
    if not os.environ.get("QT_QPA_PLATFORM"):
        changes["QT_QPA_PLATFORM"] = "offscreen"
    saved = {name: os.environ.get(name) for name in changes}
    os.environ.update(changes)
    try:
        yield
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


def _estimate_typical_plan() -> tuple[str, Mapping[str, int]]:
    from gpuadvisor import catalog
    from gpuadvisor.core.assumptions import DEFAULT_ASSUMPTIONS
    from gpuadvisor.core.estimate import REFERENCE_GPU_ID
    from gpuadvisor.core.plan import Plan
    from gpuadvisor.core.resolve import resolve

    gpus, models, offers = catalog.load_gpus(), catalog.load_models(), catalog.load_offers()
    counts = {"GPUs": len(gpus), "models": len(models), "offers": len(offers)}
    empty = [kind for kind, n in counts.items() if n == 0]
    if empty:
        raise SelfTestError("catalog", f"no {', '.join(empty)} in {catalog.catalog_dir()}")
    model, gpu = models[TYPICAL_MODEL], gpus[TYPICAL_GPU]
    # The sequence as the command line defaults it: 2048, or the model's context if shorter.
    seq_len = min(2048, getattr(model, "max_positions", 0) or 2048)
    plan = Plan(**TYPICAL_PLAN, seq_len=seq_len)
    result = resolve(model, plan, gpu, DEFAULT_ASSUMPTIONS,
                     reference_gpu=gpus[REFERENCE_GPU_ID]).to_json()
    per_gpu = result["memory"]["per_gpu_bytes"]
    seconds = result["time"]["seconds"]
    what = f"{TYPICAL_MODEL} {plan.task} on {TYPICAL_GPU}"
    if not result["memory"]["fits"] or not per_gpu > 0 or not seconds > 0:
        raise SelfTestError("estimate", f"{what}: unexpected result "
                            f"(fits={result['memory']['fits']}, per GPU {per_gpu} B, "
                            f"{seconds} s)")
    return f"{what} fits ({per_gpu / 2**30:.1f} GiB)", counts


def _detect_hardware() -> str:
    from gpuadvisor.hardware import detect

    try:
        found = detect(None, probe_torch=False)
    except Exception as exc:  # any failure here is what the self-test exists to report
        raise SelfTestError("detect", f"{type(exc).__name__}: {exc}") from None
    return f"{len(found.gpus)} GPU(s) via {found.backend}"


def _check_worker_files() -> None:
    from gpuadvisor.probes import runner

    folder = runner.WORKER_SCRIPT.parent
    # The worker runs by path in another Python and imports its neighbours from its folder.
    needed = [runner.WORKER_SCRIPT, folder / "kernels",
              *(folder / f"worker_{name}.py"
                for name in ("kit", "devices", "matmul", "bandwidth"))]
    missing = [p for p in needed if not p.exists()]
    if missing:
        raise SelfTestError("probe worker", "missing: " + ", ".join(map(str, missing)))


def _check_translation() -> None:
    from PySide6.QtCore import QCoreApplication

    from gpuadvisor.gui.i18n import install_language

    try:
        if install_language("zh_CN") != "zh_CN":
            raise SelfTestError("translations", "the zh_CN catalog could not be loaded")
        if QCoreApplication.translate("MainWindow", "Plan") == "Plan":
            raise SelfTestError("translations", "the zh_CN catalog translates nothing")
    finally:
        install_language("en")


def _render_pages(out_dir: Path) -> tuple[list[PageImage], str]:
    from PySide6.QtWidgets import QApplication

    from gpuadvisor.gui import app as gui_app
    from gpuadvisor.gui.main_window import MainWindow
    from gpuadvisor.workspace.settings import Settings

    qt_app = gui_app.create_application()
    previous_handler = gui_app.quiet_headless_platform(qt_app)
    window = None
    try:
        _check_translation()
        # No interpreter scan: it would start the user's Pythons (and torch) for seconds.
        window = MainWindow(settings=Settings(), persist=False, interactive=False,
                            simulate=DEMO_RIG, detect=True,
                            probe_options={"discover": lambda _preferred: []})
        window.resize(*WINDOW_SIZE)
        window.show()
        images = []
        for name, page in window.pages.items():
            window.show_page(name)
            window.flush()
            if name == "rig":  # a few readings, so the live charts draw lines
                for _ in range(6):
                    window.rig_page.sample_now()
            QApplication.processEvents()
            QApplication.processEvents()
            path = out_dir / f"page-{name}.png"
            if not page.grab().save(str(path), "PNG"):
                raise SelfTestError(f"render {name}", f"cannot write {path}")
            images.append(check_page_image(name, path))
        if not images:
            raise SelfTestError("render", "the main window has no pages")
        return images, qt_app.platformName()
    finally:
        if window is not None:
            window.close()
            window.deleteLater()
            QApplication.processEvents()
        if previous_handler is not False:
            from PySide6.QtCore import qInstallMessageHandler

            qInstallMessageHandler(previous_handler)


def run_self_test() -> str:
    """Run every check; the one-line summary of a pass.

    Raises:
        SelfTestError: the first check that failed.
    """
    from gpuadvisor import __version__

    started = time.perf_counter()
    keep = os.environ.get(KEEP_DIR_ENV)
    root = Path(tempfile.mkdtemp(prefix="gpuadvisor-selftest-"))
    out_dir = Path(keep) if keep else root / "pages"
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
        with _private_environment(root):
            plan_text, counts = _estimate_typical_plan()
            hardware_text = _detect_hardware()
            _check_worker_files()
            images, platform = _render_pages(out_dir)
    except SelfTestError:
        raise
    except Exception as exc:  # an unexpected crash is a failed self-test, reported as such
        raise SelfTestError("unexpected", f"{type(exc).__name__}: {exc}") from exc
    finally:
        shutil.rmtree(root, ignore_errors=True)
    frozen = "frozen" if getattr(sys, "frozen", False) else "from source"
    catalog_text = ", ".join(f"{n} {kind}" for kind, n in counts.items())
    pages_text = ", ".join(image.name for image in images)
    where = f"; PNGs in {out_dir}" if keep else ""
    return (f"gpuadvisor {__version__} self-test passed ({frozen}, {platform}, "
            f"{time.perf_counter() - started:.1f} s): catalog {catalog_text}; "
            f"{plan_text}; {hardware_text}; {len(images)} pages rendered ({pages_text}){where}")


def main() -> int:
    """Run the self-test, print its one line (stdout on success, stderr on failure)."""
    try:
        print(run_self_test(), flush=True)
    except SelfTestError as exc:
        message = str(exc).replace("\n", " ")
        print(f"gpuadvisor self-test FAILED at {exc.step}: {message}", file=sys.stderr,
              flush=True)
        return EXIT_FAILED
    return EXIT_OK
