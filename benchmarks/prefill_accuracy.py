"""Prompt processing (prefill) of llama.cpp: the estimate against published llama-bench ``ppN``.

Reads the ``pp`` rows of ``benchmarks/calibration/llamacpp_bench.json`` (each with its
source), estimates a prompt of N tokens on the row's GPU with the row's GGUF type and flash
attention setting (``gpuadvisor estimate --task infer --framework llama.cpp --seq N``) and
prints the published tokens/s, the estimate and the naive figure (the card's fp16 dense
peak over ``2 x parameters`` per token), each with its error, then the medians. Nothing
here is fitted to these rows.

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
from gpuadvisor.core.plan import Plan  # noqa: E402
from gpuadvisor.core.resolve import resolve  # noqa: E402

#: llama-bench's model names -> the catalog presets of the same shapes.
MODELS = {"llama 7B": "llama-2-7b", "llama 8B": "llama-3.1-8b", "llama 13B": "llama-2-13b",
          "llama 70B": "llama-3.1-70b", "gpt-oss 20B": "gpt-oss-20b"}


def main(path: str | None = None) -> int:
    data = json.loads(Path(path or ROOT / "benchmarks/calibration/llamacpp_bench.json")
                      .read_text())
    models, gpus = catalog.load_models(), catalog.load_gpus()
    ours, naive = [], []
    print(f"{'row':<8}{'GPU':<14}{'model':<16}{'quant':<8}{'test':<8}{'published':>10}"
          f"{'estimate':>10}{'err':>7}{'naive':>9}{'err':>7}")
    for row in data["rows"]:
        if not row["test"].startswith("pp"):
            continue
        model_id = MODELS.get(row["model"])
        if row["catalog_id"] not in gpus or model_id not in models:
            print(f"{row['id']:<8}skipped: {row['device']} / {row['model']} not in the catalog")
            continue
        n = int(row["test"][2:])
        model, gpu = models[model_id], gpus[row["catalog_id"]]
        plan = Plan(task="infer", framework="llama.cpp", quant=row["quant"].lower(),
                    seq_len=n, new_tokens=1,
                    attention="flash" if row["flash_attn"] is not False else "eager")
        est = n / resolve(model, plan, gpu).time.prefill_seconds
        flat = gpu.fp16_tensor_tflops * 1e12 / (2.0 * model.params().active)
        published = row["tokens_per_s"]
        errs = (est / published - 1, flat / published - 1)
        ours.append(abs(errs[0]))
        naive.append(abs(errs[1]))
        print(f"{row['id']:<8}{row['catalog_id']:<14}{model_id:<16}{row['quant']:<8}"
              f"{row['test']:<8}{published:>10,.0f}{est:>10,.0f}{errs[0]:>+7.0%}"
              f"{flat:>9,.0f}{errs[1]:>+7.0%}")
    if ours:
        print(f"median |error| {statistics.median(ours):.1%} (naive "
              f"{statistics.median(naive):.1%}) over {len(ours)} rows")
    return 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:2]))
