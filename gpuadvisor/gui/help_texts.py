"""What each input of the window changes, in words: tooltips, the names Edit → Undo uses for a
change, and the names screen readers read.

Keyed by the plan field (the Plan page's inputs carry it as their object name) or by the
object name of another page's input. Each text is marked for translation (context
``InputHelp``) and translated when asked for.
"""

from __future__ import annotations

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication

_CONTEXT = "InputHelp"

#: Short names of what a change touched (Edit → Undo "micro-batch").
FIELD_NAMES = {
    "model": QT_TRANSLATE_NOOP("InputHelp", "model"),
    "task": QT_TRANSLATE_NOOP("InputHelp", "task"),
    "precision": QT_TRANSLATE_NOOP("InputHelp", "precision"),
    "optimizer": QT_TRANSLATE_NOOP("InputHelp", "optimizer"),
    "micro_batch": QT_TRANSLATE_NOOP("InputHelp", "micro-batch"),
    "grad_accum": QT_TRANSLATE_NOOP("InputHelp", "gradient accumulation"),
    "seq_len": QT_TRANSLATE_NOOP("InputHelp", "sequence length"),
    "new_tokens": QT_TRANSLATE_NOOP("InputHelp", "new tokens"),
    "checkpointing": QT_TRANSLATE_NOOP("InputHelp", "checkpointing"),
    "attention": QT_TRANSLATE_NOOP("InputHelp", "attention kernel"),
    "quant": QT_TRANSLATE_NOOP("InputHelp", "quantization"),
    "lora_rank": QT_TRANSLATE_NOOP("InputHelp", "LoRA rank"),
    "lora_targets": QT_TRANSLATE_NOOP("InputHelp", "LoRA targets"),
    "kv_dtype": QT_TRANSLATE_NOOP("InputHelp", "KV cache format"),
    "gpu": QT_TRANSLATE_NOOP("InputHelp", "target GPU"),
    "n_gpus": QT_TRANSLATE_NOOP("InputHelp", "number of GPUs"),
    "zero_stage": QT_TRANSLATE_NOOP("InputHelp", "ZeRO / FSDP"),
    "offload": QT_TRANSLATE_NOOP("InputHelp", "CPU offload"),
    "dataset_tokens": QT_TRANSLATE_NOOP("InputHelp", "data set tokens"),
    "dataset_samples": QT_TRANSLATE_NOOP("InputHelp", "data set samples"),
    "epochs": QT_TRANSLATE_NOOP("InputHelp", "epochs"),
    "efficiency": QT_TRANSLATE_NOOP("InputHelp", "efficiency"),
    "framework": QT_TRANSLATE_NOOP("InputHelp", "framework"),
    "assumptions": QT_TRANSLATE_NOOP("InputHelp", "assumptions"),
    "plan": QT_TRANSLATE_NOOP("InputHelp", "plan"),
    "layout": QT_TRANSLATE_NOOP("InputHelp", "parallel layout"),
    "tp": QT_TRANSLATE_NOOP("InputHelp", "tensor parallel"),
    "pp": QT_TRANSLATE_NOOP("InputHelp", "pipeline parallel"),
    "vpp": QT_TRANSLATE_NOOP("InputHelp", "virtual pipeline stages"),
    "cp": QT_TRANSLATE_NOOP("InputHelp", "context parallel"),
    "ep": QT_TRANSLATE_NOOP("InputHelp", "expert parallel"),
    "layout_global_batch": QT_TRANSLATE_NOOP("InputHelp", "global batch"),
}

#: Tooltips: what the input changes (inputs that set their own keep theirs).
TIPS = {
    "task": QT_TRANSLATE_NOOP(
        "InputHelp", "What to do with the model: pre-train, fine-tune (full, LoRA, QLoRA) or "
        "run inference. Decides which weights train, and so the gradients, optimizer states "
        "and FLOPs per token."),
    "precision": QT_TRANSLATE_NOOP(
        "InputHelp", "Number format of the compute. Mixed fp16/bf16 keep fp32 master weights. "
        "Changes the bytes per weight and the GPU peak used for the time."),
    "optimizer": QT_TRANSLATE_NOOP(
        "InputHelp", "Optimizer of the trained weights. Changes the optimizer-state memory per "
        "trained parameter (AdamW keeps two fp32 states, 8-bit AdamW two 8-bit ones, SGD and "
        "Lion one)."),
    "micro_batch": QT_TRANSLATE_NOOP(
        "InputHelp", "Sequences per GPU in one forward/backward pass. Activation memory grows "
        "with it."),
    "grad_accum": QT_TRANSLATE_NOOP(
        "InputHelp", "Micro-batches per optimizer step. Raises the global batch without more "
        "memory."),
    "seq_len": QT_TRANSLATE_NOOP(
        "InputHelp", "Tokens per sequence. Activation, logits and KV-cache memory grow with it."),
    "new_tokens": QT_TRANSLATE_NOOP(
        "InputHelp", "Inference: tokens generated per sequence. Changes the KV cache and the "
        "decoding time."),
    "checkpointing": QT_TRANSLATE_NOOP(
        "InputHelp", "Recompute activations in the backward pass instead of keeping them: less "
        "activation memory, about a third more compute when full."),
    "attention": QT_TRANSLATE_NOOP(
        "InputHelp", "Attention kernel. FlashAttention/SDPA never stores the sequence × "
        "sequence scores, so activations take less memory than with eager attention."),
    "quant": QT_TRANSLATE_NOOP(
        "InputHelp", "How the frozen base weights are stored (QLoRA and inference): fewer bits "
        "per weight, less weight memory."),
    "lora_rank": QT_TRANSLATE_NOOP(
        "InputHelp", "Rank of the LoRA adapters. A higher rank trains more parameters: more "
        "gradient and optimizer-state memory."),
    "lora_targets": QT_TRANSLATE_NOOP(
        "InputHelp", "Which linear layers get adapters. Changes the trained parameters."),
    "kv_dtype": QT_TRANSLATE_NOOP(
        "InputHelp", "Inference: number format of the KV cache. Changes its memory."),
    "gpu": QT_TRANSLATE_NOOP(
        "InputHelp", "The card the plan is sized for: its memory decides the verdict, its "
        "peak rate the time. Detected cards come first."),
    "n_gpus": QT_TRANSLATE_NOOP(
        "InputHelp", "GPUs training together. With ZeRO/FSDP the states are split over them; "
        "the time is the whole job's."),
    "zero_stage": QT_TRANSLATE_NOOP(
        "InputHelp", "How the GPUs share the states: ZeRO-1 splits optimizer states, ZeRO-2 "
        "also gradients, ZeRO-3/FSDP also the weights."),
    "offload": QT_TRANSLATE_NOOP(
        "InputHelp", "Move optimizer states (or the parameters too) to CPU RAM: less GPU "
        "memory, slower steps; the host RAM it needs is checked under the verdict."),
    "dataset_tokens": QT_TRANSLATE_NOOP(
        "InputHelp", "Training tokens over all epochs, e.g. 2T, 300M. Sets the training time."),
    "dataset_samples": QT_TRANSLATE_NOOP(
        "InputHelp", "Samples per epoch, e.g. 52k. Sets the training time with the epochs."),
    "epochs": QT_TRANSLATE_NOOP(
        "InputHelp", "Passes over the samples. Multiplies the training time."),
    "framework": QT_TRANSLATE_NOOP(
        "InputHelp", "The training framework or inference engine: its own memory overheads "
        "and kernels."),
    "navigation": QT_TRANSLATE_NOOP(
        "InputHelp", "The pages: Rig, Probe, Plan and Compare (Ctrl+1 to Ctrl+4)."),
    "probeDevice": QT_TRANSLATE_NOOP(
        "InputHelp", "The device the probes measure: a GPU, or the CPU."),
    "historyDevice": QT_TRANSLATE_NOOP(
        "InputHelp", "Whose past probe runs the history shows."),
    "historyFigure": QT_TRANSLATE_NOOP(
        "InputHelp", "Which measured figure the chart draws over the runs."),
    "historyTable": QT_TRANSLATE_NOOP(
        "InputHelp", "Past probe runs of this device; select two to compare them."),
    "compareTable": QT_TRANSLATE_NOOP(
        "InputHelp", "The two selected runs side by side, with the change."),
}


def _tr(text: str) -> str:
    return QCoreApplication.translate(_CONTEXT, text)


def field_name(name: str) -> str:
    """A plan field (or ``model``, ``gpu``, an assumption) for people: "micro-batch"."""
    text = FIELD_NAMES.get(name)
    return _tr(text) if text else name.replace("_", " ")


def tip(name: str) -> str | None:
    """The tooltip for an input's object name, translated (None when there is none)."""
    text = TIPS.get(name)
    return _tr(text) if text else None


def change_name(what) -> str:
    """What an undo step changed, for Edit → Undo: a field's name, or a lever's title."""
    if what is None:
        return ""
    if isinstance(what, str):
        return field_name(what)
    from gpuadvisor.gui.widgets.levers import lever_title

    return lever_title(what)


__all__ = ["FIELD_NAMES", "TIPS", "change_name", "field_name", "tip"]
