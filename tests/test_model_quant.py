"""Quantization a checkpoint ships in (config.json ``quantization_config``) and ``--quant``.

Published checkpoint sizes are the test:

* gpt-oss model card (OpenAI, "gpt-oss-120b & gpt-oss-20b Model Card", Aug 2025, Table 1):
  checkpoint size 60.8 GiB for gpt-oss-120b and 12.8 GiB for gpt-oss-20b; "MoE weights ...
  quantized to MXFP4 (4.25 bits per parameter)"; the 120b "fits into a single 80GB GPU",
  the 20b "runs within 16GB of memory".
* DeepSeek-V3 (deepseek-ai/DeepSeek-V3 README_WEIGHTS.md): FP8 e4m3 with 128x128 block
  scaling, one fp32 ``weight_scale_inv`` per block; the model card: "685B ... includes 671B
  of the Main Model weights and 14B of the Multi-Token Prediction (MTP) Module weights",
  163 safetensors shards (~689 GB). transformers builds the 671B main model.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gpuadvisor import catalog
from gpuadvisor.core.estimate import estimate
from gpuadvisor.core.inference_time import decode_weight_fraction
from gpuadvisor.core.memory import QUANT_BYTES, weight_bytes
from gpuadvisor.core.model import model_shape, spec_from_hf_config
from gpuadvisor.core.plan import QUANT, Plan
from gpuadvisor.core.units import GiB

HF_CONFIGS = Path(__file__).parent / "data" / "hf_configs"
GPUS = catalog.load_gpus()
INFER = Plan(task="infer", seq_len=4096, new_tokens=256)


def spec(file_name: str, **changes):
    cfg = json.loads((HF_CONFIGS / file_name).read_text(encoding="utf-8")) | changes
    return spec_from_hf_config(cfg, file_name.removesuffix(".json"))


def test_plan_offers_mxfp4_and_fp8():
    assert {"mxfp4", "fp8"} <= set(QUANT)
    assert QUANT_BYTES["mxfp4"] * 8 == pytest.approx(4.25)  # 4 bits + 8 bits per 32
    assert QUANT_BYTES["fp8"] == pytest.approx(1 + 4 / (128 * 128))
    Plan(task="infer", quant="mxfp4")
    Plan(task="infer", quant="fp8")


def test_gpt_oss_ships_mxfp4_experts_and_keeps_the_rest_16_bit():
    s = spec("gpt-oss-20b.json")
    assert (s.quant, s.quant_bytes) == ("mxfp4", pytest.approx(4.25 / 8))
    shape = model_shape(s)
    assert "attn" not in shape.shipped_quant_groups and "experts" in shape.shipped_quant_groups


@pytest.mark.parametrize(("file_name", "published_gib"), [
    ("gpt-oss-20b.json", 12.8),   # model card Table 1
    ("gpt-oss-120b.json", 60.8),  # model card Table 1
])
def test_gpt_oss_weights_as_shipped_match_the_published_checkpoint(file_name, published_gib):
    weights = weight_bytes(spec(file_name), INFER, None, 1)
    assert weights / GiB == pytest.approx(published_gib, abs=0.05)


def test_gpt_oss_20b_as_shipped_fits_a_16_gb_card():
    e = estimate(spec("gpt-oss-20b.json"), INFER, GPUS["rtx-4080"])
    assert GPUS["rtx-4080"].memory_gib == 16 and e.fits
    assert e.assumptions["quant"] == "mxfp4" and "shipped" in e.assumptions["quant_source"]
    unquantized = estimate(spec("gpt-oss-20b.json"), INFER.with_changes(quant="none"),
                           GPUS["rtx-4080"])
    assert not unquantized.fits  # 41.8 GB in bf16


def test_gpt_oss_120b_as_shipped_fits_one_80_gb_h100():
    e = estimate(spec("gpt-oss-120b.json"), INFER, GPUS["h100-sxm"])
    assert GPUS["h100-sxm"].memory_gib == 80 and e.fits


def test_deepseek_v3_ships_block_fp8_and_its_bytes_per_parameter_match_the_hub():
    s = spec("deepseek-r1.json")
    assert (s.quant, s.quant_bytes) == ("fp8", pytest.approx(1 + 4 / 16384))
    weights = weight_bytes(s, INFER, None, 1)
    total = s.params().total
    # Every block linear is FP8 (+ a 4-byte scale per 16,384 weights); the 0.93B embedding,
    # the 0.93B head, norms and routers stay bf16: ~1.003 bytes per parameter, so the
    # 685B stored on the Hub take ~687 GB (163 shards, ~689 GB with the index's overhead).
    assert 1.002 < weights / total < 1.004
    assert weights * 685 / 671 / 1e9 == pytest.approx(689, rel=0.01)


def test_a_plan_quant_overrides_what_the_checkpoint_ships():
    s = spec("gpt-oss-20b.json")
    as_shipped = weight_bytes(s, INFER, None, 1)
    bf16 = weight_bytes(s, INFER.with_changes(quant="none"), None, 1)
    nf4 = weight_bytes(s, INFER.with_changes(quant="nf4"), None, 1)
    assert bf16 == pytest.approx(2 * s.params().total)
    assert as_shipped < bf16 and nf4 < bf16
    # NF4 (4.5 bits) covers every block linear, attention included; the shipped MXFP4
    # (4.25 bits) only the experts, attention staying bf16.
    linears = s.params().linear_in_blocks
    assert nf4 == pytest.approx(linears * QUANT_BYTES["nf4"]
                                + (s.params().total - linears) * 2)


def test_training_ignores_the_shipped_quantization():
    s = spec("gpt-oss-20b.json")
    e = estimate(s, Plan(task="full", seq_len=1024), GPUS["h100-sxm"])
    assert "quant" not in e.assumptions


def test_quant_mxfp4_on_a_dense_model_covers_every_block_linear():
    s = spec("qwen3-8b.json")
    counts = s.params()
    w = weight_bytes(s, INFER.with_changes(quant="mxfp4"), None, 1)
    expected = counts.linear_in_blocks * (0.5 + 1 / 32) + (
        counts.total - counts.linear_in_blocks) * 2
    assert w == pytest.approx(expected)


@pytest.mark.parametrize(("qc", "quant", "bytes_per_weight", "groups"), [
    ({"quant_method": "gptq", "bits": 4, "group_size": 128}, "int4", 0.5 + 2.5 / 128, ""),
    ({"quant_method": "gptq", "bits": 8, "group_size": 32}, "int8", 1 + 3 / 32, ""),
    ({"quant_method": "awq", "bits": 4, "group_size": 64}, "int4", 0.5 + 2.5 / 64, ""),
    ({"quant_method": "gptq", "bits": 3, "group_size": -1}, "int3", 0.375, ""),
    ({"quant_method": "fp8", "weight_block_size": [128, 128]}, "fp8", 1 + 4 / 16384, ""),
    ({"quant_method": "fp8"}, "fp8", 1.0, ""),
    ({"quant_method": "bitsandbytes", "load_in_4bit": True,
      "bnb_4bit_use_double_quant": True}, "nf4-dq", 0.0, ""),
    ({"quant_method": "bitsandbytes", "load_in_8bit": True,
      "llm_int8_skip_modules": ["mlp"]}, "int8", 0.0, "attn"),
    ({"quant_method": "mxfp4", "modules_to_not_convert": ["model.layers.*.self_attn"]},
     "mxfp4", 4.25 / 8, "mlp,shared,experts"),
])
def test_quantization_config_methods(qc, quant, bytes_per_weight, groups):
    s = spec("qwen3-8b.json", quantization_config=qc)
    assert (s.quant, s.quant_bytes, s.quant_groups) == (quant, pytest.approx(bytes_per_weight),
                                                        groups)


def test_modules_to_not_convert_stay_16_bit():
    skip_attn = spec("qwen3-8b.json", quantization_config={
        "quant_method": "gptq", "bits": 4, "group_size": 128,
        "modules_to_not_convert": ["self_attn"]})
    everything = spec("qwen3-8b.json", quantization_config={
        "quant_method": "gptq", "bits": 4, "group_size": 128})
    attention = 36 * (4096 * 4096 + 2 * 4096 * 1024 + 4096 * 4096)
    per_weight = 0.5 + 2.5 / 128
    gap = weight_bytes(skip_attn, INFER, None, 1) - weight_bytes(everything, INFER, None, 1)
    assert gap == pytest.approx(attention * (2 - per_weight))


def test_an_unknown_quant_method_is_reported_not_guessed():
    warnings: list[str] = []
    cfg = json.loads((HF_CONFIGS / "qwen3-8b.json").read_text(encoding="utf-8"))
    cfg["quantization_config"] = {"quant_method": "hqq"}
    s = spec_from_hf_config(cfg, "q", warnings=warnings)
    assert s.quant == "" and any("'hqq' is not modelled" in w for w in warnings)
    e = estimate(s, INFER, GPUS["h100-sxm"])
    assert any("'hqq'" in w for w in e.warnings)


def test_moe_decode_reads_only_the_routed_experts():
    s = spec("gpt-oss-120b.json")
    one = decode_weight_fraction(s, INFER)
    # one token reads 4 of 128 experts per layer: ~7% of the resident bytes
    assert 0.05 < one < 0.10
    assert decode_weight_fraction(s, INFER.with_changes(micro_batch=256)) > 0.99
    dense = spec("qwen3-8b.json")
    assert decode_weight_fraction(dense, INFER) == 1.0
    fast = estimate(s, INFER, GPUS["h100-sxm"]).time.decode_tokens_per_s
    slow = estimate(s, INFER.with_changes(micro_batch=64), GPUS["h100-sxm"])
    assert fast > slow.time.decode_tokens_per_s / 64  # per-sequence rate falls with batch


def test_vision_tower_is_resident_but_not_in_the_text_counts():
    s = spec("gemma-3-27b-it.json")
    counts = s.params()
    assert counts.vision == 423_060_336
    w = weight_bytes(s, INFER, None, 1)
    assert w == pytest.approx(2 * (counts.total + counts.vision))
    e = estimate(s, INFER, GPUS["h100-sxm"])
    assert e.to_json()["params_vision"] == counts.vision
    assert e.to_json()["params_total"] == counts.total


# --------------------------------------------------------------------------------- NVFP4
#: NVFP4 (NVIDIA, Blackwell): E2M1 4-bit values, one FP8 E4M3 scale per 16 values and one
#: fp32 scale per tensor: 4 + 8/16 = 4.5 bits per weight.
NVFP4_BITS = 4.5


def test_plan_offers_nvfp4_at_four_and_a_half_bits():
    assert "nvfp4" in QUANT
    assert QUANT_BYTES["nvfp4"] * 8 == pytest.approx(NVFP4_BITS)


@pytest.mark.parametrize("qc", [
    # NVIDIA TensorRT Model Optimizer checkpoints
    {"quant_method": "modelopt", "quant_algo": "NVFP4", "group_size": 16,
     "exclude_modules": ["lm_head"]},
    # llm-compressor's NVFP4
    {"quant_method": "compressed-tensors", "format": "nvfp4-pack-quantized",
     "ignore": ["lm_head"]},
])
def test_an_nvfp4_checkpoint_keeps_its_block_linears_at_four_and_a_half_bits(qc):
    """Llama 3.1 8B as an NVFP4 checkpoint: the block linears at 4.5 bits, the embedding,
    the LM head and the norms at 16 bits."""
    s = spec("llama-3.1-8b.json", quantization_config=qc)
    assert s.quant == "nvfp4"
    p = model_shape(s).params
    expected = p.linear_in_blocks * NVFP4_BITS / 8 + (p.total - p.linear_in_blocks) * 2
    assert float(weight_bytes(s, INFER, None)) == pytest.approx(expected, rel=1e-9)


def test_a_modelopt_fp8_checkpoint_is_one_byte_a_weight():
    s = spec("llama-3.1-8b.json", quantization_config={"quant_method": "modelopt",
                                                       "quant_algo": "FP8"})
    assert s.quant == "fp8"
    p = model_shape(s).params
    expected = p.linear_in_blocks * 1.0 + (p.total - p.linear_in_blocks) * 2
    assert float(weight_bytes(s, INFER, None)) == pytest.approx(expected, rel=1e-9)


def test_an_unknown_modelopt_algorithm_is_named_and_counted_at_16_bits():
    warnings: list[str] = []
    cfg = json.loads((HF_CONFIGS / "llama-3.1-8b.json").read_text(encoding="utf-8"))
    cfg["quantization_config"] = {"quant_method": "modelopt", "quant_algo": "W4A8_AWQ"}
    s = spec_from_hf_config(cfg, "q", warnings=warnings)
    assert s.quant == ""
    assert any("W4A8_AWQ" in w for w in warnings)
