"""A GGUF file's header -> a ModelSpec, with the file's exact weight bytes.

llama.cpp stores a model's hyperparameters under ``<architecture>.*`` keys
(``llama.block_count``, ``qwen3moe.expert_count``, ...). They are put into the keys of the
Hugging Face ``config.json`` of the same family and read by
:func:`gpuadvisor.core.model.spec_from_hf_config`, so a GGUF file is described exactly as
its original config.json would be, with every family that reader knows. A family it does
not know yet is read as a Llama-style model (Mixtral-style when it has experts), and the
spec's ``source`` says so: its weights are still exact, from the file; only activations,
KV cache and FLOPs follow the Llama-style reading.

Where the tensors say it more precisely than the metadata, the tensors win: the vocabulary
is the token embedding's row count, tied embeddings are the absence of ``output.weight``.

The spec's ``extra`` carries what the file adds (see :data:`EXTRA_KEYS`).
"""

from __future__ import annotations

from dataclasses import fields, replace

from gpuadvisor.core.model import ModelSpec, spec_from_hf_config

from .gguf_file import GgufError, GgufHeader

#: llama.cpp architecture -> the Hugging Face model_type of the same family.
GGUF_TO_HF_TYPE = {
    "llama": "llama",
    "llama4": "llama4_text",
    "mistral3": "mistral",
    "qwen2": "qwen2",
    "qwen2moe": "qwen2_moe",
    "qwen3": "qwen3",
    "qwen3moe": "qwen3_moe",
    "gemma": "gemma",
    "gemma2": "gemma2",
    "gemma3": "gemma3_text",
    "phi2": "phi",
    "phi3": "phi3",
    "gpt2": "gpt2",
    "bert": "bert",
    "deepseek2": "deepseek_v3",
    "gpt-oss": "gpt_oss",
    "olmo2": "olmo2",
    "granite": "granite",
    "cohere2": "cohere2",
    "starcoder2": "starcoder2",
}

#: What the spec's ``extra`` gains from a GGUF file.
EXTRA_KEYS = {
    "weights_file_bytes": "bytes of every tensor in the file (what llama.cpp loads)",
    "file_params": "elements of every tensor in the file (the exact stored parameter count)",
    "file_path": "the file read",
    "file_format": '"gguf"',
    "file_quant": 'the quantization in words ("Q4_K_M", or "mostly Q4_K")',
    "file_bytes_by_type": "tensor bytes by ggml type name",
    "gguf_architecture": "general.architecture",
}

# llama_ftype (general.file_type) names, from llama.cpp's gguf-py LlamaFileType.
_FILE_TYPES = {
    0: "F32", 1: "F16", 2: "Q4_0", 3: "Q4_1", 7: "Q8_0", 8: "Q5_0", 9: "Q5_1", 10: "Q2_K",
    11: "Q3_K_S", 12: "Q3_K_M", 13: "Q3_K_L", 14: "Q4_K_S", 15: "Q4_K_M", 16: "Q5_K_S",
    17: "Q5_K_M", 18: "Q6_K", 19: "IQ2_XXS", 20: "IQ2_XS", 21: "Q2_K_S", 22: "IQ3_XS",
    23: "IQ3_XXS", 24: "IQ1_S", 25: "IQ4_NL", 26: "IQ3_S", 27: "IQ3_M", 28: "IQ2_S",
    29: "IQ2_M", 30: "IQ4_XS", 31: "IQ1_M", 32: "BF16", 36: "TQ1_0", 37: "TQ2_0",
    38: "MXFP4_MOE", 39: "NVFP4", 40: "Q1_0",
}


def quant_label(header: GgufHeader) -> str:
    """The file's quantization in words: ``general.file_type`` by name, else the ggml type
    holding most of the bytes ("mostly Q4_K")."""
    file_type = header.metadata.get("general.file_type")
    if isinstance(file_type, int) and file_type in _FILE_TYPES:
        return _FILE_TYPES[file_type]
    by_type = header.bytes_by_type()
    return f"mostly {next(iter(by_type))}" if by_type else "empty"


def _number(header: GgufHeader, key: str, *, required: bool = False) -> int | None:
    """``<arch>.<key>`` as one integer; a per-layer array gives its largest value."""
    value = header.arch_value(key)
    if isinstance(value, tuple):
        value = max(value) if value else None
    if isinstance(value, bool) or (value is not None and not isinstance(value, int | float)):
        raise GgufError(f"{header.path}: '{header.architecture}.{key}' must be a number, "
                        f"got {value!r}")
    if value is None:
        if required:
            raise GgufError(f"{header.path}: missing '{header.architecture}.{key}'")
        return None
    return int(value)


def _vocab_size(header: GgufHeader) -> int | None:
    embedding = header.tensor("token_embd.weight")
    if embedding is not None and len(embedding.shape) == 2:
        return embedding.shape[1]
    return (_number(header, "vocab_size")
            or header.array_lengths.get("tokenizer.ggml.tokens") or None)


def hf_config_from_gguf(header: GgufHeader, model_type: str) -> dict:
    """The Hugging Face config.json keys that ``model_type`` reads, from GGUF metadata.

    Keys a family does not read are harmless: each family's reader picks its own.

    Raises:
        GgufError: a required number (layers, width, heads) is missing or not a number.
    """
    layers = _number(header, "block_count", required=True)
    width = _number(header, "embedding_length", required=True)
    heads = _number(header, "attention.head_count", required=True)
    kv_heads = _number(header, "attention.head_count_kv")
    head_dim = _number(header, "attention.key_length")
    experts = _number(header, "expert_count") or 0
    used = _number(header, "expert_used_count")
    ff = _number(header, "feed_forward_length")
    expert_ff = _number(header, "expert_feed_forward_length")
    context = _number(header, "context_length")
    vocab = _vocab_size(header)
    if ff is None and expert_ff is None:
        raise GgufError(f"{header.path}: missing '{header.architecture}.feed_forward_length'")
    if vocab is None:
        raise GgufError(f"{header.path}: no vocabulary size (no token_embd.weight tensor and "
                        "no tokenizer.ggml.tokens)")
    tied = header.tensor("output.weight") is None
    config: dict[str, object] = {
        "model_type": model_type,
        # Llama-style names
        "num_hidden_layers": layers,
        "hidden_size": width,
        "num_attention_heads": heads,
        "num_key_value_heads": kv_heads or heads,
        "intermediate_size": ff if ff is not None else expert_ff,
        "vocab_size": vocab,
        "max_position_embeddings": context or 4096,
        "tie_word_embeddings": tied,
        # GPT-2 names
        "n_layer": layers,
        "n_embd": width,
        "n_head": heads,
        "n_inner": ff,
        "n_positions": context or 1024,
    }
    if head_dim:
        config["head_dim"] = head_dim
    token_types = header.tensor("token_types.weight")  # BERT's token-type embeddings
    config["type_vocab_size"] = token_types.shape[-1] if token_types is not None else 2
    if experts > 1:
        per_expert = expert_ff or ff
        config.update({
            "num_local_experts": experts,  # Mixtral, gpt-oss
            "num_experts": experts,  # Qwen MoE
            "n_routed_experts": experts,  # DeepSeek
            "num_experts_per_tok": used or 1,
            "moe_intermediate_size": per_expert,
        })
        if model_type == "mixtral":
            config["intermediate_size"] = per_expert
    for gguf_key, hf_key in (
        ("expert_shared_count", "n_shared_experts"),
        ("expert_shared_feed_forward_length", "shared_expert_intermediate_size"),
        ("leading_dense_block_count", "first_k_dense_replace"),
        ("attention.q_lora_rank", "q_lora_rank"),
        ("attention.kv_lora_rank", "kv_lora_rank"),
        ("rope.dimension_count", "qk_rope_head_dim"),
        ("attention.value_length", "v_head_dim"),
        ("attention.sliding_window", "sliding_window"),
    ):
        value = _number(header, gguf_key)
        if value is not None:
            config[hf_key] = value
    return config


def spec_from_gguf(header: GgufHeader, *, model_id: str | None = None,
                   name: str | None = None) -> ModelSpec:
    """A :class:`ModelSpec` for the model in a GGUF file, with its exact weight bytes.

    Args:
        header: the file's header (:func:`.gguf_file.read_gguf_header`).
        model_id: the spec's id (default: the file's name without ``.gguf``).
        name: display name (default: ``general.name`` and the quantization).

    Returns:
        The spec; ``extra`` holds :data:`EXTRA_KEYS`.

    Raises:
        GgufError: no architecture, or numbers missing or not fitting together; the
            message names the file and the key.
    """
    arch = header.architecture
    if not arch:
        raise GgufError(f"{header.path}: missing 'general.architecture'")
    experts = _number(header, "expert_count") or 0
    model_type = GGUF_TO_HF_TYPE.get(arch, "")
    if model_type == "llama" and experts > 1:
        model_type = "mixtral"  # llama.cpp converts Mixtral as "llama" with experts
    label = quant_label(header)
    file_name = header.path.replace("\\", "/").rsplit("/", 1)[-1]
    model_id = model_id or (file_name[:-5] if file_name.lower().endswith(".gguf")
                            else file_name)
    general = header.metadata.get("general.name")
    base = general if isinstance(general, str) and general.strip() else model_id
    name = name or f"{base} ({label} GGUF)"
    spec, how = None, f"GGUF file {file_name} ({label}; architecture '{arch}')"
    errors: list[str] = []
    candidates = [model_type] if model_type else []
    fallback = "mixtral" if experts > 1 else "llama"
    if fallback not in candidates:
        candidates.append(fallback)
    for candidate in candidates:
        try:
            config = hf_config_from_gguf(header, candidate)
            spec = spec_from_hf_config(config, model_id=model_id, name=name)
        except ValueError as exc:
            if isinstance(exc, GgufError):
                raise
            errors.append(str(exc))
            continue
        if candidate != model_type:
            how += (f", read as a {'Mixtral' if experts > 1 else 'Llama'}-style model: "
                    "weights exact from the file, activations and KV cache approximate")
        break
    if spec is None:
        raise GgufError(f"{header.path}: {errors[0]}")
    extra = dict(spec.extra)
    extra.update({
        "weights_file_bytes": header.weights_bytes,
        "file_params": header.n_elements,
        "file_path": header.path,
        "file_format": "gguf",
        "file_quant": label,
        "file_bytes_by_type": header.bytes_by_type(),
        "gguf_architecture": arch,
    })
    # The source names the file and its size, so specs of two files differ (the shape cache
    # compares specs without their extra).
    source = f"{how}; {header.weights_bytes} bytes of weights"
    hook = {"weights_file_bytes": header.weights_bytes} if _HAS_WEIGHTS_FIELD else {}
    return replace(spec, source=source, extra=extra, **hook)


# Inference plans load a GGUF file's tensors as stored: where ModelSpec has the field
# ``weights_file_bytes``, memory.weight_bytes uses it instead of parameters x dtype.
_HAS_WEIGHTS_FIELD = "weights_file_bytes" in {f.name for f in fields(ModelSpec)}


__all__ = ["EXTRA_KEYS", "GGUF_TO_HF_TYPE", "hf_config_from_gguf", "quant_label",
           "spec_from_gguf"]
