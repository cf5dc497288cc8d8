"""Decode speed of llama.cpp: the engine model against published llama-bench figures.

Reads ``benchmarks/calibration/llamacpp_bench.json`` (or the path given as the first
argument), runs the llama.cpp engine model (:mod:`gpuadvisor.core.engines.llamacpp`, the same
functions ``gpuadvisor estimate --framework llama.cpp`` uses) on every decode row whose GPU
is in the catalog and whose model the catalog has, and prints per row the published tokens/s,
the estimate, the naive calculator (datasheet bandwidth / the file's weight bytes) and both
errors; then the median absolute error per group (NVIDIA consumer/workstation, NVIDIA
datacenter, AMD, Apple, Intel) and overall. Rows it cannot run are listed with the reason.

    python benchmarks/decode_accuracy.py [path/to/llamacpp_bench.json]

Conditions: ``tgN`` decodes N tokens from an empty context (``seq 1, new_tokens N``); the old
``./main`` runs (``main_tg1023``) decoded 1023 tokens after a short prompt and did sample, so
their estimate keeps the sampling time; llama-bench does not sample. ``flash_attn`` null is
taken as on. ``n_devices`` > 1 splits the layers over that many GPUs. The backend is the
row's (CUDA, ROCm = HIP, Metal, Vulkan). Each row runs the CUDA graphs of its build's time
(:func:`~gpuadvisor.core.engines.llamacpp.cuda_graphs_on`, by the row's date, build number or
source): none before May 2024, Ampere and later until July 2026 (every scoreboard row here was
collected before), Volta and later since. Nothing here is
fitted to these rows: the engine's constants come from the sources in its module.
"""

from __future__ import annotations

import json
import re
import statistics
import sys
from dataclasses import replace
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from gpuadvisor import catalog  # noqa: E402
from gpuadvisor.core.assumptions import DEFAULT_ASSUMPTIONS  # noqa: E402
from gpuadvisor.core.engines import llamacpp  # noqa: E402
from gpuadvisor.core.engines.combine import engine_time  # noqa: E402
from gpuadvisor.core.gguf_quant import gguf_file_bytes  # noqa: E402
from gpuadvisor.core.model import model_shape  # noqa: E402
from gpuadvisor.core.plan import Plan  # noqa: E402

DEFAULT_PATH = ROOT / "benchmarks" / "calibration" / "llamacpp_bench.json"
#: llama-bench's model names -> catalog presets.
MODELS = {"llama 7B": "llama-2-7b", "llama 8B": "llama-3.1-8b", "llama 13B": "llama-2-13b",
          "llama 70B": "llama-3.1-70b", "qwen2 3B": "qwen2.5-3b", "qwen2 7B": "qwen2.5-7b",
          "gpt-oss 20B": "gpt-oss-20b", "gpt-oss 120B": "gpt-oss-120b",
          "qwen3moe 30B.A3B": "qwen3-30b-a3b", "deepseek2 671B": "deepseek-r1"}
QUANTS = {"Q4_0": "q4_0", "Q4_K_M": "q4_k_m", "Q8_0": "q8_0", "F16": "f16",
          "MXFP4": "mxfp4_moe"}
BACKENDS = {"CUDA": "cuda", "ROCm": "hip", "Metal": "metal", "Vulkan": "vulkan"}
#: Sources whose runs predate CUDA graphs in llama.cpp (PR #6766, merged May 2024) but carry
#: no date: PR #4766's tables (January 2024) and the December 2023 README of
#: XiongjieDai/GPU-Benchmarks-on-LLM-Inference.
UNDATED_BEFORE_GRAPHS = ("pull/4766", "00dd2bdeb2404263f22bd6c1cd46ce397e341db5")


#: Build numbers with a day they existed by, for an upper bound of an undated build's date:
#: below b2800 before May 2024; b5912 was a release by 2025-07-22 (ggml-org/llama.cpp issue
#: #14795, a comment of that day quoting "release b5912").
BUILD_DATES = ((2800, "2024-04-30"), (5913, "2025-07-22"))


def build_date(row: dict) -> str | None:
    """The row's llama.cpp build date, or an upper bound of it (``YYYY-MM-DD``), for the
    rules of its time (:func:`llamacpp.cuda_graphs_on`, :func:`llamacpp.host_s_per_token`):
    its date; the bound of its build number (:data:`BUILD_DATES`); a source known to be
    older; the day a scoreboard's scrape was collected (``read_via``); a pull request
    numbered below #25749 (opened before the Volta/Turing change); None (a current build)
    otherwise."""
    if row.get("date"):
        return row["date"]
    build = str(row.get("build") or "")
    number = build.split("(")[-1].rstrip(")").strip() if "(" in build else ""
    if number.isdigit():
        bound = next((day for below, day in BUILD_DATES if int(number) < below), None)
        if bound:
            return bound
    if any(mark in row["source"] for mark in UNDATED_BEFORE_GRAPHS):
        return "2024-01-31"
    if collected := re.search(r"collected (\d{4}-\d{2}-\d{2})", row.get("read_via") or ""):
        return collected.group(1)
    if (pull := re.search(r"/pull/(\d+)", row["source"])) and int(pull.group(1)) < 25749:
        return "2026-07-15"
    return None


#: Scoreboards opened after July 2024, so every row on them is a later build: the Vulkan
#: scoreboard (discussion #10879, December 2024), the CUDA and ROCm ones (#15013 and #15021,
#: August 2025).
LATER_SCOREBOARDS = {"discussions/10879": "2024-12", "discussions/15013": "2025-08",
                     "discussions/15021": "2025-08"}


def build_month(row: dict) -> str:
    """``YYYY-MM`` of the row's build as far as known: its date, else the month its
    scoreboard opened (:data:`LATER_SCOREBOARDS`), else ``""``."""
    if row.get("date"):
        return row["date"][:7]
    return next((month for key, month in LATER_SCOREBOARDS.items()
                 if key in row.get("source", "")), "")


def group(gpu) -> str:
    """The row's group for the medians."""
    if gpu.vendor == "nvidia":
        return "NVIDIA datacenter" if gpu.segment == "datacenter" else "NVIDIA consumer"
    return {"amd": "AMD", "apple": "Apple"}.get(gpu.vendor, "Intel")


def decoded_tokens(test: str) -> int | None:
    """Tokens a decode test generates (``tg128`` -> 128, ``main_tg1023`` -> 1023)."""
    name = test.removeprefix("main_")
    if not name.startswith("tg"):
        return None
    return int(name[2:])


def run_row(row: dict, gpus: dict, models: dict):
    """``(estimate, naive, note)`` tokens/s for one row, or ``(None, None, reason)``."""
    new = decoded_tokens(row["test"])
    if new is None:
        return None, None, "not a decode test"
    gpu = gpus.get(row.get("catalog_id") or "")
    if gpu is None:
        return None, None, f"GPU not in the catalog ({row['device']})"
    model_id = MODELS.get(row["model"])
    quant = QUANTS.get(row["quant"])
    if model_id is None or quant is None:
        return None, None, f"model/quant not modelled ({row['model']} {row['quant']})"
    backend = BACKENDS.get(row["backend"])
    if backend is None:
        return None, None, f"backend {row['backend']}"
    shape = model_shape(models[model_id])
    # -ngl 99 (or more): every layer and the output on the GPU as the row ran it, not what
    # --fit would choose; a 2023 Metal build's -ngl 1 also meant the whole model
    ngl = row.get("n_gpu_layers")
    ngl = None if ngl is None or ngl < shape.n_layers else ngl
    plan = Plan(task="infer", framework="llama.cpp", quant=quant, precision="fp16",
                seq_len=1, new_tokens=new, n_gpus=row.get("n_devices") or 1,
                attention="eager" if row.get("flash_attn") is False else "flash",
                gpu_layers=None if ngl is None else shape.n_layers + 1)
    result = llamacpp.evaluate(shape, plan, gpu, DEFAULT_ASSUMPTIONS, backend=backend,
                               build_date=build_date(row))
    if not row["test"].startswith("main_"):  # llama-bench does not sample
        result = replace(result, decode=replace(result.decode, sampling_s=0.0))
    peak = gpu.peak_tflops("fp16")
    time = engine_time(shape, plan, result, peak_tflops=peak,
                       bandwidth_gb_s=gpu.memory_bandwidth_gb_s, measured_bandwidth=False,
                       assumptions=DEFAULT_ASSUMPTIONS)
    naive = gpu.memory_bandwidth_gb_s * 1e9 / gguf_file_bytes(shape, quant)
    return time.decode_tokens_per_s, naive, ""


def main(path: Path = DEFAULT_PATH) -> int:
    data = json.loads(path.read_text(encoding="utf-8"))
    gpus = catalog.load_gpus()
    models = catalog.load_models()
    rows, skipped = [], []
    for row in data["rows"]:
        est, naive, note = run_row(row, gpus, models)
        if est is None:
            if note != "not a decode test":
                skipped.append((row["id"], note))
            continue
        pub = row["tokens_per_s"]
        rows.append((row, group(gpus[row["catalog_id"]]), pub, est, naive))
    print(f"{'id':7} {'gpu':18} {'model':17} {'quant':6} {'test':11} {'pub':>7} "
          f"{'est':>7} {'err':>6} {'naive':>7} {'err':>6}")
    for row, _grp, pub, est, naive in rows:
        print(f"{row['id']:7} {row['catalog_id']:18} {row['model'][:17]:17} "
              f"{row['quant']:6} {row['test']:11} {pub:7.1f} {est:7.1f} "
              f"{(est - pub) / pub:+6.0%} {naive:7.1f} {(naive - pub) / pub:+6.0%}")
    print()
    groups = sorted({g for _, g, *_ in rows})
    print(f"{'group':20} {'rows':>4} {'median |err| est':>17} {'naive':>8}")
    for name in [*groups, "all"]:
        sel = [r for r in rows if name in ("all", r[1])]
        est_err = statistics.median(abs(e - p) / p for _, _, p, e, _ in sel)
        naive_err = statistics.median(abs(n - p) / p for _, _, p, _, n in sel)
        print(f"{name:20} {len(sel):4d} {est_err:17.1%} {naive_err:8.1%}")
    print("\nby the build's age (llama.cpp's decode got faster through 2024: CUDA graphs in May,")
    print("flash attention and kernel fusion later; the engine models a current build):")
    for name, pick in (("2024-07 or later", lambda r: build_month(r) >= "2024-07"),
                       ("older or undated", lambda r: build_month(r) < "2024-07")):
        sel = [r for r in rows if pick(r[0])]
        if sel:
            est_err = statistics.median(abs(e - p) / p for _, _, p, e, _ in sel)
            naive_err = statistics.median(abs(n - p) / p for _, _, p, _, n in sel)
            print(f"{name:24} {len(sel):4d} {est_err:13.1%} {naive_err:8.1%}")
    if skipped:
        print("\nnot compared:")
        for rid, why in skipped:
            print(f"  {rid}: {why}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(Path(sys.argv[1]) if len(sys.argv) > 1 else DEFAULT_PATH))
