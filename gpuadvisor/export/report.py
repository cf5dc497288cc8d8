"""A report of a plan: Markdown, or one self-contained HTML file with the charts inside.

The report shows the estimate (plan, memory per GPU, time, assumptions, warnings) and,
when given, the rig, probe results and ranked suggestions. Both formats come from the same
sections, so they always say the same thing.

Charts are PNG bytes the caller passes in (caption -> bytes); they are embedded as
``data:image/png;base64`` URIs, so the HTML file needs nothing beside it. This package never
imports Qt: the app renders its charts (``QWidget.grab()`` saved into a ``QBuffer`` as PNG)
and hands the bytes over. The command line writes the report without rendering charts
(starting Qt offscreen costs more than the report itself); ``gpuadvisor export report
--chart FILE.png`` embeds PNG files, e.g. ones saved with the app's "Export page as PNG".

Every text from outside (model names, rig fields, probe names, reasons) is escaped: HTML
with :func:`html.escape`, Markdown table cells by escaping ``|``, ``<``, ``>`` and ``&``.
"""

from __future__ import annotations

import base64
import html
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime

from gpuadvisor import __version__
from gpuadvisor.core.estimate import TERMS, Estimate
from gpuadvisor.core.plan import PRECISION_LABELS, TASK_LABELS
from gpuadvisor.core.units import (
    format_bytes,
    format_count,
    format_duration,
    format_money,
    format_sig,
)

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
TERM_LABELS = {"weights": "weights", "gradients": "gradients", "optimizer": "optimizer states",
               "activations": "activations", "logits": "logits / loss",
               "kv_cache": "KV cache", "overhead": "overhead"}


@dataclass(frozen=True)
class SuggestionRow:
    """One ranked option as the report shows it.

    Attributes:
        option: what to do (``"rent 8 x A100 80GB on RunPod"``).
        fits: whether the plan fits (None: unknown).
        gpus: GPUs used.
        hours: wall-clock hours (None: unknown).
        cost_usd: US dollars for the job (None: unknown).
        why: one sentence.
    """

    option: str
    fits: bool | None
    gpus: int
    hours: float | None
    cost_usd: float | None
    why: str = ""


def suggestion_row(item: object) -> SuggestionRow:
    """A :class:`SuggestionRow` from a row, an object with ``to_json()``, or a dict.

    Dicts may be flat (``option``/``name``, ``fits``, ``gpus``, ``hours``/``seconds``,
    ``cost_usd``, ``why``) or shaped like ``gpuadvisor suggest --json`` (``option: {kind,
    name, gpus}``, ``time.seconds``, ``cost.usd``).

    Raises:
        ValueError: anything else, or a dict without an option name.
    """
    if isinstance(item, SuggestionRow):
        return item
    if hasattr(item, "to_json"):
        item = item.to_json()
    if not isinstance(item, Mapping):
        raise ValueError(f"suggestions: cannot show a {type(item).__name__}")
    option = item.get("option", item.get("name"))
    gpus = item.get("gpus")
    if isinstance(option, Mapping):
        gpus = option.get("gpus", gpus)
        kind = option.get("kind")
        option = option.get("name") if not kind else f"{kind}: {option.get('name')}"
    if not option:
        raise ValueError("suggestions: an item has no option name")
    seconds = _dig(item, "time", "seconds", default=item.get("seconds"))
    hours = item.get("hours", seconds / 3600 if isinstance(seconds, int | float) else None)
    cost = _dig(item, "cost", "usd", default=item.get("cost_usd"))
    return SuggestionRow(str(option), item.get("fits"), int(gpus or 1), hours, cost,
                         str(item.get("why", "")))


def advice_rows(suggestions: Iterable, limit: int = 10) -> list[SuggestionRow]:
    """The first ``limit`` ranked suggestions (:class:`gpuadvisor.core.advisor.Suggestion`)
    as report rows; time and cost only for the options that fit."""
    rows = []
    for s in list(suggestions)[:limit]:
        rows.append(SuggestionRow(s.option.label, s.fits, s.n_gpus,
                                  s.hours if s.fits else None,
                                  s.cost_usd if s.fits else None, s.why))
    return rows


def _dig(item: Mapping, outer: str, inner: str, default=None):
    value = item.get(outer)
    return value.get(inner, default) if isinstance(value, Mapping) else default


# ------------------------------------------------------------------------------ sections
@dataclass(frozen=True)
class _Table:
    header: tuple[str, ...]
    rows: list[tuple[str, ...]]


_Block = _Table | str
_Section = tuple[str, list[_Block]]


def _num(value: object) -> str:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return str(value)
    return f"{value:.4g}" if math.isfinite(value) else "n/a"


def _plan_section(e: Estimate) -> _Section:
    p = e.plan
    params = f"{format_count(e.params.total)} parameters"
    if p.is_training:
        params += f", {format_count(e.params_trainable)} trainable"
    rows = [("Model", f"{e.model.name} ({params})"),
            ("Task", TASK_LABELS[p.task]),
            ("Precision", PRECISION_LABELS[p.precision])]
    if p.is_training:
        rows.append(("Optimizer", p.optimizer))
    rows.append(("Batch", f"micro-batch {p.micro_batch} x accumulation {p.grad_accum} x "
                          f"sequence {p.seq_len}"))
    gpus = f"{p.n_gpus} x {e.gpu.name}" if e.gpu else f"{p.n_gpus} (no GPU chosen)"
    if p.zero_stage:
        gpus += f", ZeRO-{p.zero_stage}"
    if p.offload != "none":
        gpus += f", offload {p.offload}"
    rows.append(("GPUs", gpus))
    if p.is_training:
        rows.append(("Checkpointing", p.checkpointing))
    if p.is_adapter:
        rows.append(("LoRA", f"rank {p.effective_lora_rank} on {p.lora_targets}"))
    if p.effective_quant != "none":
        rows.append(("Base weights", p.effective_quant))
    return "Plan", [_Table(("", ""), rows)]


def _memory_section(e: Estimate) -> _Section:
    rows = [(TERM_LABELS[t], format_bytes(getattr(e.memory, t))) for t in TERMS]
    rows.append(("total", format_bytes(e.memory.total)))
    blocks: list[_Block] = [_Table(("term", "per GPU"), rows)]
    if e.gpu is not None:
        blocks.append(f"{e.gpu.name} has {format_bytes(e.capacity_bytes)} a process can "
                      f"allocate ({e.gpu.usable_source}): {e.verdict}.")
    if e.memory.cpu_bytes:
        blocks.append(f"Host RAM for offload: {format_bytes(e.memory.cpu_bytes)}.")
    return "Memory per GPU", blocks


def _time_section(e: Estimate) -> _Section:
    t = e.time
    rows = [("GPU timed", e.time_gpu.name), ("Wall-clock", format_duration(t.seconds)),
            ("GPU-hours", format_sig(t.gpu_hours)),
            ("Throughput", f"{format_count(t.tokens_per_s)} tokens/s (all GPUs)"),
            ("Achieved", f"{t.achieved_tflops_per_gpu:.1f} TFLOPS per GPU "
                         f"(efficiency {t.efficiency:.2f})"),
            ("Bound by", t.bound)]
    return "Time", [_Table(("", ""), rows)]


def _rig_section(rig: Mapping) -> _Section:
    scalars: list[tuple[str, str]] = []
    blocks: list[_Block] = []
    for key, value in rig.items():
        if isinstance(value, Mapping):
            scalars += [(f"{key}.{k}", _num(v)) for k, v in value.items()
                        if not isinstance(v, Mapping | list)]
        elif isinstance(value, list) and value and all(isinstance(v, Mapping) for v in value):
            columns = list(dict.fromkeys(k for v in value for k in v))
            rows = [tuple(_cell(k, v.get(k)) for k in columns) for v in value]
            blocks += [f"{key}:", _Table(tuple(columns), rows)]
        else:
            scalars.append((str(key), _cell(str(key), value)))
    if scalars:
        blocks.insert(0, _Table(("", ""), scalars))
    return "Rig", blocks


def _cell(key: str, value: object) -> str:
    if value is None:
        return "n/a"
    if key.endswith("_bytes") and isinstance(value, int | float):
        return format_bytes(value)
    if isinstance(value, float) and abs(value) >= 1e5:
        return format_count(value)
    return _num(value)


def _probe_section(probes: Iterable) -> _Section:
    rows = []
    for result in probes:
        get = result.get if isinstance(result, Mapping) else (
            lambda name, default=None, r=result: getattr(r, name, default))
        units = get("units", {}) or {}
        for figure, value in (get("figures", {}) or {}).items():
            rows.append((str(get("probe", "?")), str(figure), _num(value),
                         str(units.get(figure, ""))))
    return "Probe results", [_Table(("probe", "figure", "value", "unit"), rows)]


def _suggestion_section(suggestions: Iterable) -> _Section:
    rows = []
    for rank, item in enumerate((suggestion_row(s) for s in suggestions), start=1):
        fits = {True: "yes", False: "no", None: "?"}[item.fits]
        hours = format_duration(item.hours * 3600) if item.hours is not None else "n/a"
        cost = format_money(item.cost_usd) if item.cost_usd is not None else "n/a"
        rows.append((str(rank), item.option, fits, str(item.gpus), hours, cost, item.why))
    return "Suggestions", [_Table(("#", "option", "fits", "GPUs", "time", "cost", "why"), rows)]


def report_sections(estimate: Estimate, *, rig: Mapping | None = None,
                    probes: Iterable | None = None,
                    suggestions: Iterable | None = None) -> list[_Section]:
    """The report's sections in order (shared by both formats)."""
    sections = [_plan_section(estimate), _memory_section(estimate), _time_section(estimate)]
    sections.append(("Assumptions", [_Table(("name", "value"), [
        (str(k), _cell(str(k), v)) for k, v in estimate.assumptions.items()])]))
    if estimate.warnings:
        sections.append(("Warnings", [str(w) for w in estimate.warnings]))
    if rig:
        sections.append(_rig_section(rig))
    if probes:
        sections.append(_probe_section(probes))
    if suggestions:
        sections.append(_suggestion_section(suggestions))
    return sections


def _charts(charts: Mapping[str, bytes] | Sequence[tuple[str, bytes]] | None
            ) -> list[tuple[str, str]]:
    """(caption, data URI) for each chart; ``ValueError`` for bytes that are not a PNG."""
    items = list(charts.items()) if isinstance(charts, Mapping) else list(charts or ())
    out = []
    for caption, data in items:
        if not isinstance(data, bytes | bytearray) or not data.startswith(PNG_SIGNATURE):
            raise ValueError(f"chart {caption!r}: not PNG bytes")
        out.append((str(caption), "data:image/png;base64," + base64.b64encode(data).decode()))
    return out


def _title(estimate: Estimate, title: str | None) -> str:
    return title or f"gpuadvisor report: {estimate.model.name}"


def _stamp(generated: str | None) -> str:
    when = generated or datetime.now().strftime("%Y-%m-%d %H:%M")
    return f"Generated {when} by gpuadvisor {__version__}. Estimates, not measurements, " \
           "unless a row says measured."


# ------------------------------------------------------------------------------ Markdown
def _md(text: str) -> str:
    """Escape text for a Markdown table cell or paragraph."""
    text = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    for char in "\\|*_`[]":
        text = text.replace(char, "\\" + char)
    return text.replace("\n", " ")


def markdown_report(estimate: Estimate, *, rig: Mapping | None = None,
                    probes: Iterable | None = None, suggestions: Iterable | None = None,
                    charts: Mapping[str, bytes] | Sequence[tuple[str, bytes]] | None = None,
                    title: str | None = None, generated: str | None = None) -> str:
    """The report as Markdown (charts, if given, as inline data-URI images).

    Args:
        estimate: the core estimate of the plan.
        rig: what was detected (e.g. ``detect --json``'s object), optional.
        probes: probe results: dicts or objects with ``probe``, ``figures``, ``units``.
        suggestions: ranked options (see :func:`suggestion_row`).
        charts: caption -> PNG bytes.
        title: the heading (default: the model's name).
        generated: the time stamp text (default: now).

    Raises:
        ValueError: a chart that is not a PNG, or a suggestion that cannot be read.
    """
    lines = [f"# {_md(_title(estimate, title))}", "", _md(_stamp(generated)), ""]
    for heading, blocks in report_sections(estimate, rig=rig, probes=probes,
                                           suggestions=suggestions):
        lines += [f"## {_md(heading)}", ""]
        for block in blocks:
            if isinstance(block, str):
                lines += [_md(block), ""]
                continue
            lines.append("| " + " | ".join(_md(h) for h in block.header) + " |")
            lines.append("|" + "---|" * len(block.header))
            lines += ["| " + " | ".join(_md(c) for c in row) + " |" for row in block.rows]
            lines.append("")
    chart_list = _charts(charts)
    if chart_list:
        lines += ["## Charts", ""]
        for caption, uri in chart_list:
            lines += [f"![{_md(caption)}]({uri})", ""]
    return "\n".join(lines)


# ------------------------------------------------------------------------------ HTML
_CSS = """body{font-family:system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem;
color:#1d1d1f}table{border-collapse:collapse;margin:.5rem 0 1rem}td,th{border:1px solid #ccc;
padding:.25rem .6rem;text-align:left;vertical-align:top}th{background:#f2f2f2}
figure{margin:1rem 0}img{max-width:100%}.stamp{color:#666}"""


def html_report(estimate: Estimate, *, rig: Mapping | None = None,
                probes: Iterable | None = None, suggestions: Iterable | None = None,
                charts: Mapping[str, bytes] | Sequence[tuple[str, bytes]] | None = None,
                title: str | None = None, generated: str | None = None) -> str:
    """The report as one self-contained HTML page (styles inline, charts as data URIs).

    Arguments as :func:`markdown_report`. Every text is escaped with :func:`html.escape`.
    """
    esc = html.escape
    head = esc(_title(estimate, title))
    out = ["<!DOCTYPE html>", '<html lang="en">', "<head>", '<meta charset="utf-8">',
           f"<title>{head}</title>", f"<style>{_CSS}</style>", "</head>", "<body>",
           f"<h1>{head}</h1>", f'<p class="stamp">{esc(_stamp(generated))}</p>']
    for heading, blocks in report_sections(estimate, rig=rig, probes=probes,
                                           suggestions=suggestions):
        out.append(f"<h2>{esc(heading)}</h2>")
        for block in blocks:
            if isinstance(block, str):
                out.append(f"<p>{esc(block)}</p>")
                continue
            out.append("<table>")
            if any(block.header):
                out.append("<tr>" + "".join(f"<th>{esc(h)}</th>" for h in block.header)
                           + "</tr>")
            out += ["<tr>" + "".join(f"<td>{esc(c)}</td>" for c in row) + "</tr>"
                    for row in block.rows]
            out.append("</table>")
    chart_list = _charts(charts)
    if chart_list:
        out.append("<h2>Charts</h2>")
        for caption, uri in chart_list:
            out.append(f'<figure><img src="{uri}" alt="{esc(caption)}">'
                       f"<figcaption>{esc(caption)}</figcaption></figure>")
    out += ["</body>", "</html>", ""]
    return "\n".join(out)


__all__ = ["PNG_SIGNATURE", "SuggestionRow", "advice_rows", "html_report", "markdown_report",
           "report_sections", "suggestion_row"]
