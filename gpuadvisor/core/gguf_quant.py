"""GGUF file types (``--quant q4_k_m`` ...): which tensor gets which ggml type, and the bytes.

A llama.cpp file type (``llama_ftype``, ``general.file_type`` in a GGUF) names a *mixture*:
one default tensor type plus rules that give some tensors more (or fewer) bits. The rules here
are a simplified reading of ``llama_tensor_get_type_impl`` in ggml-org/llama.cpp
``src/llama-quant.cpp`` @007dbbf3 (and ``llama_ftype_get_default_type`` there for the
defaults), written out per tensor category:

* ``output.weight`` (and ``token_embd`` when the head is tied to it): Q6_K, or Q8_0 for a
  Q8_0 file and for a head whose row is not a whole number of the default type's blocks;
  Q5_K for the 1-2-bit IQ files; Q8_0 in an MXFP4_MOE file.
* ``token_embd`` (untied): the default type; Q2_K for IQ1_S/IQ1_M/IQ2_XXS/IQ2_XS, IQ3_S for
  IQ2_S/IQ2_M/IQ3_XXS.
* ``attn_v`` (the most quantization-sensitive): Q4_K_M and Q5_K_M keep "more bits" layers
  (``use_more_bits``: the first and last eighth and every third layer between, about half of
  them) at Q6_K; Q4_K_S the first four at Q5_K; Q3_K_M the first two at Q5_K and the rest at
  Q4_K; Q3_K_L all at Q5_K; Q2_K at Q4_K with 4+ query heads per KV head (else Q3_K); IQ4
  with 4+ query heads per KV head at Q5_K; 80-layer GQA models (llama.cpp's 70B type) bump
  Q3_K/Q4_K to Q5_K; 8-expert models (Mixtral) take Q8_0.
* ``ffn_down``: Q4_K_M/Q5_K_M give the ``use_more_bits`` layers Q6_K; Q4_K_S the first eighth
  Q5_K; Q3_K_M the first sixteenth Q5_K and the rest Q4_K; Q3_K_L Q5_K; Q2_K Q3_K.
* ``attn_output``: Q3_K for Q2_K, Q4_K for Q3_K_M/IQ3_M, Q5_K for Q3_K_L (8-expert models:
  Q5_K for most k-quant files).
* MXFP4_MOE: expert tensors MXFP4, every other quantizable tensor Q8_0.
* A tensor whose row (its first dimension) is not a whole number of its type's blocks falls
  back (``tensor_type_fallback``): Q4_K -> Q5_0, Q5_K -> Q5_1, Q6_K -> Q8_0, Q2_K/Q3_K ->
  Q4_0, the 256-block IQ types -> IQ4_NL, and to F16 when even that does not divide.
* Norms, biases and routers stay F32 (``tensor_allows_quantization``: 1-D tensors and
  ``ffn_gate_inp`` are never quantized); F16 and BF16 files store every matrix in that type.

Simplifications: layers are numbered in the order of the model's block kinds (the rules
count layers, not kinds, so only how many layers get more bits matters); an importance
matrix is assumed for the types that need one (IQ1/IQ2/IQ3_XXS) and none otherwise (the
``llama-quantize`` default); Falcon's own rules are not modelled.
* ``attn_qkv`` (one fused tensor, :attr:`ModelShape.gguf_fused_qkv`): Q4_K for Q3_K_M,
  Q3_K_L and IQ3_M, Q5_K for Q4_K_M, Q6_K for Q5_K_M; no ``attn_v`` rule applies.
"""

from __future__ import annotations

from dataclasses import dataclass

from gpuadvisor.core.architecture import BlockShape, ModelShape
from gpuadvisor.core.ggml_types import GgmlType, ggml_type_named, kind_tensor_bytes


@dataclass(frozen=True)
class GgufFileType:
    """One llama.cpp file type.

    Attributes:
        name: gpuadvisor's quant name (lower case, as ``--quant`` takes it: ``q4_k_m``).
        label: llama.cpp's name (``Q4_K_M``).
        default: the ggml type most tensors get (``Q4_K``).
        ftype: the ``llama_ftype`` number stored as ``general.file_type``.
    """

    name: str
    label: str
    default: str
    ftype: int


#: Every GGUF file type ``--quant`` accepts, by gpuadvisor name. Defaults from
#: ``llama_ftype_get_default_type`` (llama.cpp src/llama-quant.cpp @007dbbf3); ftype numbers
#: from ``include/llama.h`` (the same table as gguf-py's ``LlamaFileType``).
GGUF_FILE_TYPES: dict[str, GgufFileType] = {t.name: t for t in (
    GgufFileType("f16", "F16", "F16", 1),
    GgufFileType("bf16", "BF16", "BF16", 32),
    GgufFileType("q8_0", "Q8_0", "Q8_0", 7),
    GgufFileType("q6_k", "Q6_K", "Q6_K", 18),
    GgufFileType("q5_k_m", "Q5_K_M", "Q5_K", 17),
    GgufFileType("q5_k_s", "Q5_K_S", "Q5_K", 16),
    GgufFileType("q5_1", "Q5_1", "Q5_1", 9),
    GgufFileType("q5_0", "Q5_0", "Q5_0", 8),
    GgufFileType("q4_k_m", "Q4_K_M", "Q4_K", 15),
    GgufFileType("q4_k_s", "Q4_K_S", "Q4_K", 14),
    GgufFileType("q4_1", "Q4_1", "Q4_1", 3),
    GgufFileType("q4_0", "Q4_0", "Q4_0", 2),
    GgufFileType("iq4_xs", "IQ4_XS", "IQ4_XS", 30),
    GgufFileType("iq4_nl", "IQ4_NL", "IQ4_NL", 25),
    GgufFileType("q3_k_l", "Q3_K_L", "Q3_K", 13),
    GgufFileType("q3_k_m", "Q3_K_M", "Q3_K", 12),
    GgufFileType("q3_k_s", "Q3_K_S", "Q3_K", 11),
    GgufFileType("iq3_m", "IQ3_M", "IQ3_S", 27),
    GgufFileType("iq3_s", "IQ3_S", "IQ3_S", 26),
    GgufFileType("iq3_xs", "IQ3_XS", "IQ3_S", 22),
    GgufFileType("iq3_xxs", "IQ3_XXS", "IQ3_XXS", 23),
    GgufFileType("q2_k", "Q2_K", "Q2_K", 10),
    GgufFileType("q2_k_s", "Q2_K_S", "Q2_K", 21),
    GgufFileType("iq2_m", "IQ2_M", "IQ2_S", 29),
    GgufFileType("iq2_s", "IQ2_S", "IQ2_XS", 28),
    GgufFileType("iq2_xs", "IQ2_XS", "IQ2_XS", 20),
    GgufFileType("iq2_xxs", "IQ2_XXS", "IQ2_XXS", 19),
    GgufFileType("iq1_m", "IQ1_M", "IQ1_M", 31),
    GgufFileType("iq1_s", "IQ1_S", "IQ1_S", 24),
    GgufFileType("mxfp4_moe", "MXFP4_MOE", "MXFP4", 38),
)}

#: File types whose low-bit tensors need an importance matrix (``tensor_requires_imatrix``).
_NEEDS_IMATRIX = frozenset({"iq1_s", "iq1_m", "iq2_xxs", "iq2_xs", "iq2_s", "iq3_xxs"})
#: The 1-2-bit IQ files that share one rule set in llama.cpp.
_IQ_LOW = frozenset({"iq2_xxs", "iq2_xs", "iq1_s", "iq2_s", "iq2_m", "iq1_m"})
_PLAIN = frozenset({"F32", "F16", "BF16"})
#: ``tensor_type_fallback``: the type a tensor gets when its row is not a whole number of
#: blocks of the type its rules chose.
_FALLBACK = {
    "IQ1_S": "IQ4_NL", "IQ1_M": "IQ4_NL", "IQ2_XXS": "IQ4_NL", "IQ2_XS": "IQ4_NL",
    "IQ2_S": "IQ4_NL", "IQ3_XXS": "IQ4_NL", "IQ3_S": "IQ4_NL", "IQ4_XS": "IQ4_NL",
    "Q2_K": "Q4_0", "Q3_K": "Q4_0", "Q4_K": "Q5_0", "Q5_K": "Q5_1", "Q6_K": "Q8_0",
}


@dataclass(frozen=True)
class _Facts:
    """What the rules read of the model (llama.cpp's hparams)."""

    n_layers: int
    gqa: float  # query heads per KV head (n_gqa)
    n_expert: int
    tied: bool
    is_70b: bool
    imatrix: bool
    fused_qkv: bool = False


@dataclass(frozen=True)
class GgufTensor:
    """A group of alike tensors of a GGUF file and the type each gets.

    Attributes:
        name: llama.cpp's tensor name without the layer (``attn_v``, ``ffn_down_exps``).
        layer: the layer index (-1 for ``token_embd``/``output`` and the rest).
        elements: weights in the tensor.
        row: its first (innermost) dimension.
        kind: the ggml type it is stored as.
        expert: a routed-expert tensor (``*_exps``: all experts of the layer).
    """

    name: str
    layer: int
    elements: int
    row: int
    kind: GgmlType
    expert: bool = False

    @property
    def bytes(self) -> int:
        """Stored bytes: ``elements / block_size x type_size``."""
        return kind_tensor_bytes(self.kind, (self.row, self.elements // max(self.row, 1)))


def file_type(name: str) -> GgufFileType:
    """The GGUF file type ``name`` (``q4_k_m``; ``mxfp4`` is the MXFP4_MOE file type).

    Raises:
        ValueError: a name that is not a GGUF file type.
    """
    key = "mxfp4_moe" if name == "mxfp4" else name.lower()
    if key not in GGUF_FILE_TYPES:
        raise ValueError(f"unknown GGUF file type {name!r}; known: "
                         f"{', '.join(GGUF_FILE_TYPES)}")
    return GGUF_FILE_TYPES[key]


def use_more_bits(i_layer: int, n_layers: int) -> bool:
    """llama.cpp's ``use_more_bits``: the first and last eighth of the layers and every
    third one between them (C integer division)."""
    eighth = n_layers // 8
    return i_layer < eighth or i_layer >= 7 * n_layers // 8 or (i_layer - eighth) % 3 == 2


def _facts(m: ModelShape, ftype: GgufFileType) -> _Facts:
    blk = m.block
    gqa = blk.q_dim / max(blk.kv_dim, 1) if blk is not None else 1.0
    experts = max((b.experts for b, _ in m.blocks), default=1)
    return _Facts(n_layers=m.n_layers, gqa=gqa, n_expert=experts,
                  tied=m.params.lm_head == 0, is_70b=m.n_layers == 80 and gqa > 1,
                  imatrix=ftype.name in _NEEDS_IMATRIX, fused_qkv=m.gguf_fused_qkv)


def _output_type(ft: GgufFileType, row: int) -> str:
    if ft.name == "mxfp4_moe":
        return "Q8_0"
    if row % ggml_type_named(ft.default).block_size:
        return "Q8_0"
    if ft.name in ("iq2_xxs", "iq2_xs", "iq3_xxs", "iq1_s", "iq2_s", "iq2_m", "iq1_m"):
        return "Q5_K"
    return "Q8_0" if ft.default == "Q8_0" else "Q6_K"


def _embedding_type(ft: GgufFileType) -> str:
    if ft.name in ("iq2_xxs", "iq2_xs", "iq1_s", "iq1_m"):
        return "Q2_K"
    if ft.name in ("iq2_s", "iq2_m", "iq3_xxs"):
        return "IQ3_S"
    return ft.default


def _iq_low_type(ft: GgufFileType, cat: str, i: int, f: _Facts) -> str:
    """The shared rules of the 1-2-bit IQ files."""
    wide = "IQ3_S" if ft.name in ("iq2_s", "iq2_m") else "Q2_K"
    if cat == "attn_v":
        return "Q4_K" if f.gqa >= 4 or f.n_expert >= 4 else wide
    if cat == "attn_k" and f.n_expert == 8:
        return "Q4_K"
    if cat == "ffn_down":
        return wide if i < f.n_layers // 8 else ft.default
    if cat == "attn_output":
        if f.n_expert == 8:
            return "Q5_K"
        if ft.name in ("iq1_s", "iq1_m"):
            return "IQ2_XXS"
        if ft.name in ("iq2_s", "iq2_m"):
            return "IQ3_S"
    return ft.default


def _attn_v_type(ft: GgufFileType, i: int, f: _Facts) -> str:
    name, kind = ft.name, ft.default
    if name == "q2_k":
        kind = "Q4_K" if f.gqa >= 4 else "Q3_K"
    elif name == "q2_k_s" and f.gqa >= 4:
        kind = "Q4_K"
    elif name == "iq3_xxs":
        kind = "Q4_K" if f.gqa >= 4 else ("IQ3_XXS" if f.imatrix else "IQ3_S")
    elif (name in ("iq3_xs", "iq3_s") and f.gqa >= 4) or name == "iq3_m":
        kind = "Q4_K"
    elif name == "q3_k_m":
        kind = "Q5_K" if i < 2 else "Q4_K"
    elif name == "q3_k_l" or (name in ("iq4_nl", "iq4_xs") and f.gqa >= 4):
        kind = "Q5_K"
    elif name in ("q4_k_m", "q5_k_m") and use_more_bits(i, f.n_layers):
        kind = "Q6_K"
    elif name == "q4_k_s" and i < 4:
        kind = "Q5_K"
    if f.is_70b and kind in ("Q3_K", "Q4_K"):
        kind = "Q5_K"
    if f.n_expert == 8:
        kind = "Q8_0"
    return kind


def _ffn_down_type(ft: GgufFileType, i: int, f: _Facts) -> str:
    name, n = ft.name, f.n_layers
    if name == "q2_k":
        return "Q3_K"
    if name == "q2_k_s":
        return "Q4_K" if i < n // 8 else ft.default
    if name == "iq3_xxs" and not f.imatrix:
        return "Q4_K" if i < n // 8 else "Q3_K"
    if name == "q3_k_m":
        return "Q5_K" if i < n // 16 else "Q4_K"
    if name == "iq3_m" and (i < n // 8 or (f.n_expert == 8 and use_more_bits(i, n))):
        return "Q4_K"
    if name == "q3_k_l":
        return "Q5_K"
    if name == "q4_k_m":
        return "Q6_K" if use_more_bits(i, n) else ft.default
    if name in ("iq4_nl", "iq4_xs") and i < n // 8 and not f.imatrix:
        return "Q5_K"
    if name == "q5_k_m" and use_more_bits(i, n):
        return "Q6_K"
    if name == "q4_k_s" and i < n // 8:
        return "Q5_K"
    return ft.default


def _attn_output_type(ft: GgufFileType, f: _Facts) -> str:
    name = ft.name
    if f.n_expert == 8:
        eight = ("q2_k", "iq3_xs", "iq3_xxs", "q3_k_s", "q3_k_m", "iq4_nl", "q4_k_s",
                 "q4_k_m", "iq3_s", "iq3_m", "iq4_xs")
        return "Q5_K" if name in eight else ft.default
    return {"q2_k": "Q3_K", "iq3_xxs": "IQ3_S", "q3_k_m": "Q4_K", "q3_k_l": "Q5_K",
            "iq3_m": "Q4_K"}.get(name, ft.default)


def tensor_type(ft: GgufFileType, category: str, i_layer: int, facts: _Facts,
                expert: bool = False) -> str:
    """The ggml type llama.cpp's rules give a tensor of ``category`` in layer ``i_layer``
    (before the row-size fallback). Categories: ``output``, ``token_embd``, ``attn_q``,
    ``attn_k``, ``attn_v``, ``attn_output``, ``ffn_gate``, ``ffn_up``, ``ffn_down``,
    ``other`` (a quantizable matrix no rule names)."""
    if ft.default in _PLAIN:
        return ft.default
    if category == "output" or (category == "token_embd" and facts.tied):
        return "output"  # resolved by the caller, which knows the row
    if ft.name == "mxfp4_moe":
        return "MXFP4" if expert else "Q8_0"
    if category == "token_embd":
        return _embedding_type(ft)
    if ft.name in _IQ_LOW:
        return _iq_low_type(ft, category, i_layer, facts)
    if category == "attn_v":
        return _attn_v_type(ft, i_layer, facts)
    if category == "attn_qkv":
        # a fused QKV tensor ("attn_qkv.weight" in llama_tensor_get_type_impl): Q3_K_M,
        # Q3_K_L and IQ3_M take Q4_K, Q4_K_M Q5_K, Q5_K_M Q6_K; every layer alike
        return {"q3_k_m": "Q4_K", "q3_k_l": "Q4_K", "iq3_m": "Q4_K", "q4_k_m": "Q5_K",
                "q5_k_m": "Q6_K"}.get(ft.name, ft.default)
    if category in ("attn_k", "attn_q"):
        if category == "attn_k" and facts.n_expert == 8:
            return "Q8_0"
        if ft.name == "iq3_xs":
            return "IQ3_XXS"
        if ft.name == "iq3_xxs":
            return "IQ2_S"
        return ft.default
    if category == "ffn_down":
        return _ffn_down_type(ft, i_layer, facts)
    if category == "attn_output":
        return _attn_output_type(ft, facts)
    if category in ("ffn_gate", "ffn_up") and ft.name == "iq3_xs":
        n = facts.n_layers
        return "IQ3_XXS" if n // 8 <= i_layer < 7 * n // 8 else ft.default
    return ft.default


def _fitted(kind: str, row: int) -> GgmlType:
    """``kind``, or its fallback when ``row`` is not a whole number of its blocks."""
    chosen = ggml_type_named(kind)
    if row % chosen.block_size == 0:
        return chosen
    fallback = ggml_type_named(_FALLBACK.get(kind, "F16"))
    return fallback if row % fallback.block_size == 0 else ggml_type_named("F16")


def _block_matrices(blk: BlockShape, fused_qkv: bool = False
                    ) -> list[tuple[str, int, int, bool]]:
    """``(category, elements, row, expert)`` of one block's quantizable matrices (Q, K and
    V as one ``attn_qkv`` tensor for a model stored that way)."""
    h, q, k, f = blk.d_model, blk.q_dim, blk.kv_dim, blk.d_ff
    out: list[tuple[str, int, int, bool]] = []
    if blk.attention_weights == 2 * h * q + 2 * h * k and fused_qkv:
        out += [("attn_qkv", h * (q + 2 * k), h, False), ("attn_output", q * h, q, False)]
    elif blk.attention_weights == 2 * h * q + 2 * h * k:
        out += [("attn_q", h * q, h, False), ("attn_k", h * k, h, False),
                ("attn_v", h * k, h, False), ("attn_output", q * h, q, False)]
    elif blk.attention_weights:  # latent attention and the like: one default-type group
        out.append(("other", blk.attention_weights, h, False))
    experts = blk.experts if blk.is_moe else 1
    names = ("ffn_gate", "ffn_up", "ffn_down") if blk.gated_mlp else ("ffn_up", "ffn_down")
    for name in names:
        row = f if name == "ffn_down" else h
        out.append((name, experts * h * f, row, blk.is_moe))
    if blk.shared_d_ff:
        for name in names:
            row = blk.shared_d_ff if name == "ffn_down" else h
            out.append((name, h * blk.shared_d_ff, row, False))
    return out


def gguf_tensors(model: ModelShape, quant: str) -> list[GgufTensor]:
    """The model's tensors as a GGUF file of type ``quant`` stores them.

    Per layer, the block's matrices at the rules' types (:func:`tensor_type`, then the row
    fallback) and its norms, biases and router at F32; ``token_embd`` (``V x h``) and an
    untied ``output`` (``V x h``); every other parameter (the output norm, position tables)
    at F32.

    Raises:
        ValueError: an unknown file type, or a model without a block structure (a model
            described by its parameter count only has no tensors to size).
    """
    ft = file_type(quant)
    m = model
    if m.kind == "opaque" or m.block is None:
        raise ValueError(f"{m.id} has no block structure: a GGUF file type cannot be sized "
                         "for it")
    facts = _facts(m, ft)
    h, v = m.d_model, m.vocab_size
    tensors: list[GgufTensor] = []
    layer = 0
    for blk, count in m.blocks:
        matrices = _block_matrices(blk, facts.fused_qkv)
        for _ in range(count):
            for category, elements, row, expert in matrices:
                kind = tensor_type(ft, category, layer, facts, expert)
                tensors.append(GgufTensor(category, layer, elements, row, _fitted(kind, row),
                                          expert))
            if blk.other_params:  # the layer's norms, biases and router, in F32
                tensors.append(GgufTensor("norms", layer, blk.other_params, 1,
                                          ggml_type_named("F32")))
            layer += 1
    embd = tensor_type(ft, "token_embd", -1, facts)
    embd = _output_type(ft, h) if embd == "output" else embd
    tensors.append(GgufTensor("token_embd", -1, v * h, h, _fitted(embd, h)))
    if not facts.tied and m.kind == "decoder":
        kind = ft.default if ft.default in _PLAIN else _output_type(ft, h)
        tensors.append(GgufTensor("output", -1, m.params.lm_head, h, _fitted(kind, h)))
    counted = sum(t.elements for t in tensors)
    rest = m.params.total - counted
    if rest > 0:
        tensors.append(GgufTensor("other", -1, rest, 1, ggml_type_named("F32")))
    return tensors


def gguf_file_bytes(model: ModelShape, quant: str) -> int:
    """Tensor bytes of the model as a GGUF file of type ``quant`` (what llama.cpp loads;
    the file adds only its header and alignment padding)."""
    return sum(t.bytes for t in gguf_tensors(model, quant))


def gguf_bytes_by_type(model: ModelShape, quant: str) -> dict[str, int]:
    """Tensor bytes of that file by ggml type name, largest first (llama.cpp prints this
    split when it loads a file)."""
    totals: dict[str, int] = {}
    for t in gguf_tensors(model, quant):
        totals[t.kind.name] = totals.get(t.kind.name, 0) + t.bytes
    return dict(sorted(totals.items(), key=lambda kv: -kv[1]))


def layer_bytes(model: ModelShape, quant: str) -> list[int]:
    """Bytes of each layer's tensors (``-ngl`` offloads whole layers)."""
    per = [0] * model.n_layers
    for t in gguf_tensors(model, quant):
        if t.layer >= 0:
            per[t.layer] += t.bytes
    return per


def default_bytes_per_weight(quant: str) -> float:
    """Bytes per weight of the file type's default tensor type (``Q4_K``: 144 / 256)."""
    kind = ggml_type_named(file_type(quant).default)
    return kind.type_size / kind.block_size


__all__ = ["GGUF_FILE_TYPES", "GgufFileType", "GgufTensor", "default_bytes_per_weight",
           "file_type", "gguf_bytes_by_type", "gguf_file_bytes", "gguf_tensors",
           "layer_bytes", "tensor_type", "use_more_bits"]
