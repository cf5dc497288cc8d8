"""``gpuadvisor probe --data FOLDER``: the dataset disk against the training step's need."""

from __future__ import annotations

import json

import pytest

from gpuadvisor.cli import main
from gpuadvisor.cli.probe import _data_verdict
from gpuadvisor.probes import runner
from gpuadvisor.probes.protocol import parse_line
from gpuadvisor.probes.runner import ProbeRun
from tests.probes.test_cli_probe import fake  # noqa: F401 - the fixture


def result(probe, figures, conditions=None):
    return parse_line(json.dumps({"type": "result", "probe": probe, "figures": figures,
                                  "units": {k: "x" for k in figures},
                                  "conditions": conditions or {"device": "cuda:0"}}))


def test_the_disk_is_compared_with_the_steps_tokens_per_second():
    run = ProbeRun(status="ok", hello=None, results=(
        result("step", {"tokens_per_s": 450_000.0}),
        result("dataread", {"read_mb_s": 480.0})))
    verdict = _data_verdict(run, "uint16")
    # 450,000 tokens/s x 2 bytes = 0.9 MB/s needed; 480 / 0.9 = 533x headroom.
    assert verdict.needed_mb_s == pytest.approx(0.9)
    assert verdict.headroom == pytest.approx(480 / 0.9)
    assert not verdict.bottleneck
    slow = ProbeRun(status="ok", hello=None, results=(
        result("step", {"tokens_per_s": 450_000.0}),
        result("dataread", {"read_mb_s": 1.2})))
    verdict = _data_verdict(slow, "text")  # 4 bytes per token: 1.8 MB/s needed
    assert verdict.needed_mb_s == pytest.approx(1.8) and verdict.bottleneck
    assert _data_verdict(ProbeRun(status="ok", hello=None,
                                  results=(result("dataread", {"read_mb_s": 5.0}),)),
                         "uint16") is None  # no step measured: nothing to compare


def test_data_adds_the_dataread_probe_with_the_folder(fake, tmp_path, capsys, monkeypatch):  # noqa: F811
    seen = {}
    real = runner.run_probes

    def spy(probes, **kwargs):
        seen.update(probes=tuple(probes), options=kwargs.get("options"))
        return real(probes, **kwargs)

    monkeypatch.setattr(runner, "run_probes", spy)
    fake("ok")
    assert main(["probe", "--device", "cpu", "--data", str(tmp_path), "--json",
                 "--no-save"]) == 0
    assert seen["probes"] == (*runner.SUITE_PROBES, "dataread")
    assert seen["options"] == {"dataread": {"path": str(tmp_path.resolve())}}
    assert "dataread" in json.loads(capsys.readouterr().out)["results"]


def test_data_that_is_not_a_folder_is_bad_input(fake, tmp_path, capsys):  # noqa: F811
    fake("ok")
    assert main(["probe", "--data", str(tmp_path / "nope")]) == 2
    assert f"--data {tmp_path / 'nope'}: not a folder" in capsys.readouterr().err
