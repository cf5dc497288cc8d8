"""gpuadvisor.localmodels is Qt-free and works without the optional gguf package."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

from .gguf_bytes import TINY_WEIGHT_BYTES, write_tiny_llama

ROOT = Path(__file__).resolve().parents[2]
BLOCKED = ("PySide6", "pyqtgraph", "torch", "pynvml", "gguf", "huggingface_hub",
           "gpuadvisor.gui", "gpuadvisor.cli", "gpuadvisor.hardware", "gpuadvisor.probes")

SCRIPT = textwrap.dedent(
    """
    import importlib.abc, sys
    BLOCKED = {blocked!r}
    class Blocker(importlib.abc.MetaPathFinder):
        def find_spec(self, name, path=None, target=None):
            if any(name == b or name.startswith(b + ".") for b in BLOCKED):
                raise ImportError("blocked import: " + name)
            return None
    sys.meta_path.insert(0, Blocker())
    from gpuadvisor.localmodels import resolve_model_ref
    print(resolve_model_ref(sys.argv[1]).extra["weights_file_bytes"])
    """
)


def test_reads_a_gguf_with_qt_gguf_and_outer_layers_blocked(tmp_path):
    path = write_tiny_llama(tmp_path / "tiny.gguf")
    result = subprocess.run([sys.executable, "-c", SCRIPT.format(blocked=BLOCKED), str(path)],
                            capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == str(TINY_WEIGHT_BYTES)
