"""What every ``gpuadvisor probe`` mode shares: choosing the interpreter that runs the worker
(``--python``, the remembered one, or one found with torch), running the worker with a
progress line, and recording the results in the probe history."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from .args import InputError, json_text


def probe_python(text: str | None) -> str:
    """The interpreter for the worker: this one, or ``--python`` (a venv folder is accepted)."""
    if text is None:
        return sys.executable
    if not text.strip() or "\0" in text:
        raise InputError("--python: give an interpreter or an environment folder (the path "
                         "is empty)" if not text.strip() else "--python: not a usable path")
    path = Path(text).expanduser()
    if path.is_dir():
        for candidate in (path / "bin" / "python", path / "Scripts" / "python.exe",
                          path / "python.exe"):
            if candidate.is_file():
                return str(candidate)
        raise InputError(f"--python: no Python interpreter in the folder {text}")
    if not path.is_file():
        raise InputError(f"--python: not found: {text}")
    return str(path)


def find_probe_python() -> tuple[str, str]:
    """The interpreter for a probe run without ``--python`` (the remembered one, this one,
    or one found with torch), and a note for the torch-missing message. Says in one line on
    stderr when it is not this interpreter."""
    import os

    from gpuadvisor.probes import interpreters
    from gpuadvisor.workspace.settings import load_settings

    settings, _ = load_settings()
    chosen, checked = interpreters.find_probe_interpreter(settings.probe_python)
    if chosen is None:
        others = len(checked) - 1
        note = (f" (nor in {others} other interpreter(s) found: gpuadvisor probe "
                "--list-pythons)") if others > 0 else ""
        return sys.executable, note
    if os.path.abspath(chosen.python) != os.path.abspath(sys.executable):
        how = ("remembered" if chosen.python == settings.probe_python
               else "this Python has no torch")
        print(f"gpuadvisor probe: running the probes in {chosen.python} ({chosen.summary()}; "
              f"{how}; --python to choose another)", file=sys.stderr)
    return chosen.python, ""


def remember_probe_python(python: str) -> None:
    """Save ``python`` as the ``probe_python`` setting; a failure is one line on stderr."""
    import os

    from gpuadvisor.workspace.settings import load_settings, save_settings

    settings, _ = load_settings()
    path = os.path.abspath(python)
    if settings.probe_python == path:
        return
    settings.probe_python = path
    try:
        save_settings(settings)
    except (OSError, ValueError) as exc:
        print(f"gpuadvisor probe: could not remember --python in the settings: {exc}",
              file=sys.stderr)


def list_pythons(args: argparse.Namespace) -> int:
    """``probe --list-pythons``: each interpreter found, checked by the worker's handshake."""
    import os

    from gpuadvisor.probes import interpreters
    from gpuadvisor.workspace.settings import load_settings

    settings, _ = load_settings()
    pythons = [Path(p) for p in interpreters.candidate_pythons()]
    remembered = settings.probe_python
    keys = {os.path.abspath(p) for p in pythons}
    if remembered and os.path.abspath(remembered) not in keys:
        pythons.insert(0, Path(remembered))
    infos = interpreters.check_all(pythons)
    current = os.path.abspath(sys.executable)
    rows = []
    for info in infos:
        row = info.to_json()
        row["current"] = os.path.abspath(info.python) == current
        row["remembered"] = bool(remembered) and os.path.abspath(info.python) == os.path.abspath(
            remembered)
        rows.append(row)
    if args.json:
        print(json_text({"pythons": rows}))
        return 0
    for info, row in zip(infos, rows, strict=True):
        marks = [m for m in ("current", "remembered") if row[m]]
        suffix = f"  [{', '.join(marks)}]" if marks else ""
        print(f"{info.python}  {info.summary()}{suffix}")
    if not any(info.usable for info in infos):
        print("gpuadvisor probe: no interpreter found has torch; install it (pip install torch) "
              "or name yours: --python /path/to/your/training/env/bin/python", file=sys.stderr)
    return 0


def run_worker(args: argparse.Namespace, probes, python: str, options,
               kind: str | None = None):
    """Run ``probes`` in the worker with a progress line on a terminal, then the common
    aftermath: a bad ``--device`` is bad input, a working ``--python`` is remembered, the
    results go to the history (unless ``--no-save``). ``kind`` picks the default time limit
    (:data:`gpuadvisor.probes.runner.TIMEOUTS_S`; default: the suite's).

    Returns:
        ``(run, saved files, save problems)``, or 130 when interrupted (Ctrl-C).
    """
    from gpuadvisor.probes import runner
    from gpuadvisor.probes.protocol import Progress

    show_progress = not args.json and sys.stderr.isatty()

    def on_message(message) -> None:
        if show_progress and isinstance(message, Progress):
            print(f"\r\x1b[K{message.probe:<10} {message.fraction:4.0%}  {message.message}",
                  end="", file=sys.stderr, flush=True)

    try:
        run = runner.run_probes(probes, python=python, device=args.device,
                                timeout_s=args.timeout
                                or runner.TIMEOUTS_S[kind or args.suite],
                                quick=args.suite == "quick", on_message=on_message,
                                worker=runner.WORKER_SCRIPT, options=options)
    except KeyboardInterrupt:  # run_probes has stopped the worker on the way out
        print("\ngpuadvisor probe: cancelled", file=sys.stderr)
        return 130
    finally:
        if show_progress:
            print("\r\x1b[K", end="", file=sys.stderr, flush=True)
    bad_device = next((e for e in run.errors if e.kind == "bad-device"), None)
    if bad_device is not None:
        raise InputError(bad_device.message)
    if (args.python is not None and not args.no_remember and run.hello is not None
            and run.hello.torch is not None):
        remember_probe_python(python)
    saved, save_problems = ([], []) if args.no_save else record_probe_run(run)
    return run, saved, save_problems


def record_probe_run(run) -> tuple[list, list[str]]:
    """Record a run's results in the probe history: (files written, problems for stderr).

    Only results are recorded (a cancelled run or a run without torch has none).
    """
    from gpuadvisor.probes import history

    if run.status == "cancelled" or not run.results:
        return [], []
    problems: list[str] = []
    try:
        return history.record(run, warnings=problems), problems
    except OSError as exc:
        return [], [*problems, f"could not save the probe history: {exc}"]


def print_save_problems(problems: list[str]) -> None:
    """Each problem met while saving to the history, one line each on stderr."""
    for problem in problems:
        print(f"gpuadvisor probe: {problem}".replace("\n", " "), file=sys.stderr)


def print_torch_missing(python: str, no_torch_note: str) -> None:
    """One line on stderr: ``python`` has no torch, and how to give the probes one."""
    print(f"gpuadvisor probe: torch is not installed in {python}{no_torch_note}; install "
          "it there (pip install torch) or use your training environment: "
          "--python /path/to/your/training/env/bin/python", file=sys.stderr)


def print_run_errors(run) -> None:
    """The run's errors on stderr, one line each (naming the probe and the kind)."""
    for error in run.errors:
        print(f"gpuadvisor probe: {error.probe or 'run'}: {error.kind}: "
              f"{error.message}".replace("\n", " "), file=sys.stderr)
