"""Finding an interpreter with torch for the probe worker (issue 5): candidates in the usual
places (a fake home tree here), the hello-only handshake against this interpreter and broken
fakes (garbage, exit 1, a hang: an error text within the timeout), the choice order, the
``probe_python`` setting, and ``gpuadvisor probe --list-pythons`` / remembering ``--python``."""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

import pytest

from gpuadvisor.cli import main
from gpuadvisor.probes import interpreters, runner
from gpuadvisor.probes.interpreters import (
    InterpreterInfo,
    candidate_pythons,
    check_interpreter,
    find_probe_interpreter,
)
from gpuadvisor.workspace.settings import Settings, load_settings, save_settings

FAKE_WORKER = Path(__file__).resolve().parents[1] / "fakes" / "fake_worker.py"
posix_only = pytest.mark.skipif(sys.platform == "win32", reason="shell-script interpreters")


def fake_python(path: Path, body: str = "exit 0") -> Path:
    """A small executable shell script standing in for an interpreter."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"#!/bin/sh\n{body}\n")
    path.chmod(0o755)
    return path


def no_which(name: str) -> None:
    return None


@posix_only
def test_candidates_come_from_the_usual_places_in_order(tmp_path):
    home = tmp_path / "home"
    current = fake_python(tmp_path / "app" / "bin" / "python")
    conda_env = fake_python(home / "miniconda3" / "envs" / "train" / "bin" / "python")
    conda_base = fake_python(home / "miniforge3" / "bin" / "python")
    dot_conda = fake_python(home / ".conda" / "envs" / "exp" / "bin" / "python")
    venv = fake_python(home / ".virtualenvs" / "torch" / "bin" / "python")
    venvs = fake_python(home / "venvs" / "b" / "bin" / "python3")
    (home / "venvs" / "empty").mkdir()  # no interpreter: skipped
    prefix = fake_python(tmp_path / "active-conda" / "bin" / "python")
    virtual = fake_python(tmp_path / "active-venv" / "bin" / "python")
    on_path = fake_python(tmp_path / "usr" / "bin" / "python3")
    env = {"CONDA_PREFIX": str(prefix.parents[1]), "VIRTUAL_ENV": str(virtual.parents[1])}
    which = {"python3": str(on_path), "python": None}.get
    found = candidate_pythons(env=env, home=home, which=which, current=current)
    assert found == [current, prefix, conda_env, conda_base, dot_conda, virtual, venv, venvs,
                     on_path]
    # The installed app has no interpreter of its own (its executable is the app): the
    # usual places only.
    assert candidate_pythons(env=env, home=home, which=which, current=None) == found[1:]


def test_the_installed_app_is_not_a_python_to_probe_with(monkeypatch):
    import sys

    from gpuadvisor.probes.interpreters import own_python

    assert own_python(frozen=False) == sys.executable
    assert own_python(frozen=True) is None
    monkeypatch.setattr(sys, "frozen", True, raising=False)
    assert own_python() is None


@posix_only
def test_candidates_are_one_per_environment_and_existing_files_only(tmp_path):
    home = tmp_path / "home"
    env_dir = home / ".venvs" / "train"
    python = fake_python(env_dir / "bin" / "python")
    (env_dir / "bin" / "python3").symlink_to(python)
    # a venv's python is a symlink to its base interpreter, yet a different environment
    linked = home / "venvs" / "linked" / "bin" / "python"
    linked.parent.mkdir(parents=True)
    linked.symlink_to(sys.executable)
    env = {"VIRTUAL_ENV": str(env_dir), "CONDA_PREFIX": str(tmp_path / "gone")}
    which = {"python3": str(env_dir / "bin" / "python3"),
             "python": str(tmp_path / "missing" / "python")}.get
    found = candidate_pythons(env=env, home=home, which=which, current=python)
    assert found == [python, linked]


def test_this_interpreter_reports_its_torch():
    pytest.importorskip("torch")
    import torch

    info = check_interpreter(sys.executable, timeout_s=60)
    assert info.error is None, info
    assert info.usable
    assert info.torch == str(torch.__version__)
    assert info.python_version and info.devices  # at least the CPU
    assert set(info.accelerators) <= {"cuda", "rocm", "mps", "xpu"}


@posix_only
@pytest.mark.parametrize(("body", "words"), [
    ("echo 'Python is not what you think'; exit 0", "protocol"),
    ("echo boom >&2; exit 1", "status 1"),
    ("sleep 30", "within 2 s"),
])
def test_a_broken_interpreter_is_an_error_text_never_a_hang(tmp_path, body, words):
    python = fake_python(tmp_path / "bin" / "python", body)
    started = time.monotonic()
    info = check_interpreter(python, timeout_s=2)
    assert time.monotonic() - started < 6
    assert not info.usable and info.torch is None
    assert info.error and words in info.error
    assert info.summary().startswith("error: ")


def test_an_interpreter_that_cannot_start_is_an_error(tmp_path):
    info = check_interpreter(tmp_path / "nope" / "python", timeout_s=2)
    assert info.error and "could not start" in info.error


def test_hello_only_through_the_fake_worker(monkeypatch):
    monkeypatch.setenv("FAKE_WORKER_MODE", "no-torch")
    info = check_interpreter(sys.executable, timeout_s=10, worker=FAKE_WORKER)
    assert info.error is None and info.torch is None and not info.usable
    assert info.summary() == "no torch"


def scripted(table: dict[str, InterpreterInfo]):
    """A fake check: the info for each path, and the paths it was asked about."""
    asked: list[str] = []

    def check(python, timeout_s):
        asked.append(str(python))
        return table.get(str(python), InterpreterInfo(python=str(python), error="missing"))
    return check, asked


def info(python: str, torch: str | None = None, *accelerators: str) -> InterpreterInfo:
    return InterpreterInfo(python=python, torch=torch, accelerators=accelerators)


def test_the_preferred_interpreter_comes_first():
    check, asked = scripted({"/p": info("/p", "2.5"), "/cur": info("/cur", "2.6")})
    chosen, checked = find_probe_interpreter("/p", current="/cur", check=check,
                                             candidates=lambda: [Path("/x")])
    assert chosen.python == "/p" and asked == ["/p"] and len(checked) == 1


def test_then_the_current_one_if_it_has_torch():
    check, asked = scripted({"/p": info("/p"), "/cur": info("/cur", "2.6")})  # /p: no torch
    chosen, _ = find_probe_interpreter("/p", current="/cur", check=check,
                                       candidates=lambda: [Path("/x")])
    assert chosen.python == "/cur" and asked == ["/p", "/cur"]
    chosen, _ = find_probe_interpreter(None, current="/cur", check=check,
                                       candidates=lambda: [])
    assert chosen.python == "/cur"


def test_then_the_first_candidate_with_torch_one_with_an_accelerator_first():
    table = {"/cur": info("/cur"), "/a": info("/a"), "/b": info("/b", "2.4"),
             "/c": info("/c", "2.5", "cuda"), "/d": info("/d", "2.6", "cuda")}
    check, _ = scripted(table)
    candidates = [Path(p) for p in ("/cur", "/a", "/b", "/c", "/d")]
    chosen, checked = find_probe_interpreter(None, current="/cur", check=check,
                                             candidates=lambda: candidates)
    assert chosen.python == "/c"
    assert [i.python for i in checked] == ["/cur", "/a", "/b", "/c", "/d"]  # /cur once
    table["/c"] = table["/d"] = info("/c")
    chosen, _ = find_probe_interpreter(None, current="/cur", check=check,
                                       candidates=lambda: candidates)
    assert chosen.python == "/b"  # torch without an accelerator beats no torch


def test_none_when_no_interpreter_has_torch():
    check, _ = scripted({"/cur": info("/cur")})
    chosen, checked = find_probe_interpreter(None, current="/cur", check=check,
                                             candidates=lambda: [Path("/broken")])
    assert chosen is None and [i.python for i in checked] == ["/cur", "/broken"]


def test_probe_python_setting_round_trips_and_is_validated(tmp_path):
    file = tmp_path / "settings.json"
    save_settings(Settings(probe_python="/envs/train/bin/python"), file)
    settings, message = load_settings(file)
    assert message is None and settings.probe_python == "/envs/train/bin/python"
    assert Settings.from_dict({"language": "en"}).probe_python is None  # older files
    with pytest.raises(ValueError, match="probe_python"):
        Settings(probe_python=3)


# --------------------------------------------------------------------------- the CLI
def run_cli(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_list_pythons_json_checks_each_candidate(capsys, tmp_path, monkeypatch):
    broken = fake_python(tmp_path / "broken" / "bin" / "python", "exit 1") \
        if sys.platform != "win32" else tmp_path / "missing.exe"
    monkeypatch.setattr(runner, "WORKER_SCRIPT", FAKE_WORKER)
    monkeypatch.setattr(interpreters, "candidate_pythons",
                        lambda *a, **k: [Path(sys.executable), broken])
    code, out, err = run_cli(capsys, "probe", "--list-pythons", "--json")
    assert code == 0, err
    rows = json.loads(out)["pythons"]
    assert [row["python"] for row in rows] == [sys.executable, str(broken)]
    assert rows[0]["torch"] == "0.0-fake" and rows[0]["usable"] and rows[0]["current"]
    assert rows[1]["error"] and not rows[1]["usable"] and not rows[1]["current"]
    code, out, _ = run_cli(capsys, "probe", "--list-pythons")
    assert code == 0
    assert f"{sys.executable}  torch 0.0-fake, CPU only  [current]" in out


def test_a_working_python_is_remembered_and_used_next_time(capsys, tmp_path, monkeypatch):
    monkeypatch.setattr(runner, "WORKER_SCRIPT", FAKE_WORKER)
    monkeypatch.setattr(interpreters, "candidate_pythons", lambda *a, **k: [])
    venv = tmp_path / "train"
    (venv / "bin").mkdir(parents=True)
    (venv / "bin" / "python").symlink_to(sys.executable)
    remembered = os.path.abspath(venv / "bin" / "python")

    code, _, err = run_cli(capsys, "probe", "--python", str(venv), "--no-remember", "--json")
    assert code == 0, err
    assert load_settings()[0].probe_python is None
    code, _, err = run_cli(capsys, "probe", "--python", str(venv), "--json")
    assert code == 0, err
    assert load_settings()[0].probe_python == remembered

    code, out, err = run_cli(capsys, "probe", "--json")  # no --python: the remembered one
    assert code == 0, err
    assert json.loads(out)["status"] == "ok"
    assert err.strip() == (f"gpuadvisor probe: running the probes in {remembered} "
                           "(torch 0.0-fake, CPU only; remembered; --python to choose another)")


def test_a_python_without_torch_is_not_remembered(capsys, tmp_path, monkeypatch):
    monkeypatch.setattr(runner, "WORKER_SCRIPT", FAKE_WORKER)
    monkeypatch.setenv("FAKE_WORKER_MODE", "no-torch")
    code, _, _ = run_cli(capsys, "probe", "--python", sys.executable)
    assert code == 1
    assert load_settings()[0].probe_python is None


def test_without_torch_anywhere_the_message_stays_one_line(capsys, tmp_path, monkeypatch):
    monkeypatch.setattr(runner, "WORKER_SCRIPT", FAKE_WORKER)
    monkeypatch.setenv("FAKE_WORKER_MODE", "no-torch")
    other = tmp_path / "other" / "bin" / "python"
    other.parent.mkdir(parents=True)
    other.symlink_to(sys.executable)
    monkeypatch.setattr(interpreters, "candidate_pythons", lambda *a, **k: [other])
    code, _, err = run_cli(capsys, "probe")
    assert code == 1
    [line] = err.strip().splitlines()
    assert "torch is not installed" in line and "--list-pythons" in line
    assert "--python /path/to/your/training/env/bin/python" in line
