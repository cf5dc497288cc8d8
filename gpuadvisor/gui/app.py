"""Start the desktop app: check for a display, create the QApplication, show the main window.

``run(args)`` serves ``gpuadvisor`` (no arguments), ``gpuadvisor gui``, ``python -m gpuadvisor``
and ``gpuadvisor-gui``. With ``--screenshot PATH`` it renders the window offscreen at a fixed
size, writes a PNG and exits; ``--startup-probe`` prints the wall-clock time of the first
paint and exits (``benchmarks/startup.py`` reads it).

The flags are defined here (:func:`add_gui_arguments`): the command line's ``gui`` verb adds
them to its parser, and ``gpuadvisor-gui`` (:func:`main`) parses them itself, without the
command line.
"""

from __future__ import annotations

import argparse
import os
import sys
import time

#: Qt platform plugins that need no window system.
HEADLESS_PLATFORMS = frozenset({
    "offscreen", "minimal", "minimalegl", "eglfs", "linuxfb", "vnc", "vkkhrdisplay",
    "directfb",
})

NO_DISPLAY_MESSAGE = (
    "gpuadvisor: no display found; use the command line (gpuadvisor estimate --help) "
    "or render offscreen with gpuadvisor gui --screenshot plan.png"
)

#: Window size of ``--screenshot`` when ``--size`` is not given.
SCREENSHOT_SIZE = (1600, 1000)

#: Printed by ``--startup-probe`` before the wall-clock time (``time.time()``) of the window's
#: first paint, and of the first paint of the charts.
FIRST_PAINT_MARK = "gpuadvisor-first-paint"
CHARTS_PAINT_MARK = "gpuadvisor-charts-painted"

EXIT_NO_DISPLAY = 2
#: Exit status of a bad flag (as the command line's).
EXIT_BAD_INPUT = 2

#: The ``gui`` verb's description (``gpuadvisor gui -h``, ``gpuadvisor-gui -h``).
DESCRIPTION = "Open the desktop app, or render it offscreen to a PNG."


def add_gui_arguments(parser: argparse.ArgumentParser) -> None:
    """The ``gui`` verb's flags (shared by ``gpuadvisor gui`` and ``gpuadvisor-gui``)."""
    parser.add_argument("--screenshot", metavar="PATH", type=non_empty,
                        help="render the window offscreen, write a PNG to PATH and exit")
    parser.add_argument("--page", choices=("rig", "probe", "plan", "compare"), default=None,
                        help="page to show first (default: plan)")
    parser.add_argument("file", nargs="?", metavar="FILE", type=non_empty, default=None,
                        help="a .gpuplan to open, or a config.json, model folder or .gguf to "
                             "use as the model (what a double-click on a plan passes)")
    parser.add_argument("--plan", metavar="FILE", type=non_empty, help="open a .gpuplan file")
    parser.add_argument("--size", metavar="WxH", type=window_size, default=None,
                        help="window size for --screenshot (default 1600x1000)")
    parser.add_argument("--presentation", action="store_true",
                        help="start in presentation mode (large fonts, high contrast)")
    parser.add_argument("--theme", choices=("system", "light", "dark"), default=None,
                        help="colours for this run: follow the system, light or dark "
                             "(default: View → Theme, saved in the settings)")
    parser.add_argument("--language", choices=("en", "zh_CN"), default=None,
                        help="language for this run (default: View → Language)")
    parser.add_argument("--simulate", metavar="SPEC", default=None, type=non_empty,
                        help="show a demo rig instead of this machine: catalog ids like "
                             "'2x rtx-3090', 'h100-sxm', or a scenario (one-gpu, mixed, "
                             "unsupported-fields, gpu-lost, no-gpu)")
    parser.add_argument("--startup-probe", action="store_true", help=argparse.SUPPRESS)


def non_empty(text: str) -> str:
    """argparse type of a path or name flag: refuse an empty value (it would otherwise open
    the interactive app, or read the current folder, instead of what was meant)."""
    if not text.strip():
        raise argparse.ArgumentTypeError("empty: give a value")
    return text


def window_size(text: str) -> tuple[int, int]:
    """argparse type of ``--size``: ``WIDTHxHEIGHT`` in pixels, each 200 to 10000."""
    width, sep, height = text.lower().partition("x")
    try:
        size = (int(width), int(height))
    except ValueError:
        size = (0, 0)
    if not sep or min(size) < 200 or max(size) > 10000:
        raise argparse.ArgumentTypeError(f"expected WIDTHxHEIGHT like 1600x1000, got {text!r}")
    return size


class _BadFlag(Exception):
    """A bad ``gpuadvisor-gui`` flag: one line on stderr, exit status 2."""


class _Parser(argparse.ArgumentParser):
    """ArgumentParser whose errors are one line naming the problem (exit 2)."""

    def error(self, message: str) -> None:  # argparse's API: must not return
        raise _BadFlag(f"{self.prog}: {message}")


def build_parser() -> argparse.ArgumentParser:
    """The parser of ``gpuadvisor-gui``: the ``gui`` verb's flags; ``verb`` is ``"gui"``."""
    parser = _Parser(prog="gpuadvisor gui", description=DESCRIPTION)
    add_gui_arguments(parser)
    parser.set_defaults(verb="gui")
    return parser


def display_problem(environ=None, platform: str | None = None, *,
                    seen: bool = False) -> str | None:
    """Why a window cannot be opened here (one line), or None when it can.

    Only X11/Wayland systems can lack a display; Windows and macOS always have one. A
    headless Qt platform (``QT_QPA_PLATFORM=offscreen``, ``minimal``, ...) needs none, and
    serves a window nobody sees: with ``seen`` (a window for a person, not a screenshot) it
    is a problem too, whatever the system.
    """
    env = os.environ if environ is None else environ
    platform = sys.platform if platform is None else platform
    requested = {part.split(":", 1)[0].strip().lower()
                 for part in env.get("QT_QPA_PLATFORM", "").split(";") if part.strip()}
    headless = requested & HEADLESS_PLATFORMS
    if headless and seen:
        return (f"gpuadvisor: QT_QPA_PLATFORM={env.get('QT_QPA_PLATFORM')} draws no window "
                "anyone can see; unset it to open the app, or use the command line "
                "(gpuadvisor estimate --help)")
    if platform.startswith(("win", "darwin", "cygwin")):
        return None
    if headless:
        return None
    if env.get("DISPLAY") or env.get("WAYLAND_DISPLAY"):
        return None
    return NO_DISPLAY_MESSAGE


def _say(line: str) -> None:
    # A gui-script on Windows has no console: sys.stderr is None there.
    if sys.stderr is not None:
        print(line, file=sys.stderr)


def create_application():
    """The QApplication (created once), named for settings and the window title."""
    from PySide6.QtWidgets import QApplication

    from gpuadvisor import __version__

    app = QApplication.instance()
    if app is None:
        app = QApplication([sys.argv[0] if sys.argv else "gpuadvisor"])
    app.setApplicationName("gpuadvisor")
    app.setOrganizationName("gpuadvisor")
    app.setApplicationVersion(__version__)
    app.setApplicationDisplayName("GPU Advisor")
    app.setDesktopFileName("gpuadvisor")
    from .about import app_icon

    app.setWindowIcon(app_icon())  # every window's title bar, the task bar, the About box
    return app


def run(args) -> int:
    """Open the main window (or render a screenshot); the exit status.

    Args:
        args: the ``gui`` verb's parsed flags (``screenshot``, ``page``, ``plan``, ``size``,
            ``presentation``, ``simulate``, ``startup_probe``).
    """
    if getattr(args, "screenshot", None) and not os.environ.get("QT_QPA_PLATFORM"):
        os.environ["QT_QPA_PLATFORM"] = "offscreen"
    problem = display_problem()
    if problem is not None:
        _say(problem)
        return EXIT_NO_DISPLAY

    app = create_application()
    previous_handler = quiet_headless_platform(app)
    try:
        return _run(app, args)
    finally:
        if previous_handler is not False:
            from PySide6.QtCore import qInstallMessageHandler

            qInstallMessageHandler(previous_handler)


def quiet_headless_platform(app):
    """On offscreen/minimal platforms, drop Qt's "This plugin does not support ..." warnings
    (window features a headless platform lacks; noise on every ``--screenshot``).

    Returns the previous message handler to restore, or False when nothing was installed.
    """
    from PySide6.QtCore import qInstallMessageHandler

    if app.platformName() not in HEADLESS_PLATFORMS:
        return False
    previous = None

    def handler(mode, context, message):
        if message.startswith("This plugin does not support"):
            return
        if previous is not None:
            previous(mode, context, message)
        elif sys.stderr is not None:
            sys.stderr.write(message + "\n")

    previous = qInstallMessageHandler(handler)
    return previous


def _run(app, args) -> int:
    from gpuadvisor.workspace.settings import load_settings

    from .main_window import MainWindow

    first_run = is_first_start()  # before anything writes the settings
    settings, warning = load_settings()
    if getattr(args, "theme", None):
        settings.theme = args.theme
    if getattr(args, "language", None):
        settings.language = args.language
    _install_language(settings.language)
    screenshot = getattr(args, "screenshot", None)
    simulate = getattr(args, "simulate", None)
    if simulate is not None:
        from gpuadvisor.hardware import SimulatedBackend

        try:
            SimulatedBackend(simulate).close()
        except ValueError as exc:
            _say(f"gpuadvisor gui: --simulate: {exc}")
            return EXIT_NO_DISPLAY
    # The window appears first and the charts follow (pyqtgraph takes half a second to
    # import); a screenshot needs them at once.
    window = MainWindow(settings=settings, settings_warning=warning,
                        persist=not screenshot, interactive=not screenshot,
                        defer_charts=not screenshot, simulate=simulate, detect=True,
                        own_app=True, first_run=first_run and not screenshot)
    if getattr(args, "presentation", False):
        window.set_presentation(True, full_screen=not screenshot)
    if getattr(args, "page", None):
        window.show_page(args.page)
    if getattr(args, "plan", None) and not window.open_plan(args.plan) and screenshot:
        # Interactive runs show the problem in a message box; a screenshot run cannot.
        _say(f"gpuadvisor gui: --plan: {window.last_message[2]}")
        window.close()
        return EXIT_NO_DISPLAY
    if getattr(args, "file", None):
        opened = window.open_dropped(args.file)
        if screenshot:
            if not opened:
                _say(f"gpuadvisor gui: {window.last_message[2]}")  # names the file
                window.close()
                return EXIT_NO_DISPLAY
            window.model_files.wait()  # a model file is read in the background
    _open_files_from_the_system(app, window)
    if screenshot:
        return _screenshot(app, window, screenshot, getattr(args, "size", None))
    if getattr(args, "startup_probe", False):
        _probe_first_paint(app, window)
    elif not window.isVisible():
        window.show()
    return app.exec()


def is_first_start() -> bool:
    """Whether this is the app's first start here: no settings file yet (the window saves
    one when it closes). The first start shows the first-run panel."""
    from gpuadvisor.workspace.settings import settings_path

    return not settings_path().exists()


def _open_files_from_the_system(app, window) -> None:
    """macOS hands a double-clicked document to the running app as a FileOpen event, not
    as an argument: open it as a drop (plans ask about unsaved changes first)."""
    if sys.platform != "darwin":
        return
    from PySide6.QtCore import QEvent, QObject

    class FileOpener(QObject):
        def eventFilter(self, watched, event) -> bool:
            if event.type() == QEvent.Type.FileOpen and event.file():
                window.open_dropped(event.file())
                return True
            return False

    window._file_opener = FileOpener(window)
    app.installEventFilter(window._file_opener)


def _install_language(setting: str) -> None:
    """Load the user's language before any window exists (texts are translated when built)."""
    try:
        from .i18n import install_language, missing_font
    except ImportError:  # translations not available in this build
        return
    language = install_language(setting)
    warning = missing_font(language)
    if warning:
        _say(warning)


def _screenshot(app, window, path: str, size) -> int:
    width, height = size or SCREENSHOT_SIZE
    window.resize(width, height)
    window.show()
    window.flush()
    if window.current_page() == "rig":
        # A few readings, so that the live charts show lines rather than one point.
        for _ in range(12):
            window.rig_page.sample_now()
    # Twice: the first pass lays out and paints, which may ask for one more layout (lever
    # buttons that break onto two lines when narrow).
    app.processEvents()
    app.processEvents()
    image = window.grab()
    window.close()
    if not image.save(path, "PNG"):
        _say(f"gpuadvisor gui: --screenshot: cannot write {path}")
        return EXIT_NO_DISPLAY
    return 0


def _probe_first_paint(app, window) -> None:
    """Print when the window is first painted, then when the charts are painted, and quit."""
    from PySide6.QtCore import QEvent, QObject, QTimer

    page = window.plan_page

    class PaintProbe(QObject):
        def __init__(self) -> None:
            super().__init__(window)
            self.marks: list[str] = []

        def eventFilter(self, watched, event) -> bool:
            if event.type() == QEvent.Type.Paint:
                if not self.marks:
                    self.marks.append(FIRST_PAINT_MARK)
                    # After the whole paint pass (children included).
                    QTimer.singleShot(0, lambda: self.report(FIRST_PAINT_MARK))
                elif len(self.marks) == 1 and watched is not window:
                    self.marks.append(CHARTS_PAINT_MARK)
                    QTimer.singleShot(0, lambda: self.report(CHARTS_PAINT_MARK))
            return False

        def report(self, mark: str) -> None:
            print(f"{mark} {time.time():.6f}", flush=True)
            if mark == CHARTS_PAINT_MARK:
                window.close()
                app.quit()

    probe = PaintProbe()
    window.installEventFilter(probe)
    # The chart's viewport is what paints (the chart widget itself only holds it).
    page.charts_built.connect(
        lambda: page.charts[0].plot_widget.viewport().installEventFilter(probe))
    window.show()


def main(argv: list[str] | None = None) -> int:
    """Entry point of ``gpuadvisor-gui`` (the ``gui`` verb's flags): a bad flag or a broken
    catalog is one line on stderr and exit status 2, as on the command line."""
    try:
        args = build_parser().parse_args(sys.argv[1:] if argv is None else argv)
        return run(args)
    except _BadFlag as exc:
        _say(str(exc).replace("\n", " "))
        return EXIT_BAD_INPUT
    except _catalog_error() as exc:
        _say(f"catalog: {exc}".replace("\n", " "))
        return EXIT_BAD_INPUT
    except BrokenPipeError:
        return 0


def _catalog_error():
    # Imported only when something went wrong: the catalog is not needed to parse flags.
    from gpuadvisor.catalog import CatalogError

    return CatalogError


if __name__ == "__main__":
    sys.exit(main())
