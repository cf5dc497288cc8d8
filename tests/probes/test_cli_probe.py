"""``gpuadvisor probe`` (DESIGN.md §3): results per probe, exit 0 / 1 (a probe errored) /
2 (bad input), and one actionable line when torch is missing. Runs the fake worker."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from gpuadvisor.cli import main
from gpuadvisor.probes import interpreters, runner

FAKE_WORKER = Path(__file__).resolve().parents[1] / "fakes" / "fake_worker.py"


@pytest.fixture
def fake(monkeypatch):
    """Point the CLI at the fake worker; the returned function picks its mode."""
    monkeypatch.setattr(runner, "WORKER_SCRIPT", FAKE_WORKER)
    # Only this interpreter: never look for (and start) the machine's other Pythons.
    monkeypatch.setattr(interpreters, "candidate_pythons", lambda *a, **k: [])
    return lambda mode: monkeypatch.setenv("FAKE_WORKER_MODE", mode)


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_probe_json_gives_results_per_probe_and_exit_0(fake, capsys):
    fake("ok")
    code, out, err = run(capsys, "probe", "--quick", "--device", "cpu", "--json")
    assert code == 0, err
    data = json.loads(out)
    assert data["status"] == "ok"
    assert set(data["results"]) == {"matmul", "bandwidth", "transfer", "step"}
    assert data["results"]["matmul"]["figures"] == {"fake_tflops": 1.5}
    assert data["results"]["matmul"]["units"] == {"fake_tflops": "TFLOPS"}
    assert data["worker"]["versions"]["torch"] == "0.0-fake"
    assert data["errors"] == []


def test_probe_text_lists_each_figure_with_its_unit(fake, capsys):
    fake("ok")
    code, out, _ = run(capsys, "probe", "--probes", "matmul")
    assert code == 0
    assert "Probed cpu (Fake CPU)" in out
    assert "fake_tflops" in out and "1.5 TFLOPS" in out


def test_a_probe_that_errored_exits_1_and_says_why(fake, capsys):
    fake("crash")
    code, out, err = run(capsys, "probe", "--device", "0")
    assert code == 1
    assert "crash" in out and "crash" in err


def test_missing_torch_is_one_line_saying_how_to_fix_it(fake, capsys):
    fake("no-torch")
    code, _, err = run(capsys, "probe", "--python", sys.executable)
    assert code == 1
    lines = err.strip().splitlines()
    assert len(lines) == 1
    assert "torch is not installed" in lines[0]
    assert "pip install torch" in lines[0]
    assert "--python /path/to/your/training/env/bin/python" in lines[0]


def test_a_device_the_worker_does_not_have_is_bad_input(fake, capsys):
    fake("bad-device")
    code, out, err = run(capsys, "probe", "--device", "3", "--json")
    assert code == 2
    assert out == ""
    assert err.strip() == "--device 3: torch sees 1 GPU(s): cuda:0"


@pytest.mark.parametrize(("argv", "field"), [
    (["--device", "gpu0"], "--device"),
    (["--probes", "matmul,warp"], "--probes"),
    (["--timeout", "-1"], "--timeout"),
    (["--python", "/nonexistent/python3"], "--python"),
    (["--quick", "--full"], "--full"),
])
def test_bad_probe_flags_exit_2_naming_the_field(capsys, argv, field):
    code, out, err = run(capsys, "probe", *argv)
    assert code == 2
    assert out == ""
    assert len(err.strip().splitlines()) == 1
    assert field in err


def test_python_may_name_a_virtual_environment_folder(fake, capsys, tmp_path):
    fake("ok")
    venv = tmp_path / "training-env"
    (venv / "bin").mkdir(parents=True)
    (venv / "bin" / "python").symlink_to(sys.executable)
    code, _, err = run(capsys, "probe", "--python", str(venv), "--json")
    assert code == 0, err
    empty = tmp_path / "empty-env"
    empty.mkdir()
    code, _, err = run(capsys, "probe", "--python", str(empty))
    assert code == 2 and "no Python interpreter" in err


def test_probe_records_its_results_in_the_history_and_says_where(fake, capsys, tmp_path,
                                                                  monkeypatch):
    from gpuadvisor.probes import history

    monkeypatch.setenv(history.DATA_DIR_ENV, str(tmp_path))
    fake("ok")
    code, out, _ = run(capsys, "probe", "--probes", "matmul")
    assert code == 0
    saved = tmp_path / "probes" / "cpu-fake-cpu.json"
    assert f"Saved to the probe history: {saved}" in out
    [stored] = history.runs()
    assert stored.figure("matmul", "fake_tflops") == 1.5
    assert stored.versions["torch"] == "0.0-fake"
    code, out, _ = run(capsys, "probe", "--probes", "matmul", "--json")
    assert json.loads(out)["history"] == [str(saved)]
    assert len(history.runs()) == 2


def test_probe_no_save_records_nothing(fake, capsys, tmp_path, monkeypatch):
    from gpuadvisor.probes import history

    monkeypatch.setenv(history.DATA_DIR_ENV, str(tmp_path))
    fake("ok")
    code, out, _ = run(capsys, "probe", "--no-save", "--json")
    assert code == 0
    assert json.loads(out)["history"] == []
    assert not (tmp_path / "probes").exists()


def test_a_run_without_torch_records_nothing(fake, capsys, tmp_path, monkeypatch):
    from gpuadvisor.probes import history

    monkeypatch.setenv(history.DATA_DIR_ENV, str(tmp_path))
    fake("no-torch")
    run(capsys, "probe")
    assert history.runs() == []
