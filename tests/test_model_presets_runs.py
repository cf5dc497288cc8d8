"""Presets of published training runs: parameter counts derived by hand from each config.

Each count is written out term by term (embeddings, then per block: attention, MLP, norms,
biases) from the architecture numbers of the cited config, independently of
gpuadvisor.core.blocks, and compared with ModelSpec.params() exactly. The authors' own
figures (paper tables, model cards) are checked too: exact where they publish one, within
the rounding of the figure where they publish a rounded one.
"""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from gpuadvisor.core.model import spec_from_table

MODELS_TOML = Path(__file__).parents[1] / "catalog" / "models.toml"


def _preset(model_id: str):
    with MODELS_TOML.open("rb") as fh:
        return spec_from_table(model_id, tomllib.load(fh)[model_id])


def test_llama_65b_by_hand():
    # huggyllama/llama-65b config.json; Touvron et al. 2023 Table 2: dimension 8192, 64 heads,
    # 80 layers; intermediate_size 22,016; vocab 32,000; RMSNorm; untied lm_head; no biases.
    h, f, n_layers, vocab = 8192, 22_016, 80, 32_000
    attention = 4 * h * h  # q, k, v, o (multi-head: k and v are h wide)
    mlp = 3 * h * f  # SwiGLU: gate, up, down
    norms = 2 * h  # two RMSNorm weights
    blocks = n_layers * (attention + mlp + norms)
    total = vocab * h + blocks + h + vocab * h  # embed_tokens, blocks, final norm, lm_head
    assert total == 65_285_660_672
    assert _preset("llama-65b").params().total == total
    # Table 2 prints 65.2B: the exact count rounds to it (truncated to one decimal).
    assert 65.2e9 <= total < 65.3e9


def test_pythia_12b_by_hand_and_every_pythia_non_embedding_count_from_the_card():
    # EleutherAI/pythia-12b config.json: hidden 5120, 36 layers, 40 heads, intermediate
    # 20,480 (4h), vocab 50,688, untied embed_out; GPT-NeoX blocks: fused qkv with bias,
    # dense with bias, two biased GELU matrices, two LayerNorms (weight + bias).
    h, f, n_layers, vocab = 5120, 20_480, 36, 50_688
    attention = (3 * h * h + 3 * h) + (h * h + h)
    mlp = (h * f + f) + (f * h + h)
    norms = 2 * (2 * h)
    non_embedding = n_layers * (attention + mlp + norms) + 2 * h  # + final LayerNorm
    total = vocab * h + non_embedding + vocab * h  # embed_in, ..., embed_out
    assert non_embedding == 11_327_027_200  # model card "Non-Embedding Params"
    assert _preset("pythia-12b").params().total == total == 11_846_072_320

    # The Pythia model card's "Non-Embedding Params" column (EleutherAI/pythia-* README,
    # also Biderman et al. 2023 Table 1), for every size: total minus embed_in and embed_out.
    card = {
        "pythia-70m": 18_915_328,
        "pythia-160m": 85_056_000,
        "pythia-410m": 302_311_424,
        "pythia-1b": 805_736_448,
        "pythia-1.4b": 1_208_602_624,
        "pythia-2.8b": 2_517_652_480,
        "pythia-6.9b": 6_444_163_072,
        "pythia-12b": 11_327_027_200,
    }
    for model_id, published in card.items():
        counts = _preset(model_id).params()
        assert counts.total - counts.embedding - counts.lm_head == published, model_id


def test_bloom_176b_by_hand_matches_the_model_cards_exact_figures():
    # bigscience/bloom config.json: n_layer 70, hidden 14,336, n_head 112, vocab 250,880;
    # ALiBi (no position table), word_embeddings_layernorm, biased qkv/dense/MLP (4h), two
    # LayerNorms per block, final ln_f, lm_head tied to word_embeddings.
    h, n_layers, vocab = 14_336, 70, 250_880
    f = 4 * h
    embedding = vocab * h
    attention = (3 * h * h + 3 * h) + (h * h + h)
    mlp = (h * f + f) + (f * h + h)
    norms = 2 * (2 * h)
    total = embedding + 2 * h + n_layers * (attention + mlp + norms) + 2 * h
    # Model card: "176,247,271,424 parameters: 3,596,615,680 embedding parameters".
    assert embedding == 3_596_615_680
    assert total == 176_247_271_424
    counts = _preset("bloom-176b").params()
    assert counts.total == total
    assert counts.embedding == embedding and counts.lm_head == 0


def test_mpt_7b_by_hand_norms_keep_only_their_weight():
    # mosaicml/mpt-7b config.json: d_model 4096, n_heads 32, n_layers 32, expansion_ratio 4,
    # vocab 50,432, no_bias true (every bias removed, LayerNorm biases included), ALiBi,
    # tied head. Per block: Wqkv 3h^2, out_proj h^2, up 4h^2, down 4h^2, norm_1/norm_2 weights.
    h, n_layers, vocab = 4096, 32, 50_432
    block = 3 * h * h + h * h + 2 * (h * 4 * h) + 2 * h
    total = vocab * h + n_layers * block + h  # wte (also the head), blocks, norm_f weight
    assert _preset("mpt-7b").params().total == total == 6_649_286_656
    # Model card n_parameters "6.7B" is that count rounded (6.649e9 -> 6.6B or 6.7B).
    assert total == pytest.approx(6.7e9, rel=0.01)


def test_olmo_7b_by_hand_has_no_norm_parameters():
    # allenai/OLMo configs/official/OLMo-7B.yaml: d_model 4096, 32 heads, 32 layers,
    # mlp_hidden_size 22,016 (SwiGLU gate+up fused: 2 x 11,008), include_bias false,
    # layer_norm_with_affine false (norms without weights), weight_tying false,
    # embedding_size 50,304.
    h, n_layers, vocab, f = 4096, 32, 50_304, 22_016 // 2
    total = vocab * h + n_layers * (4 * h * h + 3 * h * f) + vocab * h
    assert _preset("olmo-7b").params().total == total == 6_888_095_744


def test_gpt3_and_opt_175b_by_hand_and_near_their_papers_175b():
    # Brown et al. 2020 Table 2.1: 96 layers, d_model 12,288, 96 heads, n_ctx 2,048; GPT-2
    # layout: learned positions, biases, 4h MLP, two LayerNorms per block, final LayerNorm,
    # GPT-2 vocabulary 50,257, tied head.
    h, n_layers = 12_288, 96
    block = (4 * h * h + 4 * h) + (8 * h * h + 4 * h + h) + 2 * (2 * h)
    gpt3 = 50_257 * h + 2048 * h + n_layers * block + 2 * h
    assert _preset("gpt-3-175b").params().total == gpt3
    assert gpt3 == pytest.approx(175.0e9, rel=0.01)  # Table 2.1 "175.0B"
    # OPT-175B (Zhang et al. 2022 Table 1): the same block; vocab 50,272 and a position
    # table of 2,048 + 2 rows (facebook/opt-* config.json, OPTLearnedPositionalEmbedding).
    opt = 50_272 * h + 2050 * h + n_layers * block + 2 * h
    assert _preset("opt-175b").params().total == opt
    assert opt == pytest.approx(175e9, rel=0.01)


@pytest.mark.parametrize(
    ("model_id", "rounded", "rel"),
    [
        # Authors' rounded figures: Touvron et al. 2023 Table 2.
        ("llama-7b", 6.7e9, 0.01),
        ("llama-13b", 13.0e9, 0.01),
        ("llama-33b", 32.5e9, 0.01),
        # Model cards / the Hub's rounded totals.
        ("smollm3-3b", 3.08e9, 0.005),  # HuggingFaceTB/SmolLM3-3B on the Hub
        ("olmo-2-13b", 13.7e9, 0.005),  # allenai/OLMo-2-1124-13B on the Hub
        ("mpt-30b", 29.95e9, 0.005),  # mosaicml/mpt-30b card n_parameters
    ],
)
def test_counts_agree_with_the_authors_rounded_figures(model_id, rounded, rel):
    assert _preset(model_id).params().total == pytest.approx(rounded, rel=rel)
