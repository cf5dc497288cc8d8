"""The Compare page's exports of the selected option: SkyPilot task, accelerate config,
DeepSpeed config, launch script, and a report (HTML with the page's charts inside, or
Markdown). The texts come from :mod:`gpuadvisor.export`; this module picks the tool's
inputs, names the file and asks where to write it."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QBuffer, QCoreApplication, QIODevice
from PySide6.QtWidgets import QFileDialog, QWidget

from gpuadvisor.core.advisor import Suggestion, effective_gpu, estimate_of

from .format import option_label

#: Under this name lupdate finds the literal (context, text) calls below.
translate = QCoreApplication.translate

#: File name ending of each export (a report may also end in .md: Markdown).
SUFFIXES = {"skypilot": ".yaml", "accelerate": ".yaml", "deepspeed": ".json",
            "launch": ".sh", "megatron": ".sh", "report": ".html"}


def suggested_name(kind: str, s: Suggestion) -> str:
    """A file name for the export of ``kind`` of ``s``: ``skypilot-offer-rp-h100.yaml``."""
    slug = "".join(c if c.isalnum() else "-" for c in s.option.id).strip("-")
    return f"{kind}-{slug}{SUFFIXES[kind]}"


def ask_save_path(parent: QWidget, kind: str, suggested: str) -> str | None:
    """Ask where to write an export of ``kind``, starting at ``suggested`` in the home
    folder (None: cancelled)."""
    filters = {"skypilot": translate("ComparePage", "SkyPilot task (*.yaml)"),
               "accelerate": translate("ComparePage", "accelerate config (*.yaml)"),
               "deepspeed": translate("ComparePage", "DeepSpeed config (*.json)"),
               "launch": translate("ComparePage", "Shell script (*.sh)"),
               "megatron": translate("ComparePage", "Shell script (*.sh)"),
               "report": translate("ComparePage",
                                   "HTML report (*.html);;Markdown report (*.md)")}
    path, _ = QFileDialog.getSaveFileName(parent, translate("ComparePage", "Export"),
                                          str(Path.home() / suggested), filters[kind])
    return path or None


def export_text(kind: str, s: Suggestion, model, *, report=None, assumptions=None) -> str:
    """The export of ``kind`` for suggestion ``s`` of a plan for ``model``; ``report()``
    writes the report (the page's, with its charts).

    A training export writes the plan as the estimate lays it out on the option
    (:func:`gpuadvisor.export.runnable.runnable_plan`, as the command line's ``export``):
    its ZeRO stage, micro-batch, accumulation and hybrid sharding, or the fastest
    data-parallel layout, said in a comment, where the tool cannot run the estimate's.

    Raises:
        ValueError: the plan cannot be written for that tool (e.g. DeepSpeed for
            inference), or the option does not fit.
    """
    from gpuadvisor import export
    from gpuadvisor.core.assumptions import DEFAULT_ASSUMPTIONS
    from gpuadvisor.core.resolve import resolve
    from gpuadvisor.export.quoting import comment_text
    from gpuadvisor.export.runnable import chosen_layout, packed_steps, runnable_plan

    if not s.fits:
        raise ValueError(translate("ComparePage", "{name} does not fit this plan: pick an "
                                   "option that fits").format(name=option_label(s.option)))
    if kind == "report" and report is not None:
        return report()
    assumptions = assumptions or DEFAULT_ASSUMPTIONS
    plan, gpu, offer = s.plan, effective_gpu(s.option), s.option.offer
    hybrid, note, need = None, None, None
    if plan.is_training:
        found = runnable_plan(
            estimate_of(model, s, assumptions), kind,
            lambda **changes: resolve(model, s.plan.with_changes(**changes), gpu,
                                      assumptions))
        plan, hybrid, note = found.plan, found.hybrid_group, found.note
        need = float(found.estimate.memory.total)
    elif kind == "megatron":
        raise ValueError(translate("ComparePage", "A Megatron-LM launch trains; this plan "
                                   "serves a model"))
    rented = s.option.kind in ("rent", "cloud")
    per_node = offer.gpus_per_instance if rented else max(plan.n_gpus, 1)
    lead = f"# Note: {comment_text(note)}\n" if note else ""
    if kind == "skypilot":
        return lead + export.skypilot_task(model, plan, s.option.gpu,
                                           offer if rented else None, need_bytes=need,
                                           hybrid_group=hybrid)
    if kind == "deepspeed":
        return export.deepspeed_json(plan, hybrid_group=hybrid)
    layout = export.node_layout(plan.n_gpus, per_node)
    if kind == "accelerate":
        return lead + export.accelerate_yaml(plan, layout, gpu=gpu, hybrid_group=hybrid)
    if kind == "launch":
        return lead + export.launch_script(plan, layout, title=f"{model.name}: {plan.task} "
                                           f"on {s.option.label}")
    if kind == "megatron":
        chosen = chosen_layout(found.estimate)
        return export.megatron_script(
            model, plan, chosen, layout, steps=packed_steps(found.estimate, chosen),
            title=f"{model.name}: {plan.task} on {s.option.label}",
            data=found.estimate.assumptions.get("dataset"))
    raise ValueError(f"unknown export {kind!r}")


def report_text(s: Suggestion, state, *, why: str, own: list, rows: list, markdown: bool,
                charts: list[tuple[str, QWidget]]) -> str:
    """The report of suggestion ``s``: the plan's estimate there, the rig, the latest probe
    results of the user's first card, the options ``rows`` (suggestions) and, in HTML, the
    ``charts`` as (title, widget) rendered to PNG."""
    from gpuadvisor.export import html_report, markdown_report
    from gpuadvisor.export.report import advice_rows
    from gpuadvisor.probes import history

    result = estimate_of(state.model, s, state.assumptions)
    rig = {"option chosen": s.option.label, "why": why,
           "your rig": ", ".join(g.name for g in own) or "none"}
    probes = None
    if own:
        try:
            probes = history.latest_results(own[0].id)
        except OSError:
            probes = None
    table = advice_rows(rows)
    if markdown:
        return markdown_report(result, rig=rig, probes=probes, suggestions=table)
    pictures = [(title, png(widget)) for title, widget in charts]
    return html_report(result, rig=rig, probes=probes, suggestions=table, charts=pictures)


def png(widget: QWidget) -> bytes:
    """``widget`` rendered as PNG bytes."""
    buffer = QBuffer()
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    widget.grab().save(buffer, "PNG")
    return bytes(buffer.data())


__all__ = ["SUFFIXES", "ask_save_path", "export_text", "png", "report_text",
           "suggested_name"]
