"""The Hugging Face model families: which config.json keys carry which ModelSpec numbers.

One :class:`HfFamily` per supported ``model_type`` says where the architecture numbers are,
which style fields the family implies (MLP, norms, biases, q/k norms, sinks, tying), how its
experts are laid out (Mixtral-style routed only, Qwen-MoE and DeepSeek shared experts, dense
first layers, Llama 4 interleaving) and which layers attend over a window. The rules follow
the transformers config and modeling classes of each family, so that the parameter counts
equal what transformers builds from the same file (tests/test_model_hf.py checks 20+ real
configs). :func:`text_kwargs` turns one (text) config table into ModelSpec keyword
arguments. Nothing here imports ModelSpec.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .hf_read import Reader

LLAMA_KEYS = {
    "n_layers": "num_hidden_layers",
    "d_model": "hidden_size",
    "n_heads": "num_attention_heads",
    "n_kv_heads": "num_key_value_heads",
    "head_dim": "head_dim",
    "d_ff": "intermediate_size",
    "vocab_size": "vocab_size",
    "max_positions": "max_position_embeddings",
}
GPT2_KEYS = {
    "n_layers": "n_layer",
    "d_model": "n_embd",
    "n_heads": "n_head",
    "d_ff": "n_inner",
    "vocab_size": "vocab_size",
    "max_positions": "n_positions",
}
BERT_KEYS = {
    "n_layers": "num_hidden_layers",
    "d_model": "hidden_size",
    "n_heads": "num_attention_heads",
    "d_ff": "intermediate_size",
    "vocab_size": "vocab_size",
    "max_positions": "max_position_embeddings",
    "type_vocab_size": "type_vocab_size",
}
#: ModelSpec fields other than the architecture numbers -> the config key messages name.
EXTRA_NAMES = {
    "n_experts": "num_experts",
    "experts_per_token": "num_experts_per_tok",
    "moe_d_ff": "moe_intermediate_size",
    "dense_layers": "first_k_dense_replace",
    "shared_d_ff": "shared_expert_intermediate_size",
    "kv_lora_rank": "kv_lora_rank",
    "q_lora_rank": "q_lora_rank",
    "qk_rope_head_dim": "qk_rope_head_dim",
    "v_head_dim": "v_head_dim",
    "sliding_window": "sliding_window",
    "global_layers": "layer_types",
}
# Keys a config.json may leave out (or set to null): the HF config classes then derive
# them (MHA when no KV heads, hidden/heads per head, 4*n_embd for GPT-2's MLP).
OPTIONAL_KEYS = ("num_key_value_heads", "head_dim", "n_inner")
GPT2_STYLE = {
    "mlp": "gelu",
    "norm": "layernorm",
    "position": "learned",
    "qkv_bias": True,
    "out_bias": True,
    "mlp_bias": True,
}
BERT_STYLE = GPT2_STYLE | {
    "kind": "encoder",
    "final_norm": False,
    "pooler": True,
    "embedding_norm": True,
}


@dataclass(frozen=True)
class HfFamily:
    """How one Hugging Face ``model_type`` maps onto ModelSpec.

    Attributes:
        family: display family for the spec.
        keys: ModelSpec field -> config.json key, for the integer architecture numbers.
        tie_default: ``tie_word_embeddings`` when config.json omits it (the HF config class's
            default).
        qkv_bias: q/k/v projections always carry biases (Qwen2).
        attention_bias_key: reads ``attention_bias`` (biases on q, k, v and output).
        attention_bias_default: its value when the file omits it.
        mlp_bias_key: reads ``mlp_bias`` (biases on the MLP matrices).
        norms_per_layer: norm layers per block.
        moe: expert layout: "" (dense), ``mixtral`` (``num_local_experts``), ``qwen``
            (``num_experts``, ``moe_intermediate_size``, shared expert, sparse step),
            ``deepseek`` (routed + shared, first dense layers, latent attention),
            ``llama4`` (interleaved MoE layers with a shared expert).
        qk_norm: ModelSpec ``qk_norm`` the family always has.
        windows: which layers attend over ``sliding_window``: "" none, ``all`` every layer
            when the file sets a window, ``qwen`` only with ``use_sliding_window``,
            ``pattern`` per ``layer_types`` or every ``window_pattern``-th layer global,
            ``llama4`` chunked attention on the RoPE layers.
        window_pattern: the config class's default pattern (every n-th layer global).
        defaults: the config class's defaults for keys shipped configs omit (Gemma 3).
        style: ModelSpec fields fixed by the family.
        text_type: for a multimodal family, the model_type of its ``text_config``.
    """

    family: str
    keys: dict[str, str] = field(default_factory=lambda: LLAMA_KEYS)
    tie_default: bool = False
    qkv_bias: bool = False
    attention_bias_key: bool = False
    attention_bias_default: bool = False
    mlp_bias_key: bool = False
    norms_per_layer: int = 2
    moe: str = ""
    qk_norm: str = "none"
    windows: str = ""
    window_pattern: int = 0
    defaults: dict = field(default_factory=dict)
    style: dict = field(default_factory=dict)
    text_type: str = ""


_GEMMA3_DEFAULTS = {  # transformers Gemma3TextConfig defaults (gemma-3-4b/12b/27b omit some)
    "vocab_size": 262_208, "hidden_size": 2304, "intermediate_size": 9216,
    "num_hidden_layers": 26, "num_attention_heads": 8, "num_key_value_heads": 4,
    "head_dim": 256, "max_position_embeddings": 131_072, "sliding_window": 4096,
}
_PHI_STYLE = {"mlp": "gelu", "norm": "layernorm", "qkv_bias": True, "out_bias": True,
              "mlp_bias": True, "lm_head_bias": True}

FAMILIES: dict[str, HfFamily] = {
    "llama": HfFamily("Llama", attention_bias_key=True, mlp_bias_key=True),
    "mistral": HfFamily("Mistral", windows="all", defaults={"sliding_window": 4096}),
    "mixtral": HfFamily("Mixtral", moe="mixtral", windows="all"),
    "qwen2": HfFamily("Qwen2", qkv_bias=True, windows="qwen"),
    "qwen2_moe": HfFamily("Qwen2-MoE", qkv_bias=True, moe="qwen", windows="qwen"),
    "qwen3": HfFamily("Qwen3", attention_bias_key=True, qk_norm="head", windows="qwen"),
    "qwen3_moe": HfFamily("Qwen3-MoE", attention_bias_key=True, qk_norm="head", moe="qwen",
                          windows="qwen"),
    "gemma": HfFamily("Gemma", tie_default=True, attention_bias_key=True),
    "gemma2": HfFamily("Gemma 2", tie_default=True, attention_bias_key=True,
                       norms_per_layer=4, windows="pattern", window_pattern=2),
    "gemma3_text": HfFamily("Gemma 3", tie_default=True, attention_bias_key=True,
                            norms_per_layer=4, qk_norm="head", windows="pattern",
                            window_pattern=6, defaults=_GEMMA3_DEFAULTS),
    "gemma3": HfFamily("Gemma 3", tie_default=True, text_type="gemma3_text"),
    "phi": HfFamily("Phi", norms_per_layer=1, style=_PHI_STYLE),
    "phi3": HfFamily("Phi-3", windows="all"),
    "gpt2": HfFamily("GPT-2", GPT2_KEYS, tie_default=True),
    "bert": HfFamily("BERT", BERT_KEYS),
    "deepseek_v2": HfFamily("DeepSeek-V2", attention_bias_key=True, moe="deepseek"),
    "deepseek_v3": HfFamily("DeepSeek-V3", attention_bias_key=True, moe="deepseek"),
    "gpt_oss": HfFamily("gpt-oss", attention_bias_key=True, attention_bias_default=True,
                        moe="mixtral", windows="pattern", window_pattern=2,
                        style={"attention_sinks": True, "router_bias": True,
                               "mlp_bias": True}),
    "llama4_text": HfFamily("Llama 4", attention_bias_key=True, moe="llama4",
                            windows="llama4"),
    "llama4": HfFamily("Llama 4", text_type="llama4_text"),
    "olmo2": HfFamily("OLMo 2", attention_bias_key=True, qk_norm="full"),
    "granite": HfFamily("Granite", attention_bias_key=True, mlp_bias_key=True),
    "cohere2": HfFamily("Command R7B", tie_default=True, attention_bias_key=True,
                        norms_per_layer=1, windows="pattern", window_pattern=4),
    "starcoder2": HfFamily("StarCoder2", tie_default=True, windows="all",
                           style={"mlp": "gelu", "norm": "layernorm"}),
    "qwen2_5_vl_text": HfFamily("Qwen2.5-VL", qkv_bias=True, windows="qwen"),
    "qwen2_5_vl": HfFamily("Qwen2.5-VL", text_type="qwen2_5_vl_text"),
}
#: A family for configs whose model_type is unknown but whose fields are standard.
GENERIC = HfFamily("unknown", attention_bias_key=True, mlp_bias_key=True, moe="generic",
                   windows="all")


def _numbers(cfg: Reader, fam: HfFamily) -> dict[str, int]:
    """The integer architecture numbers, keyed by ModelSpec field."""
    numbers = {}
    for field_name, key in fam.keys.items():
        default = fam.defaults.get(key, 0 if key in OPTIONAL_KEYS else None)
        if key in OPTIONAL_KEYS and cfg.has(key):
            numbers[field_name] = cfg.int(key, minimum=1)  # given: 0 is no default
        else:
            numbers[field_name] = cfg.int(key, default)
    if fam.keys["d_ff"] == "n_inner" and not numbers["d_ff"]:
        numbers["d_ff"] = 4 * numbers["d_model"]  # GPT2Config: n_inner None -> 4 * n_embd
    return numbers


def _biases(cfg: Reader, fam: HfFamily) -> dict[str, object]:
    """Bias flags: q/k/v and output projections, MLP matrices."""
    attn = fam.attention_bias_key and cfg.bool("attention_bias", fam.attention_bias_default)
    style = {"qkv_bias": fam.qkv_bias or attn, "out_bias": attn,
             "mlp_bias": fam.mlp_bias_key and cfg.bool("mlp_bias", False)}
    if fam.family == "StarCoder2":
        bias = cfg.bool("use_bias", True)
        style = {"qkv_bias": bias, "out_bias": bias, "mlp_bias": bias}
    return style


def _moe(cfg: Reader, fam: HfFamily, n_layers: int, d_ff: int) -> dict[str, object]:
    """Experts: count, top-k, expert and shared widths, how many layers stay dense."""
    if fam.moe == "generic":
        if not any(cfg.has(k) for k in ("num_local_experts", "num_experts", "n_routed_experts")):
            return {}
        experts = cfg.first_int(("num_local_experts", "num_experts", "n_routed_experts"))
        if experts <= 1:
            return {}
        out = {"n_experts": experts, "experts_per_token": cfg.int("num_experts_per_tok", 1)}
        if cfg.has("moe_intermediate_size"):
            out["moe_d_ff"] = cfg.int("moe_intermediate_size")
        return out
    if fam.moe == "mixtral":
        return {"n_experts": cfg.first_int(("num_local_experts", "num_experts")),
                "experts_per_token": cfg.first_int(("num_experts_per_tok",
                                                    "experts_per_token"))}
    if fam.moe == "qwen":
        # transformers 5 saves the expert count as num_local_experts (its name for every
        # MoE family); earlier releases wrote num_experts
        experts = cfg.first_int(("num_experts", "num_local_experts"))
        if experts <= 1:
            return {}
        step = cfg.int("decoder_sparse_step", 1, minimum=1)
        dense_only = set(cfg.list("mlp_only_layers") or [])
        moe_layers = sum(1 for i in range(n_layers) if i not in dense_only and (i + 1) % step == 0)
        out = {"n_experts": experts, "experts_per_token": cfg.int("num_experts_per_tok"),
               "moe_d_ff": cfg.int("moe_intermediate_size"), "dense_layers": n_layers - moe_layers}
        shared = cfg.int("shared_expert_intermediate_size", 0)
        if shared:
            out |= {"shared_d_ff": shared, "shared_expert_gate": True}
        return out
    if fam.moe == "deepseek":
        expert_ff = cfg.int("moe_intermediate_size")
        return {"n_experts": cfg.first_int(("n_routed_experts", "num_local_experts")),
                "experts_per_token": cfg.int("num_experts_per_tok"), "moe_d_ff": expert_ff,
                "dense_layers": min(cfg.int("first_k_dense_replace", 0), n_layers),
                "shared_d_ff": cfg.int("n_shared_experts", 0) * expert_ff}
    if fam.moe == "llama4":
        moe_layers = cfg.list("moe_layers")
        if moe_layers is None:
            step = cfg.int("interleave_moe_layer_step", 1, minimum=1)
            moe_layers = list(range(step - 1, n_layers, step))
        n_moe = len({i for i in moe_layers if 0 <= i < n_layers})
        return {"n_experts": cfg.int("num_local_experts", 16),
                "experts_per_token": cfg.int("num_experts_per_tok", 1), "moe_d_ff": d_ff,
                "shared_d_ff": d_ff, "d_ff": cfg.int("intermediate_size_mlp", 16384),
                "dense_layers": n_layers - n_moe}
    return {}


def _mla(cfg: Reader) -> dict[str, object]:
    """DeepSeek's multi-head latent attention: ranks and head sizes."""
    rope = cfg.int("qk_rope_head_dim")
    nope = cfg.int("qk_nope_head_dim")
    return {"attention": "mla", "q_lora_rank": cfg.int("q_lora_rank", 0),
            "kv_lora_rank": cfg.int("kv_lora_rank", minimum=1), "qk_rope_head_dim": rope,
            "head_dim": nope + rope, "v_head_dim": cfg.int("v_head_dim"), "n_kv_heads": 0}


def _windows(cfg: Reader, fam: HfFamily, n_layers: int) -> dict[str, int]:
    """``sliding_window`` and ``global_layers`` as transformers lays the layers out."""
    if fam.windows == "llama4":
        chunk = cfg.int("attention_chunk_size", 0)
        if not chunk:
            return {}
        no_rope = cfg.list("no_rope_layers", length=n_layers)
        if not no_rope:
            interval = cfg.int("no_rope_layer_interval", 4, minimum=1)
            no_rope = [int((i + 1) % interval != 0) for i in range(n_layers)]
        return {"sliding_window": chunk, "global_layers": sum(1 for v in no_rope if not v)}
    if not fam.windows or (fam.windows in ("qwen", "all")
                           and not cfg.bool("use_sliding_window", fam.windows == "all")):
        return {}
    window = cfg.int("sliding_window", fam.defaults.get("sliding_window", 0))
    if "sliding_window" in cfg.config and cfg.config["sliding_window"] is None:
        window = 0  # null: no window, whatever the class default
    if not window:
        return {}
    types = cfg.list("layer_types", item="str", length=n_layers)
    if types is None and fam.windows == "all":
        return {"sliding_window": window, "global_layers": 0}
    if types is None and fam.windows == "qwen":
        return {"sliding_window": window,
                "global_layers": min(cfg.int("max_window_layers", n_layers), n_layers)}
    if types is None:
        pattern = cfg.int("sliding_window_pattern", fam.window_pattern, minimum=1)
        types = ["sliding" if (i + 1) % pattern else "full" for i in range(n_layers)]
    windowed = sum(1 for t in types if "sliding" in t or "chunked" in t)
    return {"sliding_window": window, "global_layers": n_layers - windowed}


def text_kwargs(model_type: str, cfg: Reader, fam: HfFamily, tied: bool) -> dict:
    """ModelSpec keyword arguments of one text model's config table.

    Args:
        model_type: the text model's type (for the messages).
        cfg: the table (the file, or its ``text_config``).
        fam: the family's rules.
        tied: ``tie_word_embeddings`` as resolved by the caller (multimodal files put it
            at the top level).
    """
    numbers = _numbers(cfg, fam)
    if model_type == "bert":
        return numbers | dict(BERT_STYLE)  # the LM head is not part of BertModel
    if model_type == "gpt2":
        return numbers | GPT2_STYLE | {"tied_embeddings": tied}
    kwargs = numbers | _biases(cfg, fam) | {"tied_embeddings": tied,
                                            "norms_per_layer": fam.norms_per_layer,
                                            "qk_norm": fam.qk_norm}
    kwargs |= fam.style
    if model_type == "phi" and cfg.bool("qk_layernorm", False):
        kwargs["qk_norm"] = "head"
    if fam.moe:
        kwargs |= _moe(cfg, fam, numbers["n_layers"], numbers["d_ff"])
    if fam.moe == "deepseek":
        kwargs |= _mla(cfg)
    kwargs |= _windows(cfg, fam, numbers["n_layers"])
    return kwargs


__all__ = ["EXTRA_NAMES", "FAMILIES", "GENERIC", "HfFamily", "text_kwargs"]
