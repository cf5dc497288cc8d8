"""The probe worker's process group: started apart, ended whole (Qt-free).

A worker may start processes of its own (torch's compile workers, a wrapper script's
python, a data loader). Stopping only the worker would leave them running, still holding
its output pipe, so the app would wait for an end of file that never comes. So the worker
starts in a group of its own and the whole group is ended:

* POSIX: a new session (``start_new_session=True``; the GUI's ``QProcess`` asks for
  ``CreateNewSession``); the group id is the worker's pid, and ``os.killpg`` signals every
  process in it. The app's own terminal group (Ctrl-C) no longer reaches the worker: the
  runner stops it itself.
* Windows: ``CREATE_NEW_PROCESS_GROUP`` (Ctrl-C of the console does not reach it) and a job
  object with ``JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE``: ``TerminateJobObject`` ends the worker
  and everything it started after it joined the job. Where a job cannot be made (an old
  Windows, a sandbox), only the worker itself is ended.

The Windows calls sit behind :class:`JobApi` so tests drive this module with a fake on any
platform.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
from typing import Any, Protocol

#: Windows ``CREATE_NO_WINDOW``: no console window of its own for the worker.
CREATE_NO_WINDOW = 0x08000000
#: Windows ``CREATE_NEW_PROCESS_GROUP``.
CREATE_NEW_PROCESS_GROUP = 0x00000200
_JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE = 0x2000
_JOB_OBJECT_EXTENDED_LIMIT_INFORMATION = 9
_PROCESS_SET_QUOTA = 0x0100
_PROCESS_TERMINATE = 0x0001


def popen_kwargs(platform: str = sys.platform) -> dict[str, Any]:
    """What :class:`subprocess.Popen` needs to start the worker in a group of its own."""
    if platform == "win32":
        return {"creationflags": CREATE_NO_WINDOW | CREATE_NEW_PROCESS_GROUP}
    return {"start_new_session": True}


def windows_creation_flags() -> int:
    """The creation flags the GUI adds to its ``QProcess`` on Windows."""
    return CREATE_NO_WINDOW | CREATE_NEW_PROCESS_GROUP


class JobApi(Protocol):
    """The four job-object calls (kernel32 on Windows; a fake in tests)."""

    def create(self) -> Any:
        """A new job that kills its processes when closed; None if none can be made."""

    def assign(self, job: Any, pid: int) -> bool:
        """Put process ``pid`` into ``job``; whether it worked."""

    def terminate(self, job: Any) -> None:
        """End every process in ``job``."""

    def close(self, job: Any) -> None:
        """Release ``job`` (its processes are ended: kill on close)."""


class WorkerGroup:
    """The worker and whatever it started: signalled and ended together.

    Args:
        pid: the worker's process id (on POSIX also its group id).
        platform: ``sys.platform`` (tests pass ``"win32"`` with a fake ``jobs``).
        jobs: the job-object calls on Windows (default: kernel32 through ctypes).
    """

    def __init__(self, pid: int | None, *, platform: str = sys.platform,
                 jobs: JobApi | None = None) -> None:
        self.pid = pid
        self.platform = platform
        self._jobs = jobs
        self._job = None
        if platform == "win32" and pid:
            if self._jobs is None:
                self._jobs = _kernel32_jobs()
            if self._jobs is not None:
                job = self._jobs.create()
                if job is not None and self._jobs.assign(job, pid):
                    self._job = job
                elif job is not None:
                    self._jobs.close(job)

    @property
    def has_job(self) -> bool:
        """Whether, on Windows, the worker is in a job object (its children end with it)."""
        return self._job is not None

    def terminate(self) -> bool:
        """Ask the group to end (SIGTERM to the POSIX group; on Windows, where a console
        worker has no polite stop, the job is ended). Returns whether a signal was sent."""
        if self.platform == "win32":
            return self.kill()
        return self._signal(signal.SIGTERM)

    def kill(self) -> bool:
        """End the group now (SIGKILL to the POSIX group; ``TerminateJobObject``).

        Returns:
            Whether anything was signalled (False: the group is already gone, or there is
            no job on Windows — the caller then kills the worker itself).
        """
        if self.platform == "win32":
            if self._job is None:
                return False
            with contextlib.suppress(OSError):
                self._jobs.terminate(self._job)
            return True
        return self._signal(getattr(signal, "SIGKILL", signal.SIGTERM))

    def close(self) -> None:
        """Release what the group holds (the Windows job; with kill-on-close, whatever is
        left in it ends). Safe to call twice."""
        job, self._job = self._job, None
        if job is not None:
            with contextlib.suppress(OSError):
                self._jobs.close(job)

    def _signal(self, sig: int) -> bool:
        if not self.pid or not hasattr(os, "killpg"):
            return False
        try:
            os.killpg(self.pid, sig)
        except (ProcessLookupError, PermissionError, OSError):
            return False  # gone already (or never its own group)
        return True


def _kernel32_jobs() -> JobApi | None:
    """kernel32's job-object calls through ctypes, or None where they are unavailable."""
    try:
        import ctypes
        from ctypes import wintypes

        kernel32 = ctypes.WinDLL("kernel32", use_last_error=True)  # type: ignore[attr-defined]
    except (ImportError, OSError, AttributeError):
        return None

    class _IoCounters(ctypes.Structure):
        _fields_ = [(name, ctypes.c_ulonglong) for name in (
            "ReadOperationCount", "WriteOperationCount", "OtherOperationCount",
            "ReadTransferCount", "WriteTransferCount", "OtherTransferCount")]

    class _BasicLimits(ctypes.Structure):
        _fields_ = [("PerProcessUserTimeLimit", ctypes.c_int64),
                    ("PerJobUserTimeLimit", ctypes.c_int64),
                    ("LimitFlags", wintypes.DWORD),
                    ("MinimumWorkingSetSize", ctypes.c_size_t),
                    ("MaximumWorkingSetSize", ctypes.c_size_t),
                    ("ActiveProcessLimit", wintypes.DWORD),
                    ("Affinity", ctypes.c_size_t),
                    ("PriorityClass", wintypes.DWORD),
                    ("SchedulingClass", wintypes.DWORD)]

    class _ExtendedLimits(ctypes.Structure):
        _fields_ = [("BasicLimitInformation", _BasicLimits),
                    ("IoInfo", _IoCounters),
                    ("ProcessMemoryLimit", ctypes.c_size_t),
                    ("JobMemoryLimit", ctypes.c_size_t),
                    ("PeakProcessMemoryUsed", ctypes.c_size_t),
                    ("PeakJobMemoryUsed", ctypes.c_size_t)]

    class _Kernel32Jobs:
        def create(self):
            job = kernel32.CreateJobObjectW(None, None)
            if not job:
                return None
            info = _ExtendedLimits()
            info.BasicLimitInformation.LimitFlags = _JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE
            if not kernel32.SetInformationJobObject(
                    job, _JOB_OBJECT_EXTENDED_LIMIT_INFORMATION, ctypes.byref(info),
                    ctypes.sizeof(info)):
                kernel32.CloseHandle(job)
                return None
            return job

        def assign(self, job, pid: int) -> bool:
            process = kernel32.OpenProcess(_PROCESS_SET_QUOTA | _PROCESS_TERMINATE, False, pid)
            if not process:
                return False
            try:
                return bool(kernel32.AssignProcessToJobObject(job, process))
            finally:
                kernel32.CloseHandle(process)

        def terminate(self, job) -> None:
            kernel32.TerminateJobObject(job, 1)

        def close(self, job) -> None:
            kernel32.CloseHandle(job)

    return _Kernel32Jobs()


__all__ = ["CREATE_NEW_PROCESS_GROUP", "CREATE_NO_WINDOW", "JobApi", "WorkerGroup",
           "popen_kwargs", "windows_creation_flags"]
