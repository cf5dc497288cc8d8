"""The worker's files stand alone: the installed app ships ``probes/worker*.py`` and
``probes/kernels/*.py`` as plain files (packaging/gpuadvisor.spec) and runs the worker by path
with the user's own Python. A copy of just those files, in a folder of its own, must run."""

from __future__ import annotations

import shutil
import subprocess
import sys

from gpuadvisor.probes.protocol import Done, Error, Hello, Result, parse_line
from gpuadvisor.probes.runner import WORKER_SCRIPT


def test_a_copy_of_the_shipped_worker_files_runs_by_path_and_loads_every_kernel(tmp_path):
    here = WORKER_SCRIPT.parent
    for path in here.glob("worker*.py"):
        shutil.copy(path, tmp_path / path.name)
    (tmp_path / "kernels").mkdir()
    for path in (here / "kernels").glob("*.py"):
        shutil.copy(path, tmp_path / "kernels" / path.name)
    done = subprocess.run([sys.executable, "-I", str(tmp_path / "worker.py"), "--probes",
                           "bandwidth,nonsense", "--device", "cpu", "--tiny"],
                          capture_output=True, text=True, timeout=60, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "failed to load" not in done.stderr, done.stderr
    messages = [parse_line(line) for line in done.stdout.splitlines()]
    assert isinstance(messages[0], Hello) and isinstance(messages[-1], Done)
    if messages[0].versions.get("torch") is not None:
        assert any(isinstance(m, Result) and m.probe == "bandwidth" for m in messages)
        unknown = next(m for m in messages if isinstance(m, Error) and m.probe == "nonsense")
        # The kernels' probes are known, so every kernel (and its neighbours) loaded.
        for probe in ("matmul", "bandwidth", "transfer", "step", "plancheck", "dataread",
                      "burnin"):
            assert probe in unknown.message
