"""The host around the GPUs: CPU, RAM, free disk, OS, Python, and whether torch works.

Torch is never imported here: a subprocess is asked (``python -c "import torch; ..."``) with a
timeout, so a slow, broken or missing torch costs at most that timeout and never the app.
The interpreter asked may be another one (the user's training environment).
"""

from __future__ import annotations

import json
import os
import platform
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

from .base import HostInfo

TORCH_TIMEOUT_S = 30.0

#: Runs in the child; prints one JSON object and nothing else.
TORCH_CHECK = (
    "import json, torch\n"
    "mps = getattr(getattr(torch, 'backends', None), 'mps', None)\n"
    "print(json.dumps({'version': torch.__version__,"
    " 'cuda_version': getattr(torch.version, 'cuda', None),"
    " 'cuda_available': bool(torch.cuda.is_available()),"
    " 'mps_available': bool(mps.is_available()) if mps is not None else False}))\n"
)

Runner = Callable[..., subprocess.CompletedProcess]


def check_torch(python: str | None = None, *, timeout_s: float = TORCH_TIMEOUT_S,
                run: Runner = subprocess.run) -> dict:
    """Ask ``python`` whether torch imports and what it sees.

    Args:
        python: Interpreter to ask (default: this one, or ``python3`` on PATH when frozen).
        timeout_s: Give up after this long (torch imports take seconds).
        run: ``subprocess.run`` or a stand-in (tests).

    Returns:
        ``HostInfo`` torch fields: ``torch_python``, ``torch_available`` (``None`` = could not
        ask), ``torch_version``, ``torch_cuda_version``, ``torch_cuda_available``,
        ``torch_mps_available``, ``torch_error``.
    """
    if python is None:
        python = (shutil.which("python3") or shutil.which("python")
                  if getattr(sys, "frozen", False) else sys.executable)
    if not python:
        return {"torch_available": None, "torch_error": "no Python interpreter to ask"}
    out: dict = {"torch_python": python}
    try:
        proc = run([python, "-c", TORCH_CHECK], capture_output=True, text=True,
                   timeout=timeout_s)
    except subprocess.TimeoutExpired:
        return {**out, "torch_available": None,
                "torch_error": f"import torch took longer than {timeout_s:g} s"}
    except OSError as exc:
        return {**out, "torch_available": None, "torch_error": f"cannot run {python}: {exc}"}
    if proc.returncode != 0:
        lines = (proc.stderr or "").strip().splitlines()
        return {**out, "torch_available": False,
                "torch_error": lines[-1] if lines else f"exit status {proc.returncode}"}
    try:
        answer = json.loads((proc.stdout or "").strip().splitlines()[-1])
    except (IndexError, json.JSONDecodeError):
        return {**out, "torch_available": None, "torch_error": "unreadable answer from torch check"}
    return {**out, "torch_available": True, "torch_version": answer.get("version"),
            "torch_cuda_version": answer.get("cuda_version"),
            "torch_cuda_available": answer.get("cuda_available"),
            "torch_mps_available": answer.get("mps_available")}


def _read(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None


def _linux_cpu(root: Path) -> tuple[str | None, int | None]:
    text = _read(root / "proc/cpuinfo")
    if not text:
        return None, None
    model = None
    cores: set[tuple[str, str]] = set()
    physical = core = None
    for line in [*text.splitlines(), ""]:
        key, _, value = line.partition(":")
        key, value = key.strip(), value.strip()
        if key == "model name" and model is None:
            model = value
        elif key == "physical id":
            physical = value
        elif key == "core id":
            core = value
        elif not key:
            if physical is not None and core is not None:
                cores.add((physical, core))
            physical = core = None
    return model, len(cores) or None


def _linux_memory(root: Path) -> tuple[int | None, int | None]:
    text = _read(root / "proc/meminfo") or ""
    values = {}
    for line in text.splitlines():
        key, _, rest = line.partition(":")
        parts = rest.split()
        if parts and parts[0].isdigit():
            values[key.strip()] = int(parts[0]) * 1024  # kB
    return values.get("MemTotal"), values.get("MemAvailable")


def _sysctl(name: str, run: Runner) -> str | None:
    try:
        proc = run(["sysctl", "-n", name], capture_output=True, text=True, timeout=5)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return proc.stdout.strip() or None if proc.returncode == 0 else None


def collect_host(data_dir: str | os.PathLike[str] | None = None, *, probe_torch: bool = True,
                 python: str | None = None, root: str | os.PathLike[str] = "/",
                 run: Runner = subprocess.run) -> HostInfo:
    """Describe this machine.

    Args:
        data_dir: Folder whose free space matters (the data folder; default: current folder).
        probe_torch: Ask a subprocess about torch (takes seconds); ``False`` leaves it unknown.
        python: Interpreter to ask about torch (default: see :func:`check_torch`).
        root: File-system root for ``/proc`` (tests pass a fake tree).
        run: ``subprocess.run`` or a stand-in (tests).
    """
    system = platform.system()
    cpu_model = physical = None
    ram_total = ram_available = None
    if system == "Linux":
        cpu_model, physical = _linux_cpu(Path(root))
        ram_total, ram_available = _linux_memory(Path(root))
    elif system == "Darwin":
        cpu_model = _sysctl("machdep.cpu.brand_string", run)
        cores = _sysctl("hw.physicalcpu", run)
        physical = int(cores) if cores and cores.isdigit() else None
        mem = _sysctl("hw.memsize", run)
        ram_total = int(mem) if mem and mem.isdigit() else None
    if cpu_model is None:
        cpu_model = platform.processor() or None
    folder = Path(data_dir) if data_dir is not None else Path.cwd()
    try:
        disk_free = shutil.disk_usage(folder).free
    except OSError:
        disk_free = None
    torch = check_torch(python, run=run) if probe_torch else {}
    return HostInfo(
        cpu_model=cpu_model,
        cpu_cores_physical=physical,
        cpu_cores_logical=os.cpu_count(),
        ram_total_bytes=ram_total,
        ram_available_bytes=ram_available,
        disk_free_bytes=disk_free,
        disk_path=str(folder),
        os=f"{system} {platform.release()} ({platform.machine()})".strip(),
        python_version=platform.python_version(),
        **torch,
    )
