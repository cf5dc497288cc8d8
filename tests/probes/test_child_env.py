"""The worker's environment: a frozen app must not lend its own libraries to the user's Python.

A PyInstaller app's loader points LD_LIBRARY_PATH (DYLD_LIBRARY_PATH on macOS) at the app's
folder and keeps the caller's value in ``<NAME>_ORIG``; Qt's runtime hook adds the app's
plugin folder to QT_PLUGIN_PATH. The user's Python and torch started from there would load
the app's Qt and C++ runtime instead of their own.
"""

from __future__ import annotations

import os
import sys

import pytest

from gpuadvisor.probes import runner

BUNDLE = os.path.abspath(os.path.join(os.sep, "opt", "gpuadvisor"))
INTERNAL = os.path.join(BUNDLE, "_internal")
SEP = os.pathsep


def frozen_env(environ):
    return runner.child_env(environ, frozen=True, bundle_dirs=[INTERNAL, BUNDLE])


def test_unfrozen_env_is_the_callers_plus_unbuffered_utf8():
    env = runner.child_env({"LD_LIBRARY_PATH": INTERNAL, "PATH": "/usr/bin"}, frozen=False)
    assert env == {"LD_LIBRARY_PATH": INTERNAL, "PATH": "/usr/bin",
                   "PYTHONUNBUFFERED": "1", "PYTHONIOENCODING": "utf-8"}


def test_frozen_restores_the_callers_library_path_from_orig():
    env = frozen_env({"LD_LIBRARY_PATH": f"{INTERNAL}{SEP}/usr/local/cuda/lib64",
                      "LD_LIBRARY_PATH_ORIG": "/usr/local/cuda/lib64"})
    assert env["LD_LIBRARY_PATH"] == "/usr/local/cuda/lib64"
    assert "LD_LIBRARY_PATH_ORIG" not in env


def test_frozen_removes_the_library_path_the_caller_did_not_have():
    env = frozen_env({"LD_LIBRARY_PATH": INTERNAL, "DYLD_LIBRARY_PATH": INTERNAL})
    assert "LD_LIBRARY_PATH" not in env
    assert "DYLD_LIBRARY_PATH" not in env


def test_frozen_drops_only_the_apps_entries_from_path_lists():
    plugins = os.path.join(INTERNAL, "PySide6", "Qt", "plugins")
    env = frozen_env({
        "QT_PLUGIN_PATH": plugins,
        "PYTHONPATH": f"{INTERNAL}{SEP}/home/me/src",
        "PATH": f"{INTERNAL}{SEP}/usr/bin{SEP}/opt/gpuadvisor-old/bin",
        "PYTHONHOME": INTERNAL,
    })
    assert "QT_PLUGIN_PATH" not in env
    assert env["PYTHONPATH"] == "/home/me/src"
    # A sibling folder whose name merely starts like the app's is not the app's.
    assert env["PATH"] == f"/usr/bin{SEP}/opt/gpuadvisor-old/bin"
    assert "PYTHONHOME" not in env
    assert env["PYTHONUNBUFFERED"] == "1"


def test_frozen_keeps_a_pythonhome_outside_the_app():
    env = frozen_env({"PYTHONHOME": "/usr"})
    assert env["PYTHONHOME"] == "/usr"


def test_child_env_does_not_change_its_input():
    environ = {"LD_LIBRARY_PATH": INTERNAL, "LD_LIBRARY_PATH_ORIG": "/x"}
    frozen_env(environ)
    assert environ == {"LD_LIBRARY_PATH": INTERNAL, "LD_LIBRARY_PATH_ORIG": "/x"}


def test_defaults_read_sys_frozen_and_meipass(monkeypatch):
    monkeypatch.setattr(sys, "frozen", True, raising=False)
    monkeypatch.setattr(sys, "_MEIPASS", INTERNAL, raising=False)
    monkeypatch.setenv("LD_LIBRARY_PATH", INTERNAL)
    monkeypatch.setenv("LD_LIBRARY_PATH_ORIG", "/usr/lib/wsl/lib")
    monkeypatch.setenv("QT_PLUGIN_PATH", os.path.join(INTERNAL, "PySide6", "plugins"))
    env = runner.child_env()
    assert env["LD_LIBRARY_PATH"] == "/usr/lib/wsl/lib"
    assert "QT_PLUGIN_PATH" not in env


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX shell")
def test_the_worker_process_gets_the_cleaned_environment(monkeypatch, tmp_path):
    """run_probes starts its worker with child_env: a fake worker prints what it sees."""
    monkeypatch.setattr(sys, "frozen", True, raising=False)
    monkeypatch.setattr(sys, "_MEIPASS", str(tmp_path), raising=False)
    monkeypatch.setenv("LD_LIBRARY_PATH", str(tmp_path))
    monkeypatch.delenv("LD_LIBRARY_PATH_ORIG", raising=False)
    worker = tmp_path / "env_worker.py"
    # The worker reports what it sees as a "version" (the one free-form field of hello).
    worker.write_text(
        "import json, os\n"
        "seen = os.environ.get('LD_LIBRARY_PATH', 'unset')\n"
        "print(json.dumps({'type': 'hello', 'protocol': 1,"
        " 'versions': {'python': '3', 'torch': None, 'ld_library_path': seen}}))\n"
        "print(json.dumps({'type': 'done'}))\n")
    run = runner.run_probes((), python=sys.executable, worker=worker, timeout_s=30,
                            hello_only=True)
    assert run.hello is not None, run.errors
    assert run.hello.versions["ld_library_path"] == "unset"
