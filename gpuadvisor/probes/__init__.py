"""On-device probes: measure what this machine's GPU (or CPU) really achieves.

Probes run in a worker subprocess (:mod:`gpuadvisor.probes.worker`, the only module that
imports torch) that speaks versioned JSON lines (:mod:`gpuadvisor.probes.protocol`). The
Qt-free :func:`gpuadvisor.probes.runner.run_probes` starts it, reads it with a deadline, and
turns a crash, a non-zero exit, garbage on stdout, a timeout or a cancel into error results:
never a hang. The worker may run under another interpreter (the user's training environment),
so it is a self-contained script using only the standard library and torch.
"""

from .protocol import PROTOCOL_VERSION, Done, Error, Hello, Progress, ProtocolError, Result
from .runner import PROBES, WORKER_SCRIPT, ProbeRun, run_probes

__all__ = ["PROBES", "PROTOCOL_VERSION", "WORKER_SCRIPT", "Done", "Error", "Hello", "ProbeRun",
           "Progress", "ProtocolError", "Result", "run_probes"]
