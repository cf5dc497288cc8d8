"""The work behind a time, in words: a training job's data set, how many samples at what
length, how many tokens, and which tokenizer counted them (the time panel's line under the
time); a server's capacity (its "Users at once" line)."""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication

from gpuadvisor.core.compute import (
    CHINCHILLA_TOKENS_PER_PARAM,
    DEFAULT_FINETUNE_SAMPLES,
    training_job,
)
from gpuadvisor.gui import numbers as N


def data_source_text(estimate, short: bool = False) -> str:
    """The data set behind the time, in a line: which one, its samples at their measured
    (padded or packed) length, its tokens and the tokenizer that counted them, and, when the
    plan names none, that it is assumed ("" when the plan gives tokens or samples alone, or
    for inference). ``short`` (a projector): the data set, its samples and tokens only."""
    a = estimate.assumptions
    plan = estimate.plan
    if not plan.is_training or "dataset_tokens" not in a:
        return ""
    translate = QCoreApplication.translate
    assumed = a.get("dataset_tokens_source") == "assumed"
    if estimate.model.kind == "opaque":
        if not assumed:
            return ""
        return translate(
            "TimePanel", "Assumed: {samples} samples (the size of Alpaca) × {epochs} "
            "epoch(s); type your own under Data set.").format(
                samples=N.whole(DEFAULT_FINETUNE_SAMPLES), epochs=f"{plan.epochs:g}")
    job = training_job(estimate.model, plan)
    if not job.dataset:
        if not assumed:
            return ""
        return translate(
            "TimePanel", "Assumed: {per} tokens per parameter (compute-optimal, Chinchilla), "
            "{tokens} tokens; type your own under Data set.").format(
                per=f"{CHINCHILLA_TOKENS_PER_PARAM:g}", tokens=N.count(job.tokens))
    if not job.samples:  # a pre-training corpus measured in tokens
        text = translate("TimePanel", "{name}: {tokens} tokens.").format(
            name=job.dataset, tokens=N.count(job.tokens))
    elif short:
        text = translate("TimePanel", "{name}: {samples} samples × {per} tokens = {tokens} "
                         "tokens").format(
            name=job.dataset, samples=N.whole(job.samples),
            per=N.whole(round(job.per_sample)), tokens=N.count(job.tokens))
        if assumed:
            return translate("TimePanel", "Assumed: {job}").format(job=text)
        return text
    else:
        if job.packed and not plan.packing:
            how = translate("TimePanel", "packed into {seq}-token sequences: no length "
                            "distribution is published to pad by").format(
                seq=N.whole(plan.seq_len))
        elif job.packed:
            how = translate("TimePanel", "packed into {seq}-token sequences").format(
                seq=N.whole(plan.seq_len))
        else:
            how = translate("TimePanel", "each micro-batch of {b} padded to its longest "
                            "sample").format(b=N.whole(plan.micro_batch))
        text = translate(
            "TimePanel", "{name}: {samples} samples × {per} tokens ({how}) × {epochs} "
            "epoch(s) = {tokens} tokens, counted with the {tokenizer} tokenizer.").format(
                name=job.dataset, samples=N.whole(job.samples),
                per=N.whole(round(job.per_sample)), how=how, epochs=f"{plan.epochs:g}",
                tokens=N.count(job.tokens), tokenizer=job.tokenizer)
    if assumed:
        return translate("TimePanel", "Assumed: {job} Pick another under Data set, or type "
                         "your own.").format(job=text)
    return text


def serving_sentence(capacity) -> str:
    """The capacity sentence in the interface language (the command line's, translated)."""
    c, p = capacity, capacity.point
    context = f"{c.prompt + c.new_tokens:,}"
    if p is None:
        return QCoreApplication.translate(
            "TimePanel", "No user at {context} tokens of context gets {rate} tokens/s").format(
            context=context, rate=f"{c.min_tokens_per_s:.1f}")
    text = QCoreApplication.translate(
        "TimePanel", "{users} at {context} tokens of context: first token in {ttft} s, "
        "{rate} tokens/s each ({total} in all)").format(
        users=(QCoreApplication.translate("TimePanel", "1 user") if p.users == 1 else
               QCoreApplication.translate("TimePanel", "{n} users").format(n=p.users)),
        context=context, ttft=f"{p.first_token_s:.2f}", rate=f"{p.tokens_per_s_user:.0f}",
        total=f"{p.tokens_per_s_total:,.0f}")
    if c.setting:
        text += QCoreApplication.translate("TimePanel", " with {setting}").format(
            setting=c.setting)
    if p.first_token_s > c.max_first_token_s:
        text += QCoreApplication.translate(
            "TimePanel", "; the first token takes over {limit} s").format(
            limit=f"{c.max_first_token_s:g}")
    return text


__all__ = ["data_source_text", "serving_sentence"]
