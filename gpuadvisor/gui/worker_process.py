"""How the GUI starts a probe worker's ``QProcess``: no console window on Windows, and a
process group of its own everywhere (so stopping the worker ends whatever it started; see
:mod:`gpuadvisor.probes.procgroup`)."""

from __future__ import annotations

import sys

from PySide6.QtCore import QProcess

from gpuadvisor.probes.procgroup import windows_creation_flags

#: Windows ``CREATE_NO_WINDOW``: a console program started from the windowed app gets no
#: console window of its own (python.exe would otherwise flash one up for every probe).
CREATE_NO_WINDOW = 0x08000000


def hide_console(process) -> bool:
    """On Windows, start ``process`` (a QProcess) without a console window; elsewhere, and
    where Qt offers no hook, do nothing. Returns whether the hook was set."""
    modifier = getattr(process, "setCreateProcessArgumentsModifier", None)
    if sys.platform != "win32" or modifier is None:
        return False

    def no_window(arguments) -> None:
        arguments.flags |= CREATE_NO_WINDOW

    modifier(no_window)
    return True


def start_in_own_group(process) -> str:
    """Have ``process`` (a QProcess, not started) start in a process group of its own.

    Windows: ``CREATE_NEW_PROCESS_GROUP`` with ``CREATE_NO_WINDOW`` (the job object is
    made once it runs, see :class:`gpuadvisor.probes.procgroup.WorkerGroup`). POSIX: a new
    session (Qt 6.6's ``UnixProcessParameters``).

    Returns:
        ``"windows"``, ``"session"``, or ``"none"`` where Qt offers no hook.
    """
    if sys.platform == "win32":
        modifier = getattr(process, "setCreateProcessArgumentsModifier", None)
        if modifier is None:
            return "none"

        def flags(arguments) -> None:
            arguments.flags |= windows_creation_flags()

        modifier(flags)
        return "windows"
    parameters = getattr(process, "setUnixProcessParameters", None)
    flag = getattr(getattr(QProcess, "UnixProcessFlag", None), "CreateNewSession", None)
    if parameters is None or flag is None:
        return "none"
    parameters(flag)
    return "session"


__all__ = ["CREATE_NO_WINDOW", "hide_console", "start_in_own_group"]
