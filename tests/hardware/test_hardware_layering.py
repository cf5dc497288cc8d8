"""pynvml is imported by gpuadvisor.hardware.nvml only, lazily; torch and Qt never.

import-linter enforces the first statically (pyproject.toml); these check it at run time.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

_SCRIPT = textwrap.dedent(
    """
    import importlib.abc, sys
    BLOCKED = ("pynvml", "torch", "PySide6", "pyqtgraph")
    class Blocker(importlib.abc.MetaPathFinder):
        def find_spec(self, name, path=None, target=None):
            if name.split(".")[0] in BLOCKED:
                raise ImportError("blocked import: " + name)
            return None
    sys.meta_path.insert(0, Blocker())
    import gpuadvisor.hardware, gpuadvisor.hardware.nvml, gpuadvisor.hardware.detect
    from gpuadvisor import cli
    sys.exit(cli.main(["detect", "--json", "--no-torch", "--simulate", "one-gpu"]))
    """
)


def test_hardware_and_detect_cli_run_with_pynvml_torch_and_qt_blocked():
    result = subprocess.run([sys.executable, "-c", _SCRIPT], capture_output=True, text=True,
                            cwd=ROOT, timeout=60)
    assert result.returncode == 0, result.stderr
    assert '"backend": "simulated"' in result.stdout


def test_no_module_but_nvml_mentions_an_import_of_pynvml():
    offenders = []
    for path in (ROOT / "gpuadvisor").rglob("*.py"):
        if path.match("hardware/nvml.py"):
            continue
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip().startswith(("import pynvml", "from pynvml")):
                offenders.append(f"{path.relative_to(ROOT)}: {line.strip()}")
    assert offenders == []
