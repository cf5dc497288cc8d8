"""Drive the worker's probes in-process with a simulated out-of-memory; print one JSON line.

Run by test_worker_cpu.py in a subprocess, so torch never enters the test process.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from gpuadvisor.probes import worker, worker_bandwidth, worker_matmul


class RecordingChannel:
    """Stands in for the worker's stdout channel."""

    def __init__(self):
        self.progress_lines = []

    def progress(self, probe, fraction, message):
        self.progress_lines.append((probe, fraction, message))


def main() -> None:
    import torch

    device = worker.Device(torch, worker.cpu_device(torch))
    tiny = worker.SUITES[("cpu", "tiny")]
    seen = {}

    real_matmul_at = worker_matmul.matmul_at

    def matmul_tight(torch_, device_, dtype, n, *args, **kwargs):
        if n >= 128:
            raise RuntimeError("CUDA out of memory. Tried to allocate 64.00 MiB")
        return real_matmul_at(torch_, device_, dtype, n, *args, **kwargs)

    worker_matmul.matmul_at = matmul_tight
    measured = worker.probe_matmul(torch, device, dict(tiny, matmul_sizes=(128,)),
                                   RecordingChannel(), {})
    worker_matmul.matmul_at = real_matmul_at
    seen["matmul"] = measured["figures"]
    seen["matmul_shapes"] = measured["conditions"]["dtypes"]["fp32"]["shapes"]
    seen["matmul_oom_retries"] = measured["conditions"]["oom_retries"]
    seen["matmul_notes"] = measured["conditions"]["notes"]

    real_bandwidth_at = worker_bandwidth.bandwidth_at
    sizes = []

    def bandwidth_tight(torch_, device_, size, *args):
        sizes.append(size)
        if size > worker.MiB:
            raise MemoryError("can't allocate memory")
        return real_bandwidth_at(torch_, device_, size, *args)

    worker_bandwidth.bandwidth_at = bandwidth_tight
    measured = worker.probe_bandwidth(torch, device, tiny, RecordingChannel(), {})
    seen["bandwidth"] = measured["figures"]
    seen["bandwidth_sizes"] = sizes
    seen["bandwidth_oom_retries"] = measured["conditions"]["oom_retries"]

    def nothing_fits(*args):
        raise MemoryError("can't allocate memory")

    worker_bandwidth.bandwidth_at = nothing_fits
    try:
        worker.probe_bandwidth(torch, device, tiny, RecordingChannel(), {})
        seen["bandwidth_nothing_fits"] = "no error"
    except worker.ProbeFailed as exc:
        seen["bandwidth_nothing_fits"] = exc.kind
    print(json.dumps(seen))


if __name__ == "__main__":
    main()
