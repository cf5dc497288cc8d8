"""Prompt processing (prefill) of llama.cpp: the estimate against published llama-bench ``ppN``.

Reads the ``pp`` rows of ``benchmarks/calibration/llamacpp_bench.json`` (each with its
source), estimates a prompt of N tokens on the row's GPU with the row's GGUF type, backend
and flash-attention setting (``gpuadvisor estimate --task infer --framework llama.cpp
--seq N --backend B``) and prints the published tokens/s, the estimate and the naive figure
(the card's fp16 dense peak over ``2 x parameters`` per token), each with its error, then
the medians by backend and by the build's kernels.

The prompt rates come from :mod:`gpuadvisor.core.engines.prompt_rates`: CUDA's MMQ from
one RTX 4090 row of the MMQ author's PR (not in this table), Vulkan from test-backend-ops
kernel figures, Metal from the median of the Apple Silicon table's rows, which are in this
table: for those the benchmark also prints the error with the fraction taken from the
other chips only (leave one chip out).

    python benchmarks/prefill_accuracy.py
"""

from __future__ import annotations

import json
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from gpuadvisor import catalog  # noqa: E402
from gpuadvisor.core.compute import flops_per_token  # noqa: E402
from gpuadvisor.core.engines.prompt_rates import METAL_FRACTION  # noqa: E402
from gpuadvisor.core.plan import Plan  # noqa: E402
from gpuadvisor.core.resolve import resolve  # noqa: E402

#: llama-bench's model names -> the catalog presets of the same shapes.
MODELS = {"llama 7B": "llama-2-7b", "llama 8B": "llama-3.1-8b", "llama 13B": "llama-2-13b",
          "llama 70B": "llama-3.1-70b", "gpt-oss 20B": "gpt-oss-20b"}
BACKENDS = {"CUDA": "cuda", "ROCm": "rocm", "Metal": "metal", "Vulkan": "vulkan"}


def before_mmq(row: dict) -> bool:
    """Whether the row's build predates MMQ on the int8 tensor cores as CUDA's default
    prompt kernel (PR #8075, merged 2024-06-24, build 3216): dated earlier, a lower build
    number, or PR #4766's January 2024 tables. Those builds dequantized to fp16 for cuBLAS."""
    if row["backend"] != "CUDA":
        return False
    if row.get("date"):
        return row["date"] < "2024-06-24"
    build = str(row.get("build") or "")
    number = build.split("(")[-1].rstrip(")").strip() if "(" in build else build.lstrip("b")
    if number.isdigit():
        return int(number) < 3216
    return "pull/4766" in row["source"]


def plan_for(row: dict) -> Plan:
    """The row's llama-bench run as a plan."""
    n = int(row["test"][2:])
    return Plan(task="infer", framework="llama.cpp", quant=row["quant"].lower(), seq_len=n,
                new_tokens=1, backend=BACKENDS.get(row["backend"]),
                attention="flash" if row["flash_attn"] is not False else "eager")


def main(path: str | None = None) -> int:
    data = json.loads(Path(path or ROOT / "benchmarks/calibration/llamacpp_bench.json")
                      .read_text())
    models, gpus = catalog.load_models(), catalog.load_gpus()
    results = []
    print(f"{'row':<8}{'GPU':<24}{'model':<15}{'quant':<8}{'backend':<8}{'test':<8}"
          f"{'published':>10}{'estimate':>10}{'err':>7}{'naive':>9}{'err':>7}")
    for row in data["rows"]:
        if not row["test"].startswith("pp"):
            continue
        model_id = MODELS.get(row["model"])
        if row["catalog_id"] not in gpus or model_id not in models:
            print(f"{row['id']:<8}skipped: {row['device']} / {row['model']} not in the catalog")
            continue
        model, gpu = models[model_id], gpus[row["catalog_id"]]
        plan = plan_for(row)
        n = plan.seq_len
        est = n / resolve(model, plan, gpu).time.prefill_seconds
        flat = gpu.fp16_tensor_tflops * 1e12 / (2.0 * model.params().active)
        published = row["tokens_per_s"]
        err, naive = est / published - 1, flat / published - 1
        results.append((row, gpu, err, naive))
        old = " (fp16 cuBLAS build)" if before_mmq(row) else ""
        print(f"{row['id']:<8}{row['catalog_id'][:23]:<24}{model_id:<15}{row['quant']:<8}"
              f"{row['backend']:<8}{row['test']:<8}{published:>10,.0f}{est:>10,.0f}"
              f"{err:>+7.0%}{flat:>9,.0f}{naive:>+7.0%}{old}")

    def summary(name: str, rows) -> None:
        if rows:
            ours = statistics.median(abs(r[2]) for r in rows)
            flat = statistics.median(abs(r[3]) for r in rows)
            within = sum(abs(r[2]) <= 0.20 for r in rows)
            print(f"  {name:<40}{len(rows):>5}{ours:>10.1%}{flat:>9.1%}   {within} within 20%")

    print(f"\n  {'rows':<40}{'n':>5}{'median':>10}{'naive':>9}")
    current = [r for r in results if not before_mmq(r[0])]
    summary("all", results)
    summary("current kernels (not the fp16-cuBLAS builds)", current)
    for backend in ("CUDA", "Metal", "Vulkan", "ROCm"):
        for vendor in ("nvidia", "apple", "amd", "intel"):
            summary(f"{backend} on {vendor}",
                    [r for r in current if r[0]["backend"] == backend and r[1].vendor == vendor])
    summary("CUDA builds before MMQ on int8 tensor cores", [r for r in results if before_mmq(r[0])])

    # Metal: the fraction is the median of these rows; with each chip's own rows left out.
    metal = [r for r in results if r[0]["backend"] == "Metal" and r[0]["model"] == "llama 7B"
             and r[0]["test"] == "pp512"]
    if metal:
        implied = {}
        for row, gpu, _, _ in metal:
            per_token = flops_per_token(models["llama-2-7b"], plan_for(row)).forward
            implied.setdefault(gpu.id, []).append(
                row["tokens_per_s"] * per_token / 1e12 / gpu.fp16_tensor_tflops)
        errors = []
        for _row, gpu, err, _ in metal:
            others = [f for chip, fs in implied.items() if chip != gpu.id for f in fs]
            errors.append(abs((1 + err) * statistics.median(others) / METAL_FRACTION - 1))
        print(f"\nMetal: achieved fraction of the fp16 peak by chip (median {METAL_FRACTION}):")
        print("  " + ", ".join(f"{chip} {statistics.median(fs):.2f}"
                               for chip, fs in implied.items()))
        print(f"  leave one chip out: median |error| {statistics.median(errors):.1%} over "
              f"{len(errors)} rows")
    return 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:2]))
