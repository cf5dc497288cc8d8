"""The layering is enforced, not hoped for: gpuadvisor.core is plain Python.

Two independent checks: import-linter's contract in pyproject.toml, and importing every core
module in a fresh interpreter where Qt, torch, pynvml and the rest of the package are blocked.
"""

from __future__ import annotations

import pkgutil
import subprocess
import sys
import textwrap
from pathlib import Path

import gpuadvisor.core

ROOT = Path(__file__).resolve().parents[1]
BLOCKED = ("PySide6", "pyqtgraph", "torch", "pynvml", "gpuadvisor.catalog", "gpuadvisor.cli",
           "gpuadvisor.gui", "gpuadvisor.hardware", "gpuadvisor.probes", "gpuadvisor.export",
           "gpuadvisor.report")

_BLOCKER = textwrap.dedent(
    """
    import importlib.abc, sys
    BLOCKED = {blocked!r}
    class Blocker(importlib.abc.MetaPathFinder):
        def find_spec(self, name, path=None, target=None):
            if any(name == b or name.startswith(b + ".") for b in BLOCKED):
                raise ImportError("blocked import: " + name)
            return None
    sys.meta_path.insert(0, Blocker())
    import importlib
    for mod in {modules!r}:
        importlib.import_module(mod)
    print("ok", len({modules!r}))
    """
)


def _core_modules() -> list[str]:
    return [f"gpuadvisor.core.{m.name}" for m in pkgutil.iter_modules(gpuadvisor.core.__path__)]


def _run_blocked(modules: list[str]) -> subprocess.CompletedProcess:
    code = _BLOCKER.format(blocked=BLOCKED, modules=modules)
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          cwd=ROOT, timeout=60)


def test_every_core_module_imports_with_qt_torch_pynvml_and_outer_layers_blocked():
    modules = _core_modules()
    assert {"gpuadvisor.core.memory", "gpuadvisor.core.model", "gpuadvisor.core.plan"} <= set(
        modules
    )
    result = _run_blocked(modules)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == f"ok {len(modules)}"


def test_the_blocker_really_blocks_outer_layers():
    # Negative control: an outer-layer module must fail to import under the same blocker.
    result = _run_blocked(["gpuadvisor.core.units", "gpuadvisor.catalog"])
    assert result.returncode != 0
    assert "blocked import: gpuadvisor.catalog" in result.stderr


def test_import_linter_contract_holds():
    lint = Path(sys.executable).with_name("lint-imports")
    result = subprocess.run([str(lint), "--no-cache"], capture_output=True, text=True, cwd=ROOT,
                            timeout=120)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "core is pure" in result.stdout
    assert "core is layered: spec -> sizing -> timing -> resolve -> advice KEPT" in result.stdout
    assert "KEPT" in result.stdout


def test_no_module_outside_the_probe_worker_imports_torch():
    offenders = []
    for path in (ROOT / "gpuadvisor").rglob("*.py"):
        if path.match("probes/worker.py"):
            continue
        for line in path.read_text(encoding="utf-8").splitlines():
            stripped = line.strip()
            if stripped.startswith(("import torch", "from torch")):
                offenders.append(f"{path.relative_to(ROOT)}: {stripped}")
    assert offenders == []
