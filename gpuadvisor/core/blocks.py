"""A ModelSpec's numbers -> its :class:`~.architecture.ModelShape` (block kinds and counts).

:func:`describe` is the one derivation every estimate starts from (the model module caches
it per spec). It reads the spec by attribute only, so it needs nothing of ours but the
records of :mod:`.architecture`.

Block kinds: a layer has a dense MLP or a mixture of experts (``dense_layers`` of an MoE
model are dense), and attends globally or over a window (``global_layers`` of a model with
a ``sliding_window`` are global; chunked attention counts as a window of the chunk size:
transformers caches it the same way). Estimates are sums over layers of an attention term
and an MLP term, so pairing the two choices in any order gives the same numbers; dense
layers are paired with global ones first.
"""

from __future__ import annotations

import math

from .architecture import LINEAR_GROUPS, BlockShape, ModelShape, ParamCounts

#: Tokens a reply opens with before its first text, by family (the catalog's name and a
#: config's ``model_type``): gpt-oss answers in OpenAI's harmony format, and "the output will
#: begin by specifying the channel": ``<|channel|>analysis<|message|>`` (tokens 200005,
#: 35644, 200008) before its reasoning text (openai/harmony docs/format.md, "Chat conversation
#: format" and the StreamableParser example). The prefill yields the first of them; a
#: streaming client sees text three decode steps later.
REPLY_HEADER_TOKENS = {"gpt-oss": 3, "gpt_oss": 3}

#: Model families whose checkpoints hold each layer's Q, K and V projections as one matrix,
#: which llama.cpp's converter writes as one ``attn_qkv`` tensor (``convert_hf_to_gguf.py``:
#: Phi-3's ``qkv_proj``, GPT-2's ``c_attn``, GPT-NeoX's, BLOOM's and Falcon's
#: ``query_key_value``, MPT's ``Wqkv``): the catalog's family names and, for a config read
#: from a file, its ``model_type``.
FUSED_QKV_FAMILIES = frozenset({"Phi-3", "Phi-4", "GPT-2", "Pythia", "BLOOM", "MPT", "Falcon",
                                "phi3", "gpt2", "gpt_neox", "bloom", "mpt", "falcon"})


def _norm_size(spec, width: int) -> int:
    """Parameters of one norm over ``width`` features: 2w LayerNorm, w RMSNorm."""
    return 2 * width if spec.norm == "layernorm" else width


def _attention(spec) -> dict:
    """Attention weights, biases, norms, KV elements and LoRA widths of one block.

    Grouped-query attention (h = d_model, q = n_heads x head_dim, k = n_kv_heads x
    head_dim): weights ``h q + 2 h k + q h``; biases ``q + 2k`` with ``qkv_bias``, ``h``
    with ``out_bias``; cache ``2k`` per token; LoRA widths Q ``h + q``, K and V ``h + k``,
    output ``q + h``.

    Multi-head latent attention (DeepSeek-V2/V3; r_q = q_lora_rank, r_kv = kv_lora_rank,
    d_r = qk_rope_head_dim, d_n = head_dim - d_r, d_v = v_head_dim, a heads): queries
    ``h r_q + r_q a (d_n + d_r)`` (or ``h a (d_n + d_r)`` without compression), the joint
    down-projection ``h (r_kv + d_r)``, the up-projection ``r_kv a (d_n + d_v)`` and the
    output ``a d_v h``; RMSNorms over ``r_q`` and ``r_kv``; the cache keeps the latent and
    the shared rotary key, ``r_kv + d_r`` elements per token and layer.

    Per block either way: q/k norms (``head``: two norms over head_dim; ``full``: over q
    and k, OLMo 2) and attention sinks (one logit per head, gpt-oss).
    """
    h, a, d = spec.d_model, spec.n_heads, spec.head_dim
    q, k = a * d, spec.n_kv_heads * d
    v = a * (spec.v_head_dim or d)
    other = 0
    if spec.attention == "mla":
        r_q, r_kv, d_r = spec.q_lora_rank, spec.kv_lora_rank, spec.qk_rope_head_dim
        d_n = d - d_r
        q_in = h * r_q + r_q * q if r_q else h * q
        kv_up = a * (d_n + (spec.v_head_dim or d))
        weights = q_in + h * (r_kv + d_r) + r_kv * kv_up + v * h
        other += (_norm_size(spec, r_q) if r_q else 0) + _norm_size(spec, r_kv)
        if spec.qkv_bias:
            other += (r_q or q) + r_kv + d_r
        q_width = (h + r_q) + (r_q + q) if r_q else h + q
        qv = q_width + (r_kv + kv_up)
        attn_width = q_width + (h + r_kv + d_r) + (r_kv + kv_up) + (v + h)
        kv_elements = r_kv + d_r
        kv_dim = q
    else:
        weights = h * q + 2 * h * k + v * h
        if spec.qkv_bias:
            other += q + 2 * k
        q_proj, kv_proj, o_proj = h + q, h + k, v + h
        qv = q_proj + kv_proj
        attn_width = q_proj + 2 * kv_proj + o_proj
        kv_elements = 2 * k
        kv_dim = k
    if spec.out_bias:
        other += h
    if spec.qk_norm == "head":
        other += 2 * _norm_size(spec, d)
    elif spec.qk_norm == "full":
        other += _norm_size(spec, q) + _norm_size(spec, kv_dim)
    if spec.attention_sinks:
        other += a
    return {"weights": weights, "other": other, "kv_elements": kv_elements, "q": q,
            "kv_dim": kv_dim, "v": v, "qv": qv, "attn_width": attn_width}


def _block_shape(spec, attn: dict, *, moe: bool, window: int) -> BlockShape:
    """One kind of block: the attention of every layer with a dense or an MoE MLP.

    MLP (per expert; f = d_ff dense, ``moe_d_ff`` or d_ff for experts): weights
    ``3 h f`` gated, ``2 h f`` otherwise; biases ``2f + h`` (``f + h`` ungated) with
    ``mlp_bias``. An MoE block adds its router ``h E`` (+ E with ``router_bias``), the
    shared expert (an always-on MLP of inner size ``shared_d_ff``) and its sigmoid gate
    ``h`` (Qwen-MoE). Block norms: ``norms_per_layer`` x (2h LayerNorm, h RMSNorm).
    """
    h = spec.d_model
    n_mats = 3 if spec.mlp == "gated" else 2
    experts = spec.n_experts if moe else 1
    top_k = spec.experts_per_token if moe else 1
    f = (spec.moe_d_ff or spec.d_ff) if moe else spec.d_ff
    sf = spec.shared_d_ff if moe else 0
    expert_w = n_mats * h * f
    expert_b = ((n_mats - 1) * f + h) if spec.mlp_bias else 0
    shared_w = n_mats * h * sf
    shared_b = ((n_mats - 1) * sf + h) if (spec.mlp_bias and sf) else 0
    router = (h * experts + (experts if spec.router_bias else 0)) if moe else 0
    router += h if (moe and sf and spec.shared_expert_gate) else 0
    fixed = attn["other"] + router + shared_b + spec.norms_per_layer * _norm_size(spec, h)
    return BlockShape(
        d_model=h,
        n_heads=spec.n_heads,
        q_dim=attn["q"],
        kv_dim=attn["kv_dim"],
        d_ff=f,
        mlp_matrices=n_mats,
        experts=experts,
        experts_per_token=top_k,
        attention_weights=attn["weights"],
        expert_weights=expert_w,
        linear_weights=attn["weights"] + experts * expert_w + shared_w,
        linear_weights_active=attn["weights"] + top_k * expert_w + shared_w,
        other_params=fixed + experts * expert_b,
        other_params_active=fixed + top_k * expert_b,
        kv_elements_per_token=attn["kv_elements"],
        lora_width_qv=attn["qv"],
        lora_width_attn=attn["attn_width"],
        lora_width_all=(attn["attn_width"] + experts * n_mats * (h + f)
                        + (n_mats * (h + sf) if sf else 0)),
        v_dim=attn["v"],
        shared_d_ff=sf,
        shared_weights=shared_w,
        window=window,
    )


def layer_counts(spec) -> list[tuple[bool, int, int]]:
    """``(moe, window, layers)`` for each kind of block the spec's stack holds."""
    n = spec.n_layers
    n_moe = n - spec.dense_layers if spec.n_experts > 1 else 0
    n_dense = n - n_moe
    n_global = spec.global_layers if spec.sliding_window else n
    dense_global = min(n_dense, n_global)
    kinds = [(False, 0, dense_global), (False, spec.sliding_window, n_dense - dense_global),
             (True, 0, n_global - dense_global),
             (True, spec.sliding_window, n_moe - (n_global - dense_global))]
    return [kind for kind in kinds if kind[2] > 0]


def _params(spec, blocks: tuple[tuple[BlockShape, int], ...]) -> ParamCounts:
    """Parameter counts: the blocks plus what sits outside them.

    Outside blocks: token embedding ``V h``, learned positions ``P h``, token types ``T h``,
    an embedding norm (BERT), a final norm, an untied LM head ``V h`` (+ ``V`` with its
    bias), and BERT's pooler ``h h + h``. A vision tower is counted apart.
    """
    h = spec.d_model
    norm_size = _norm_size(spec, h)
    embedding = spec.vocab_size * h
    if spec.position == "learned":
        embedding += spec.max_positions * h
    embedding += spec.type_vocab_size * h
    lm_head = 0 if (spec.tied_embeddings or spec.kind == "encoder") else spec.vocab_size * h
    if spec.lm_head_bias and spec.kind != "encoder":
        lm_head += spec.vocab_size
    other_global = (norm_size if spec.final_norm else 0) + (
        norm_size if spec.embedding_norm else 0
    )
    if spec.pooler:
        other_global += h * h + h

    linear = sum(count * block.linear_weights for block, count in blocks)
    linear_active = sum(count * block.linear_weights_active for block, count in blocks)
    other_blocks = sum(count * block.other_params for block, count in blocks)
    other_active = sum(count * block.other_params_active for block, count in blocks)
    other = other_blocks + other_global
    total = embedding + lm_head + linear + other
    # Active: what a token's compute multiplies. The input embedding is a row lookup (one
    # row of V x h per token), so it is left out; a tied table is multiplied as the LM head,
    # so it counts once there. This is how OpenAI's gpt-oss model card counts them
    # (gpt-oss-20b: 3.61B active = attention 0.64B + 4 of 32 experts of 19.12B MLP +
    # unembedding 0.58B; arXiv 2508.10925, Table 1).
    head_matmul = spec.vocab_size * h if (spec.tied_embeddings and spec.kind != "encoder") \
        else 0
    active = head_matmul + lm_head + linear_active + other_active + other_global
    if linear_active == linear:
        active = total  # a dense model: "active" is a mixture-of-experts notion
    return ParamCounts(
        total=total,
        active=active,
        embedding=embedding,
        lm_head=lm_head,
        linear_in_blocks=linear,
        linear_in_blocks_active=linear_active,
        other=other,
        vision=spec.vision_params,
    )


def _adafactor_state_elements(spec, blocks, counts: ParamCounts) -> float:
    """Adafactor's factored second moment: rows + cols per matrix, full size per vector.

    Matrices: every block linear (``lora_width_all`` is exactly the sum of ``d_in + d_out``
    over them), the embedding and an untied LM head (``V + h`` each). Vectors (norms,
    biases) keep a full second moment.
    """
    matrices = sum(count * block.lora_width_all for block, count in blocks)
    matrices += spec.vocab_size + spec.d_model
    if counts.lm_head:
        matrices += spec.vocab_size + spec.d_model
    return float(matrices + counts.other)


def _quant_groups(spec) -> tuple[str, ...]:
    """The linear groups a shipped quantization covers ("" = every group)."""
    if not spec.quant_groups:
        return LINEAR_GROUPS
    return tuple(g for g in LINEAR_GROUPS if g in spec.quant_groups.split(","))


def describe(spec) -> ModelShape:
    """Derive the :class:`ModelShape` of a spec (block kinds, counts, sizes)."""
    dropout = spec.norm == "layernorm" and spec.mlp == "gelu"
    if spec.kind == "opaque":
        n = int(spec.params_override)
        return ModelShape(
            id=spec.id, kind=spec.kind, params=ParamCounts(n, n, 0, 0, n, n, 0), n_layers=0,
            d_model=0, vocab_size=0, block=None, output_matmul_params=0,
            kv_elements_per_token=0,
            # ~50 square-ish matrices; small either way
            adafactor_state_elements=2.0 * math.sqrt(n) * 50, dropout=dropout,
            flops_per_sample=spec.flops_per_sample,
            activation_bytes_per_sample=spec.activation_bytes_per_sample)
    attn = _attention(spec)
    blocks = tuple((_block_shape(spec, attn, moe=moe, window=window), count)
                   for moe, window, count in layer_counts(spec))
    counts = _params(spec, blocks)
    representative = max(blocks, key=lambda item: item[1])[0]
    kv = sum(count * block.kv_elements_per_token for block, count in blocks)
    return ModelShape(
        id=spec.id,
        kind=spec.kind,
        params=counts,
        n_layers=spec.n_layers,
        d_model=spec.d_model,
        vocab_size=spec.vocab_size,
        block=representative,
        output_matmul_params=spec.vocab_size * spec.d_model,
        kv_elements_per_token=kv if spec.kind == "decoder" else 0,
        adafactor_state_elements=_adafactor_state_elements(spec, blocks, counts),
        dropout=dropout,
        blocks=blocks,
        shipped_quant=spec.quant,
        shipped_quant_bytes=spec.quant_bytes,
        shipped_quant_groups=_quant_groups(spec),
        weights_file_bytes=spec.weights_file_bytes,
        windowed=any(block.window for block, _ in blocks),
        has_moe=any(block.experts > 1 for block, _ in blocks),
        max_positions=spec.max_positions,
        ollama_quant=spec.ollama_quant,
        gguf_fused_qkv=spec.family in FUSED_QKV_FAMILIES,
        reply_header_tokens=REPLY_HEADER_TOKENS.get(spec.family, 0),
    )


__all__ = ["describe", "layer_counts"]
