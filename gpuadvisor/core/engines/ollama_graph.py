"""The compute graph Ollama's own memory estimate reserves before it places layers.

Ollama releases before 0.30 place layers by their own estimate (llm/memory.go), not by what
llama.cpp allocates: each GPU keeps room for ``max(partial, full)`` graph bytes, sizes that
``GraphSize`` in fs/ggml/ggml.go computes per architecture from the model's widths, the
context (``num_ctx x num_parallel``) and the batch (``num_batch``, 512), in f32 (the ``4 x``
factors). An architecture its table does not list gets ``GQA x KV cache / 6`` for both
(memory.go: "if graphPartialOffload == 0"). These are what the logs print as
``memory.graph.full`` and ``memory.graph.partial``; the formulas below give, to the MiB:

* Llama 3.1 8B, 8,192 tokens (Ollama 0.5.4): 560.0 and 677.5 MiB;
* Llama 3.1 8B, 80,000 tokens (Ollama 0.2): 5.1 and 5.4 GiB (the f32 attention scores of a
  512-token batch over the whole context; flash attention does not change the estimate);
* Gemma 3 12B, 4,096 tokens (Ollama 0.11): 519.5 MiB and 1.3 GiB;
* Phi-4 (not in the table), 400 MiB of KV cache, GQA 4: 266.7 MiB both.

On a model the estimate is much larger than llama.cpp's real compute buffer at long
contexts, which is why Ollama of that time kept layers on the CPU that would have fit.
"""

from __future__ import annotations

from gpuadvisor.core.architecture import ModelShape

#: Ollama's ``num_batch`` default.
OLLAMA_BATCH = 512

#: Preset id prefixes -> the GGUF architecture Ollama's table knows them by. Models of an
#: architecture the table leaves out (Phi-3/Phi-4 are "phi3", Qwen3 "qwen3") take the
#: fallback; a model whose architecture is not known here (or one the table handles from
#: its tensors: Mixtral, DeepSeek, gpt-oss) gets no Ollama figure (None).
_ARCH_BY_ID = (("llama", "llama"), ("meta-llama", "llama"), ("codellama", "llama"),
               ("tinyllama", "llama"), ("mistral-", "llama"), ("deepseek-r1-distill-llama",
                                                             "llama"),
               ("qwen2.5-vl", ""), ("qwen2", "qwen2"), ("deepseek-r1-distill-qwen", "qwen2"),
               ("gemma", "gemma"), ("phi-2", "phi2"), ("phi-3", "other"), ("phi-4", "other"),
               ("qwen3", "other"), ("command-r7b", "other"),  # GGUF "cohere2"
               ("command-r", "command-r"))


#: Vision towers whose graph Ollama's estimate reserves on the first GPU beside the
#: projector's weights (``VisionGraphSize``, case "gemma3": ``4 x (image_size^2 x channels +
#: width x patch_size + patches^2 x heads)``), by their published vision_config: Gemma 3
#: 4B/12B/27B share one SigLIP tower, image_size 896, patch_size 14, 16 heads, hidden_size
#: 1152, 3 channels (google/gemma-3-*-it config.json): 4,096 patches, 1.01 GiB.
_VISION = {"gemma-3-": (896, 14, 16, 1152, 3)}


def ollama_vision_graph_bytes(model: ModelShape) -> float:
    """The vision graph Ollama's estimate reserves for ``model`` (0 without a vision tower,
    or for one not known here)."""
    if not model.params.vision:
        return 0.0
    for prefix, (image, patch, heads, width, channels) in _VISION.items():
        if model.id.lower().startswith(prefix):
            patches = (image // patch) ** 2
            return 4.0 * (image * image * channels + width * patch + patches * patches * heads)
    return 0.0


def ollama_arch(model: ModelShape) -> str | None:
    """The architecture Ollama's graph table treats ``model`` as (``"other"``: not in the
    table, the fallback applies; None: not known here)."""
    if model.block is None or model.has_moe:
        return None
    pid = model.id.lower()
    for prefix, arch in _ARCH_BY_ID:
        if pid.startswith(prefix):
            return arch or None
    return None


def ollama_graph_bytes(model: ModelShape, context: int, kv_total: float,
                       batch: int = OLLAMA_BATCH) -> tuple[float, float] | None:
    """``(partial, full)``: the graph bytes Ollama's estimate reserves for ``model`` at
    ``context`` tokens (all parallel sequences) with ``kv_total`` bytes of KV cache, or None
    where the architecture is not known here."""
    arch = ollama_arch(model)
    if arch is None:
        return None
    blk = model.block
    e, v, b, c = model.d_model, model.vocab_size, batch, context
    heads = blk.n_heads
    head_dim = blk.q_dim // heads if heads else 0
    heads_kv = blk.kv_dim // head_dim if head_dim else 0
    if arch == "llama":
        full = max(4 * b * (1 + 4 * e + c * (1 + heads)), 4 * b * (e + v))
        partial = 4 * b * e + max(
            4 * b * (1 + e + max(c, e)) + e * e * 9 // 16
            + 4 * c * (b * heads + head_dim * heads_kv),
            4 * b * (e + v) + e * v * 105 // 128)
    elif arch == "qwen2":
        full = max(4 * b * (e + v), 4 * b * (1 + 2 * e + c + c * heads))
        partial = max(4 * b * (e + v) + e * v * 105 // 128,
                      4 * (b * (1 + 2 * e + c * (1 + heads)) + e * (1 + c)))
    elif arch == "gemma":
        full = max(4 * b * (e + v),
                   4 * b * (2 + c + c * heads + 2 * e + 2 * head_dim * heads))
        partial = max(4 * e * b + e * v * 105 // 128 + 4 * v * b,
                      4 * b * (2 * e + 1 + 2 * head_dim * heads + c + c * heads)
                      + 4 * head_dim * c * 8 + e * head_dim * heads * 9 // 16)
    elif arch == "phi2":
        full = max(4 * b * (e + v), 4 * b * (1 + 4 * e + c + c * heads))
        partial = max(4 * b * (2 * e + v) + e * v * 105 // 128,
                      4 * b * (2 + 3 * e + c + c * heads))
    elif arch == "command-r":
        full = max(4 * b * (e + v), 4 * b * (2 + 4 * e + c * (1 + heads)))
        partial = max(4 * b * (e + v) + e * v * 105 // 128,
                      4 * b * (1 + 2 * e + c * (1 + heads)) + 4 * e * c + e * e * 9 // 16)
    else:  # not in the table: memory.go's fallback, both sizes
        gqa = heads // heads_kv if heads_kv else 1
        full = partial = gqa * kv_total / 6
    return float(partial), float(full)


__all__ = ["OLLAMA_BATCH", "ollama_arch", "ollama_graph_bytes", "ollama_vision_graph_bytes"]
