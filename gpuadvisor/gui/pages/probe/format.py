"""What the Probe page says, as text: probe names, figure labels, numbers, times, and the
sentences about interpreters, devices, runs, results and live readings.

Pure functions: no widgets, no Qt, so another front can say the same sentences. Translated
sentences go through ``translate(context, text)``, the signature of Qt's
``QCoreApplication.translate``, which the page passes; the default, :func:`english`, returns
the source text. The sentences are written as literal ``translate("ProbePage", ...)`` calls
because that is how Qt's ``lupdate`` finds them for the catalog (context ``ProbePage``, the
page's class, in ``resources/i18n/*.ts``).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from datetime import datetime
from typing import Any

from gpuadvisor.core.units import format_bytes, format_duration
from gpuadvisor.gui.widgets.wrap import cjk_spacing
from gpuadvisor.probes import telemetry
from gpuadvisor.probes.interpreters import InterpreterInfo

#: ``translate(context, text) -> text for people`` (Qt's ``QCoreApplication.translate``).
Translate = Callable[[str, str], str]

#: The translation context of this page's sentences.
CONTEXT = "ProbePage"


def english(context: str, text: str) -> str:
    """The source text, untranslated: ``translate`` for callers without a Qt catalog."""
    return text


def QT_TRANSLATE_NOOP(context: str, text: str) -> str:
    """Mark ``text`` for the catalog without importing Qt (returns it unchanged)."""
    return text


PROBE_NAMES = {
    "matmul": QT_TRANSLATE_NOOP("ProbePage", "Matmul throughput"),
    "bandwidth": QT_TRANSLATE_NOOP("ProbePage", "Memory bandwidth"),
    "transfer": QT_TRANSLATE_NOOP("ProbePage", "Host ↔ device copies"),
    "step": QT_TRANSLATE_NOOP("ProbePage", "Training step"),
    "dataread": QT_TRANSLATE_NOOP("ProbePage", "Data reading"),
    "plancheck": QT_TRANSLATE_NOOP("ProbePage", "Plan check"),
    "burnin": QT_TRANSLATE_NOOP("ProbePage", "Burn-in"),
}
UNIT_TITLES = {
    "TFLOPS": QT_TRANSLATE_NOOP("ProbePage", "Compute: measured vs catalog peak (TFLOPS)"),
    "GB/s": QT_TRANSLATE_NOOP("ProbePage", "Bandwidth: measured vs catalog (GB/s)"),
}


# ================================================================== names, numbers, times
def probe_name(probe: str | None, translate: Translate = english) -> str:
    """A probe's name for people; ``None`` is the run as a whole."""
    if probe is None:
        return translate("ProbePage", "run")
    text = PROBE_NAMES.get(probe)
    return translate(CONTEXT, text) if text else probe


def probe_names(probes: Sequence[str], translate: Translate = english) -> str:
    """``matmul, bandwidth`` -> ``Matmul throughput, Memory bandwidth``."""
    # the list separator in the reader's language (Chinese lists with "、")
    return translate("Lists", ", ").join(probe_name(p, translate) for p in probes)


def unit_title(unit: str, translate: Translate = english) -> str:
    """The title of the measured-vs-catalog chart of ``unit`` (the unit itself if none)."""
    return translate(CONTEXT, UNIT_TITLES[unit]) if unit in UNIT_TITLES else unit


#: Words of the probes' figure names, for people (acronyms and formats stay as they are:
#: bf16, h2d, gemv, pcie).
FIGURE_WORDS = {
    "median": QT_TRANSLATE_NOOP("ProbePage", "median"),
    "pinned": QT_TRANSLATE_NOOP("ProbePage", "pinned"),
    "pageable": QT_TRANSLATE_NOOP("ProbePage", "pageable"),
    "copy": QT_TRANSLATE_NOOP("ProbePage", "copy"),
    "read": QT_TRANSLATE_NOOP("ProbePage", "read"),
    "triad": QT_TRANSLATE_NOOP("ProbePage", "triad"),
    "achieved": QT_TRANSLATE_NOOP("ProbePage", "achieved"),
    "step": QT_TRANSLATE_NOOP("ProbePage", "step"),
    "decode": QT_TRANSLATE_NOOP("ProbePage", "decode"),
    "memory": QT_TRANSLATE_NOOP("ProbePage", "memory"),
    "bandwidth": QT_TRANSLATE_NOOP("ProbePage", "bandwidth"),
    "tokens": QT_TRANSLATE_NOOP("ProbePage", "tokens"),
    "per": QT_TRANSLATE_NOOP("ProbePage", "per"),
    "peak": QT_TRANSLATE_NOOP("ProbePage", "peak"),
    "allocated": QT_TRANSLATE_NOOP("ProbePage", "allocated"),
    "reserved": QT_TRANSLATE_NOOP("ProbePage", "reserved"),
    "used": QT_TRANSLATE_NOOP("ProbePage", "used"),
    "free": QT_TRANSLATE_NOOP("ProbePage", "free"),
    "total": QT_TRANSLATE_NOOP("ProbePage", "total"),
    "max": QT_TRANSLATE_NOOP("ProbePage", "max"),
}


def figure_label(probe: str, name: str, translate: Translate = english) -> str:
    """``bf16_median_tflops`` of matmul -> ``Matmul throughput: bf16 median`` (the unit goes
    on axes), each word for people where :data:`FIGURE_WORDS` has it."""
    short = name
    for suffix in ("_tflops", "_gb_s", "_bytes", "_pct", "_s"):
        if short.endswith(suffix):
            short = short[: -len(suffix)]
            break
    words = [translate(CONTEXT, FIGURE_WORDS[w]) if w in FIGURE_WORDS else w
             for w in short.split("_")]
    return f"{probe_name(probe, translate)}: {' '.join(words)}"


def measured_probes(results: Mapping[str, Any], translate: Translate = english) -> str:
    """The probes of a stored run that measured something, for people (a probe that was
    skipped, e.g. host copies on a CPU, has no figures and is left out)."""
    return probe_names([p for p, r in results.items()
                        if isinstance(r, Mapping) and r.get("figures")], translate)


def local_time(stamp: str) -> str:
    """An ISO timestamp (UTC, ``Z``) as local ``YYYY-MM-DD HH:MM``; unparsable: as given."""
    try:
        when = datetime.fromisoformat(stamp.replace("Z", "+00:00"))
    except ValueError:
        return stamp
    return when.astimezone().strftime("%Y-%m-%d %H:%M")


def number(value: float | None, unit: str = "") -> str:
    """``1234.5`` -> ``1,234.5`` (six significant digits) with ``unit``; ``None``: empty."""
    if value is None:
        return ""
    text = f"{value:,.6g}"
    return f"{text} {unit}".strip()


def plan_value(unit: str, value: float | None, units: str) -> str:
    """A plan-check figure in its unit: bytes in ``units`` (GiB/GB), long times as durations."""
    if value is None:
        return ""
    if unit == "bytes":
        return format_bytes(value, units, 2)
    if unit == "s":
        return f"{value:.3g} s" if value < 90 else format_duration(value)
    if unit == "tokens/s":
        return f"{value:,.0f} {unit}"
    return f"{value:.3g} {unit}"


# ================================================================== interpreters and devices
def is_cpu(device: Mapping) -> bool:
    """Whether a ``hello`` device is the CPU."""
    return device.get("type") == "cpu" or device.get("id") == "cpu"


def device_where(device: Mapping) -> str:
    """``cuda:0 (NVIDIA GeForce RTX 4090)``: a device in a sentence."""
    return f"{device.get('id')} ({device.get('name', '?')})"


def _device_size(device: Mapping, units: str) -> str:
    memory = device.get("memory_total_bytes")
    return (f", {format_bytes(memory, units)}"
            if isinstance(memory, int | float) and memory > 0 else "")


def device_text(device: Mapping, units: str) -> str:
    """A device in the picker: id, name and memory in ``units``."""
    return f"{device.get('id')} — {device.get('name', '?')}{_device_size(device, units)}"


#: What a CPU's name says that tells one model from another nothing: trademark signs, the
#: words "CPU" and "Processor", the base clock ("@ 2.20GHz").
_NAME_NOISE = re.compile(r"\((?:R|TM)\)|[®™]|\bCPU\b|\bProcessor\b|@\s*[\d.]+\s*[GM]Hz",
                         re.IGNORECASE)

#: Where a picker's text is shortened, what it lost is marked with this.
ELLIPSIS = "…"


def short_device_name(name: str) -> str:
    """A device's name without what tells nothing (:data:`_NAME_NOISE`):
    ``Intel(R) Xeon(R) CPU E5-2680 v4 @ 2.40GHz`` -> ``Intel Xeon E5-2680 v4``; a name
    that would be left empty is kept as it is."""
    short = " ".join(_NAME_NOISE.sub(" ", name).split())
    return short or name


def _first_fitting(candidates: Iterator[str], width: Callable[[str], float],
                   room: float) -> str:
    """The first of ``candidates`` (longest first) that is at most ``room`` wide, else the
    last (which the picker then elides)."""
    text = ""
    for text in candidates:
        if width(text) <= room:
            break
    return text


def fitted_device_text(device: Mapping, units: str, width: Callable[[str], float],
                       room: float) -> str:
    """:func:`device_text` at most ``room`` wide (``width(text)`` measures), shortened by
    whole words, never mid-word: first the name without what tells nothing
    (:func:`short_device_name`), then its leading words ("cpu — …Xeon, 23.5 GiB"), then the
    name (``cpu, 23.5 GiB``); the device's kind and memory stay."""
    ident, size = str(device.get("id")), _device_size(device, units)

    def candidates() -> Iterator[str]:
        yield device_text(device, units)
        words = short_device_name(str(device.get("name", "?"))).split()
        yield f"{ident} — {' '.join(words)}{size}"
        for k in range(1, len(words)):
            yield f"{ident} — {ELLIPSIS}{' '.join(words[k:])}{size}"
        yield f"{ident}{size}"

    return _first_fitting(candidates(), width, room)


def shortened_paths(path: str) -> list[str]:
    """``path`` with ever more of its middle folders left out, whole folders only:
    ``/work/main/.venv/bin/python3`` -> ``/work/…/.venv/bin/python3``,
    ``/work/…/bin/python3``, ``/work/…/python3``, ``…/python3``."""
    sep = "\\" if "\\" in path and "/" not in path else "/"
    parts = re.split(r"[\\/]", path)
    head = 2 if parts[0] == "" and len(parts) > 2 else 1  # "/work" or "C:" or "work"
    shorter = []
    for keep in range(len(parts) - head - 1, 0, -1):  # folders kept at the end
        shorter.append(sep.join([*parts[:head], ELLIPSIS, *parts[-keep:]]))
    if len(parts) > 1:
        shorter.append(sep.join([ELLIPSIS, parts[-1]]))
    return shorter


def _interpreter_state(info: InterpreterInfo, translate: Translate) -> str:
    if info.error is not None and info.torch is None and info.python_version is None:
        state = translate("ProbePage", "does not work: {error}").format(
            error=info.error.splitlines()[0])
    elif info.torch is None:
        state = translate("ProbePage", "no PyTorch")
    elif info.accelerators:
        state = translate("ProbePage", "PyTorch {version}, {accelerators}").format(
            version=info.torch, accelerators=translate("Lists", ", ").join(info.accelerators))
    else:
        state = translate("ProbePage", "PyTorch {version}, CPU only").format(version=info.torch)
    return state


def interpreter_text(info: InterpreterInfo, translate: Translate = english) -> str:
    """An interpreter in the picker: its path, and PyTorch's version and accelerators there."""
    return f"{info.python} — {_interpreter_state(info, translate)}"


def fitted_interpreter_text(info: InterpreterInfo, width: Callable[[str], float],
                            room: float, translate: Translate = english) -> str:
    """:func:`interpreter_text` at most ``room`` wide (``width(text)`` measures), shortened
    by whole folders in the middle of the path (:func:`shortened_paths`), never mid-word;
    PyTorch's version and accelerators stay (at the narrowest, the version alone)."""
    state = _interpreter_state(info, translate)

    def candidates() -> Iterator[str]:
        yield f"{info.python} — {state}"
        paths = shortened_paths(info.python) or [info.python]
        for path in paths:
            yield f"{path} — {state}"
        if info.torch is not None:
            yield f"{paths[-1]} — PyTorch {info.torch}"
            yield f"PyTorch {info.torch}"

    return _first_fitting(candidates(), width, room)


def device_note(device: Mapping | None, info: InterpreterInfo | None, device_count: int, *,
                discovering: bool, simulate: str | None,
                translate: Translate = english) -> str:
    """The line under the pickers: what is measured, where and with which PyTorch.

    Args:
        device: the device picked (a ``hello`` device), or None.
        info: the interpreter picked, or None.
        device_count: how many devices that interpreter offers.
        discovering: interpreters are being looked for.
        simulate: the demo rig the Rig page shows, if any.
        translate: Qt's ``translate`` (default: English).
    """
    if device is None:
        # Without PyTorch the banner below says what to do; nothing to add here.
        if info is None or not info.usable or discovering:
            return ""
        return translate("ProbePage", "No device to measure with this Python.")
    note = translate("ProbePage", "Measures {device} on this machine, with PyTorch "
                     "{torch}.").format(device=device_where(device),
                                        torch=info.torch if info is not None else "?")
    if is_cpu(device) and info is not None and device_count == 1:
        note += " " + translate("ProbePage", "No GPU is visible to PyTorch here, so the CPU "
                                "is measured.")
    if simulate:
        note += " " + translate(
            "ProbePage", "The Rig page shows the demo rig “{spec}”; probes always measure "
            "this machine's real devices.").format(spec=simulate)
    return cjk_spacing(note)


def torch_missing_text(python: str, translate: Translate = english) -> str:
    """The banner when the picked interpreter has no PyTorch but another one has."""
    return translate(
        "ProbePage", "{python} has no PyTorch. Pick another Python above, or install "
        "PyTorch there: {python} -m pip install torch").format(python=python)


def no_torch_text(translate: Translate = english) -> str:
    """The banner when no interpreter has PyTorch: what to do."""
    return translate(
        "ProbePage", "No Python environment with PyTorch was found, so nothing can be "
        "measured yet. Install PyTorch in an environment (python -m pip install torch, or "
        "use your training environment), then choose its python with Browse… or press "
        "Rescan. gpuadvisor itself never loads PyTorch: the probes run in that environment.")


# ================================================================== runs
def run_started_text(kind: str, device: Mapping | None, translate: Translate = english) -> str:
    """``Running quick probes on cuda:0 (…)…``."""
    kinds = {"quick": translate("ProbePage", "quick probes"),
             "full": translate("ProbePage", "full probes"),
             "burnin": translate("ProbePage", "burn-in"),
             "plancheck": translate("ProbePage", "plan check")}
    where = device_where(device) if device else "auto"
    return translate("ProbePage", "Running {kind} on {device}…").format(
        kind=kinds.get(kind, kind), device=where)


def run_finished_text(status: str, duration_s: float, stop_reason: str | None,
                      translate: Translate = english) -> tuple[str, str]:
    """How a run ended, and its severity (``warning``, ``ok`` or ``error``)."""
    if status == "cancelled":
        return translate("ProbePage", "Cancelled after {seconds:.1f} s; nothing was "
                         "saved.").format(seconds=duration_s), "warning"
    if status == "ok":
        text = translate("ProbePage", "Finished in {seconds:.1f} s.").format(
            seconds=duration_s)
        if stop_reason:
            text += " " + translate("ProbePage", "Ended early: {reason}.").format(
                reason=stop_reason)
        return text, "ok"
    return translate("ProbePage", "Finished with problems after {seconds:.1f} s (see "
                     "below).").format(seconds=duration_s), "error"


def run_errors_text(errors: Sequence[Any], translate: Translate = english) -> str:
    """One line per protocol ``Error``: probe, kind and message."""
    return "\n".join(
        translate("ProbePage", "{probe}: {kind} — {message}").format(
            probe=probe_name(e.probe, translate), kind=e.kind, message=e.message)
        for e in errors)


def temperature_reason(gpu_name: str, temperature_c: float, limit_c: int,
                       translate: Translate = english) -> str:
    """Why a burn-in is stopped at its temperature limit."""
    return translate("ProbePage", "{gpu} reached {temp:.0f} °C (limit {limit} °C)").format(
        gpu=gpu_name, temp=temperature_c, limit=limit_c)


def temperature_stop_text(reason: str, translate: Translate = english) -> str:
    """The run status while a burn-in stops at its temperature limit."""
    return translate("ProbePage", "Temperature limit reached: {reason}; the burn-in was "
                     "asked to stop…").format(reason=reason)


# ================================================================== results
def measured_on_text(device_id: str, device_name: str, torch: str | None,
                     catalog_name: str | None, saved: bool,
                     translate: Translate = english) -> str:
    """The line above a device's bars: where, with what, against which catalog entry."""
    text = translate("ProbePage", "Measured on {device} ({name}) with PyTorch {torch}").format(
        device=device_id, name=device_name, torch=torch or "?")
    text += " · " + (translate("ProbePage", "catalog: {gpu}").format(gpu=catalog_name)
                     if catalog_name else
                     translate("ProbePage", "no catalog peaks for this device"))
    if saved:
        text += " · " + translate("ProbePage", "saved to the history")
    return text


def burnin_text(figures: Mapping[str, float], conditions: Mapping[str, Any],
                translate: Translate = english) -> str:
    """The burn-in's verdict and how throughput held from the first window to the last."""
    return translate("ProbePage", "Burn-in: {verdict}. Throughput {first} → {last} TFLOPS "
                     "from the first window to the last ({slowdown:+.1f}%); ended by "
                     "{why}.").format(
        verdict=str(conditions.get("verdict") or ""),
        first=number(figures.get("tflops_first_window")),
        last=number(figures.get("tflops_last_window")),
        slowdown=-float(figures.get("slowdown_pct", 0.0)),
        why=conditions.get("stopped_by", "?"))


def dataread_text(rate_mb_s: float, tokens_per_s: float, verdict: Any, cached: bool,
                  translate: Translate = english) -> str:
    """The dataset disk against the tokens per second the plan trains at.

    Args:
        rate_mb_s: what the disk read.
        tokens_per_s: what the plan trains at.
        verdict: :func:`gpuadvisor.probes.pipeline.data_read_verdict`'s answer.
        cached: the read was probably served from the page cache.
        translate: Qt's ``translate`` (default: English).
    """
    if verdict.bottleneck:
        text = translate("ProbePage", "The dataset disk reads {rate} MB/s; the plan needs "
                         "{need} MB/s ({tokens} tokens/s as 2-byte token ids): the GPU will "
                         "wait on the disk. Pre-tokenize, cache the data in RAM, or use a "
                         "faster disk.")
    else:
        text = translate("ProbePage", "The dataset disk reads {rate} MB/s; the plan needs "
                         "{need} MB/s ({tokens} tokens/s as 2-byte token ids): not a "
                         "bottleneck ({headroom:.0f}x headroom).")
    text = text.format(rate=number(rate_mb_s), need=number(verdict.needed_mb_s),
                       tokens=f"{tokens_per_s:,.0f}", headroom=verdict.headroom)
    if cached:
        text += " " + translate("ProbePage", "The read was probably served from RAM (page "
                                "cache): the disk itself may be slower.")
    return text


def plancheck_heading(comparison: Any, translate: Translate = english) -> str:
    """``{model} — {plan}; estimate for {gpu}`` of a plan-check comparison."""
    return translate("ProbePage", "{model} — {plan}; estimate for {gpu}").format(
        model=comparison.model_name, plan=comparison.plan_text,
        gpu=comparison.estimate_gpu_id)


def plancheck_rows(comparison: Any, units: str) -> list[list[str]]:
    """The plan-check table: figure, measured, estimated, difference."""
    return [[row.label, plan_value(row.unit, row.measured, units),
             plan_value(row.unit, row.estimated, units),
             "" if row.diff_pct is None else f"{row.diff_pct:+.0f}%"]
            for row in comparison.rows]


# ================================================================== live readings
def no_reading_text(cpu: bool, gpu_count: int, translate: Translate = english) -> str:
    """Why there is no live reading of the device measured."""
    if cpu:
        return translate("ProbePage", "The CPU is being measured: there are no GPU readings "
                         "to show.")
    return translate("ProbePage", "No live readings: the GPU being measured was not found "
                     "among {n} GPU(s) the driver reports.").format(n=gpu_count)


def reading_title(index: int, name: str, translate: Translate = english) -> str:
    """``GPU 0: NVIDIA GeForce RTX 4090`` above the live chart."""
    return translate("ProbePage", "GPU {index}: {name}").format(index=index, name=name)


def telemetry_summary_text(samples: Sequence[telemetry.TelemetrySample],
                           translate: Translate = english) -> str:
    """What the live readings of a run showed (temperature, clocks, power, throttling)."""
    if not samples:
        return ""
    s = telemetry.summarize(samples)
    parts = []
    if s.temperature_max_c is not None:
        parts.append(translate("ProbePage", "up to {temp:.0f} °C").format(
            temp=s.temperature_max_c))
    if s.sm_clock_min_mhz is not None:
        parts.append(translate("ProbePage", "SM clock {low}–{high} MHz").format(
            low=s.sm_clock_min_mhz, high=s.sm_clock_max_mhz))
    if s.power_max_w is not None:
        parts.append(translate("ProbePage", "up to {watts:.0f} W").format(watts=s.power_max_w))
    if s.throttle_reasons:
        parts.append(translate("ProbePage", "clocks held down: {reasons}").format(
            reasons=translate("Lists", ", ").join(
                f"{reason} ({100 * share:.0f}%)" for reason, share in
                s.throttle_reasons.items())))
    if not parts:
        return ""
    return translate("ProbePage", "Live readings during the run ({n}): {readings}.").format(
        n=s.sample_count, readings=" · ".join(parts))


__all__ = [
    "CONTEXT", "ELLIPSIS", "PROBE_NAMES", "UNIT_TITLES", "Translate", "burnin_text",
    "dataread_text", "device_note", "device_text", "device_where", "english", "figure_label",
    "fitted_device_text", "fitted_interpreter_text", "interpreter_text", "is_cpu",
    "local_time", "measured_on_text", "no_reading_text", "no_torch_text", "number",
    "plan_value", "plancheck_heading", "plancheck_rows", "probe_name", "probe_names",
    "reading_title", "run_errors_text", "run_finished_text", "run_started_text",
    "short_device_name", "shortened_paths", "telemetry_summary_text", "temperature_reason",
    "temperature_stop_text", "torch_missing_text", "unit_title",
]
