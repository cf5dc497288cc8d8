"""Find a Python interpreter with torch to run the probe worker in (Qt-free).

An installed app may have no torch; the user's training environment does. The worker is a
self-contained script, so any interpreter with torch can run it. :func:`candidate_pythons`
lists interpreters in the usual places (this one, conda environments, virtualenvs,
``python3``/``python`` on PATH); :func:`check_interpreter` asks one for the worker's ``hello``
(torch version, accelerators, devices) with a deadline, so a broken interpreter is an error
text, never a hang; :func:`find_probe_interpreter` picks one: the user's (``--python`` or the
``probe_python`` setting), else this one, else the first candidate with torch, one with an
accelerator first.
"""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from . import runner

#: Seconds one handshake may take (importing torch and initialising CUDA can take a while).
CHECK_TIMEOUT_S = 20.0

#: Folders under the home folder that hold conda installations (each has ``envs/*``).
CONDA_ROOTS = ("miniconda3", "anaconda3", "miniforge3", "mambaforge", ".conda")
#: Folders under the home folder whose subfolders are virtual environments.
VENV_ROOTS = (".virtualenvs", "venvs", ".venvs")
#: Accelerator names as the worker reports them (``cpu`` is always there and not listed).
ACCELERATORS = ("cuda", "rocm", "mps", "xpu")


@dataclass(frozen=True)
class InterpreterInfo:
    """What the ``hello`` handshake said about one interpreter.

    Attributes:
        python: The interpreter's path.
        torch: torch's version there, or ``None`` (missing, or the check failed).
        accelerators: Available accelerators among ``cuda``, ``rocm``, ``mps``, ``xpu``.
        devices: Names of the devices torch sees (the CPU last).
        python_version: The interpreter's version, when it answered.
        torch_error: Why ``import torch`` failed there, when it did.
        error: Why the check failed (no start, timeout, crash, garbage), or ``None``.
    """

    python: str
    torch: str | None = None
    accelerators: tuple[str, ...] = ()
    devices: tuple[str, ...] = ()
    python_version: str | None = None
    torch_error: str | None = None
    error: str | None = None

    @property
    def usable(self) -> bool:
        """It answered and has torch: the worker can run there."""
        return self.error is None and self.torch is not None

    def to_json(self) -> dict[str, Any]:
        return {"python": self.python, "python_version": self.python_version,
                "torch": self.torch, "accelerators": list(self.accelerators),
                "devices": list(self.devices), "torch_error": self.torch_error,
                "error": self.error, "usable": self.usable}

    def summary(self) -> str:
        """One line for people: torch version and accelerators, or what is wrong."""
        if self.error is not None:
            return f"error: {self.error}".replace("\n", " ")
        if self.torch is None:
            return "no torch"
        if not self.accelerators:
            return f"torch {self.torch}, CPU only"
        gpus = "; ".join(self.devices[:-1])  # the worker lists the CPU last
        return f"torch {self.torch}, {', '.join(self.accelerators)}" + (
            f" ({gpus})" if gpus else "")


def env_python(env_dir: Path) -> Path | None:
    """The interpreter inside an environment folder (POSIX ``bin/python``, Windows
    ``python.exe`` or ``Scripts/python.exe``), or ``None``."""
    names = (("python.exe", "Scripts/python.exe") if sys.platform == "win32" else ()) + (
        "bin/python", "bin/python3")
    for name in names:
        candidate = env_dir / name
        if candidate.is_file():
            return candidate
    return None


def own_python(frozen: bool | None = None) -> str | None:
    """This process's interpreter, or None in the installed (frozen) app, whose executable
    is the app itself and cannot run a probe worker."""
    frozen = getattr(sys, "frozen", False) if frozen is None else frozen
    return None if frozen else sys.executable


#: The default ``current`` interpreter of the functions below.
OWN_PYTHON = own_python()


def candidate_pythons(env: Mapping[str, str] = os.environ, home: Path | None = None,
                      which: Callable[[str], str | None] = shutil.which,
                      current: str | os.PathLike | None = OWN_PYTHON) -> list[Path]:
    """Interpreters in the usual places, in this order: the current one; ``$CONDA_PREFIX``;
    conda environments and base installations under ``home`` (miniconda3, anaconda3,
    miniforge3, mambaforge, .conda); ``$VIRTUAL_ENV``; virtualenvs under ``~/.virtualenvs``,
    ``~/venvs``, ``~/.venvs``; ``python3`` and ``python`` on PATH.

    Only existing files are listed, one per environment: two paths whose folders are the
    same real folder (``bin/python`` and ``bin/python3``, or a PATH entry reaching the
    active venv) count once. The executable itself is not resolved, because a venv's
    ``python`` is a symlink to its base interpreter yet has its own packages.
    """
    home = Path.home() if home is None else Path(home)
    found: list[Path | None] = [Path(current) if current else None]
    if env.get("CONDA_PREFIX"):
        found.append(env_python(Path(env["CONDA_PREFIX"])))
    for root in CONDA_ROOTS:
        base = home / root
        found.append(env_python(base))
        found.extend(_envs_in(base / "envs"))
    if env.get("VIRTUAL_ENV"):
        found.append(env_python(Path(env["VIRTUAL_ENV"])))
    for root in VENV_ROOTS:
        found.extend(_envs_in(home / root))
    for name in ("python3", "python"):
        path = which(name)
        if path:
            found.append(Path(path))
    return _dedupe(p for p in found if p is not None)


def _envs_in(folder: Path) -> list[Path]:
    try:
        children = sorted(p for p in folder.iterdir() if p.is_dir())
    except OSError:
        return []
    return [python for python in map(env_python, children) if python is not None]


def _dedupe(paths: Iterable[Path]) -> list[Path]:
    seen: set[str] = set()
    out: list[Path] = []
    for path in paths:
        if not path.is_file():
            continue
        folder = os.path.normcase(os.path.realpath(path.parent))
        if folder not in seen:
            seen.add(folder)
            out.append(path)
    return out


def check_interpreter(python: str | os.PathLike, timeout_s: float = CHECK_TIMEOUT_S, *,
                      worker: str | os.PathLike | None = None) -> InterpreterInfo:
    """Run the worker's handshake only (``--hello-only``) in ``python``; never hangs.

    Returns:
        What it said; ``error`` says why not when it did not start, timed out, crashed,
        exited non-zero or wrote something that is not the protocol.
    """
    run = runner.run_probes((), python=python, timeout_s=timeout_s, hello_only=True,
                            worker=worker if worker is not None else runner.WORKER_SCRIPT,
                            grace_s=0.5)
    error = "; ".join(e.message for e in run.errors) or None
    hello = run.hello
    if hello is None:
        return InterpreterInfo(python=str(python), error=error or "no handshake")
    return InterpreterInfo(
        python=str(python), torch=hello.torch,
        accelerators=tuple(a for a in ACCELERATORS if hello.accelerators.get(a)),
        devices=tuple(str(d.get("name") or d.get("id")) for d in hello.devices),
        python_version=hello.versions.get("python"), torch_error=hello.torch_error,
        error=error)


def check_all(pythons: Sequence[str | os.PathLike], *, timeout_s: float = CHECK_TIMEOUT_S,
              check: Callable[..., InterpreterInfo] = check_interpreter,
              max_workers: int = 4) -> list[InterpreterInfo]:
    """:func:`check_interpreter` on each, a few at a time, in the given order."""
    if not pythons:
        return []
    with ThreadPoolExecutor(max_workers=min(max_workers, len(pythons))) as pool:
        return list(pool.map(lambda p: check(p, timeout_s), pythons))


def find_probe_interpreter(
        preferred: str | os.PathLike | None, *,
        current: str | os.PathLike | None = OWN_PYTHON,
        candidates: Callable[[], Sequence[Path]] | None = None,
        check: Callable[..., InterpreterInfo] = check_interpreter,
        timeout_s: float = CHECK_TIMEOUT_S,
) -> tuple[InterpreterInfo | None, list[InterpreterInfo]]:
    """The interpreter to probe with, and every one checked on the way.

    Order: ``preferred`` (``--python`` or the ``probe_python`` setting) if it works; else
    ``current`` (this interpreter; none in the installed app) if it has torch; else the
    first of ``candidates()`` (default :func:`candidate_pythons`) with torch, preferring one
    with an accelerator.

    Returns:
        (the chosen one or ``None`` when none has torch, the checks made in order).
    """
    checked: list[InterpreterInfo] = []
    done: set[str] = set()
    for first in (preferred, current):
        if first is None or _key(first) in done:
            continue
        done.add(_key(first))
        info = check(first, timeout_s)
        checked.append(info)
        if info.usable:
            return info, checked
    listed = (candidates or candidate_pythons)()
    rest = [p for p in listed if _key(p) not in done]
    infos = check_all(rest, timeout_s=timeout_s, check=check)
    checked.extend(infos)
    usable = [info for info in infos if info.usable]
    chosen = next((i for i in usable if i.accelerators), usable[0] if usable else None)
    return chosen, checked


def _key(path: str | os.PathLike) -> str:
    return os.path.normcase(os.path.abspath(os.fspath(path)))


__all__ = ["CHECK_TIMEOUT_S", "InterpreterInfo", "candidate_pythons", "check_all",
           "check_interpreter", "env_python", "find_probe_interpreter"]
