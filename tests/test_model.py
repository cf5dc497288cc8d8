"""Model presets, parameter counts and Hugging Face config.json import.

Counts are checked against published figures (sources in the comments) and against hand
derivations written out term by term.
"""

from __future__ import annotations

import copy
import json
import tomllib
from pathlib import Path

import pytest

from gpuadvisor.core.model import (
    SUPPORTED_HF_MODEL_TYPES,
    ModelSpec,
    spec_from_hf_config,
    spec_from_table,
)

MODELS_TOML = Path(__file__).parents[1] / "catalog" / "models.toml"
HF_CONFIGS = Path(__file__).parent / "data" / "hf_configs"


def _load_presets() -> dict[str, dict]:
    with MODELS_TOML.open("rb") as fh:
        document = tomllib.load(fh)
    return {key: value for key, value in document.items() if isinstance(value, dict)}


PRESETS = _load_presets()

# Published total parameter counts, written here by hand from the sources, independently of
# models.toml (which must agree). HF = the checkpoint's parameter total on the Hugging Face Hub
# (safetensors metadata / transformers num_parameters(), tied weights counted once).
PUBLISHED = {
    # openai-community/gpt2{,-medium,-large,-xl}: model cards 124M / 355M / 774M / 1.5B;
    # exact: GPT2LMHeadModel parameters (HF), LM head tied to wte.
    "gpt2": 124_439_808,
    "gpt2-medium": 354_823_168,
    "gpt2-large": 774_030_080,
    "gpt2-xl": 1_557_611_200,
    # google-bert/bert-{base,large}-uncased: model cards 110M / 336M; exact: BertModel (HF).
    "bert-base-uncased": 109_482_240,
    "bert-large-uncased": 335_141_888,
    # meta-llama/Llama-2-{7,13,70}b-hf, HF safetensors metadata.
    "llama-2-7b": 6_738_415_616,
    "llama-2-13b": 13_015_864_320,
    "llama-2-70b": 68_976_648_192,
    # meta-llama/Llama-3.1-{8,70,405}B model cards (8.03B ...), HF safetensors metadata.
    "llama-3.1-8b": 8_030_261_248,
    "llama-3.1-70b": 70_553_706_496,
    "llama-3.1-405b": 405_853_388_800,
    # meta-llama/Llama-3.2-{1,3}B (tied embeddings), HF safetensors metadata.
    "llama-3.2-1b": 1_235_814_400,
    "llama-3.2-3b": 3_212_749_824,
    # mistralai/Mistral-7B-v0.1, HF safetensors metadata.
    "mistral-7b": 7_241_732_096,
    # mistralai/Mixtral-8x7B-v0.1, HF safetensors metadata; release post "46.7B total".
    "mixtral-8x7b": 46_702_792_704,
    # Qwen/Qwen2.5-* model cards (0.49B, 1.54B, 3.09B, 7.61B, 14.7B, 32.5B, 72.7B), HF.
    "qwen2.5-0.5b": 494_032_768,
    "qwen2.5-1.5b": 1_543_714_304,
    "qwen2.5-3b": 3_085_938_688,
    "qwen2.5-7b": 7_615_616_512,
    "qwen2.5-14b": 14_770_033_664,
    "qwen2.5-32b": 32_763_876_352,
    "qwen2.5-72b": 72_706_203_648,
    # google/gemma-2-{2b,9b,27b}, HF safetensors metadata.
    "gemma-2-2b": 2_614_341_888,
    "gemma-2-9b": 9_241_705_984,
    "gemma-2-27b": 27_227_128_320,
    # microsoft/Phi-3-mini-4k-instruct model card (3.8B), HF safetensors metadata.
    "phi-3-mini-4k": 3_821_079_552,
    # TinyLlama/TinyLlama-1.1B-intermediate-step-1431k-3T, HF safetensors metadata.
    "tinyllama-1.1b": 1_100_048_384,
    # torchvision ResNet50_Weights.IMAGENET1K_V1 num_params.
    "resnet-50": 25_557_032,
    # torchvision ViT_B_16_Weights.IMAGENET1K_V1 num_params.
    "vit-b-16": 86_567_656,
    # runwayml/stable-diffusion-v1-5 UNet (diffusers), "860M UNet".
    "sd-1.5-unet": 859_520_964,
    # stabilityai/stable-diffusion-xl-base-1.0 UNet (diffusers), "2.6B UNet".
    "sdxl-unet": 2_567_463_684,
    # openai/whisper-large-v3, HF safetensors metadata; model card "1550M".
    "whisper-large-v3": 1_543_490_560,
    # 2025-26 models: transformers 5.25 meta-device counts of each repository's config.json
    # (vision towers included, as on the Hub), next to the model card's rounded figure.
    "qwen3-0.6b": 596_049_920,  # Qwen/Qwen3-0.6B, card 0.6B
    "qwen3-1.7b": 1_720_574_976,  # card 1.7B
    "qwen3-4b": 4_022_468_096,  # card 4.0B
    "qwen3-8b": 8_190_735_360,  # card 8.2B
    "qwen3-14b": 14_768_307_200,  # card 14.8B
    "qwen3-32b": 32_762_123_264,  # card 32.8B
    "qwen3-30b-a3b": 30_532_122_624,  # card 30.5B total, 3.3B active
    "qwen3-235b-a22b": 235_093_634_560,  # card 235B total, 22B active
    "qwen1.5-moe-a2.7b": 14_315_784_192,  # card 14.3B total, 2.7B active
    "qwen2.5-vl-3b": 3_754_622_976,  # Hub 3.75B (text 3.09B + vision 0.67B)
    "qwen2.5-vl-7b": 8_292_166_656,  # Hub 8.29B (text 7.62B + vision 0.68B)
    "gpt-oss-20b": 20_914_757_184,  # model card 20.9B
    "gpt-oss-120b": 116_829_156_672,  # model card 116.8B
    "deepseek-v3": 671_026_404_352,  # card 671B main model (+14B MTP on the Hub)
    "deepseek-r1": 671_026_404_352,  # card 671B
    "deepseek-r1-distill-qwen-7b": 7_615_616_512,  # Hub 7.62B
    "deepseek-r1-distill-llama-8b": 8_030_261_248,  # Hub 8.03B
    "deepseek-v2.5": 235_741_434_880,  # card 236B
    "gemma-3-1b": 999_885_952,  # Hub 1.0B
    "gemma-3-4b": 4_300_079_472,  # Hub 4.3B (text 3.88B + SigLIP 0.42B)
    "gemma-3-12b": 12_187_325_040,  # Hub 12.2B
    "gemma-3-27b": 27_432_406_640,  # Hub 27.4B
    "gemma-7b": 8_537_680_896,  # Hub 8.54B
    "llama-3.3-70b": 70_553_706_496,  # Hub 70.6B
    "llama-4-scout": 108_641_793_536,  # card 109B total, 17B active
    "llama-4-maverick": 401_583_781_376,  # card 400B total, 17B active
    "olmo-2-7b": 7_298_617_344,  # card 7B
    "phi-2": 2_779_683_840,  # card 2.7B
    "phi-4": 14_659_507_200,  # card 14B
    "mistral-small-3-24b": 23_572_403_200,  # card 24B
    "mistral-nemo-12b": 12_247_782_400,  # card 12B
    "granite-3.1-8b": 8_170_848_256,  # card 8.1B
    "command-r7b": 8_028_033_024,  # Hub 8.03B
    "starcoder2-7b": 7_173_923_840,  # card 7B
    # Given by count (diffusers / transformers modules from each repository's config.json).
    "flux.1-dev": 11_901_408_320,  # black-forest-labs/FLUX.1-dev, card "12 billion"
    "sd-3.5-large": 8_056_627_520,  # stabilityai/stable-diffusion-3.5-large, card "8.1 billion"
    "whisper-large-v3-turbo": 808_878_080,  # openai/whisper-large-v3-turbo, card "809M"
    # Models of published training runs: exact counts of each config, next to the authors'
    # rounded figure (paper table or model card).
    "llama-7b": 6_738_415_616,  # Touvron et al. 2023 Table 2: 6.7B
    "llama-13b": 13_015_864_320,  # Table 2: 13.0B
    "llama-33b": 32_528_943_616,  # Table 2: 32.5B
    "llama-65b": 65_285_660_672,  # Table 2: 65.2B
    "pythia-70m": 70_426_624,  # EleutherAI/pythia-70m; card 18,915,328 non-embedding
    "pythia-160m": 162_322_944,  # card 85,056,000 non-embedding
    "pythia-410m": 405_334_016,  # card 302,311,424 non-embedding
    "pythia-1b": 1_011_781_632,  # card 805,736,448 non-embedding
    "pythia-1.4b": 1_414_647_808,  # card 1,208,602,624 non-embedding
    "pythia-2.8b": 2_775_208_960,  # card 2,517,652,480 non-embedding
    "pythia-6.9b": 6_857_302_016,  # card 6,444,163,072 non-embedding
    "pythia-12b": 11_846_072_320,  # card 11,327,027,200 non-embedding
    "mpt-7b": 6_649_286_656,  # mosaicml/mpt-7b card n_parameters 6.7B
    "mpt-30b": 29_957_200_896,  # mosaicml/mpt-30b card n_parameters 29.95B
    "smollm3-3b": 3_075_098_624,  # HuggingFaceTB/SmolLM3-3B, Hub 3.08B
    "olmo-2-13b": 13_716_198_400,  # allenai/OLMo-2-1124-13B, card 13B
    "olmo-7b": 6_888_095_744,  # allenai/OLMo-7B, Hub 6.89B
    "bloom-176b": 176_247_271_424,  # bigscience/bloom card, exact
    "opt-175b": 174_604_468_224,  # Zhang et al. 2022 Table 1: 175B
    "gpt-3-175b": 174_604_259_328,  # Brown et al. 2020 Table 2.1: 175.0B
}

# Which preset each file in tests/data/hf_configs is the config.json of.
HF_FILE_PRESET = {
    "llama-3.1-8b.json": "llama-3.1-8b",  # meta-llama/Llama-3.1-8B
    "mistral-7b.json": "mistral-7b",  # mistralai/Mistral-7B-v0.1
    "qwen2.5-7b.json": "qwen2.5-7b",  # Qwen/Qwen2.5-7B
    "gemma-2-9b.json": "gemma-2-9b",  # google/gemma-2-9b
    "gpt2.json": "gpt2",  # openai-community/gpt2
    "mixtral-8x7b.json": "mixtral-8x7b",  # mistralai/Mixtral-8x7B-v0.1
    "phi-3-mini-4k.json": "phi-3-mini-4k",  # microsoft/Phi-3-mini-4k-instruct
    "bert-base-uncased.json": "bert-base-uncased",  # google-bert/bert-base-uncased
    "qwen3-8b.json": "qwen3-8b",  # Qwen/Qwen3-8B
    "qwen3-30b-a3b.json": "qwen3-30b-a3b",  # Qwen/Qwen3-30B-A3B
    "qwen1.5-moe-a2.7b.json": "qwen1.5-moe-a2.7b",  # Qwen/Qwen1.5-MoE-A2.7B
    "qwen2.5-vl-3b.json": "qwen2.5-vl-3b",  # Qwen/Qwen2.5-VL-3B-Instruct
    "gpt-oss-20b.json": "gpt-oss-20b",  # openai/gpt-oss-20b
    "gpt-oss-120b.json": "gpt-oss-120b",  # openai/gpt-oss-120b
    "deepseek-r1.json": "deepseek-r1",  # deepseek-ai/DeepSeek-R1
    "deepseek-v2.5.json": "deepseek-v2.5",  # deepseek-ai/DeepSeek-V2.5
    "gemma-3-1b-it.json": "gemma-3-1b",  # google/gemma-3-1b-it
    "gemma-3-27b-it.json": "gemma-3-27b",  # google/gemma-3-27b-it
    "gemma-7b.json": "gemma-7b",  # google/gemma-7b
    "llama-4-scout-17b-16e.json": "llama-4-scout",  # meta-llama/Llama-4-Scout-17B-16E
    "olmo-2-1124-7b.json": "olmo-2-7b",  # allenai/OLMo-2-1124-7B
    "phi-2.json": "phi-2",  # microsoft/phi-2
    "phi-4.json": "phi-4",  # microsoft/phi-4
    "mistral-small-24b.json": "mistral-small-3-24b",  # mistralai/Mistral-Small-24B-Base-2501
    "granite-3.1-8b.json": "granite-3.1-8b",  # ibm-granite/granite-3.1-8b-instruct
    "command-r7b.json": "command-r7b",  # CohereForAI/c4ai-command-r7b-12-2024
    "starcoder2-7b.json": "starcoder2-7b",  # bigcode/starcoder2-7b
}


def stored(counts) -> int:
    """Parameters stored in the checkpoint: the text model plus a vision tower (counted
    apart by the estimator; 0 for text-only models)."""
    return counts.total + counts.vision


def preset(model_id: str) -> ModelSpec:
    return spec_from_table(model_id, PRESETS[model_id])


def hf_config(file_name: str) -> dict:
    return json.loads((HF_CONFIGS / file_name).read_text(encoding="utf-8"))


# --------------------------------------------------------------------------- presets
def test_catalog_has_at_least_32_presets_including_every_published_one():
    assert len(PRESETS) >= 60  # issue 14: 60 or more (32 before it)
    assert set(PUBLISHED) <= set(PRESETS)


@pytest.mark.parametrize("model_id", sorted(PRESETS))
def test_preset_count_is_within_1_percent_of_published(model_id):
    spec = preset(model_id)
    assert model_id in PUBLISHED, "add the preset's published count to PUBLISHED"
    assert spec.published_params == PUBLISHED[model_id]
    assert stored(spec.params()) == pytest.approx(spec.published_params, rel=0.01)


@pytest.mark.parametrize("model_id", sorted(PRESETS))
def test_preset_cites_source_family_and_context_or_flops(model_id):
    spec = preset(model_id)
    assert spec.source and spec.family and spec.name
    if spec.kind == "opaque":
        assert spec.flops_per_sample > 0 and spec.sample_unit
    else:
        assert spec.max_positions > 0


def test_dense_presets_match_published_counts_exactly():
    inexact = {
        model_id: stored(preset(model_id).params()) - PUBLISHED[model_id]
        for model_id in PRESETS
        if stored(preset(model_id).params()) != PUBLISHED[model_id]
    }
    assert inexact == {}


def test_mixtral_total_vs_active_parameters():
    counts = preset("mixtral-8x7b").params()
    assert counts.total == 46_702_792_704
    expert = 3 * 4096 * 14336  # gate, up, down of one expert
    embedding = 32_000 * 4096  # looked up, not multiplied: not active
    assert counts.total - counts.active == 32 * (8 - 2) * expert + embedding
    # Mistral AI: "uses 12.9B parameters per token", which counts the embedding table too:
    # 12,879,925,248 with 2 of 8 experts per layer.
    assert counts.active + embedding == 12_879_925_248


def test_gpt_oss_active_parameters_are_the_model_cards():
    """gpt-oss-20b: 20.9B total, 3.61B active (OpenAI, gpt-oss model card, arXiv 2508.10925,
    Table 1: the unembedding counts, the input embedding, a row lookup, does not)."""
    counts = preset("gpt-oss-20b").params()
    assert counts.total == pytest.approx(20.91e9, rel=0.005)
    assert counts.active == pytest.approx(3.61e9, rel=0.005)
    dense = preset("llama-3.1-8b").params()
    assert dense.active == dense.total


def test_dense_model_active_equals_total():
    counts = preset("llama-3.1-8b").params()
    assert counts.active == counts.total


def test_opaque_preset_maps_params_to_params_override():
    spec = preset("resnet-50")
    assert spec.params_override == 25_557_032
    assert spec.flops_per_sample == pytest.approx(2 * 4.09e9)


# ---------------------------------------------------------------------- hand derivations
def test_tiny_llama_style_count_term_by_term():
    spec = ModelSpec(
        id="tiny",
        name="tiny",
        n_layers=2,
        d_model=8,
        n_heads=2,
        n_kv_heads=1,
        d_ff=16,
        vocab_size=10,
        max_positions=32,
    )
    head_dim = 8 // 2  # 4; q width 2*4 = 8, k/v width 1*4 = 4
    embedding = 10 * 8  # 80
    attention = 8 * 8 + 8 * 4 + 8 * 4 + 8 * 8  # q, k, v, o = 192
    mlp = 3 * 8 * 16  # gate, up, down = 384
    norms = 2 * 8  # two RMSNorm weights = 16
    final_norm = 8
    lm_head = 10 * 8  # untied = 80
    assert spec.head_dim == head_dim
    expected = embedding + 2 * (attention + mlp + norms) + final_norm + lm_head
    assert expected == 1352
    assert spec.params().total == expected


def test_tiny_gpt2_style_count_term_by_term():
    spec = ModelSpec(
        id="tiny-gpt",
        name="tiny-gpt",
        n_layers=1,
        d_model=4,
        n_heads=2,
        d_ff=8,
        vocab_size=10,
        max_positions=6,
        mlp="gelu",
        norm="layernorm",
        position="learned",
        tied_embeddings=True,
        qkv_bias=True,
        out_bias=True,
        mlp_bias=True,
    )
    embedding = 10 * 4 + 6 * 4  # tokens + learned positions = 64
    attention = 4 * (4 * 4) + (3 * 4 + 4)  # q, k, v, o weights + biases = 80
    mlp = 2 * 4 * 8 + (8 + 4)  # fc and proj weights + biases = 76
    norms = 2 * (2 * 4)  # two LayerNorms, weight + bias = 16
    final_norm = 2 * 4
    expected = embedding + attention + mlp + norms + final_norm  # head tied: 0
    assert expected == 244
    assert spec.params().total == expected


# --------------------------------------------------------------------------------- LoRA
def test_lora_llama2_7b_rank8_query_value_matches_peft():
    # 8 * (4096 + 4096) per matrix, 2 matrices, 32 layers; PEFT: "trainable params: 4,194,304"
    assert 8 * (4096 + 4096) * 2 * 32 == 4_194_304
    assert preset("llama-2-7b").lora_params(8, "qv") == 4_194_304


def test_lora_mistral_7b_rank8_query_value_with_gqa():
    # q: 4096 -> 4096, v: 4096 -> 8 KV heads * 128 = 1024; PEFT prints 3,407,872.
    assert 8 * ((4096 + 4096) + (4096 + 1024)) * 32 == 3_407_872
    assert preset("mistral-7b").lora_params(8, "qv") == 3_407_872


def test_lora_llama2_7b_rank64_all_linear_as_in_qlora():
    per_layer = 4 * (4096 + 4096) + 3 * (4096 + 11008)  # q, k, v, o + gate, up, down
    assert 64 * per_layer * 32 == 159_907_840  # PEFT/QLoRA: "trainable params: 159,907,840"
    assert preset("llama-2-7b").lora_params(64, "all") == 159_907_840


def test_lora_attention_targets_on_gemma2_use_head_dim_not_hidden():
    # Gemma 2 9B: q width 16*256 = 4096 (not 3584), k/v width 8*256 = 2048.
    per_layer = (3584 + 4096) + 2 * (3584 + 2048) + (4096 + 3584)
    assert preset("gemma-2-9b").lora_params(16, "attn") == 16 * per_layer * 42


def test_lora_all_targets_on_mixtral_adapt_every_expert():
    attention = (4096 + 4096) + 2 * (4096 + 1024) + (4096 + 4096)
    experts = 8 * 3 * (4096 + 14336)
    assert preset("mixtral-8x7b").lora_params(8, "all") == 8 * (attention + experts) * 32


def test_lora_unknown_target_is_rejected():
    with pytest.raises(ValueError, match="lora_targets"):
        preset("gpt2").lora_params(8, "everything")


# -------------------------------------------------------------------------- HF import
@pytest.mark.parametrize("file_name", sorted(p.name for p in HF_CONFIGS.glob("*.json")))
def test_hf_config_imports_to_the_published_count(file_name):
    model_id = HF_FILE_PRESET[file_name]
    spec = spec_from_hf_config(hf_config(file_name), model_id)
    assert stored(spec.params()) == PUBLISHED[model_id]
    expected = preset(model_id)
    assert spec.params() == expected.params()
    assert spec.max_positions == expected.max_positions


def test_every_listed_hf_config_file_exists():
    assert sorted(HF_FILE_PRESET) == sorted(p.name for p in HF_CONFIGS.glob("*.json"))


def test_hf_import_keeps_mixtral_experts_and_active_count():
    spec = spec_from_hf_config(hf_config("mixtral-8x7b.json"), "mixtral")
    assert (spec.n_experts, spec.experts_per_token) == (8, 2)
    # Mistral AI's 12.9B counts the input embedding table, which is looked up, not active
    assert spec.params().active == 12_879_925_248 - 32_000 * 4096


def test_hf_import_name_defaults_to_id_and_family_is_set():
    spec = spec_from_hf_config(hf_config("qwen2.5-7b.json"), "Qwen/Qwen2.5-7B")
    assert spec.name == "Qwen/Qwen2.5-7B"
    assert spec.family == "Qwen2"
    assert spec.qkv_bias and not spec.out_bias
    named = spec_from_hf_config(hf_config("qwen2.5-7b.json"), "q", name="Qwen2.5 7B")
    assert named.name == "Qwen2.5 7B"


def test_hf_llama_with_head_dim_and_tied_embeddings_is_llama_3_2_1b():
    config = hf_config("llama-3.1-8b.json") | {
        "hidden_size": 2048,
        "intermediate_size": 8192,
        "num_hidden_layers": 16,
        "num_attention_heads": 32,
        "num_key_value_heads": 8,
        "head_dim": 64,
        "tie_word_embeddings": True,
    }  # meta-llama/Llama-3.2-1B config.json
    assert spec_from_hf_config(config, "llama-3.2-1b").params().total == 1_235_814_400


def test_hf_gemma2_ties_embeddings_by_default():
    config = hf_config("gemma-2-9b.json")
    assert "tie_word_embeddings" not in config
    assert spec_from_hf_config(config, "g").tied_embeddings
    untied = spec_from_hf_config(config | {"tie_word_embeddings": False}, "g")
    assert untied.params().total == PUBLISHED["gemma-2-9b"] + 256000 * 3584


def test_hf_llama_does_not_tie_by_default():
    config = hf_config("llama-3.1-8b.json")
    del config["tie_word_embeddings"]
    assert not spec_from_hf_config(config, "l").tied_embeddings


def test_hf_missing_kv_heads_means_multi_head_attention():
    config = hf_config("phi-3-mini-4k.json")
    del config["num_key_value_heads"]
    spec = spec_from_hf_config(config, "phi")
    assert spec.n_kv_heads == spec.n_heads == 32
    assert spec.params().total == PUBLISHED["phi-3-mini-4k"]


def test_hf_gpt2_n_inner_defaults_to_four_times_width():
    config = hf_config("gpt2.json")
    assert "n_inner" not in config
    assert spec_from_hf_config(config, "gpt2").d_ff == 4 * 768
    assert spec_from_hf_config(config | {"n_inner": None}, "gpt2").d_ff == 3072
    assert spec_from_hf_config(config | {"n_inner": 1024}, "gpt2").d_ff == 1024


def test_hf_llama_attention_and_mlp_bias_flags():
    config = hf_config("llama-3.1-8b.json") | {"attention_bias": True, "mlp_bias": True}
    spec = spec_from_hf_config(config, "l")
    assert spec.qkv_bias and spec.out_bias and spec.mlp_bias
    q, kv, h, f = 4096, 1024, 4096, 14336
    extra = 32 * ((q + 2 * kv) + h + (2 * f + h))
    assert spec.params().total == PUBLISHED["llama-3.1-8b"] + extra


# ------------------------------------------------------------------------------ errors
def test_hf_unknown_model_type_lists_supported_ones():
    with pytest.raises(ValueError, match="unsupported model_type 't5'") as info:
        spec_from_hf_config({"model_type": "t5"}, "t5-small")
    for model_type in SUPPORTED_HF_MODEL_TYPES:
        assert model_type in str(info.value)
    # Issue 14 widened the set from the first eight to the 24 families asked for (and more).
    assert set(SUPPORTED_HF_MODEL_TYPES) >= {
        "llama", "mistral", "mixtral", "qwen2", "qwen2_moe", "qwen3", "qwen3_moe", "gemma",
        "gemma2", "gemma3", "gemma3_text", "phi", "phi3", "gpt2", "bert", "deepseek_v2",
        "deepseek_v3", "gpt_oss", "llama4", "llama4_text", "olmo2", "granite", "cohere2",
        "starcoder2",
    }


def test_hf_missing_model_type_is_an_error():
    config = hf_config("llama-3.1-8b.json")
    del config["model_type"]
    with pytest.raises(ValueError, match="missing field 'model_type'"):
        spec_from_hf_config(config, "x")


def test_hf_missing_field_is_named_never_guessed():
    config = hf_config("llama-3.1-8b.json")
    del config["intermediate_size"]
    expected = "config.json (model_type 'llama'): missing field 'intermediate_size'"
    with pytest.raises(ValueError) as info:
        spec_from_hf_config(config, "x")
    assert str(info.value) == expected


@pytest.mark.parametrize(
    ("file_name", "field"),
    [
        ("gpt2.json", "n_positions"),
        ("bert-base-uncased.json", "type_vocab_size"),
        ("mixtral-8x7b.json", "num_local_experts"),
        ("qwen2.5-7b.json", "max_position_embeddings"),
    ],
)
def test_hf_missing_family_specific_field(file_name, field):
    config = copy.deepcopy(hf_config(file_name))
    del config[field]
    with pytest.raises(ValueError, match=f"missing field '{field}'"):
        spec_from_hf_config(config, "x")


def test_hf_wrong_type_names_the_field():
    config = hf_config("mistral-7b.json") | {"hidden_size": "4096"}
    with pytest.raises(ValueError, match="field 'hidden_size' must be an integer"):
        spec_from_hf_config(config, "x")
    config = hf_config("mistral-7b.json") | {"tie_word_embeddings": "false"}
    with pytest.raises(ValueError, match="field 'tie_word_embeddings' must be true or false"):
        spec_from_hf_config(config, "x")


def test_hf_heads_not_dividing_hidden_size_is_an_error():
    config = hf_config("mistral-7b.json") | {"num_attention_heads": 30, "num_key_value_heads": 30}
    with pytest.raises(ValueError, match="'num_attention_heads' must divide hidden_size"):
        spec_from_hf_config(config, "x")


def test_hf_kv_heads_not_dividing_heads_is_an_error():
    config = hf_config("mistral-7b.json") | {"num_key_value_heads": 5}
    with pytest.raises(ValueError, match="'num_key_value_heads' must divide"):
        spec_from_hf_config(config, "x")


def test_hf_config_must_be_an_object():
    with pytest.raises(ValueError, match="JSON object"):
        spec_from_hf_config(["not", "a", "config"], "x")  # type: ignore[arg-type]


def test_table_unknown_key_suggests_the_close_one():
    table = dict(PRESETS["llama-2-7b"])
    table["n_layer"] = table.pop("n_layers")
    with pytest.raises(ValueError, match="model 'llama-2-7b': unknown key 'n_layer'") as info:
        spec_from_table("llama-2-7b", table)
    assert "did you mean 'n_layers'?" in str(info.value)


def test_table_params_override_is_spelled_params():
    table = dict(PRESETS["resnet-50"])
    table["params_override"] = table.pop("params")
    with pytest.raises(ValueError, match="did you mean 'params'"):
        spec_from_table("resnet-50", table)


def test_table_wrong_type_names_the_field():
    with pytest.raises(ValueError, match="field 'n_layers' must be an integer, got '32'"):
        spec_from_table("m", PRESETS["llama-2-7b"] | {"n_layers": "32"})
    with pytest.raises(ValueError, match="field 'tied_embeddings' must be true or false"):
        spec_from_table("m", PRESETS["llama-2-7b"] | {"tied_embeddings": 1})
    with pytest.raises(ValueError, match="field 'name' must be a string"):
        spec_from_table("m", PRESETS["llama-2-7b"] | {"name": 7})


def test_table_integer_flops_widen_to_float():
    spec = spec_from_table("r", PRESETS["resnet-50"] | {"flops_per_sample": 8_000_000_000})
    assert spec.flops_per_sample == 8e9 and isinstance(spec.flops_per_sample, float)


def test_table_heads_not_dividing_width_is_an_error():
    with pytest.raises(ValueError, match="field 'n_heads' must divide d_model"):
        spec_from_table("m", PRESETS["llama-2-7b"] | {"n_heads": 30, "n_kv_heads": 30})


def test_table_missing_name_and_mismatched_id_are_errors():
    table = dict(PRESETS["gpt2"])
    del table["name"]
    with pytest.raises(ValueError, match="model 'gpt2': missing field 'name'"):
        spec_from_table("gpt2", table)
    with pytest.raises(ValueError, match="differs from the table key"):
        spec_from_table("gpt2", PRESETS["gpt2"] | {"id": "gpt3"})
    assert spec_from_table("gpt2", PRESETS["gpt2"] | {"id": "gpt2"}).id == "gpt2"


def test_table_unquoted_dotted_id_gets_a_hint():
    document = tomllib.loads('[llama-3.1-8b]\nname = "x"\n')
    with pytest.raises(ValueError, match="quote ids"):
        spec_from_table("llama-3", document["llama-3"])
