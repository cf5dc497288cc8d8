"""The export package is pure text generation: it imports with Qt and torch unavailable."""

from __future__ import annotations

import subprocess
import sys
import textwrap

BLOCKED = ("PySide6", "pyqtgraph", "torch", "pynvml", "yaml", "gpuadvisor.gui",
           "gpuadvisor.cli", "gpuadvisor.probes", "gpuadvisor.hardware")

CODE = textwrap.dedent(f"""
    import importlib.abc, sys
    class Blocker(importlib.abc.MetaPathFinder):
        def find_spec(self, name, path=None, target=None):
            if any(name == b or name.startswith(b + ".") for b in {BLOCKED!r}):
                raise ImportError("blocked import: " + name)
    sys.meta_path.insert(0, Blocker())
    import gpuadvisor.export as e
    from gpuadvisor.core.plan import Plan
    print(e.deepspeed_json(Plan(n_gpus=2, zero_stage=2))[:1], e.accelerate_yaml(Plan())[:1])
""")


def test_export_imports_and_runs_without_qt_torch_pyyaml_or_the_outer_layers():
    result = subprocess.run([sys.executable, "-c", CODE], capture_output=True, text=True,
                            timeout=60)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["{", "#"]
