"""``gpuadvisor export``: stdout or an atomically written file, never a silent overwrite."""

from __future__ import annotations

import json

import pytest
import yaml

from gpuadvisor import catalog
from gpuadvisor.cli import main

from .conftest import make_offer
from .test_report import PNG_1X1

PLAN = ["--model", "llama-3.1-8b", "--zero", "2", "--offload", "optimizer", "--gpus", "4",
        "--micro-batch", "2", "--grad-accum", "8"]


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_deepspeed_export_goes_to_stdout_without_out(capsys):
    code, out, err = run(capsys, "export", "deepspeed", *PLAN)
    assert code == 0, err
    config = json.loads(out)
    assert config["train_batch_size"] == 2 * 8 * 4
    assert config["zero_optimization"]["offload_optimizer"]["device"] == "cpu"


def test_out_writes_the_file_and_refuses_to_overwrite_it_without_force(capsys, tmp_path):
    target = tmp_path / "ds_config.json"
    code, out, err = run(capsys, "export", "deepspeed", *PLAN, "--out", str(target))
    assert code == 0, err
    assert out == ""
    assert json.loads(target.read_text())["zero_optimization"]["stage"] == 2

    target.write_text("mine")
    code, out, err = run(capsys, "export", "deepspeed", *PLAN, "--out", str(target))
    assert code == 2
    assert "--out" in err and "--force" in err and len(err.strip().splitlines()) == 1
    assert target.read_text() == "mine"

    code, _, err = run(capsys, "export", "deepspeed", *PLAN, "--out", str(target), "--force")
    assert code == 0, err
    assert json.loads(target.read_text())["gradient_accumulation_steps"] == 8
    assert [p.name for p in tmp_path.iterdir()] == ["ds_config.json"]  # no temp file left


def test_out_into_a_missing_folder_is_bad_input(capsys, tmp_path):
    code, _, err = run(capsys, "export", "launch", *PLAN, "--out", str(tmp_path / "no" / "x"))
    assert code == 2 and "--out" in err


def test_accelerate_and_launch_exports_follow_the_plan(capsys):
    code, out, _ = run(capsys, "export", "accelerate", *PLAN)
    assert code == 0
    config = yaml.safe_load(out)
    assert (config["distributed_type"], config["num_processes"]) == ("DEEPSPEED", 4)
    assert config["mixed_precision"] == "bf16"
    code, out, _ = run(capsys, "export", "launch", *PLAN, "--launcher", "accelerate")
    assert code == 0
    assert out.splitlines()[-1] == "accelerate launch --config_file accelerate.yaml train.py"


def test_skypilot_export_from_gpu_and_flags(capsys):
    code, out, err = run(capsys, "export", "skypilot", "--model", "llama-3.1-8b", "--gpu",
                         "a100-sxm-80gb", "--gpus", "16", "--spot", "--cloud", "gcp")
    assert code == 0, err
    config = yaml.safe_load(out)
    assert config["num_nodes"] == 2
    assert config["resources"] == {"infra": "gcp", "accelerators": "A100-80GB:8",
                                   "use_spot": True}


def test_skypilot_needs_a_gpu_and_unrunnable_plans_name_the_field(capsys):
    code, _, err = run(capsys, "export", "skypilot", "--model", "llama-3.1-8b")
    assert code == 2 and err.startswith("--gpu:")
    code, _, err = run(capsys, "export", "accelerate", *PLAN, "--backend", "fsdp")
    assert code == 2 and err.startswith("export accelerate: offload:")


def test_offer_comes_from_the_offers_catalog(capsys, monkeypatch):
    offer = make_offer(id="aws-p4de-spot", spot=True)
    monkeypatch.setattr(catalog, "load_offers", lambda: {offer.id: offer}, raising=False)
    code, out, err = run(capsys, "export", "skypilot", "--model", "llama-3.1-8b",
                         "--offer", "aws-p4de-spot", "--gpus", "8")
    assert code == 0, err
    config = yaml.safe_load(out)
    assert config["resources"] == {"infra": "aws", "accelerators": "A100-80GB:8",
                                   "use_spot": True}
    code, _, err = run(capsys, "export", "skypilot", "--model", "llama-3.1-8b",
                       "--offer", "aws-p4de-spot", "--gpu", "h100-sxm")
    assert code == 2 and err.startswith("--gpu:")
    code, _, err = run(capsys, "export", "skypilot", "--model", "llama-3.1-8b",
                       "--offer", "nope")
    assert code == 2 and err.startswith("--offer: unknown offer")


def test_offer_without_an_offers_catalog_says_what_to_give_instead(capsys, monkeypatch):
    monkeypatch.delattr(catalog, "load_offers", raising=False)
    code, _, err = run(capsys, "export", "skypilot", "--model", "llama-3.1-8b", "--offer", "x")
    assert code == 2
    assert err.startswith("--offer:") and "--gpu" in err


def test_report_to_an_html_file_embeds_the_chart(capsys, tmp_path):
    chart = tmp_path / "vram.png"
    chart.write_bytes(PNG_1X1)
    target = tmp_path / "report.html"
    code, _, err = run(capsys, "export", "report", "--model", "llama-3.1-8b", "--task", "qlora",
                       "--gpu", "rtx-4090", "--chart", str(chart), "--out", str(target))
    assert code == 0, err
    page = target.read_text()
    assert page.startswith("<!DOCTYPE html>")
    assert "data:image/png;base64," in page and "<figcaption>vram</figcaption>" in page


def test_report_defaults_to_markdown_and_rejects_a_non_png_chart(capsys, tmp_path):
    code, out, _ = run(capsys, "export", "report", "--model", "gpt2")
    assert code == 0 and out.startswith("# gpuadvisor report: GPT-2")
    bad = tmp_path / "x.png"
    bad.write_bytes(b"not a png")
    code, _, err = run(capsys, "export", "report", "--model", "gpt2", "--chart", str(bad))
    assert code == 2 and "not PNG" in err


@pytest.mark.parametrize("kind", ["deepspeed", "launch"])
def test_json_flag_prints_one_object(capsys, kind):
    code, out, _ = run(capsys, "export", kind, *PLAN, "--json")
    assert code == 0
    data = json.loads(out)
    assert data["export"] == kind and data["text"]


def test_offer_from_the_shipped_catalog(capsys):
    from gpuadvisor.export import SKYPILOT_ACCELERATORS, skypilot_cloud

    offer = next(o for o in catalog.load_offers().values()
                 if o.is_rent and o.spot and o.gpu_id in SKYPILOT_ACCELERATORS)
    code, out, err = run(capsys, "export", "skypilot", "--model", "llama-3.1-8b", "--task",
                         "qlora", "--offer", offer.id, "--gpus", str(offer.gpus_per_instance))
    assert code == 0, err
    resources = yaml.safe_load(out)["resources"]
    assert resources["use_spot"] is True
    assert resources.get("infra") == skypilot_cloud(offer.provider)
    assert f"# Priced from offer {offer.id}" in out


def test_exporting_a_plan_that_does_not_fit_warns_on_stderr(capsys):
    # Llama 3.1 8B full fine-tune with torch.amp AdamW: ~18 B/param = 145 GB > 80 GB.
    assert main(["export", "deepspeed", "--model", "llama-3.1-8b", "--task", "full",
                 "--gpu", "h100-sxm"]) == 0
    err = capsys.readouterr().err
    assert "warning: the plan needs" in err and "it will not fit" in err
    assert main(["export", "deepspeed", "--model", "llama-3.1-8b", "--task", "lora",
                 "--gpu", "h100-sxm"]) == 0
    assert "warning" not in capsys.readouterr().err


def test_the_report_carries_the_ten_best_options_and_the_cards_probe_results(
        capsys, tmp_path, monkeypatch):
    from gpuadvisor.probes import history
    from tests.probes.test_history import make_run

    monkeypatch.setenv(history.DATA_DIR_ENV, str(tmp_path))
    history.record(make_run(bf16_tflops=61.5), timestamp="2026-12-01T10:00:00Z")
    plan = ["--model", "llama-3.1-8b", "--task", "qlora", "--gpu", "rtx-4090"]
    assert main(["export", "report", *plan]) == 0
    out = capsys.readouterr().out
    section = out.split("## Suggestions", 1)[1]
    rows = [line for line in section.splitlines() if line.startswith("| ") and
            line.split("|")[1].strip().isdigit()]
    assert [int(r.split("|")[1]) for r in rows] == list(range(1, 11))
    assert "## Probe results" in out and r"| matmul | bf16\_median\_tflops | 61.5 |" in out
    assert main(["export", "report", *plan, "--no-advice"]) == 0
    assert "## Suggestions" not in capsys.readouterr().out
