"""The ``gpuadvisor`` command line against its contract (DESIGN.md §3).

Runs ``gpuadvisor.cli.main`` in-process (stdout/stderr via ``capsys``), plus one subprocess run of
the installed console script. Expected figures are derived by hand in the tests or taken from the
cited publication, never copied from the program's output.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from gpuadvisor.cli import main

ROOT = Path(__file__).resolve().parent.parent
HF_CONFIGS = Path(__file__).resolve().parent / "data" / "hf_configs"
LLAMA_8B_CONFIG = HF_CONFIGS / "llama-3.1-8b.json"

TERMS = ("weights", "gradients", "optimizer", "activations", "logits", "kv_cache", "overhead")

# Llama 3.1 8B: 8,030,261,248 parameters (Meta's model card / HF safetensors index).
LLAMA_31_8B_PARAMS = 8_030_261_248

# Llama 3.1 8B shapes (HF config.json): hidden 4096, 32 layers, 32 query heads and 8 KV heads of
# head dim 128 (so k/v project to 1024), MLP intermediate 14336.
HIDDEN, LAYERS, KV_DIM, FFN = 4096, 32, 8 * 128, 14336

QLORA_8B = ["estimate", "--model", "llama-3.1-8b", "--task", "qlora",
            "--checkpointing", "full", "--gpu", "rtx-4090"]


def run(capsys, *argv: str) -> tuple[int, str, str]:
    """Run the CLI in-process; return (exit code, stdout, stderr)."""
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def run_json(capsys, *argv: str) -> dict:
    code, out, err = run(capsys, *argv, "--json")
    data = json.loads(out)
    fits = data.get("memory", {}).get("verdict") != "does not fit"
    assert code == (0 if fits else 3), err  # exit 3: printed, and the plan does not fit
    return data


def lora_params_all_linear(rank: int) -> int:
    """LoRA adds rank * (in + out) parameters per adapted linear layer (A: in x r, B: r x out)."""
    per_layer = (
        (HIDDEN + HIDDEN)      # q_proj 4096 -> 4096
        + (HIDDEN + KV_DIM)    # k_proj 4096 -> 1024
        + (HIDDEN + KV_DIM)    # v_proj 4096 -> 1024
        + (HIDDEN + HIDDEN)    # o_proj 4096 -> 4096
        + (HIDDEN + FFN)       # gate_proj 4096 -> 14336
        + (HIDDEN + FFN)       # up_proj 4096 -> 14336
        + (FFN + HIDDEN)       # down_proj 14336 -> 4096
    )
    return per_layer * rank * LAYERS


# --------------------------------------------------------------------------- estimate --json
def test_estimate_json_has_every_contract_key(capsys):
    d = run_json(capsys, *QLORA_8B)
    for key in ("params_total", "params_trainable", "memory", "compute", "time", "assumptions"):
        assert key in d
    mem = d["memory"]
    assert set(mem["breakdown"]) == set(TERMS)
    assert mem["per_gpu_bytes"] > 0
    assert isinstance(mem["fits"], bool)
    assert d["compute"]["flops_total"] > 0
    for key in ("seconds", "gpu_hours", "tokens_per_s"):
        assert d["time"][key] > 0
    assert isinstance(d["assumptions"], dict)


def test_estimate_json_figures(capsys):
    d = run_json(capsys, *QLORA_8B)
    mem = d["memory"]
    assert sum(mem["breakdown"][t] for t in TERMS) == pytest.approx(mem["per_gpu_bytes"])
    assert d["params_total"] == LLAMA_31_8B_PARAMS
    # 81,920 per layer per rank unit -> 41,943,040 at r=16 over 32 layers.
    assert d["params_trainable"] == lora_params_all_linear(16) == 41_943_040
    # Defaults used are reported as assumptions.
    assert d["assumptions"]["lora_rank"] == 16
    assert d["assumptions"]["quant"] == "nf4-dq"
    # QLoRA of an 8B model with full checkpointing fits a 24 GiB card.
    assert mem["fits"] is True
    t = d["time"]
    assert t["gpu_hours"] == pytest.approx(t["seconds"] * 1 / 3600)


def test_fits_absent_without_gpu(capsys):
    d = run_json(capsys, "estimate", "--model", "llama-3.1-8b", "--task", "qlora")
    assert "fits" not in d["memory"]
    assert set(d["memory"]["breakdown"]) == set(TERMS)


def test_gpus_makes_tokens_per_s_the_whole_jobs(capsys):
    one = run_json(capsys, *QLORA_8B)
    four = run_json(capsys, *QLORA_8B, "--gpus", "4")
    t = four["time"]
    assert t["gpu_hours"] == pytest.approx(t["seconds"] * 4 / 3600)
    assert t["tokens_per_s"] > one["time"]["tokens_per_s"]
    # Four GPUs on the same work finish sooner than one.
    assert t["seconds"] < one["time"]["seconds"]


def test_plan_that_does_not_fit(capsys):
    argv = ["estimate", "--model", "llama-3.1-70b", "--task", "full", "--gpu", "rtx-4090"]
    d = run_json(capsys, *argv)
    assert d["memory"]["fits"] is False
    code, out, err = run(capsys, *argv)
    # The table is printed as usual and the exit status says it does not fit (3).
    assert code == 3, err
    assert "DOES NOT FIT" in out


def test_human_table(capsys):
    code, out, err = run(capsys, *QLORA_8B)
    assert code == 0, err
    assert "NVIDIA GeForce RTX 4090" in out
    assert "FITS" in out
    assert "DOES NOT FIT" not in out
    for label in ("weights", "gradients", "optimizer states", "activations", "logits / loss",
                  "KV cache", "overhead"):
        assert label in out
    assert "Assumptions" in out
    assert "lora_rank" in out


def test_config_json_matches_preset(capsys):
    preset = run_json(capsys, "estimate", "--model", "llama-3.1-8b")
    from_file = run_json(capsys, "estimate", "--model", str(LLAMA_8B_CONFIG))
    assert from_file["params_total"] == preset["params_total"] == LLAMA_31_8B_PARAMS


def test_inference_kv_cache(capsys):
    d = run_json(capsys, "estimate", "--task", "infer", "--model", "llama-3.1-8b",
                 "--seq", "8192", "--gpu", "rtx-4090")
    # K and V x 32 layers x 8 KV heads x head dim 128 x (prompt 8192 + 256 new tokens) x 2 bytes.
    expected = 2 * 32 * 8 * 128 * (8192 + 256) * 2
    kv = d["memory"]["breakdown"]["kv_cache"]
    assert kv > 0
    assert kv == pytest.approx(expected)


# --------------------------------------------------------------------------- bad input
def _write(path: Path, text: str) -> str:
    path.write_text(text, encoding="utf-8")
    return str(path)


def _config_without(tmp_path: Path, field: str) -> str:
    config = json.loads(LLAMA_8B_CONFIG.read_text(encoding="utf-8"))
    del config[field]
    return _write(tmp_path / "config.json", json.dumps(config))


BASE = ("estimate", "--model", "llama-3.1-8b")

BAD_INPUT = [
    # (id, argv builder taking tmp_path, substrings expected on stderr)
    ("micro-batch-negative", lambda p: (*BASE, "--micro-batch", "-4"), ["--micro-batch"]),
    ("micro-batch-zero", lambda p: (*BASE, "--micro-batch", "0"), ["--micro-batch"]),
    ("seq-not-number", lambda p: (*BASE, "--seq", "abc"), ["--seq"]),
    ("unknown-preset", lambda p: ("estimate", "--model", "llama-3.1-8"),
     ["--model", "llama-3.1-8b"]),
    ("unknown-gpu", lambda p: (*BASE, "--gpu", "rtx-9999"), ["--gpu", "rtx-9999"]),
    ("lora-rank-on-full", lambda p: (*BASE, "--task", "full", "--lora-rank", "8"),
     ["lora_rank"]),
    ("quant-on-full", lambda p: (*BASE, "--task", "full", "--quant", "nf4"), ["quant"]),
    ("qlora-without-quant", lambda p: (*BASE, "--task", "qlora", "--quant", "none"), ["quant"]),
    ("offload-params-without-zero3", lambda p: (*BASE, "--offload", "params"), ["offload"]),
    ("epochs-without-samples", lambda p: (*BASE, "--epochs", "2"), ["--epochs"]),
    ("unknown-assumption", lambda p: (*BASE, "--assume", "nonsense=1"),
     ["--assume", "nonsense"]),
    ("config-missing", lambda p: ("estimate", "--model", str(p / "nowhere" / "config.json")),
     ["--model", "not found"]),
    ("config-invalid-json",
     lambda p: ("estimate", "--model", _write(p / "config.json", '{"model_type": "llama",')),
     ["--model", "JSON"]),
    ("config-unknown-model-type",
     lambda p: ("estimate", "--model",
                _write(p / "config.json", json.dumps({"model_type": "no-such-arch"}))),
     ["--model", "no-such-arch", "llama", "gpt2", "bert"]),
    ("config-missing-field",
     lambda p: ("estimate", "--model", _config_without(p, "num_hidden_layers")),
     ["--model", "num_hidden_layers"]),
]


@pytest.mark.parametrize(("build", "expected"), [(b, e) for _, b, e in BAD_INPUT],
                         ids=[i for i, _, _ in BAD_INPUT])
def test_bad_input_exits_2_with_one_line(capsys, tmp_path, build, expected):
    code, out, err = run(capsys, *build(tmp_path), "--json")
    assert code == 2
    assert out == ""
    lines = err.splitlines()
    assert len(lines) == 1, err
    for text in expected:
        assert text in lines[0]


# --------------------------------------------------------------------------- catalog
def test_catalog_list_gpus(capsys):
    items = run_json(capsys, "catalog", "list")["items"]
    assert len(items) >= 45
    assert all(item["id"] and item["name"] for item in items)
    assert "rtx-4090" in {item["id"] for item in items}


def test_catalog_list_models(capsys):
    items = run_json(capsys, "catalog", "list", "--kind", "models")["items"]
    assert len(items) >= 30
    assert all(item["id"] and item["name"] for item in items)
    by_id = {item["id"]: item for item in items}
    assert by_id["llama-3.1-8b"]["params_total"] == LLAMA_31_8B_PARAMS


def test_catalog_show(capsys):
    h100 = run_json(capsys, "catalog", "show", "h100-sxm")
    assert h100["id"] == "h100-sxm"
    assert "H100" in h100["name"]
    # NVIDIA H100 datasheet / whitepaper: 989.4 dense BF16 TFLOPS on SXM5, 80 GB HBM3.
    assert h100["bf16_tensor_tflops"] == pytest.approx(989.4)
    assert h100["memory_gib"] == 80


def test_catalog_show_unknown(capsys):
    code, out, err = run(capsys, "catalog", "show", "nonexistent", "--json")
    assert code == 2
    assert out == ""
    assert len(err.splitlines()) == 1
    assert "nonexistent" in err


def test_catalog_validate_shipped(capsys):
    code, out, err = run(capsys, "catalog", "validate", str(ROOT / "catalog" / "gpus.toml"))
    assert code == 0, err
    assert "OK" in out


def test_catalog_validate_unknown_key(capsys, tmp_path):
    shipped = (ROOT / "catalog" / "gpus.toml").read_text(encoding="utf-8")
    # A complete, valid entry (the shipped RTX 4090 table) renamed, plus one unknown key.
    entry = re.search(r"^\[rtx-4090\]\n.*?(?=^\[|\Z)", shipped, re.S | re.M)
    assert entry is not None
    text = entry.group(0).replace("[rtx-4090]", "[my-gpu]", 1) + "\nbogus_key = 1\n"
    path = _write(tmp_path / "gpus.toml", text)
    code, out, err = run(capsys, "catalog", "validate", path)
    assert code == 2
    assert "OK" not in out
    lines = err.splitlines()
    assert len(lines) == 1, err
    assert "gpus.toml" in lines[0]
    assert "my-gpu" in lines[0]
    assert "bogus_key" in lines[0]


# --------------------------------------------------------------------------- console script
def test_installed_console_script():
    exe = Path(sys.executable).with_name("gpuadvisor")
    assert exe.exists(), f"console script not installed next to {sys.executable}"
    ok = subprocess.run([str(exe), *QLORA_8B, "--json"],
                        capture_output=True, text=True, timeout=60, check=False)
    assert ok.returncode == 0, ok.stderr
    d = json.loads(ok.stdout)
    assert d["params_total"] == LLAMA_31_8B_PARAMS
    assert d["memory"]["fits"] is True
    bad = subprocess.run([str(exe), "estimate", "--model", "llama-3.1-8b", "--micro-batch", "0"],
                         capture_output=True, text=True, timeout=60, check=False)
    assert bad.returncode == 2
    assert bad.stdout == ""
    assert len(bad.stderr.splitlines()) == 1
    assert "--micro-batch" in bad.stderr
