"""``gpuadvisor probe --burn-in MIN``: sustained matmuls, every result checked, with the GPU's
temperature, clocks and power watched live (and a stop at ``--temp-limit``)."""

from __future__ import annotations

import argparse
import sys

from .args import InputError, json_text
from .probe_run import print_run_errors, print_save_problems, print_torch_missing, record_probe_run

#: The longest ``probe --burn-in``, in minutes (a day).
BURN_IN_MAX_MIN = 24 * 60
#: ``--temp-limit`` range, °C: below it no GPU can work under load, above it none survives.
TEMP_LIMIT_RANGE_C = (30.0, 120.0)


def burn_in_minutes(text: str) -> float:
    """argparse type of ``--burn-in``: minutes, more than 0 and at most a day."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number of minutes: {text!r}") from None
    if not 0 < value <= BURN_IN_MAX_MIN:
        raise argparse.ArgumentTypeError(
            f"must be more than 0 and at most {BURN_IN_MAX_MIN} minutes (24 h), got {text}")
    return value


def temp_limit(text: str) -> float:
    """argparse type of ``--temp-limit``: °C within :data:`TEMP_LIMIT_RANGE_C`."""
    low, high = TEMP_LIMIT_RANGE_C
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a temperature in °C: {text!r}") from None
    if not low <= value <= high:
        raise argparse.ArgumentTypeError(
            f"must be between {low:g} and {high:g} °C, got {text}")
    return value


def check_burn_in_flags(args: argparse.Namespace) -> None:
    """InputError when ``--temp-limit``, ``--probes`` or ``--plan`` do not go with the
    burn-in as given."""
    if args.burn_in is None:
        raise InputError("--temp-limit: only with --burn-in MIN")
    if args.probes is not None:
        raise InputError("--probes: --burn-in runs the burnin probe alone; leave out --probes")
    if getattr(args, "plan", None) is not None:
        raise InputError("--plan: --burn-in runs alone; check the plan in a run of its own")


def _worker_device(hello, spec: str) -> dict | None:
    """The ``hello`` device the worker runs on for ``--device spec`` (as the worker picks)."""
    devices = list(hello.devices) if hello is not None else []
    gpus = [d for d in devices if d.get("type") != "cpu"]
    if spec == "auto":
        return gpus[0] if gpus else next((d for d in devices if d.get("id") == "cpu"), None)
    if spec.isdigit():
        return gpus[int(spec)] if int(spec) < len(gpus) else None
    spec = f"{spec}:0" if spec in ("cuda", "xpu") else spec
    return next((d for d in devices if d.get("id") == spec), None)


def _telemetry_backend():
    """``(backend or None, why none)``: this machine's GPU backend for live telemetry."""
    from gpuadvisor.hardware.detect import open_backend

    try:
        backend, hints = open_backend()
    except Exception as exc:  # detection must never stop a burn-in
        return None, f"no GPU telemetry: hardware detection failed ({exc})"
    if backend is None:
        why = "; ".join(hints) or "no NVML/sysfs GPU found"
        return None, f"no GPU telemetry: {why}"
    return backend, ""


def command(args: argparse.Namespace, python: str, no_torch_note: str) -> int:
    """``probe --burn-in MIN``: the burnin probe with live telemetry of its GPU.

    The GPU is watched through the hardware backend (NVML, sysfs) from the worker's ``hello``
    on; reaching the temperature limit asks the worker to stop (it still reports). Exit
    status 0: no wrong result, 1: wrong results (or the run failed).
    """
    import dataclasses
    import threading

    from gpuadvisor.probes import runner, telemetry
    from gpuadvisor.probes.protocol import Hello, Progress

    seconds = args.burn_in * 60.0
    stop_event = threading.Event()
    backend, note = (None, "no GPU telemetry on the CPU") if args.device == "cpu" else (
        _telemetry_backend())
    recorder: telemetry.TelemetryRecorder | None = None
    show_progress = not args.json and sys.stderr.isatty()

    def on_message(message) -> None:
        nonlocal recorder, note
        if isinstance(message, Hello) and backend is not None:
            device = _worker_device(message, args.device)
            if device is None or device.get("type") == "cpu":
                note = "the burn-in runs on the CPU: no GPU telemetry"
                return
            try:
                index, how = telemetry.match_gpu_index(backend.devices(), device)
            except Exception as exc:
                index, how = None, f"the GPU backend failed: {exc}"
            if index is None:
                note = f"no GPU telemetry: {how}"
                return
            recorder = telemetry.TelemetryRecorder(backend, index, temp_limit_c=args.temp_limit,
                                                   stop_event=stop_event)
            recorder.start()
        elif show_progress and isinstance(message, Progress) and message.probe == "burnin":
            latest = recorder.latest if recorder is not None else None
            temp = (f"  GPU {latest.temperature_c:.0f} °C"
                    if latest is not None and latest.temperature_c is not None else "")
            print(f"\r\x1b[Kburn-in  {message.message}{temp}", end="", file=sys.stderr,
                  flush=True)

    try:
        run = runner.run_probes(["burnin"], python=python, device=args.device,
                                timeout_s=args.timeout or runner.burn_in_timeout(seconds),
                                quick=args.suite == "quick", on_message=on_message,
                                worker=runner.WORKER_SCRIPT,
                                options={"burnin": {"seconds": seconds}}, stop_event=stop_event)
    except KeyboardInterrupt:  # run_probes has stopped the worker on the way out
        print("\ngpuadvisor probe: cancelled", file=sys.stderr)
        return 130
    finally:
        if show_progress:
            print("\r\x1b[K", end="", file=sys.stderr, flush=True)
        if recorder is not None:
            recorder.stop()
        if backend is not None:
            backend.close()
    bad_device = next((e for e in run.errors if e.kind == "bad-device"), None)
    if bad_device is not None:
        raise InputError(bad_device.message)
    summary = recorder.summary().to_json() if recorder is not None else None
    if summary is not None:  # the history keeps the summary with the result (not the samples)
        run = dataclasses.replace(run, results=tuple(
            dataclasses.replace(r, conditions={**r.conditions, "telemetry": summary})
            if r.probe == "burnin" else r for r in run.results))
    saved, save_problems = ([], []) if args.no_save else record_probe_run(run)
    result = run.result("burnin")
    if args.json:
        data = run.to_json()
        data["burnin"] = ({"figures": result.figures, "units": result.units,
                           "conditions": result.conditions} if result is not None else None)
        data["telemetry"] = recorder.to_json() if recorder is not None else None
        if recorder is None:
            data["telemetry_note"] = note
        data["history"] = [str(path) for path in saved]
        print(json_text(data))
    else:
        print(_burn_in_text(run, result, summary, note))
        for path in saved:
            print(f"Saved to the probe history: {path}")
    print_save_problems(save_problems)
    if run.torch_missing:
        print_torch_missing(python, no_torch_note)
        return 1
    if result is None or not run.ok:
        if not args.json:
            print_run_errors(run)
        return 1
    return 1 if result.figures.get("mismatches", 0) > 0 else 0


def _burn_in_text(run, result, summary: dict | None, note: str) -> str:
    """The burn-in for people: verdict, throughput per window, then the GPU's telemetry."""
    lines = []
    if result is not None:
        c, f = result.conditions, result.figures
        lines.append(f"Burn-in on {c.get('device')} ({c.get('device_name')}): {c.get('dtype')} "
                     f"n={c.get('n')}, {f.get('duration_s', 0):.1f} s of "
                     f"{c.get('requested_s', 0):g} s (stopped by {c.get('stopped_by')})")
        lines.append(f"  {c.get('verdict')}")
        slowdown = f.get("slowdown_pct", 0.0)
        lines.append(f"  throughput: median {f.get('tflops_median', 0):.4g} TFLOPS; first "
                     f"window {f.get('tflops_first_window', 0):.4g}, last window "
                     f"{f.get('tflops_last_window', 0):.4g} ("
                     + (f"{slowdown:.1f} % slower" if slowdown >= 0 else
                        f"{-slowdown:.1f} % faster") + f"; windows of {c.get('window_s')} s)")
        for wrong in c.get("first_mismatches") or []:
            diff = wrong.get("max_abs_diff")
            lines.append(f"  wrong at iteration {wrong.get('iteration')}: "
                         f"{wrong.get('wrong_elements')} element(s), largest difference "
                         f"{'n/a' if diff is None else f'{diff:g}'}, non-finite "
                         f"{wrong.get('non_finite')}")
    if summary is not None:
        def value(key: str, unit: str, fmt: str = ".0f") -> str:
            number = summary.get(key)
            return "n/a" if number is None else f"{number:{fmt}} {unit}"

        limit = summary.get("temp_limit_c")
        lines.append(f"GPU {summary['device_index']} ({summary.get('device_name')}): "
                     f"{summary['sample_count']} samples; temperature max "
                     f"{value('temperature_max_c', '°C')}, mean "
                     f"{value('temperature_mean_c', '°C', '.1f')}"
                     + (f" (limit {limit:g} °C)" if limit is not None else ""))
        lines.append(f"  SM clock {value('sm_clock_min_mhz', 'MHz')} .. "
                     f"{value('sm_clock_max_mhz', 'MHz')}; power max "
                     f"{value('power_max_w', 'W')}")
        reasons = summary.get("throttle_reasons") or {}
        if reasons:
            lines.append("  clocks held down by: " + ", ".join(
                f"{name} ({share:.0%} of samples)" for name, share in reasons.items()))
        if summary.get("stopped_for_temperature"):
            lines.append(f"  STOPPED at the temperature limit: {summary.get('stop_reason')}")
        for text in summary.get("notes") or []:
            lines.append(f"  {text}")
    elif note:
        lines.append(note)
    for error in run.errors:
        lines.append(f"{error.probe or 'run'}: error ({error.kind}): {error.message}")
    return "\n".join(lines)

