"""Words that come as data from outside the GUI, translated where the GUI shows them: offer
regions and sellers from the catalog, NVML's throttle reasons, the driver hints of the
hardware package and the demo rigs' descriptions.

Each text is marked here (``QT_TRANSLATE_NOOP``) so that lupdate finds it, and looked up by
its exact English source when shown; a text not listed here (a region the catalog adds, a new
hint) is shown as it comes rather than guessed at.
"""

from __future__ import annotations

import re

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication

#: Offer regions of the shipped catalog in words (codes such as ``us-east-1`` stay codes).
REGIONS = (
    QT_TRANSLATE_NOOP("Regions", "global"),
    QT_TRANSLATE_NOOP("Regions", "global (community hosts)"),
    QT_TRANSLATE_NOOP("Regions", "global (RunPod data centers)"),
    QT_TRANSLATE_NOOP("Regions", "global marketplace"),
    QT_TRANSLATE_NOOP("Regions", "US (varies with availability)"),
    QT_TRANSLATE_NOOP("Regions", "North America"),
    QT_TRANSLATE_NOOP("Regions", "EU"),
    QT_TRANSLATE_NOOP("Regions", "varies (EU, North America)"),
    QT_TRANSLATE_NOOP("Regions", "decentralized marketplace"),
    QT_TRANSLATE_NOOP("Regions", "varies"),
)

#: Sellers of the catalog that are words rather than names.
SELLERS = (
    QT_TRANSLATE_NOOP("Sellers", "retail (new)"),
    QT_TRANSLATE_NOOP("Sellers", "used market"),
)

#: NVML's clock-event ("throttle") reasons as the hardware package names them.
THROTTLE_REASONS = (
    QT_TRANSLATE_NOOP("ThrottleReasons", "idle"),
    QT_TRANSLATE_NOOP("ThrottleReasons", "applications clocks setting"),
    QT_TRANSLATE_NOOP("ThrottleReasons", "power cap"),
    QT_TRANSLATE_NOOP("ThrottleReasons", "hardware slowdown"),
    QT_TRANSLATE_NOOP("ThrottleReasons", "sync boost"),
    QT_TRANSLATE_NOOP("ThrottleReasons", "thermal (software)"),
    QT_TRANSLATE_NOOP("ThrottleReasons", "thermal (hardware)"),
    QT_TRANSLATE_NOOP("ThrottleReasons", "power brake (hardware)"),
    QT_TRANSLATE_NOOP("ThrottleReasons", "display clock setting"),
)

#: The hardware package's hints when NVML cannot start (gpuadvisor.hardware.nvml).
HINTS = (
    QT_TRANSLATE_NOOP("Hints", "The NVIDIA NVML bindings are not installed: pip install "
                      "nvidia-ml-py (not the deprecated 'pynvml' package)."),
    QT_TRANSLATE_NOOP("Hints", "The NVIDIA driver was updated but the old kernel module is "
                      "still loaded (NVML/driver version mismatch): reboot."),
    QT_TRANSLATE_NOOP("Hints", "NVML was refused access to the GPU: check permissions on "
                      "/dev/nvidia* (your user may need to be in the 'video' group)."),
    QT_TRANSLATE_NOOP("Hints", "No NVIDIA driver is visible in this container: start it with "
                      "GPU access (docker run --gpus all, with the NVIDIA Container Toolkit "
                      "installed on the host)."),
    QT_TRANSLATE_NOOP("Hints", "The NVIDIA driver is installed but not loaded: reboot, or run "
                      "'sudo modprobe nvidia' (Secure Boot can block unsigned modules); "
                      "nvidia-smi should then list the GPU."),
    QT_TRANSLATE_NOOP("Hints", "An NVIDIA GPU is present but its driver is not installed "
                      "(libnvidia-ml not found): install the NVIDIA driver, then check with "
                      "nvidia-smi."),
    QT_TRANSLATE_NOOP("Hints", "No NVIDIA driver found (libnvidia-ml missing). If this machine "
                      "has an NVIDIA GPU, install its driver and check with nvidia-smi."),
)

#: The demo rigs (``--simulate`` scenarios) by name.
SCENARIOS = {
    "one-gpu": QT_TRANSLATE_NOOP("DemoRigs", "one RTX 4090"),
    "mixed": QT_TRANSLATE_NOOP("DemoRigs", "an RTX 3090 and an RTX 3060 12 GB: two cards, "
                               "not 36 GB"),
    "unsupported-fields": QT_TRANSLATE_NOOP("DemoRigs", "an RTX 3090 whose power and "
                                            "utilization read n/a"),
    "gpu-lost": QT_TRANSLATE_NOOP("DemoRigs", "two RTX 3090s; the second falls off the bus "
                                  "on the 2nd refresh"),
    "no-gpu": QT_TRANSLATE_NOOP("DemoRigs", "a machine without a GPU"),
}


#: Levers of the advisor named with a number (the others are in widgets/labels.py).
_LEVER_PATTERNS = (
    (re.compile(r"^ZeRO-3 sharding over (\d+) GPUs$"),
     QT_TRANSLATE_NOOP("Levers", "ZeRO-3 sharding over {n} GPUs")),
    (re.compile(r"^(\d+) GPUs$"), QT_TRANSLATE_NOOP("Levers", "{n} GPUs")),
)


def lever_names(titles) -> str:
    """The advisor's lever titles ("ZeRO-3 sharding over 2 GPUs", "QLoRA") for people,
    joined as a list."""
    from gpuadvisor.gui.widgets.labels import LEVERS

    by_title = {source: source for source in LEVERS.values()}
    names = []
    for title in titles:
        for pattern, template in _LEVER_PATTERNS:
            match = pattern.match(title)
            if match:
                names.append(_tr("Levers", template).format(n=match.group(1)))
                break
        else:
            names.append(_tr("Labels", by_title[title]) if title in by_title else title)
    return QCoreApplication.translate("Levers", ", ").join(names)


def _tr(context: str, text: str | None) -> str:
    return QCoreApplication.translate(context, text) if text else (text or "")


def region(text: str | None) -> str:
    """An offer's region for people (a code stays as it is)."""
    return _tr("Regions", text)


def seller(text: str | None) -> str:
    """An offer's seller or cloud for people."""
    return _tr("Sellers", text)


def throttle_reason(name: str) -> str:
    """One NVML throttle reason for people."""
    return _tr("ThrottleReasons", name)


def hint(text: str) -> str:
    """A hardware hint for people (as it comes when it is not one of :data:`HINTS`)."""
    return _tr("Hints", text)


def scenario(name: str, description: str) -> str:
    """A demo rig's description: its translation, or the hardware package's own words."""
    source = SCENARIOS.get(name)
    if source is None or source != description:
        return description  # a scenario this list does not know, or reworded: as it comes
    return _tr("DemoRigs", source)


__all__ = ["HINTS", "REGIONS", "SCENARIOS", "SELLERS", "THROTTLE_REASONS", "hint",
           "lever_names", "region", "scenario", "seller", "throttle_reason"]

#: The advisor's lever details and costs (core/fit.py), as patterns of their English text:
#: the numbers and ids in them are kept, the words translated.
_LEVER_TEXTS = tuple((re.compile("^" + pattern + "$"), template) for pattern, template in (
    (r"quantize weights to 4 bits \(int4, GPTQ/AWQ\)",
     QT_TRANSLATE_NOOP("LeverTexts", "quantize weights to 4 bits (int4, GPTQ/AWQ)")),
    (r"batch (\d+) -> 1", QT_TRANSLATE_NOOP("LeverTexts", "batch {a} -> 1")),
    (r"KV cache in fp8", QT_TRANSLATE_NOOP("LeverTexts", "KV cache in fp8")),
    (r"eager attention -> FlashAttention/SDPA",
     QT_TRANSLATE_NOOP("LeverTexts", "eager attention -> FlashAttention/SDPA")),
    (r"activation checkpointing (\w+) -> full",
     QT_TRANSLATE_NOOP("LeverTexts", "activation checkpointing {a} -> full")),
    (r"micro-batch (\d+) -> (\d+), accumulation (\d+) -> (\d+) \(same global batch\)",
     QT_TRANSLATE_NOOP("LeverTexts",
                       "micro-batch {a} -> {b}, accumulation {c} -> {d} (same global batch)")),
    (r"optimizer (\S+) -> adamw8bit",
     QT_TRANSLATE_NOOP("LeverTexts", "optimizer {a} -> adamw8bit")),
    (r"full fine-tune -> LoRA adapters \(rank 16, all linear layers\)",
     QT_TRANSLATE_NOOP("LeverTexts",
                       "full fine-tune -> LoRA adapters (rank 16, all linear layers)")),
    (r"frozen base in 4-bit NF4 \+ LoRA adapters",
     QT_TRANSLATE_NOOP("LeverTexts", "frozen base in 4-bit NF4 + LoRA adapters")),
    (r"optimizer states to CPU RAM \(DeepSpeed ZeRO-(\d) offload\)",
     QT_TRANSLATE_NOOP("LeverTexts", "optimizer states to CPU RAM (DeepSpeed ZeRO-{a} offload)")),
    (r"a 4-bit GGUF \(Q4_K_M, ~4\.9 bits per weight\)",
     QT_TRANSLATE_NOOP("LeverTexts", "a 4-bit GGUF (Q4_K_M, ~4.9 bits per weight)")),
    (r"-ngl (\d+): the other (\d+) layers in host RAM",
     QT_TRANSLATE_NOOP("LeverTexts", "-ngl {a}: the other {b} layers in host RAM")),
    (r"(\d+) -> (\d+) GPUs, sharded with ZeRO-3/FSDP",
     QT_TRANSLATE_NOOP("LeverTexts", "{a} -> {b} GPUs, sharded with ZeRO-3/FSDP")),
    (r"(\d+) -> (\d+) GPUs, split \(tensor parallel\)",
     QT_TRANSLATE_NOOP("LeverTexts", "{a} -> {b} GPUs, split (tensor parallel)")),
    (r"small quality loss", QT_TRANSLATE_NOOP("LeverTexts", "small quality loss")),
    (r"tiny quality loss", QT_TRANSLATE_NOOP("LeverTexts", "tiny quality loss")),
    (r"lower throughput", QT_TRANSLATE_NOOP("LeverTexts", "lower throughput")),
    (r"none \(usually faster\)", QT_TRANSLATE_NOOP("LeverTexts", "none (usually faster)")),
    (r"about 33% more compute", QT_TRANSLATE_NOOP("LeverTexts", "about 33% more compute")),
    (r"lower GPU utilisation", QT_TRANSLATE_NOOP("LeverTexts", "lower GPU utilisation")),
    (r"none measurable for most fine-tunes",
     QT_TRANSLATE_NOOP("LeverTexts", "none measurable for most fine-tunes")),
    (r"trains 0\.1-1% of the weights",
     QT_TRANSLATE_NOOP("LeverTexts", "trains 0.1-1% of the weights")),
    (r"about 30% slower than LoRA", QT_TRANSLATE_NOOP("LeverTexts", "about 30% slower than LoRA")),
    (r"slower steps, needs host RAM",
     QT_TRANSLATE_NOOP("LeverTexts", "slower steps, needs host RAM")),
    (r"slower: those layers are read at host-memory speed",
     QT_TRANSLATE_NOOP("LeverTexts", "slower: those layers are read at host-memory speed")),
    (r"(\d+)x the hardware", QT_TRANSLATE_NOOP("LeverTexts", "{a}x the hardware")),
    (r"ZeRO stage (\d) -> 3 \(FSDP full shard over (\d+) GPUs\)",
     QT_TRANSLATE_NOOP("LeverTexts", "ZeRO stage {a} -> 3 (FSDP full shard over {b} GPUs)")),
    (r"more communication per step",
     QT_TRANSLATE_NOOP("LeverTexts", "more communication per step")),
    (r"parameters and optimizer states to CPU RAM \(ZeRO-3 / FSDP CPU offload\)",
     QT_TRANSLATE_NOOP("LeverTexts",
                       "parameters and optimizer states to CPU RAM (ZeRO-3 / FSDP CPU offload)")),
    (r"much slower steps, needs host RAM",
     QT_TRANSLATE_NOOP("LeverTexts", "much slower steps, needs host RAM")),
))


def lever_text(text: str) -> str:
    """A lever's detail or cost from the advisor (``"batch 4 -> 1"``, ``"small quality
    loss"``) in the reader's language, its numbers kept; a text not known here as it comes."""
    for pattern, template in _LEVER_TEXTS:
        match = pattern.match(text)
        if match:
            values = dict(zip("abcd", match.groups(), strict=False))
            return _tr("LeverTexts", template).format(**values)
    if "; " in text:  # a combination of levers: each part in turn
        return QCoreApplication.translate("LeverTexts", "; ").join(
            lever_text(part) for part in text.split("; "))
    return text


#: The engines' most frequent warnings (core/engines/llamacpp.py), as patterns of their
#: English text: with llama.cpp's --fit and Ollama placing layers themselves, "N of M
#: layers in host RAM" shows on every plan too big for its card.
_WARNING_TEXTS = tuple((re.compile("^" + pattern + "$"), template) for pattern, template in (
    (r"(llama\.cpp|ollama): (\d+) of (\d+) layers in host RAM, read at (\d+) GB/s each token",
     QT_TRANSLATE_NOOP("WarningTexts",
                       "{a}: {b} of {c} layers in host RAM, read at {d} GB/s each token")),
    # core/estimate.py
    (r"(.+) has no fp8 matrix units: timed at its 16-bit rate",
     QT_TRANSLATE_NOOP("WarningTexts", "{a} has no fp8 matrix units: timed at its 16-bit rate")),
    (r"(.+) has no bf16 matrix units: bf16 runs emulated at about its fp32 rate; use fp16 "
     r"mixed precision on this card",
     QT_TRANSLATE_NOOP("WarningTexts",
                       "{a} has no bf16 matrix units: bf16 runs emulated at about its fp32 "
                       "rate; use fp16 mixed precision on this card")),
    (r"(.+) is a single-chip system: several GPUs are hypothetical",
     QT_TRANSLATE_NOOP("WarningTexts",
                       "{a} is a single-chip system: several GPUs are hypothetical")),
    (r"(\d+) tokens per sequence exceed (.+)'s context of (\d+): its position table has "
     r"\d+ entries, so it cannot run longer sequences",
     QT_TRANSLATE_NOOP("WarningTexts",
                       "{a} tokens per sequence exceed {b}'s context of {c}: its position "
                       "table has {c} entries, so it cannot run longer sequences")),
    (r"(\d+) tokens per sequence exceed (.+)'s context of (\d+): it was not trained for "
     r"longer sequences \(quality may drop\)",
     QT_TRANSLATE_NOOP("WarningTexts",
                       "{a} tokens per sequence exceed {b}'s context of {c}: it was not "
                       "trained for longer sequences (quality may drop)")),
    (r"no published activation size for (.+): activations not counted",
     QT_TRANSLATE_NOOP("WarningTexts",
                       "no published activation size for {a}: activations not counted")),
    # core/engines/vllm.py and llamacpp.py
    (r"vLLM would not start: its KV pool holds ([\d,]+) tokens, one sequence of "
     r"max_model_len ([\d,]+) needs more \(lower --max-model-len, raise "
     r"--gpu-memory-utilization, use fp8 KV\)",
     QT_TRANSLATE_NOOP("WarningTexts",
                       "vLLM would not start: its KV pool holds {a} tokens, one sequence of "
                       "max_model_len {b} needs more (lower --max-model-len, raise "
                       "--gpu-memory-utilization, use fp8 KV)")),
    (r"vLLM's KV pool holds ([\d,]+) full sequences of ([\d,]+) tokens at once, fewer than "
     r"max_num_seqs (\d+): the rest wait",
     QT_TRANSLATE_NOOP("WarningTexts",
                       "vLLM's KV pool holds {a} full sequences of {b} tokens at once, fewer "
                       "than max_num_seqs {c}: the rest wait")),
    (r"vLLM: gpu_memory_utilization ([\d.]+) leaves ([\d.]+) GiB beside its budget, less "
     r"than the CUDA context and graphs need \(([\d.]+) GiB\): it may run out of memory "
     r"capturing graphs \(lower it, or --enforce-eager\)",
     QT_TRANSLATE_NOOP("WarningTexts",
                       "vLLM: gpu_memory_utilization {a} leaves {b} GiB beside its budget, "
                       "less than the CUDA context and graphs need ({c} GiB): it may run out "
                       "of memory capturing graphs (lower it, or --enforce-eager)")),
    (r"ollama: num_ctx ([\d,]+) holds fewer tokens than the plan's ([\d,]+) \(prompt and "
     r"new tokens\): Ollama cuts the prompt to fit; raise num_ctx",
     QT_TRANSLATE_NOOP("WarningTexts",
                       "ollama: num_ctx {a} holds fewer tokens than the plan's {b} (prompt "
                       "and new tokens): Ollama cuts the prompt to fit; raise num_ctx")),
))


def warning_text(text: str) -> str:
    """An estimate's warning in the reader's language where its pattern is known (numbers
    and names kept); others as they come."""
    for pattern, template in _WARNING_TEXTS:
        match = pattern.match(text)
        if match:
            return _tr("WarningTexts", template).format(
                **dict(zip("abcd", match.groups(), strict=False)))
    return text

