"""An engine log checked against its plan, for every door (``check-log`` and a log dropped on
the window): read it, find its model and GPU in the catalog (or take the ones given), resolve
the plan it ran, and keep what it showed about the card."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from gpuadvisor import catalog
from gpuadvisor.core.gpu import GpuSpec
from gpuadvisor.core.model import ModelSpec
from gpuadvisor.core.plan import Plan
from gpuadvisor.probes import logcheck, logread, observed

#: Suffixes a dropped file is read as a log by (others are sniffed for engine lines).
LOG_SUFFIXES = (".log", ".txt", ".out", ".err")


@dataclass
class LogCheck:
    """A checked log and what was kept of it."""

    result: logcheck.Check
    kept: dict[str, Any] | None = None
    warnings: list[str] = field(default_factory=list)


def looks_like_log(head: str) -> bool:
    """Whether the first part of a file is an engine log ``check-log`` reads."""
    return logread.detect(head) is not None


def check_log(text: str, source: str, *, engine: str | None = None,
              model: ModelSpec | None = None, gpu: GpuSpec | None = None,
              base: Plan | None = None, engine_version: str | None = None,
              keep: bool = True, fallback_model: ModelSpec | None = None,
              fallback_gpu: GpuSpec | None = None,
              fallback_plan: Plan | None = None) -> LogCheck:
    """Check ``text`` (a log from ``source``) against the estimate of the plan it ran.

    ``model`` / ``gpu`` are what the user named (they win over the log); the log's own
    names come next; ``fallback_model`` / ``fallback_gpu`` (the window's current plan) last.
    ``base`` holds what the log does not say; a PyTorch log, which says nothing of its plan,
    takes ``base`` or else ``fallback_plan`` (a training plan).

    Raises:
        ValueError: the log cannot be read (:class:`~gpuadvisor.probes.logread.LogError`),
            its model or GPU cannot be found (:class:`~gpuadvisor.probes.logcheck.
            PlanNotFound`), or its plan cannot be estimated; the message says which.
    """
    reading = logread.read_log(text, source, engine)
    if reading.engine == "torch" and (base is None or not base.is_training) \
            and fallback_plan is not None and fallback_plan.is_training:
        base = fallback_plan
    if reading.engine == "torch" and (base is None or not base.is_training):
        raise ValueError("a PyTorch memory log names no plan: give --task (pretrain, full, "
                         "lora or qlora) with the plan's --model, --gpu, --micro-batch and "
                         "--seq")
    guessed: list[logcheck.Phrase] = []
    if model is None:
        try:
            models = catalog.load_models()
            hub = {pid: ids.hf_repo for pid, ids in catalog.load_serving().items()}
            model = models[logcheck.find_model(reading, models, hub)]
        except logcheck.PlanNotFound:
            if fallback_model is None:
                raise
            model = fallback_model
            guessed.append(logcheck.Phrase("model: the plan's, {model} (the log does not "
                                           "name one the catalog has)", model=model.name))
    if gpu is None:
        try:
            gpu = catalog.load_gpus()[logcheck.find_gpu(reading, catalog.load_gpus())]
        except logcheck.PlanNotFound:
            if fallback_gpu is None:
                raise
            gpu = fallback_gpu
            guessed.append(logcheck.Phrase("GPU: the plan's, {gpu} (the log does not name "
                                           "it); nothing is kept for it", gpu=gpu.name))
    if engine_version and reading.engine in ("vllm", "ollama"):
        # the release given wins over the log's and is no assumption
        base = replace(base or Plan(task="infer"), framework=reading.engine,
                       engine_version=engine_version)
    plan, assumed = logcheck.plan_of(reading, base)
    assumed = guessed + assumed
    try:
        result = logcheck.check(reading, model, gpu, plan, assumed=assumed)
    except ValueError as exc:
        raise ValueError(f"the plan the log ran cannot be estimated: {exc}") from None
    out = LogCheck(result)
    if keep and not any(g.startswith("GPU:") for g in guessed):
        # a card's figures are kept only when the user or the log named the card
        out.kept = observed.record(result, warnings=out.warnings)
    return out


__all__ = ["LOG_SUFFIXES", "LogCheck", "check_log", "looks_like_log"]
