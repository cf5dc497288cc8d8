"""The host around the GPUs: CPU, RAM, swap, disks, OS, Python, and whether torch works.

CPU, memory and disk figures come from :mod:`.host_facts` (psutil, else the system's files).

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
from typing import Any

from .base import HostInfo
from .host_facts import cpu_name, host_facts

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


def collect_host(data_dir: str | os.PathLike[str] | None = None, *, probe_torch: bool = True,
                 python: str | None = None, root: str | os.PathLike[str] = "/",
                 run: Runner = subprocess.run, psutil: Any = None, system: str | None = None,
                 registry: Any = None) -> HostInfo:
    """Describe this machine.

    Args:
        data_dir: Folder whose free space matters (the data folder; default: current folder).
        probe_torch: Ask a subprocess about torch (takes seconds); ``False`` leaves it unknown.
        python: Interpreter to ask about torch (default: see :func:`check_torch`).
        root: File-system root for ``/proc`` (tests pass a fake tree; psutil, which reads the
            real one, is then not used unless given).
        run: ``subprocess.run`` or a stand-in (tests).
        psutil: The psutil module or a stand-in (imported when ``None``); ``False`` reads the
            system's files instead (see :mod:`.host_facts`).
        system: ``platform.system()`` (tests pass another).
        registry: ``winreg`` or a stand-in, for the CPU name on Windows.
    """
    system = system or platform.system()
    if psutil is None and Path(root) != Path("/"):
        psutil = False
    facts = host_facts(system, psutil=psutil, root=root, run=run)
    folder = Path(data_dir) if data_dir is not None else Path.cwd()
    try:
        disk_free = shutil.disk_usage(folder).free
    except OSError:
        disk_free = None
    torch = check_torch(python, run=run) if probe_torch else {}
    return HostInfo(
        cpu_model=cpu_name(system, root=root, run=run, registry=registry),
        cpu_cores_physical=facts.cores_physical,
        cpu_cores_logical=facts.cores_logical or os.cpu_count(),
        ram_total_bytes=facts.ram_total_bytes,
        ram_available_bytes=facts.ram_available_bytes,
        swap_total_bytes=facts.swap_total_bytes,
        swap_free_bytes=facts.swap_free_bytes,
        disk_free_bytes=disk_free,
        disk_path=str(folder),
        disks=facts.disks,
        facts_source=facts.source,
        os=f"{system} {platform.release()} ({platform.machine()})".strip(),
        python_version=platform.python_version(),
        **torch,
    )
