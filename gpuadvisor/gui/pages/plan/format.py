"""The Plan page's words: the model in a line, the detected card in the GPU picker and under
the verdict, the data set note, translated in the page's context ("PlanPage"). No widgets."""

from __future__ import annotations

import re

from PySide6.QtCore import QCoreApplication

from gpuadvisor.core.estimate import REFERENCE_GPU_ID
from gpuadvisor.core.units import format_bytes, format_count
from gpuadvisor.gui.numbers import count, short_gpu_name

#: Under this name lupdate finds the literal (context, text) calls below.
translate = QCoreApplication.translate


def custom_model_item(model) -> str:
    """The model picker's entry for a model that is not a preset."""
    return translate("PlanPage", "{name} (custom, {count})").format(
        name=model.name, count=format_count(model.params().total))


def model_info(estimate) -> str:
    """Parameters (total, active, trainable) and the architecture in one line."""
    model, plan = estimate.model, estimate.plan
    params = estimate.params
    parts = [translate("PlanPage", "{total} parameters").format(
        total=count(params.total))]
    if params.active != params.total:
        parts.append(translate("PlanPage", "{active} active").format(
            active=count(params.active)))
    if plan.is_training:
        share = 100.0 * estimate.params_trainable / max(params.total, 1)
        parts.append(translate("PlanPage", "{n} trainable ({share:.2f}%)").format(
            n=count(estimate.params_trainable), share=share))
    if model.kind != "opaque":
        parts.append(translate("PlanPage", "{layers} layers, hidden {hidden}, context "
                               "{ctx}").format(layers=model.n_layers, hidden=model.d_model,
                                               ctx=f"{model.max_positions:,}"))
    elif model.sample_unit:
        parts.append(translate("PlanPage", "one sample = {unit}").format(
            unit=model.sample_unit))
    return " · ".join(parts)


def global_batch(plan, timed_seq: float | None = None) -> str:
    """What one optimizer step takes, for training ("" for inference). ``timed_seq``: the
    tokens a sequence has as the step is timed, where the data set's samples are padded
    per micro-batch to fewer than the plan's length (its memory is sized at the length)."""
    if not plan.is_training:
        return ""
    if timed_seq is not None and round(timed_seq) < plan.seq_len:
        return translate("PlanPage", "{n} × {seq} tokens per optimizer step on average "
                         "(up to {most})").format(n=f"{plan.global_batch:,}",
                                                  seq=f"{timed_seq:,.0f}",
                                                  most=f"{plan.seq_len:,}")
    return translate("PlanPage", "{n} × {seq} tokens per optimizer step").format(
        n=f"{plan.global_batch:,}", seq=f"{plan.seq_len:,}")


def data_note(plan, model, assumptions) -> str:
    """How much data the time is for, and whether it was given or assumed."""
    training = plan.is_training
    if training and "dataset_tokens" in assumptions:
        opaque = model.kind == "opaque"
        unit = translate("PlanPage", "samples") if opaque else translate("PlanPage", "tokens")
        source = assumptions.get("dataset_tokens_source", "assumed")
        amount = f"{count(assumptions['dataset_tokens'])} {unit}"
        if source == "assumed":
            return translate("PlanPage", "Not given: assuming {amount} (see under the time). "
                             "Pick a data set, or fill in tokens, or samples × epochs."
                             ).format(amount=amount)
        return translate("PlanPage", "Training on {amount} in all.").format(amount=amount)
    return translate("PlanPage", "Inference: no data set.") if not training else ""


def not_a_count(text: str) -> str:
    """The error under a count field that could not be read."""
    return translate("PlanPage", "\"{text}\" is not a count: type a number like 2T, 1.5B, "
                     "300M or 52k").format(text=text)


def _free(info, units: str) -> str:
    if info.memory_free_bytes is None:
        return translate("PlanPage", "n/a")
    return format_bytes(info.memory_free_bytes, units)


def card_memory(n_bytes: float, units: str) -> str:
    """A card's memory in the picker: "24 GiB", "25.8 GB" (no trailing ".0")."""
    number, _, unit = format_bytes(n_bytes, units).partition(" ")
    return f"{number.removesuffix('.0')} {unit}"


#: A card's memory in its name ("RTX 3060 12GB", "H100 SXM5 80GB", "(DGX Spark, 128 GB)").
_MEMORY_IN_NAME = re.compile(r"\b\d+\s?GB\b")


def catalog_gpu_item(gpu, units: str) -> str:
    """A catalog card in the GPU picker: its name without the maker's words and its memory
    in the unit of the View setting, unless the name says it ("RTX 4090 · 24 GiB",
    "RTX 3060 12GB"): the field shows about 36 characters at 1366 px, and "NVIDIA GeForce
    RTX 3060 12GB · 12 GiB" was cut mid-word. The maker still finds it (the picker's
    search text has the whole name)."""
    name = short_gpu_name(gpu.name)
    if _MEMORY_IN_NAME.search(name):
        return name
    return f"{name} · {card_memory(gpu.memory_bytes, units)}"


def detected_item(info, units: str) -> str:
    """The GPU picker's entry for a detected (or demo) card, with its free memory: short
    enough for the picker's field ("Demo rig: RTX 3090 · 23.5 GiB free"; the maker's words
    left out, the card's total in the banner): the whole name and "(free / total)" ran past
    the field and were cut mid-word."""
    name = short_gpu_name(info.name)
    if info.memory_free_bytes is None:
        memory = card_memory(info.memory_total_bytes, units)
    else:
        memory = translate("PlanPage", "{free} free").format(
            free=format_bytes(info.memory_free_bytes, units))
    if info.backend == "simulated":
        return translate("PlanPage", "Demo rig: {name} · {memory}").format(name=name,
                                                                          memory=memory)
    return translate("PlanPage", "This machine: {name} · {memory}").format(name=name,
                                                                          memory=memory)


def detected_note(info, gpus, units: str) -> str:
    """Which memory the fit used when the target is the detected card ``info``; an
    unmatched card's time comes from the reference GPU in ``gpus``."""
    note = translate("PlanPage", "Checked on your {name} ({total} total, {free} free "
                     "now)").format(name=short_gpu_name(info.name),
                                    total=format_bytes(info.memory_total_bytes, units),
                                    free=_free(info, units))
    if info.catalog_id is None:
        reference = gpus.get(REFERENCE_GPU_ID)
        note += " · " + translate("PlanPage", "unmatched card: memory from the driver, time "
                                  "from the {reference} peak").format(
            reference=reference.name if reference is not None else REFERENCE_GPU_ID)
    return note


def lost_note(lost) -> str:
    """Cards that fell off the bus, in one line: they are left out of the rig."""
    gone = translate("Lists", ", ").join(translate("PlanPage", "GPU {index} ({name})").format(
        index=info.index, name=short_gpu_name(info.name)) for info in lost)
    return translate("PlanPage", "⚠ Lost from the rig (fell off the bus): {gone}; left out "
                     "of the plan's choices").format(gone=gone)


__all__ = ["card_memory", "custom_model_item", "data_note", "detected_item", "detected_note",
           "global_batch", "lost_note", "model_info", "not_a_count", "short_gpu_name"]
