"""Engine flags on the command line, bad engine input, and the serving exports."""

from __future__ import annotations

import json

import pytest
from localmodels.gguf_bytes import write_tiny_llama

from gpuadvisor.cli import main
from gpuadvisor.core.plan import Plan


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


INFER = ("--task", "infer", "--no-measured")


def estimate_json(capsys, *argv):
    code, out, err = run(capsys, "estimate", *INFER, *argv, "--json")
    assert code == 0, err
    return json.loads(out)


def test_json_keeps_every_key_and_adds_the_engine(capsys):
    data = estimate_json(capsys, "--model", "llama-3.1-8b", "--quant", "Q4_K_M",
                         "--gpu", "rtx-4090", "--gpu-layers", "20")
    for key in ("params_total", "params_trainable", "memory", "compute", "time",
                "assumptions", "warnings"):
        assert key in data
    assert set(data["memory"]["breakdown"]) == {"weights", "gradients", "optimizer",
                                                "activations", "logits", "kv_cache",
                                                "overhead"}
    assert data["plan"]["quant"] == "q4_k_m"
    engine = data["engine"]
    assert engine["name"] == "llama.cpp"
    assert engine["settings"]["n_gpu_layers"] == 20
    assert engine["terms"]["host_weights"] > 0
    assert data["assumptions"]["engine_n_gpu_layers"] == 20
    assert data["assumptions"]["engine_cache_type_source"].startswith("default")


def test_bpw_means_an_exl2_quant_on_exllamav2(capsys):
    data = estimate_json(capsys, "--model", "llama-3.1-8b", "--bpw", "4.65",
                         "--gpu", "rtx-3090")
    assert data["plan"]["quant"] == "exl2-4.65"
    assert data["engine"]["name"] == "exllamav2"
    assert data["engine"]["settings"]["bits_per_weight"] == 4.65


def test_vllm_flags_reach_the_estimate(capsys):
    data = estimate_json(capsys, "--model", "llama-3.1-8b", "--framework", "vllm",
                         "--gpu", "a100-sxm-80gb", "--gpu-memory-utilization", "0.8",
                         "--micro-batch", "16")
    assert data["engine"]["settings"]["gpu_memory_utilization"] == 0.8
    assert data["engine"]["settings"]["max_num_seqs"] == 16
    assert data["engine"]["kv_capacity_tokens"] > 0


@pytest.mark.parametrize("argv, names", [
    (("--model", "llama-2-7b", "--quant", "q4_0", "--gpu-layers", "99"), "gpu_layers 99"),
    (("--model", "llama-2-7b", "--gpu-layers", "-1"), "--gpu-layers"),
    (("--model", "llama-2-7b", "--quant", "exl2-9"), "--quant"),
    (("--model", "llama-2-7b", "--quant", "q4_k_x"), "--quant"),
    (("--model", "llama-2-7b", "--framework", "vllm", "--kv-dtype", "q8_0"), "kv_dtype"),
    (("--model", "llama-2-7b", "--framework", "llama.cpp", "--kv-dtype", "q8_0",
      "--attention", "eager"), "flash attention"),
    (("--model", "llama-2-7b", "--framework", "llama.cpp", "--n-cpu-moe", "4"),
     "mixture-of-experts"),
    (("--model", "llama-2-7b", "--quant", "q4_0", "--bpw", "4.0"), "--bpw"),
    (("--model", "llama-2-7b", "--gpu-memory-utilization", "1.5"),
     "--gpu-memory-utilization"),
])
def test_bad_engine_input_exits_2_naming_it(capsys, argv, names):
    code, out, err = run(capsys, "estimate", *INFER, *argv)
    assert code == 2 and out == ""
    assert names in err and len(err.strip().splitlines()) == 1


def test_llama_server_line_has_the_flags_the_estimate_used(capsys, tmp_path):
    path = write_tiny_llama(tmp_path / "my model.gguf")
    code, out, err = run(capsys, "export", "llama-server", *INFER, "--model", str(path),
                         "--gpu", "rtx-4090", "--seq", "4000", "--micro-batch", "2",
                         "--framework", "llama.cpp", "--kv-dtype", "q8_0")
    assert code == 0, err
    line = out.strip().splitlines()[-1]
    assert line.startswith("llama-server -m ")
    assert f"'{path}'" in line  # the path with a space, quoted for the shell
    assert " -c 8512 " in line  # 2 slots x (4000 + 256) tokens
    assert " -ngl 3 -fa on --cache-type-k q8_0 --cache-type-v q8_0 " in line
    assert line.endswith(" -np 2")


def test_moe_expert_offload_is_exported(capsys):
    code, out, err = run(capsys, "export", "--format", "llama-server", *INFER,
                         "--model", "qwen3-30b-a3b", "--quant", "q4_k_m", "--n-cpu-moe", "8",
                         "--gpu", "rtx-4090")
    assert code == 0, err
    assert "--n-cpu-moe 8" in out


def test_ollama_modelfile_sets_context_layers_and_server_settings(capsys):
    code, out, err = run(capsys, "export", "ollama", *INFER, "--model", "llama-3.1-8b",
                         "--quant", "q4_k_m", "--gpu", "rtx-3060-12gb", "--kv-dtype", "q8_0",
                         "--framework", "ollama")
    assert code == 0, err
    lines = out.splitlines()
    # The Ollama library's tag of the preset at Q4_K_M (catalog/serving.toml: llama3.1:8b is
    # the Q4_K_M build, ollama.com/library/llama3.1/tags), never the preset id.
    assert "FROM llama3.1:8b" in lines
    assert "FROM llama-3.1-8b" not in lines
    assert "PARAMETER num_ctx 4096" in lines  # Ollama's default below 24 GiB of VRAM
    assert "PARAMETER num_gpu 33" in lines
    assert any("OLLAMA_FLASH_ATTENTION=1 OLLAMA_KV_CACHE_TYPE=q8_0 OLLAMA_NUM_PARALLEL=1"
               in line for line in lines)


def test_vllm_serve_line(capsys):
    code, out, err = run(capsys, "export", "vllm", *INFER, "--model", "llama-3.1-8b",
                         "--gpu", "h100-sxm", "--gpus", "2", "--micro-batch", "64",
                         "--seq", "8192", "--kv-dtype", "fp8", "--quant", "fp8",
                         "--gpu-memory-utilization", "0.85")
    assert code == 0, err
    line = out.strip().splitlines()[-1]
    # The Hugging Face repository vLLM loads (catalog/serving.toml), not the preset id.
    assert line == ("vllm serve meta-llama/Llama-3.1-8B-Instruct --max-model-len 8448 "
                    "--gpu-memory-utilization 0.85 --max-num-seqs 64 --kv-cache-dtype fp8 "
                    "--tensor-parallel-size 2 --quantization fp8")


def test_a_serving_export_refuses_another_engine_and_training(capsys):
    code, _, err = run(capsys, "export", "ollama", *INFER, "--model", "llama-3.1-8b",
                       "--framework", "vllm")
    assert code == 2 and "export ollama runs on ollama" in err
    code, _, err = run(capsys, "export", "vllm", "--model", "llama-3.1-8b")
    assert code == 2 and "--task" in err
    code, _, err = run(capsys, "export", "--model", "llama-3.1-8b")
    assert code == 2 and "give what to export" in err


def test_plan_fields_round_trip_and_refuse_bad_values():
    plan = Plan(task="infer", framework="llama.cpp", quant="q4_k_m", gpu_layers=12,
                n_cpu_moe=2, kv_dtype="q4_0")
    assert Plan.from_dict(plan.to_dict()) == plan
    with pytest.raises(ValueError, match="gpu_layers"):
        Plan(task="infer", gpu_layers=-3)
    with pytest.raises(ValueError, match="gpu_memory_utilization"):
        Plan(task="infer", gpu_memory_utilization=0)
    with pytest.raises(ValueError, match="inference plans"):
        Plan(task="full", n_cpu_moe=2)
    with pytest.raises(ValueError, match=r"llama\.cpp/Ollama setting"):
        Plan(task="infer", framework="vllm", gpu_layers=10)
    with pytest.raises(ValueError, match="inference format"):
        Plan(task="qlora", quant="q4_k_m")
    with pytest.raises(ValueError, match="exl2-<bits"):
        Plan(task="infer", quant="exl2-1.5")
