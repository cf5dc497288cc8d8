"""Serving an NVFP4 checkpoint with vLLM: the folder is served (vLLM reads the
quantization from its config), the estimate names the weights it ran, and a 16-bit preset
asked to run NVFP4 is refused with the way out."""

from __future__ import annotations

import json
import shlex
from pathlib import Path

from tests.cli_run import run_cli

CONFIG = Path(__file__).resolve().parents[1] / "data" / "hf_configs" / "llama-3.1-8b.json"


def _checkpoint(tmp_path: Path) -> Path:
    cfg = json.loads(CONFIG.read_text(encoding="utf-8"))
    cfg["quantization_config"] = {"quant_method": "modelopt", "quant_algo": "NVFP4",
                                  "group_size": 16, "exclude_modules": ["lm_head"]}
    folder = tmp_path / "Llama-3.1-8B-NVFP4"
    folder.mkdir()
    (folder / "config.json").write_text(json.dumps(cfg), encoding="utf-8")
    return folder


def test_vllm_serves_the_checkpoint_folder_it_was_given(tmp_path):
    folder = _checkpoint(tmp_path)
    code, out, err = run_cli("export", "vllm", "--model", str(folder / "config.json"),
                             "--task", "infer", "--gpu", "rtx-5090", "--no-measured")
    assert code == 0, err
    words = shlex.split(out.strip().splitlines()[-1])
    assert words[:3] == ["vllm", "serve", str(folder)]
    assert "--quantization" not in words  # vLLM reads it from the checkpoint's config


def test_the_estimate_names_the_weights_it_ran(tmp_path):
    folder = _checkpoint(tmp_path)
    code, out, err = run_cli("estimate", "--model", str(folder), "--task", "infer",
                             "--gpu", "rtx-5090", "--framework", "vllm", "--no-measured")
    assert code == 0, err
    assert "nvfp4 weights" in out


def test_a_16_bit_preset_is_not_served_as_nvfp4():
    code, _, err = run_cli("export", "vllm", "--model", "llama-3.1-8b", "--task", "infer",
                           "--quant", "nvfp4", "--gpu", "rtx-5090", "--no-measured")
    assert code == 2
    assert "checkpoint quantized to it" in err
