"""Inference exports serve: a SkyPilot task of an inference plan runs the estimate's vLLM
server (not a training script), and every serving line names what its engine loads."""

from __future__ import annotations

import io

import yaml

from gpuadvisor import catalog
from tests.cli_run import run_cli

IDS = catalog.load_serving()


_cli = run_cli


def test_a_skypilot_task_of_an_inference_plan_serves_it_with_vllm():
    code, text, err = _cli("export", "skypilot", "--model", "qwen3-8b", "--task", "infer",
                           "--framework", "vllm", "--gpu", "a100-sxm-80gb", "--no-measured")
    assert code == 0, err
    task = yaml.safe_load(text)
    assert task["resources"]["ports"] == 8000
    assert "pip install vllm" in task["setup"] and "torch" not in task["setup"]
    run = task["run"].strip()
    assert run.startswith(f"vllm serve {IDS['qwen3-8b'].hf_repo} ")
    assert run.endswith("--host 0.0.0.0 --port 8000")
    assert "torchrun" not in text and "train.py" not in text


def test_a_skypilot_task_refuses_an_inference_plan_not_estimated_on_vllm():
    code, _, err = _cli("export", "skypilot", "--model", "qwen3-8b", "--task", "infer",
                        "--gpu", "a100-sxm-80gb", "--no-measured")
    assert code == 2 and "--framework vllm" in err


def test_a_gguf_on_vllm_is_served_from_its_file_with_the_original_tokenizer():
    ids = IDS["llama-3.1-8b"]
    repo, file = ids.gguf_file("q4_k_m")
    code, text, err = _cli("export", "vllm", "--model", "llama-3.1-8b", "--task", "infer",
                           "--framework", "vllm", "--quant", "q4_k_m", "--gpu", "rtx-4090",
                           "--no-measured")
    assert code == 0, err
    line = text.strip().splitlines()[-1]
    assert line.startswith(f"vllm serve ./{file} --tokenizer {ids.hf_repo} ")
    assert "--quantization" not in line  # vLLM reads the GGUF's own types
    assert f"huggingface-cli download {repo} {file}" in text


def test_llama_server_downloads_the_gguf_of_the_estimates_type():
    ids = IDS["qwen3-8b"]
    found = ids.gguf_file("q4_k_m")
    assert found is not None
    code, text, err = _cli("export", "llama-server", "--model", "qwen3-8b", "--task", "infer",
                           "--quant", "q4_k_m", "--gpu", "rtx-4090", "--no-measured")
    assert code == 0, err
    assert f"-hf {found[0]} --hf-file {found[1]}" in text.strip().splitlines()[-1]


def test_a_gguf_type_with_no_known_file_is_refused_saying_what_to_give():
    assert "iq2_xxs" not in IDS["qwen3-8b"].gguf_files
    code, _, err = _cli("export", "llama-server", "--model", "qwen3-8b", "--task", "infer",
                        "--quant", "iq2_xxs", "--gpu", "rtx-4090", "--no-measured")
    assert code == 2 and "IQ2_XXS" in err and ".gguf" in err


def test_a_cloud_whose_name_also_covers_a_smaller_card_is_refused_when_it_would_not_fit():
    """On Vast, SkyPilot's 'A100' is the 40 GB and the 80 GB card alike: a plan that needs
    more than 40 GB per GPU could start on the smaller one, so the task is refused with the
    clouds that name the 80 GB card apart; a plan that fits 40 GB is written."""
    flags = ["--model", "llama-3.1-8b", "--task", "lora", "--gpu", "a100-sxm-80gb",
             "--checkpointing", "none", "--cloud", "vast", "--no-measured"]
    _, out, _ = _cli("estimate", *flags[:-3], "--micro-batch", "4", "--no-measured", "--json")
    import json

    need = json.loads(out)["memory"]["per_gpu_bytes"]
    assert 40 * 2**30 < need < 80 * 2**30
    code, _, err = _cli("export", "skypilot", *flags, "--micro-batch", "4")
    assert code == 2 and "'A100' is also" in err and "aws" in err
    code, text, err = _cli("export", "skypilot", *flags[:-3], "--task", "qlora",
                           "--checkpointing", "full", "--cloud", "vast", "--no-measured")
    assert code == 0, err
    assert yaml.safe_load(text)["resources"]["accelerators"] == "A100:1"


def test_a_serving_export_of_a_config_piped_in_is_refused():
    """``--model -`` reads a config.json from stdin: no engine can load "-" (it used to write
    ``vllm serve -``)."""
    import sys

    config = ('{"model_type": "llama", "hidden_size": 64, "num_hidden_layers": 2, '
              '"num_attention_heads": 2, "intermediate_size": 64, "vocab_size": 100, '
              '"max_position_embeddings": 2048}')
    saved, sys.stdin = sys.stdin, io.StringIO(config)
    try:
        code, out, err = _cli("export", "vllm", "--model", "-", "--task", "infer")
    finally:
        sys.stdin = saved
    assert code == 2 and "--model" in err and "vllm serve" not in out


def test_an_ollama_modelfile_pulls_the_tag_of_the_type_the_estimate_sized():
    """Without --quant an Ollama plan runs what ``ollama run`` pulls, the default tag
    (llama3.1:8b holds Q4_K_M, catalog/serving.toml), and the Modelfile pulls that very tag;
    --quant f16 sizes F16 weights and pulls the F16 tag, naming the default one."""
    ids = IDS["llama-3.1-8b"]
    flags = ["--model", "llama-3.1-8b", "--task", "infer", "--framework", "ollama", "--gpu",
             "rtx-3060-12gb", "--no-measured"]
    code, text, _ = _cli("export", "ollama", *flags)
    assert code == 0
    assert f"FROM {ids.ollama}" in text.splitlines() and "default tag" not in text
    code, text, _ = _cli("export", "ollama", *flags, "--quant", "f16")
    assert f"FROM {ids.ollama_tags['f16']}" in text.splitlines()
    assert f"default tag {ids.ollama} holds Q4_K_M" in text


def test_an_ollama_type_the_library_lacks_is_refused_naming_the_default_tag():
    # qwen3-8b's library lists no Q5_K_M tag and the preset names no such GGUF file
    ids = IDS["qwen3-8b"]
    assert "q5_k_m" not in ids.ollama_tags and ids.gguf_file("q5_k_m") is None
    code, text, err = _cli("export", "ollama", "--model", "qwen3-8b", "--task", "infer",
                           "--framework", "ollama", "--quant", "q5_k_m", "--gpu", "rtx-4090",
                           "--no-measured")
    assert code == 2 and text == ""
    assert "no tag of this preset at Q5_K_M" in err
    assert f"default tag {ids.ollama} holds {ids.ollama_quant.upper()}" in err
