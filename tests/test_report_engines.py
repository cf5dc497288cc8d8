"""The terminal summary of an inference plan names its engine and what the engine runs."""

from __future__ import annotations

import math

import pytest

from gpuadvisor import catalog
from gpuadvisor.core.estimate import estimate
from gpuadvisor.core.plan import Plan
from gpuadvisor.report import estimate_table

MODELS = catalog.load_models()
GPUS = catalog.load_gpus()
LLAMA = MODELS["llama-3.1-8b"]  # 32 layers (meta-llama/Llama-3.1-8B config.json)


def engine_lines(result) -> list[str]:
    return [line for line in estimate_table(result).splitlines()
            if line.startswith("  engine:")]


def test_llama_cpp_all_layers_on_the_gpu():
    # No -ngl: llama.cpp's -ngl 999 is the 32 layers and the output layer (33).
    result = estimate(LLAMA, Plan(task="infer", quant="q4_k_m"), GPUS["rtx-4090"])
    assert engine_lines(result) == [
        "  engine: llama.cpp · GGUF Q4_K_M · -ngl 33: 32 of 32 layers + output on the GPU "
        "· KV f16"]


def test_llama_cpp_partial_offload_and_a_quantized_cache():
    plan = Plan(task="infer", framework="llama.cpp", quant="q4_k_m", gpu_layers=20,
                kv_dtype="q8_0")
    result = estimate(LLAMA, plan, GPUS["rtx-3060-12gb"])
    assert engine_lines(result) == [
        "  engine: llama.cpp · GGUF Q4_K_M · -ngl 20: 20 of 32 layers on the GPU, 12 in host "
        "RAM · KV q8_0"]


def test_llama_cpp_layer_split_and_expert_offload():
    model = MODELS["qwen3-30b-a3b"]
    assert model.n_layers == 48  # Qwen/Qwen3-30B-A3B config.json num_hidden_layers
    plan = Plan(task="infer", framework="llama.cpp", quant="q4_k_m", n_cpu_moe=10, n_gpus=2)
    result = estimate(model, plan, GPUS["rtx-3090"])
    assert engine_lines(result) == [
        "  engine: llama.cpp · GGUF Q4_K_M · -ngl 49: 48 of 48 layers + output on the GPUs "
        "· experts of 10 layers in host RAM (--n-cpu-moe) · KV f16"]


def test_ollama_names_its_context():
    # Ollama's num_ctx is 4,096 below 24 GiB of VRAM (ollama docs/context-length.mdx);
    # without --quant it runs its default tag, llama3.1:8b = Q4_K_M (catalog/serving.toml).
    plan = Plan(task="infer", framework="ollama", gpu_layers=10)
    result = estimate(LLAMA, plan, GPUS["rtx-3060-12gb"])
    assert LLAMA.ollama_quant == "q4_k_m"
    assert engine_lines(result) == [
        "  engine: Ollama · GGUF Q4_K_M · -ngl 10: 10 of 32 layers on the GPU, 22 in host RAM "
        "· KV f16 · num_ctx 4,096"]
    # llama.cpp loads the file it is given: without --quant, F16
    plain = estimate(LLAMA, Plan(task="infer", framework="llama.cpp", gpu_layers=10),
                     GPUS["rtx-3060-12gb"])
    assert "GGUF F16" in engine_lines(plain)[0]


def test_vllm_gives_its_kv_pool_in_tokens():
    plan = Plan(task="infer", framework="vllm", gpu_memory_utilization=0.85)
    result = estimate(LLAMA, plan, GPUS["a100-sxm-80gb"])
    # 2 (K, V) x 32 layers x 8 KV heads x 128 x 2 bytes = 131,072 bytes per token; the pool
    # is whole blocks of 16 tokens.
    pool_bytes = result.engine.terms["kv_pool"]
    tokens = math.floor(pool_bytes / (16 * 131_072)) * 16
    assert result.engine.capacity_tokens == tokens
    assert 300_000 < tokens < 500_000  # ~55 GiB left of 0.85 x 80 GiB after 15 GiB weights
    assert engine_lines(result) == [
        f"  engine: vLLM · 16-bit weights · KV auto (the model's dtype) · KV pool {tokens:,} "
        "tokens at gpu_memory_utilization 0.85"]


def test_exllamav2_gives_its_bits_per_weight():
    result = estimate(LLAMA, Plan(task="infer", quant="exl2-4.65", kv_dtype="q4_0",
                                  framework="exllamav2"), GPUS["rtx-4090"])
    # convert.py's default head is 6 bits.
    assert engine_lines(result) == [
        "  engine: ExLlamaV2 · EXL2 4.65 bpw (head 6) · KV q4_0"]


@pytest.mark.parametrize(("quant", "weights"), [
    (None, "16-bit weights"),
    # mlx-lm's affine format: 4 bits + an fp16 scale and bias per 64 weights = 4.5.
    ("int4", "4-bit mlx-lm (4.5 bits per weight with group-64 scales)"),
    ("int8", "8-bit mlx-lm (8.5 bits per weight with group-64 scales)"),
])
def test_mlx_on_an_apple_gpu(quant, weights):
    result = estimate(LLAMA, Plan(task="infer", quant=quant), GPUS["m2-max"])
    assert engine_lines(result) == [f"  engine: MLX · {weights} · KV fp16"]


def test_the_generic_model_and_training_plans_have_no_engine_line():
    assert engine_lines(estimate(LLAMA, Plan(task="infer"), GPUS["rtx-4090"])) == []
    assert engine_lines(estimate(LLAMA, Plan(task="qlora"), GPUS["rtx-4090"])) == []
