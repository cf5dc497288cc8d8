"""GGUF file types: ggml block layouts by hand, llama.cpp's mixture rules, published sizes."""

from __future__ import annotations

import pytest
from localmodels.gguf_bytes import TINY_WEIGHT_BYTES, write_tiny_llama

from gpuadvisor import catalog
from gpuadvisor.core.ggml_types import ggml_type_named, kind_tensor_bytes
from gpuadvisor.core.gguf_quant import (
    file_type,
    gguf_bytes_by_type,
    gguf_file_bytes,
    gguf_tensors,
    use_more_bits,
)
from gpuadvisor.core.model import model_shape
from gpuadvisor.core.plan import QUANT, Plan
from gpuadvisor.core.quant import QUANT_BYTES, quantized_weights
from gpuadvisor.localmodels import resolve_model_ref

MODELS = catalog.load_models()


def shape(model_id: str):
    return model_shape(MODELS[model_id])


# Bytes per block spelled out from ggml-common.h's structs (ggml_half = 2 bytes, QK_K = 256):
# Q4_0 = d + 16 nibble bytes; Q8_0 = d + 32 int8; Q4_K = d, dmin + 12 scale bytes + 128
# nibble bytes; Q6_K = 128 low-nibble + 64 high-bit bytes + 16 int8 scales + d; Q2_K =
# 16 scale bytes + 64 two-bit bytes + d, dmin; IQ4_XS = d + 2 bytes scales_h + 4 bytes
# scales_l (QK_K/64) + 128 nibble bytes; MXFP4 = 1 E8M0 byte + 16 nibble bytes.
@pytest.mark.parametrize("name, weights_per_block, block_bytes", [
    ("Q4_0", 32, 2 + 16), ("Q8_0", 32, 2 + 32), ("Q4_K", 256, 2 + 2 + 12 + 128),
    ("Q6_K", 256, 128 + 64 + 16 + 2), ("Q2_K", 256, 16 + 64 + 2 + 2),
    ("IQ4_XS", 256, 2 + 2 + 4 + 128), ("MXFP4", 32, 1 + 16), ("F16", 1, 2),
])
def test_a_4096_square_matrix_takes_its_blocks_bytes(name, weights_per_block, block_bytes):
    kind = ggml_type_named(name)
    expected = 4096 * 4096 // weights_per_block * block_bytes
    assert kind_tensor_bytes(kind, (4096, 4096)) == expected


def test_use_more_bits_picks_half_of_32_layers():
    # i < 4, i >= 28, or (i - 4) % 3 == 2: layers 0-3, 6, 9, ..., 27, 28-31.
    picked = [i for i in range(32) if use_more_bits(i, 32)]
    assert picked == [0, 1, 2, 3, 6, 9, 12, 15, 18, 21, 24, 27, 28, 29, 30, 31]


def test_llama2_7b_q4_k_m_bytes_by_hand():
    h, f, layers, vocab = 4096, 11008, 32, 32000
    q4k, q6k = 144 / 256, 210 / 256
    attn = 4 * h * h  # q, k, v, o (no GQA)
    per_layer_q4k = 3 * h * h + 2 * h * f  # q, k, o, gate, up
    more = 16  # use_more_bits layers: attn_v and ffn_down at Q6_K
    expected = (layers * per_layer_q4k * q4k
                + more * (h * h + f * h) * q6k + (layers - more) * (h * h + f * h) * q4k
                + vocab * h * q4k  # token_embd at the default type
                + vocab * h * q6k  # output at Q6_K
                + (2 * layers + 1) * h * 4)  # norms in F32
    assert attn + 3 * h * f == per_layer_q4k + h * h + f * h
    assert gguf_file_bytes(shape("llama-2-7b"), "q4_k_m") == pytest.approx(expected, abs=0)
    assert expected / 2**30 == pytest.approx(3.80, abs=0.005)  # llama.cpp prints 3.80 GiB


def test_qwen25_7b_q4_k_m_is_the_file_llama_bench_printed():
    # ggml-org/llama.cpp tools/llama-bench/README.md @08d0baac (CSV example):
    # Qwen2.5-7B-Instruct-Q4_K_M, model_size 4677120000 (benchmarks/calibration row LCB012).
    assert gguf_file_bytes(shape("qwen2.5-7b"), "q4_k_m") == 4_677_120_000


@pytest.mark.parametrize("model_id, quant, gib", [
    # llama-bench model sizes (benchmarks/calibration/llamacpp_bench.json, printed to 0.01)
    ("llama-2-7b", "q4_0", 3.56), ("llama-2-7b", "q8_0", 6.67), ("llama-2-7b", "f16", 12.55),
    ("llama-3.1-8b", "q4_k_m", 4.58), ("llama-3.1-8b", "q4_0", 4.33),
    ("llama-3.1-8b", "f16", 14.96), ("llama-3.1-70b", "q4_k_m", 39.59),
    ("gpt-oss-20b", "mxfp4_moe", 11.27), ("gpt-oss-120b", "mxfp4_moe", 59.02),
    ("qwen3-30b-a3b", "q8_0", 30.25), ("deepseek-r1", "q4_k_m", 376.65),
])
def test_mixtures_match_the_sizes_llama_bench_prints(model_id, quant, gib):
    assert gguf_file_bytes(shape(model_id), quant) / 2**30 == pytest.approx(gib, abs=0.006)


def test_a_row_that_is_not_whole_k_blocks_falls_back():
    # Qwen2.5-0.5B: d_model 896 is not a multiple of 256, so Q4_K -> Q5_0 and Q6_K -> Q8_0
    # (llama-quant.cpp tensor_type_fallback); ffn_down's rows of 4864 = 19 x 256 stay K.
    tensors = {(t.name, t.layer): t.kind.name
               for t in gguf_tensors(shape("qwen2.5-0.5b"), "q4_k_m")}
    assert tensors[("attn_q", 5)] == "Q5_0"
    assert tensors[("attn_v", 0)] == "Q8_0"  # Q6_K (more bits) falls back to Q8_0
    assert tensors[("ffn_down", 0)] == "Q6_K"
    assert tensors[("ffn_down", 4)] == "Q4_K"


def test_mxfp4_moe_puts_experts_in_mxfp4_and_the_rest_in_q8_0():
    by_type = gguf_bytes_by_type(shape("gpt-oss-20b"), "mxfp4_moe")
    assert set(by_type) == {"MXFP4", "Q8_0", "F32"}
    assert next(iter(by_type)) == "MXFP4"


def test_a_two_layer_file_gets_more_bits_only_in_its_last_layer(tmp_path):
    # use_more_bits(i, 2): only layer 1 (i >= 7 * 2 // 8). The tiny file holds Q6_K attn_v
    # and ffn_down in both layers, so llama.cpp's Q4_K_M of the same shape is smaller by
    # layer 0's attn_v (128 rows of 256: 210 -> 144 bytes) and ffn_down (256 rows of two
    # blocks: 420 -> 288 bytes).
    spec = resolve_model_ref(str(write_tiny_llama(tmp_path / "tiny.gguf")))
    by_hand = TINY_WEIGHT_BYTES - 128 * (210 - 144) - 256 * (420 - 288)
    assert gguf_file_bytes(model_shape(spec), "q4_k_m") == by_hand


def test_every_gguf_name_is_a_plan_quant_with_bytes():
    for name in ("q2_k", "q3_k_s", "q3_k_m", "q3_k_l", "q4_0", "q4_1", "q4_k_s", "q4_k_m",
                 "q5_0", "q5_1", "q5_k_s", "q5_k_m", "q6_k", "q8_0", "iq1_s", "iq1_m",
                 "iq2_xxs", "iq2_xs", "iq2_s", "iq3_xxs", "iq3_s", "iq3_m", "iq4_xs",
                 "iq4_nl", "f16", "bf16", "mxfp4_moe"):
        assert name in QUANT
        kind = ggml_type_named(file_type(name).default)
        assert QUANT_BYTES[name] == kind.type_size / kind.block_size
        Plan(task="infer", quant=name)


def test_memory_holds_the_gguf_files_bytes_whatever_the_precision():
    m = shape("llama-3.1-8b")
    count, per_weight = quantized_weights(m, "q4_k_m")
    assert count == m.params.total
    assert count * per_weight == pytest.approx(gguf_file_bytes(m, "q4_k_m"))


def test_exl2_names_carry_their_bits():
    assert QUANT_BYTES["exl2"] == pytest.approx(4.125 / 8)  # exllamav2 convert.py -b default
    assert QUANT_BYTES["exl2-4.65"] == pytest.approx(4.65 / 8)
    with pytest.raises(KeyError):
        QUANT_BYTES["exl2-9"]


def test_unknown_file_type_is_named():
    with pytest.raises(ValueError, match="q4_k_x"):
        file_type("q4_k_x")


def test_phi4_q4_k_m_stores_its_fused_qkv_at_q5_k():
    # Phi-4's checkpoint holds Q, K and V as one qkv_proj: llama.cpp writes one attn_qkv
    # tensor, which Q4_K_M gives Q5_K in every layer (its Ollama log: "type q4_K: 101
    # tensors, type q5_K: 40, type q6_K: 21"; tests/probes/logs/ollama-rtx4060-laptop-phi4-
    # partial.log). By hand: h 5120, KV 10 x 128, FFN 17,920, 40 layers, vocab 100,352.
    h, kv, f, layers, vocab = 5120, 1280, 17920, 40, 100352
    q4k, q5k, q6k = 144 / 256, 176 / 256, 210 / 256
    tensors = gguf_tensors(shape("phi-4"), "q4_k_m")
    qkv = [t for t in tensors if t.name == "attn_qkv"]
    assert len(qkv) == layers and {t.kind.name for t in qkv} == {"Q5_K"}
    assert not [t for t in tensors if t.name in ("attn_q", "attn_k", "attn_v")]
    more = sum(use_more_bits(i, layers) for i in range(layers))
    assert more == 20  # ffn_down at Q6_K: with the output, the log's 21 Q6_K tensors
    repeating = (layers * (h * (h + 2 * kv) * q5k + h * h * q4k + 2 * h * f * q4k)
                 + more * f * h * q6k + (layers - more) * f * h * q4k)
    blocks = sum(t.bytes for t in tensors if t.layer >= 0 and t.name != "norms")
    assert blocks == pytest.approx(repeating, rel=1e-12)
    # Ollama's estimate: memory.weights.repeating="7.8 GiB", nonrepeating="402.0 MiB"
    assert repeating / 2**30 == pytest.approx(7.8, abs=0.05)
    assert vocab * h * q6k / 2**20 == pytest.approx(402.0, abs=0.5)
