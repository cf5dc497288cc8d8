"""Translated names for the core's choices, memory terms, verdicts and levers.

The core speaks in ids ("qlora", "optimizer", "checkpointing"); people read these labels.
Each text is marked with ``QT_TRANSLATE_NOOP`` so ``pyside6-lupdate`` collects it, and is
translated when asked for, so a language switch takes effect on the next redraw.
"""

from __future__ import annotations

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication

from gpuadvisor.core.plan import GGUF_QUANTS

_CONTEXT = "Labels"

TASKS = {
    "pretrain": QT_TRANSLATE_NOOP("Labels", "Pre-training"),
    "full": QT_TRANSLATE_NOOP("Labels", "Full fine-tune"),
    "lora": QT_TRANSLATE_NOOP("Labels", "LoRA fine-tune"),
    "qlora": QT_TRANSLATE_NOOP("Labels", "QLoRA fine-tune"),
    "infer": QT_TRANSLATE_NOOP("Labels", "Inference"),
}
PRECISIONS = {
    "fp32": QT_TRANSLATE_NOOP("Labels", "fp32"),
    "fp16": QT_TRANSLATE_NOOP("Labels", "fp16 mixed"),
    "bf16": QT_TRANSLATE_NOOP("Labels", "bf16 mixed"),
    "bf16-pure": QT_TRANSLATE_NOOP("Labels", "pure bf16"),
    "fp8": QT_TRANSLATE_NOOP("Labels", "fp8 (bf16 master)"),
}
OPTIMIZERS = {
    "adamw": QT_TRANSLATE_NOOP("Labels", "AdamW"),
    "adamw8bit": QT_TRANSLATE_NOOP("Labels", "AdamW 8-bit"),
    "adafactor": QT_TRANSLATE_NOOP("Labels", "Adafactor"),
    "sgd": QT_TRANSLATE_NOOP("Labels", "SGD with momentum"),
    "lion": QT_TRANSLATE_NOOP("Labels", "Lion"),
}
CHECKPOINTING = {
    "none": QT_TRANSLATE_NOOP("Labels", "off"),
    "selective": QT_TRANSLATE_NOOP("Labels", "selective"),
    "full": QT_TRANSLATE_NOOP("Labels", "full"),
}
ATTENTION = {
    "eager": QT_TRANSLATE_NOOP("Labels", "eager"),
    "flash": QT_TRANSLATE_NOOP("Labels", "FlashAttention / SDPA"),
}
QUANT = {
    "none": QT_TRANSLATE_NOOP("Labels", "none (16-bit)"),
    "int8": QT_TRANSLATE_NOOP("Labels", "int8"),
    "nf4": QT_TRANSLATE_NOOP("Labels", "NF4 (4-bit)"),
    "nf4-dq": QT_TRANSLATE_NOOP("Labels", "NF4 + double quant"),
    "int4": QT_TRANSLATE_NOOP("Labels", "int4 (GPTQ/AWQ)"),
    "int3": QT_TRANSLATE_NOOP("Labels", "int3 (GPTQ)"),
    "mxfp4": QT_TRANSLATE_NOOP("Labels", "MXFP4 (4.25-bit)"),
    "nvfp4": QT_TRANSLATE_NOOP("Labels", "NVFP4 (4.5-bit)"),
    "fp8": QT_TRANSLATE_NOOP("Labels", "FP8 (block-scaled)"),
}
FRAMEWORKS = {
    "auto": QT_TRANSLATE_NOOP("Labels", "automatic"),
    "hf": QT_TRANSLATE_NOOP("Labels", "Hugging Face + PEFT"),
    "unsloth": QT_TRANSLATE_NOOP("Labels", "Unsloth"),
    "torchtune": QT_TRANSLATE_NOOP("Labels", "torchtune"),
    "axolotl": QT_TRANSLATE_NOOP("Labels", "Axolotl"),
    "megatron": QT_TRANSLATE_NOOP("Labels", "Megatron-LM / NeMo"),
    "transformers": QT_TRANSLATE_NOOP("Labels", "transformers (generate)"),
    "llama.cpp": QT_TRANSLATE_NOOP("Labels", "llama.cpp"),
    "ollama": QT_TRANSLATE_NOOP("Labels", "Ollama"),
    "vllm": QT_TRANSLATE_NOOP("Labels", "vLLM"),
    "exllamav2": QT_TRANSLATE_NOOP("Labels", "ExLlamaV2"),
    "mlx": QT_TRANSLATE_NOOP("Labels", "MLX (Apple)"),
}
LORA_TARGETS = {
    "qv": QT_TRANSLATE_NOOP("Labels", "q, v projections"),
    "attn": QT_TRANSLATE_NOOP("Labels", "attention (q, k, v, o)"),
    "all": QT_TRANSLATE_NOOP("Labels", "all linear layers"),
}
ZERO = {
    0: QT_TRANSLATE_NOOP("Labels", "none (plain DDP)"),
    1: QT_TRANSLATE_NOOP("Labels", "ZeRO-1: optimizer"),
    2: QT_TRANSLATE_NOOP("Labels", "ZeRO-2: + gradients"),
    3: QT_TRANSLATE_NOOP("Labels", "ZeRO-3 / FSDP: all"),
}
OFFLOAD = {
    "none": QT_TRANSLATE_NOOP("Labels", "none"),
    "optimizer": QT_TRANSLATE_NOOP("Labels", "optimizer → CPU"),
    "params": QT_TRANSLATE_NOOP("Labels", "optimizer + weights → CPU"),
}
TERMS = {
    "weights": QT_TRANSLATE_NOOP("Labels", "weights"),
    "gradients": QT_TRANSLATE_NOOP("Labels", "gradients"),
    "optimizer": QT_TRANSLATE_NOOP("Labels", "optimizer states"),
    "activations": QT_TRANSLATE_NOOP("Labels", "activations"),
    "logits": QT_TRANSLATE_NOOP("Labels", "logits / loss"),
    "kv_cache": QT_TRANSLATE_NOOP("Labels", "KV cache"),
    "overhead": QT_TRANSLATE_NOOP("Labels", "overhead"),
}
VERDICTS = {
    "fits": QT_TRANSLATE_NOOP("Labels", "fits"),
    "tight": QT_TRANSLATE_NOOP("Labels", "fits, but tight"),
    "does not fit": QT_TRANSLATE_NOOP("Labels", "does not fit"),
    "no GPU chosen": QT_TRANSLATE_NOOP("Labels", "no GPU chosen"),
}
LEVERS = {
    "flash_attention": QT_TRANSLATE_NOOP("Labels", "FlashAttention"),
    "checkpointing": QT_TRANSLATE_NOOP("Labels", "gradient checkpointing"),
    "micro_batch": QT_TRANSLATE_NOOP("Labels", "smaller micro-batch, more accumulation"),
    "optimizer_8bit": QT_TRANSLATE_NOOP("Labels", "8-bit AdamW"),
    "lora": QT_TRANSLATE_NOOP("Labels", "LoRA"),
    "qlora": QT_TRANSLATE_NOOP("Labels", "QLoRA"),
    "more_gpus": QT_TRANSLATE_NOOP("Labels", "more GPUs with ZeRO-3"),
    "offload": QT_TRANSLATE_NOOP("Labels", "CPU offload of the optimizer"),
    "offload_params": QT_TRANSLATE_NOOP("Labels", "CPU offload of parameters and optimizer"),
    "zero3": QT_TRANSLATE_NOOP("Labels", "ZeRO-3 sharding"),
    "quantize": QT_TRANSLATE_NOOP("Labels", "4-bit weights"),
    "kv_8bit": QT_TRANSLATE_NOOP("Labels", "8-bit KV cache"),
    "gpu_layers": QT_TRANSLATE_NOOP("Labels", "some layers in host RAM (-ngl)"),
}
BOUNDS = {
    "compute": QT_TRANSLATE_NOOP("Labels", "compute"),
    "communication": QT_TRANSLATE_NOOP("Labels", "communication"),
    "memory bandwidth": QT_TRANSLATE_NOOP("Labels", "memory bandwidth"),
    "host": QT_TRANSLATE_NOOP("Labels", "the host's work per token"),
}
SOURCES = {
    "assumed": QT_TRANSLATE_NOOP("Labels", "assumed"),
    "plan": QT_TRANSLATE_NOOP("Labels", "plan"),
    "catalog": QT_TRANSLATE_NOOP("Labels", "catalog"),
    "measured": QT_TRANSLATE_NOOP("Labels", "measured"),
}


def tr(text: str) -> str:
    """Translate a text marked in this module (or any text in the "Labels" context)."""
    return QCoreApplication.translate(_CONTEXT, text)


def label(table: dict, value, fallback: str | None = None) -> str:
    """The translated label of ``value`` in ``table`` (``fallback`` or ``str(value)`` if absent)."""
    text = table.get(value)
    if text is None:
        return fallback if fallback is not None else str(value)
    return tr(text)


def quant_label(value: str) -> str:
    """A quantization for people: the translated label, a GGUF file type by llama.cpp's
    name ("Q4_K_M (GGUF)")."""
    return label(QUANT, value, f"{value.upper()} (GGUF)" if value in GGUF_QUANTS else None)


def source_label(source: str) -> str:
    """Translate an assumption source: "assumed", "plan", "catalog: rtx-4090", "measured"."""
    kind, sep, rest = str(source).partition(":")
    if not sep and kind.startswith("measured "):  # "measured 2026-12-02"
        return f"{tr(SOURCES['measured'])} {kind[len('measured '):]}"
    text = label(SOURCES, kind.strip(), kind.strip())
    if not sep:
        return text
    # "catalog: rtx-4090"; the colon is the reader's ("目录：rtx-4090")
    return QCoreApplication.translate("Labels", "{source}: {detail}").format(
        source=text, detail=rest.strip())
