"""Hugging Face config.json import: real files of today's models, counted as transformers does.

Every expected count below was obtained once, outside this project, by building the model
from the same config.json on PyTorch's meta device with transformers 5.25.0 (torch 2.13.0,
CPU): ``with torch.device("meta"): AutoModelForCausalLM.from_config(cfg)`` (or
``AutoModelForImageTextToText`` for the multimodal files, ``AutoModel`` for BERT) and
``sum(p.numel() for p in model.parameters())`` (tied weights counted once, as transformers
does). transformers is not a dependency of the project or of its tests: the numbers are
written here with their source.

"Active" parameters of an MoE, as written in the table: the total minus the routed experts
a token skips, i.e. ``total - routed x (1 - k/E)``, where "routed" is every parameter of the
routed experts (weights and biases; not the router, not shared experts, not dense layers).
That table value still holds the input embedding (Mixtral's "12.9B active" counts it); the
model's own active count also leaves out the untied input embedding, which a token only looks
a row up in (OpenAI's 3.6B/5.1B for gpt-oss leave out the 0.58B input embedding), and the
test subtracts it: ``vocab_size x hidden_size`` from the file.

For multimodal files the text model's counts are ``total``/``active`` and the vision tower
(+ projector) is ``vision``; transformers' count is their sum.

Where the files come from (tests/data/hf_configs/): each is the config.json of the named
Hub repository, as published in the repository or quoted verbatim in public code and docs.
Where only part of a file was quoted, the missing keys are the repository's own values from
its model card (noted per file); none of them changes a parameter count.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gpuadvisor.core.architecture import LINEAR_GROUPS
from gpuadvisor.core.hf_config import MAX_CONFIG_BYTES, hf_config_from_bytes
from gpuadvisor.core.model import model_shape, spec_from_hf_config

HF_CONFIGS = Path(__file__).parent / "data" / "hf_configs"

#: file -> (model_type, total, active, vision, where the file is from; what the card says)
META_COUNTS = {
    "qwen3-8b.json": ("qwen3", 8_190_735_360, 8_190_735_360, 0,
                      "Qwen/Qwen3-8B; card: 8.2B"),
    "qwen3-30b-a3b.json": ("qwen3_moe", 30_532_122_624, 3_353_032_704, 0,
                           "Qwen/Qwen3-30B-A3B; card: 30.5B total, 3.3B activated"),
    "qwen1.5-moe-a2.7b.json": ("qwen2_moe", 14_315_784_192, 2_689_173_504, 0,
                               "Qwen/Qwen1.5-MoE-A2.7B; card: 14.3B total, 2.7B activated"),
    "deepseek-r1.json": ("deepseek_v3", 671_026_404_352, 37_552_282_624, 0,
                         "deepseek-ai/DeepSeek-R1 (DeepSeek-V3 architecture); card: 671B "
                         "total, 37B activated (685B on the Hub with the 14B MTP module, "
                         "which transformers does not build)"),
    "deepseek-v2.5.json": ("deepseek_v2", 235_741_434_880, 21_375_800_320, 0,
                           "deepseek-ai/DeepSeek-V2.5; card: 236B total, 21B activated"),
    "gpt-oss-20b.json": ("gpt_oss", 20_914_757_184, 4_187_440_704, 0,
                         "openai/gpt-oss-20b (the 120b file with its 24 layers, 32 experts); "
                         "model card: 20.9B total, 3.6B active"),
    "gpt-oss-120b.json": ("gpt_oss", 116_829_156_672, 5_711_982_912, 0,
                          "openai/gpt-oss-120b; model card: 116.8B total, 5.1B active"),
    "gemma-3-27b-it.json": ("gemma3", 27_009_346_304, 27_009_346_304, 423_060_336,
                            "google/gemma-3-27b-it; Hub: 27.4B (text 27.0B + SigLIP 0.4B)"),
    "gemma-3-1b-it.json": ("gemma3_text", 999_885_952, 999_885_952, 0,
                           "google/gemma-3-1b-it; Hub: 1.0B"),
    "llama-4-scout-17b-16e.json": ("llama4", 107_769_861_120, 17_172_894_720, 871_932_416,
                                   "meta-llama/Llama-4-Scout-17B-16E (as printed by "
                                   "transformers' Llama4Config); card: 109B total, 17B "
                                   "active"),
    "olmo-2-1124-7b.json": ("olmo2", 7_298_617_344, 7_298_617_344, 0,
                            "allenai/OLMo-2-1124-7B; card: 7B (7.30B)"),
    "phi-2.json": ("phi", 2_779_683_840, 2_779_683_840, 0, "microsoft/phi-2; card: 2.7B"),
    "phi-4.json": ("phi3", 14_659_507_200, 14_659_507_200, 0,
                   "microsoft/phi-4 (file written from the repository's values); card: 14B"),
    "mistral-small-24b.json": ("mistral", 23_572_403_200, 23_572_403_200, 0,
                               "mistralai/Mistral-Small-24B-Base-2501; card: 24B"),
    "granite-3.1-8b.json": ("granite", 8_170_848_256, 8_170_848_256, 0,
                            "ibm-granite/granite-3.1-8b-instruct; card: 8.1B"),
    "command-r7b.json": ("cohere2", 8_028_033_024, 8_028_033_024, 0,
                         "CohereForAI/c4ai-command-r7b-12-2024; Hub: 8.03B"),
    "starcoder2-7b.json": ("starcoder2", 7_173_923_840, 7_173_923_840, 0,
                           "bigcode/starcoder2-7b; card: 7B (7.17B)"),
    "gemma-7b.json": ("gemma", 8_537_680_896, 8_537_680_896, 0, "google/gemma-7b; Hub: 8.54B"),
    "qwen2.5-vl-3b.json": ("qwen2_5_vl", 3_085_938_688, 3_085_938_688, 668_684_288,
                           "Qwen/Qwen2.5-VL-3B-Instruct; Hub: 3.75B"),
    # The first eight files (tests/test_model.py checks them against the presets too).
    "llama-3.1-8b.json": ("llama", 8_030_261_248, 8_030_261_248, 0, "meta-llama/Llama-3.1-8B"),
    "mistral-7b.json": ("mistral", 7_241_732_096, 7_241_732_096, 0, "mistralai/Mistral-7B-v0.1"),
    "mixtral-8x7b.json": ("mixtral", 46_702_792_704, 12_879_925_248, 0,
                          "mistralai/Mixtral-8x7B-v0.1; 46.7B total, 12.9B active"),
    "qwen2.5-7b.json": ("qwen2", 7_615_616_512, 7_615_616_512, 0, "Qwen/Qwen2.5-7B"),
    "gemma-2-9b.json": ("gemma2", 9_241_705_984, 9_241_705_984, 0, "google/gemma-2-9b"),
    "phi-3-mini-4k.json": ("phi3", 3_821_079_552, 3_821_079_552, 0,
                           "microsoft/Phi-3-mini-4k-instruct"),
    "gpt2.json": ("gpt2", 124_439_808, 124_439_808, 0, "openai-community/gpt2"),
    "bert-base-uncased.json": ("bert", 109_482_240, 109_482_240, 0,
                               "google-bert/bert-base-uncased (BertModel)"),
}


def config(file_name: str) -> dict:
    return json.loads((HF_CONFIGS / file_name).read_text(encoding="utf-8"))


def spec(file_name: str, **changes):
    return spec_from_hf_config(config(file_name) | changes, file_name.removesuffix(".json"))


def test_the_real_configs_cover_both_moe_styles_mla_gpt_oss_gemma3_and_llama4():
    types = {entry[0] for entry in META_COUNTS.values()}
    assert len(META_COUNTS) >= 14 and len(types) >= 20
    assert {"mixtral", "qwen3_moe", "qwen2_moe", "deepseek_v3", "gpt_oss", "gemma3",
            "llama4"} <= types
    assert set(META_COUNTS) == {p.name for p in HF_CONFIGS.glob("*.json")}


@pytest.mark.parametrize("file_name", sorted(META_COUNTS))
def test_counts_equal_transformers_meta_device_counts(file_name):
    model_type, total, active, vision, _source = META_COUNTS[file_name]
    assert config(file_name)["model_type"] == model_type
    counts = spec(file_name).params()
    if active != total:  # a mixture of experts: the input embedding is not active
        text = config(file_name).get("text_config") or config(file_name)
        if not text.get("tie_word_embeddings", config(file_name).get("tie_word_embeddings")):
            active -= text["vocab_size"] * text["hidden_size"]
    assert (counts.total, counts.active, counts.vision) == (total, active, vision)


# --------------------------------------------------------------------- block structure
def test_deepseek_v3_has_three_dense_layers_shared_expert_and_latent_attention():
    s = spec("deepseek-r1.json")
    assert (s.attention, s.kv_lora_rank, s.qk_rope_head_dim, s.head_dim) == ("mla", 512, 64, 192)
    assert (s.n_experts, s.experts_per_token, s.moe_d_ff, s.d_ff) == (256, 8, 2048, 18432)
    assert (s.dense_layers, s.shared_d_ff) == (3, 2048)
    kinds = {(blk.experts, blk.d_ff): count for blk, count in model_shape(s).blocks}
    assert kinds == {(1, 18432): 3, (256, 2048): 58}


def test_deepseek_v3_kv_cache_per_token_is_the_compressed_latent():
    # MLA caches the latent (kv_lora_rank 512) and the shared rotary key (64) per layer:
    # 61 layers x (512 + 64) elements x 2 bytes = 70,272 bytes per token.
    from gpuadvisor.core.kvcache import kv_cache_bytes
    from gpuadvisor.core.plan import Plan

    s = spec("deepseek-r1.json")
    assert model_shape(s).kv_elements_per_token == 61 * (512 + 64)
    plan = Plan(task="infer", micro_batch=1, seq_len=1000, new_tokens=24)
    assert kv_cache_bytes(s, plan) == 61 * (512 + 64) * 2 * 1024


def test_qwen3_moe_routes_every_layer_and_mlp_only_layers_stay_dense():
    s = spec("qwen3-30b-a3b.json")
    assert (s.n_experts, s.experts_per_token, s.moe_d_ff, s.dense_layers) == (128, 8, 768, 0)
    dense = spec("qwen3-30b-a3b.json", mlp_only_layers=[0, 1], decoder_sparse_step=1)
    assert dense.dense_layers == 2
    # two layers trade 128 experts of 3 x 2048 x 768 (+ a router) for a 3 x 2048 x 6144 MLP
    per_layer = 128 * 3 * 2048 * 768 + 2048 * 128 - 3 * 2048 * 6144
    assert s.params().total - dense.params().total == 2 * per_layer
    assert spec("qwen3-30b-a3b.json", decoder_sparse_step=2).dense_layers == 24


def test_qwen_moe_shared_expert_has_its_own_width_and_gate():
    s = spec("qwen1.5-moe-a2.7b.json")
    assert (s.shared_d_ff, s.shared_expert_gate, s.qkv_bias) == (5632, True, True)


def test_gpt_oss_alternates_128_token_windows_with_sinks_and_biases():
    s = spec("gpt-oss-20b.json")
    assert (s.sliding_window, s.global_layers) == (128, 12)
    assert s.attention_sinks and s.router_bias and s.mlp_bias and s.qkv_bias and s.out_bias
    windows = sorted((blk.window, count) for blk, count in model_shape(s).blocks)
    assert windows == [(0, 12), (128, 12)]


def test_gemma3_keeps_one_global_layer_in_six_and_counts_the_vision_tower_apart():
    s = spec("gemma-3-27b-it.json")
    assert (s.sliding_window, s.global_layers, s.n_layers) == (1024, 10, 62)
    assert s.vocab_size == 262_208  # Gemma3TextConfig's default: the file leaves it out
    assert s.qk_norm == "head" and s.tied_embeddings
    assert spec("gemma-3-1b-it.json").global_layers == 4  # 26 layers, pattern 6


def test_windowed_layers_cache_at_most_their_window():
    from gpuadvisor.core.kvcache import kv_cache_bytes
    from gpuadvisor.core.plan import Plan

    s = spec("gemma-3-27b-it.json")
    plan = Plan(task="infer", seq_len=32_000, new_tokens=768)
    per_token = 2 * 16 * 128  # K and V, 16 KV heads of 128
    expected = (10 * 32_768 + 52 * 1024) * per_token * 2  # global: all; local: 1024
    assert kv_cache_bytes(s, plan) == expected


def test_llama4_scout_interleaves_chunked_attention_and_shares_an_expert():
    s = spec("llama-4-scout-17b-16e.json")
    assert (s.sliding_window, s.global_layers) == (8192, 12)  # NoPE layers attend globally
    assert (s.n_experts, s.experts_per_token, s.moe_d_ff, s.shared_d_ff) == (16, 1, 8192, 8192)
    assert s.dense_layers == 0 and s.vision_params == 871_932_416
    maverick_like = spec("llama-4-scout-17b-16e.json")
    cfg = config("llama-4-scout-17b-16e.json")
    cfg["text_config"] = cfg["text_config"] | {"moe_layers": None,
                                               "interleave_moe_layer_step": 2}
    maverick_like = spec_from_hf_config(cfg, "m")
    assert maverick_like.dense_layers == 24 and maverick_like.d_ff == 16384


def test_olmo2_normalises_whole_query_and_key_projections():
    assert spec("olmo-2-1124-7b.json").qk_norm == "full"


def test_phi2_has_one_layernorm_per_block_and_a_biased_head():
    s = spec("phi-2.json")
    assert (s.norms_per_layer, s.norm, s.mlp, s.lm_head_bias) == (1, "layernorm", "gelu", True)


def test_mistral_v01_window_applies_to_every_layer_and_null_means_none():
    assert (spec("mistral-7b.json").sliding_window, spec("mistral-7b.json").global_layers) == (
        4096, 0)
    assert spec("mistral-small-24b.json").sliding_window == 0


def test_qwen_windows_only_with_use_sliding_window():
    assert spec("qwen2.5-7b.json").sliding_window == 0
    s = spec("qwen2.5-7b.json", use_sliding_window=True, sliding_window=4096,
             max_window_layers=20)
    assert (s.sliding_window, s.global_layers) == (4096, 20)


# ------------------------------------------------------------------ unknown model types
def test_unknown_model_type_with_standard_fields_is_read_with_a_warning():
    cfg = config("llama-3.1-8b.json") | {"model_type": "my_llama"}
    warnings: list[str] = []
    s = spec_from_hf_config(cfg, "mine", warnings=warnings)
    assert s.params().total == 8_030_261_248
    assert warnings and "unknown model_type 'my_llama'" in warnings[0]
    assert s.extra["warnings"] == warnings


def test_unknown_model_type_without_standard_fields_names_what_it_lacks():
    cfg = {"model_type": "t5", "d_model": 512, "num_layers": 6, "vocab_size": 32128}
    with pytest.raises(ValueError) as info:
        spec_from_hf_config(cfg, "t5-small")
    message = str(info.value)
    assert "unsupported model_type 't5'" in message and "\n" not in message
    for name in ("hidden_size", "num_hidden_layers", "num_attention_heads",
                 "intermediate_size"):
        assert name in message
    assert "vocab_size," not in message and not message.endswith("vocab_size")


def test_unknown_multimodal_type_reads_its_text_config():
    cfg = {"model_type": "new_vlm", "text_config": config("qwen3-8b.json"),
           "vision_config": {"hidden_size": 1024, "intermediate_size": 4096,
                             "num_hidden_layers": 24, "patch_size": 14}}
    warnings: list[str] = []
    s = spec_from_hf_config(cfg, "vlm", warnings=warnings)
    assert s.params().total == 8_190_735_360 - 36 * 2 * 128  # generic: no q/k norms
    assert s.vision_params > 0 and any("vision tower" in w for w in warnings)


# ------------------------------------------------------------------ hostile config files
HOSTILE = [
    ("zero layers", {"num_hidden_layers": 0}, "num_hidden_layers"),
    ("negative layers", {"num_hidden_layers": -4}, "num_hidden_layers"),
    ("string for int", {"hidden_size": "4096"}, "hidden_size"),
    ("float for int", {"intermediate_size": 12288.0}, "intermediate_size"),
    ("bool for int", {"vocab_size": True}, "vocab_size"),
    ("1e400", {"hidden_size": float("inf")}, "hidden_size"),
    ("10**400", {"num_attention_heads": 10**400}, "num_attention_heads"),
    ("huge but finite", {"vocab_size": 2**40}, "vocab_size"),
    ("negative head_dim", {"head_dim": -128}, "head_dim"),
    ("zero heads", {"num_attention_heads": 0}, "num_attention_heads"),
    ("kv heads not dividing", {"num_key_value_heads": 7}, "num_key_value_heads"),
    ("list for int", {"num_key_value_heads": [8]}, "num_key_value_heads"),
    ("table for bool", {"tie_word_embeddings": {"a": 1}}, "tie_word_embeddings"),
]


@pytest.mark.parametrize(("case", "changes", "field"), HOSTILE, ids=[c[0] for c in HOSTILE])
def test_a_hostile_field_gets_one_line_naming_it(case, changes, field):
    with pytest.raises(ValueError) as info:
        spec("qwen3-8b.json", **changes)
    message = str(info.value)
    assert f"'{field}'" in message, message
    assert "\n" not in message and len(message) < 300


def test_hostile_values_parsed_from_json_text_are_refused_too():
    text = (HF_CONFIGS / "qwen3-8b.json").read_text(encoding="utf-8")
    for bad in ('"hidden_size": 1e400', '"hidden_size": ' + "9" * 400):
        cfg = hf_config_from_bytes(text.replace('"hidden_size": 4096', bad).encode())
        with pytest.raises(ValueError, match="'hidden_size'"):
            spec_from_hf_config(cfg, "x")


@pytest.mark.parametrize(("changes", "field"), [
    ({"experts_per_token": None, "num_experts_per_tok": 64}, "num_experts_per_tok"),
    ({"num_local_experts": 0}, "num_local_experts"),
    ({"layer_types": ["sliding_attention"] * 3}, "layer_types"),
    ({"layer_types": [1] * 24}, "layer_types[]"),
    ({"sliding_window": -1}, "sliding_window"),
    ({"quantization_config": "mxfp4"}, "quantization_config"),
    ({"quantization_config": {"quant_method": "fp8", "weight_block_size": [0, 128]}},
     "quantization_config.weight_block_size"),
])
def test_hostile_moe_window_and_quantization_fields_are_named(changes, field):
    with pytest.raises(ValueError) as info:
        spec("gpt-oss-20b.json", **changes)
    assert f"'{field}'" in str(info.value) and "\n" not in str(info.value)


def test_hostile_nested_tables_are_named_with_their_path():
    cfg = config("gemma-3-27b-it.json")
    cfg["text_config"]["num_hidden_layers"] = "62"
    with pytest.raises(ValueError, match=r"'text_config\.num_hidden_layers'"):
        spec_from_hf_config(cfg, "g")
    cfg = config("gemma-3-27b-it.json") | {"text_config": [1, 2]}
    with pytest.raises(ValueError, match="'text_config' must be a table"):
        spec_from_hf_config(cfg, "g")
    cfg = config("gemma-3-27b-it.json")
    cfg["text_config"]["num_key_value_heads"] = 0
    with pytest.raises(ValueError, match=r"text_config\.num_key_value_heads"):
        spec_from_hf_config(cfg, "g")


def test_a_100_mb_file_is_refused_before_parsing():
    blob = b'{"model_type": "llama", "pad": "' + b"x" * (100 * 1024 * 1024) + b'"}'
    with pytest.raises(ValueError) as info:
        hf_config_from_bytes(blob)
    assert "too large" in str(info.value) and "\n" not in str(info.value)
    assert len(blob) > MAX_CONFIG_BYTES


@pytest.mark.parametrize(("blob", "words"), [
    (b"[" * 100_000 + b"]" * 100_000, "nested too deeply"),
    (b"\xff\xfe{}", "not UTF-8"),
    (b'{"model_type": }', "not valid JSON (line 1"),
    (b"[1, 2]", "JSON object"),
])
def test_unparsable_bytes_get_one_line(blob, words):
    with pytest.raises(ValueError) as info:
        hf_config_from_bytes(blob)
    assert words in str(info.value) and "\n" not in str(info.value)


def test_model_type_must_be_a_string():
    with pytest.raises(ValueError, match="'model_type' must be a string"):
        spec_from_hf_config({"model_type": ["llama"]}, "x")


def test_linear_groups_cover_every_block_linear():
    for file_name in META_COUNTS:
        shape = model_shape(spec(file_name))
        assert shape.linear_in_groups(LINEAR_GROUPS) == shape.params.linear_in_blocks


@pytest.mark.parametrize(("file_name", "old", "new"), [
    ("qwen3-30b-a3b.json", "num_experts", "num_local_experts"),
    ("deepseek-r1.json", "n_routed_experts", "num_local_experts"),
])
def test_a_config_saved_by_transformers_5_names_its_experts_num_local_experts(file_name, old,
                                                                             new):
    """transformers 5 writes every MoE family's expert count as ``num_local_experts``; such
    a file counts the same as the one its earlier release wrote."""
    data = config(file_name)
    renamed = {(new if key == old else key): value for key, value in data.items()}
    assert old not in renamed
    before = spec(file_name).params()
    after = spec_from_hf_config(hf_config_from_bytes(json.dumps(renamed).encode()),
                                "renamed").params()
    assert (after.total, after.active) == (before.total, before.active)
