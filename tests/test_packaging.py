"""The wheel is self-contained: catalog data ships inside it and the CLI runs from it.

Builds the wheel, installs it into a fresh virtual environment outside the repository (with
numpy only: the command line must not need Qt) and runs ``gpuadvisor estimate`` there, so a
missing data file, an import of the source tree or a Qt import on the CLI path fails this test.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import venv
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _run(cmd, **kw) -> subprocess.CompletedProcess:
    result = subprocess.run(cmd, capture_output=True, text=True, timeout=600, **kw)
    assert result.returncode == 0, f"{cmd}\n{result.stdout}\n{result.stderr}"
    return result


def test_wheel_ships_catalog_and_runs_estimate_in_a_fresh_venv(tmp_path):
    dist = tmp_path / "dist"
    _run([sys.executable, "-m", "build", "--wheel", "--no-isolation", "--outdir", str(dist)],
         cwd=ROOT)
    (wheel,) = dist.glob("gpuadvisor-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    for data in ("gpus.toml", "models.toml"):
        assert f"gpuadvisor/catalog_data/{data}" in names

    env_dir = tmp_path / "venv"
    venv.EnvBuilder(with_pip=True).create(env_dir)
    bindir = env_dir / ("Scripts" if os.name == "nt" else "bin")
    # --no-deps + numpy only: the CLI must run without the GUI's Qt stack installed.
    _run([str(bindir / "python"), "-m", "pip", "install", "-q", "--no-deps", str(wheel)],
         cwd=tmp_path)
    _run([str(bindir / "python"), "-m", "pip", "install", "-q", "numpy"], cwd=tmp_path)

    where = _run([str(bindir / "python"), "-c", "import gpuadvisor; print(gpuadvisor.__file__)"],
                 cwd=tmp_path).stdout.strip()
    assert Path(where).is_relative_to(env_dir), where

    out = _run([str(bindir / "gpuadvisor"), "estimate", "--model", "llama-3.1-8b", "--task",
                "qlora", "--gpu", "rtx-4090", "--checkpointing", "full", "--json"],
               cwd=tmp_path).stdout
    result = json.loads(out)
    assert result["params_total"] == 8_030_261_248  # meta-llama/Llama-3.1-8B model card
    assert result["memory"]["fits"] is True
    terms = result["memory"]["breakdown"]
    assert set(terms) == {"weights", "gradients", "optimizer", "activations", "logits",
                          "kv_cache", "overhead"}
    assert abs(sum(terms.values()) - result["memory"]["per_gpu_bytes"]) < 1.0
