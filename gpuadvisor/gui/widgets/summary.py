"""The plan as Markdown ("Copy summary as Markdown"): paste into an issue, a chat or notes."""

from __future__ import annotations

from PySide6.QtCore import QObject

from gpuadvisor.core.memory import TERMS
from gpuadvisor.core.units import format_bytes
from gpuadvisor.gui import numbers as N

from . import labels as L
from .levers import lever_text


class SummaryWriter(QObject):
    """Writes summaries; a QObject only so that ``self.tr`` gives the texts one context."""

    def plan_line(self, plan, model) -> str:
        """"micro-batch 1 × accumulation 1 × sequence 2048 · 1 GPU(s) · ..." (inference:
        "16 request(s) × 4096 prompt + 256 new tokens · ...")."""
        parts = []
        if model.kind == "opaque":
            parts.append(self.tr("micro-batch {mb} × accumulation {ga}").format(
                mb=plan.micro_batch, ga=plan.grad_accum))
        elif plan.task == "infer":
            # a request's prompt and the tokens it generates; no optimizer step to accumulate
            parts.append(self.tr("{n} request(s) × {prompt} prompt + {new} new tokens").format(
                n=plan.micro_batch, prompt=plan.seq_len, new=plan.new_tokens))
        else:
            parts.append(self.tr("micro-batch {mb} × accumulation {ga} × sequence {seq}").format(
                mb=plan.micro_batch, ga=plan.grad_accum, seq=plan.seq_len))
        parts.append(self.tr("{n} GPU(s)").format(n=plan.n_gpus))
        if plan.zero_stage:
            parts.append(f"ZeRO-{plan.zero_stage}")
        if plan.offload != "none":
            parts.append(self.tr("offload: {what}").format(
                what=L.label(L.OFFLOAD, plan.offload)))
        if plan.is_training:
            parts.append(self.tr("checkpointing: {how}").format(
                how=L.label(L.CHECKPOINTING, plan.checkpointing)))
        parts.append(L.label(L.ATTENTION, plan.attention))
        if plan.is_adapter:
            parts.append(self.tr("LoRA r={rank} on {targets}").format(
                rank=plan.effective_lora_rank,
                targets=L.label(L.LORA_TARGETS, plan.lora_targets)))
        if plan.effective_quant != "none" and plan.task == "infer":
            parts.append(self.tr("weights {quant}").format(
                quant=L.quant_label(plan.effective_quant)))
        elif plan.effective_quant != "none":
            parts.append(self.tr("base weights {quant}").format(
                quant=L.quant_label(plan.effective_quant)))
        return " · ".join(parts)

    def markdown(self, estimate, levers, units: str) -> str:
        e, p = estimate, estimate.plan

        def b(n: float) -> str:
            return format_bytes(n, units)

        where = f" — {e.gpu.name}" if e.gpu is not None else ""
        lines = [f"## {e.model.name}: {L.label(L.TASKS, p.task)}{where}", ""]
        if e.gpu is None:
            lines.append(self.tr("**{need}** per GPU (no GPU chosen)").format(
                need=b(e.memory.total)))
        elif e.fits:
            lines.append(self.tr("**{verdict}**: {need} of {have} per GPU ({free} free)").format(
                verdict=L.label(L.VERDICTS, e.verdict).capitalize(), need=b(e.memory.total),
                have=b(e.capacity_bytes), free=b(e.headroom_bytes)))
        else:
            lines.append(self.tr("**Does not fit**: {need} per GPU, {have} available "
                                 "(short by {short})").format(
                need=b(e.memory.total), have=b(e.capacity_bytes), short=b(-e.headroom_bytes)))
        params = self.tr("Parameters: {total}").format(total=N.count(e.params.total))
        if p.is_training:
            params += " " + self.tr("({n} trainable)").format(
                n=N.count(e.params_trainable))
        precision = self.tr("Precision: {precision}").format(
            precision=L.label(L.PRECISIONS, p.precision))
        if p.is_training:
            precision += " · " + self.tr("optimizer: {optimizer}").format(
                optimizer=L.label(L.OPTIMIZERS, p.optimizer))
        lines += [
            "",
            f"- {params}",
            f"- {precision}",
            "- " + self.tr("Plan: {plan}").format(plan=self.plan_line(p, e.model)),
            "",
            "### " + self.tr("Memory per GPU"),
            "",
            "| " + self.tr("term") + " | " + self.tr("size") + " |",
            "| --- | ---: |",
        ]
        from gpuadvisor.gui.charts.style import term_labels  # imports pyqtgraph: on demand

        names = term_labels()
        lines += [f"| {names[t]} | {b(getattr(e.memory, t))} |"
                  for t in TERMS if getattr(e.memory, t)]
        lines.append("| **" + self.tr("total") + f"** | **{b(e.memory.total)}** |")

        t, a = e.time, e.assumptions
        lines += ["", "### " + self.tr("Time"), ""]
        if p.task == "infer":
            lines.append("- " + self.tr("total {time} · decode {rate} tokens/s").format(
                time=N.duration(t.seconds), rate=N.sig(t.decode_tokens_per_s)))
        else:
            lines.append("- " + self.tr(
                "total {time} · {rate} tokens/s · {hours} GPU-hours · {flops}").format(
                time=N.duration(t.seconds), rate=N.sig(t.tokens_per_s),
                hours=N.sig(t.gpu_hours), flops=N.flops(t.flops_total)))
            if "dataset_tokens" in a:
                lines.append("- " + self.tr("data: {amount} ({source})").format(
                    amount=N.count(a["dataset_tokens"]),
                    source=L.source_label(a.get("dataset_tokens_source", "assumed"))))
        lines.append("- " + self.tr(
            "peak {tflops:g} TFLOPS {dtype} ({source}) × efficiency {eff:.2f} ({eff_source})"
        ).format(tflops=a["peak_tflops"], dtype=a["peak_tflops_dtype"],
                 source=L.source_label(a.get("peak_tflops_source", "")), eff=t.efficiency,
                 eff_source=L.source_label(a.get("efficiency_source", "assumed"))))
        if levers:
            lines += ["", "### " + self.tr("Make it fit"), ""]
            lines += [f"- {lever_text(lever, units)}" for lever in levers]
        if e.warnings:
            lines += ["", "### " + self.tr("Warnings"), ""]
            lines += [f"- {w}" for w in e.warnings]
        lines += ["", self.tr("_Estimated with gpuadvisor._"), ""]
        return "\n".join(lines)


def plan_line(plan, model) -> str:
    """The plan's batch shape, parallelism and memory savers in one line (translated)."""
    return SummaryWriter().plan_line(plan, model)


def markdown_summary(estimate, levers, units: str = "GiB") -> str:
    """A Markdown report of ``estimate`` (and ``levers``) with sizes in ``units``."""
    return SummaryWriter().markdown(estimate, levers, units)
