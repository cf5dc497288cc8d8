"""Memory as engines allocate it: ``check-log`` on real logs, planned against observed.

Runs :func:`gpuadvisor.workspace.logs.check_log` (what ``gpuadvisor check-log`` runs) on the
logs in ``tests/probes/logs/`` (SOURCES.md names where each was posted) with the model, GPU
and release the posts name, and prints per log the figure that decides a serving plan: vLLM's
KV-cache capacity in tokens (against the naive sum, ``0.9 x the nominal memory - weights``
over the cache bytes per token) and, for llama.cpp and Ollama, the layers placed on the GPU
(against the naive division of the free memory by the mean layer size). Then the median
absolute error of each. Nothing here is fitted to these logs.

    python benchmarks/log_accuracy.py
"""

from __future__ import annotations

import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from gpuadvisor import catalog  # noqa: E402
from gpuadvisor.core.model import model_shape  # noqa: E402
from gpuadvisor.core.plan import Plan  # noqa: E402
from gpuadvisor.workspace.logs import check_log  # noqa: E402

LOGS = ROOT / "tests" / "probes" / "logs"
GiB = 2**30

#: (log, model preset, GPU, release, plan fields the post states and the log does not print)
CASES = (
    ("vllm-0.6.4-rtx3090-llama3.1-8b-20k.log", "llama-3.1-8b", "rtx-3090", "0.6.4", {}),
    ("vllm-0.6.4-rtx3090-llama3.1-8b-29k-refused.log", "llama-3.1-8b", "rtx-3090", "0.6.4",
     {}),
    # `vllm serve meta-llama/Meta-Llama-3-8B` (its max_model_len 8,192); Llama 3.1 8B has
    # the same shapes
    ("vllm-0.6.5-h100-llama3-8b-table.log", "llama-3.1-8b", "h100-sxm", "0.6.5",
     {"seq_len": 8192 - 256}),
    # Unsloth's vLLM 0.8.2 (V0) on a Colab T4: max_num_seqs 192 ("Num Sequences = 192")
    ("vllm-0.8.2-t4-llama3.2-3b-colab.log", "llama-3.2-3b", "t4", None, {"micro_batch": 192}),
    # TP 8 with expert parallelism, FP8 checkpoint (both read from the log)
    ("vllm-0.10.2-8xl40s-qwen3-235b-a22b-fp8-tp8.log", "qwen3-235b-a22b", "l40s", None, {}),
    # an AWQ checkpoint (4-bit) at 32,768 tokens; only the KV lines were posted, the post
    # names the RTX 4080 and the release
    ("vllm-0.26.0-rtx4080-qwen2.5-7b-awq-32k.log", "qwen2.5-7b", "rtx-4080", "0.26.0",
     {"quant": "int4"}),
    # a Q8_0 GGUF through vLLM ~0.8; the 7.65 GiB card is the 8 GB laptop RTX 4070
    ("vllm-0.8-rtx4070-8gb-llama3.2-3b-q8_0-gguf.log", "llama-3.2-3b", "rtx-4070-laptop",
     "0.8.0", {}),
    ("ollama-0.5.4-rtx4090-llama3.1-8b.log", "llama-3.1-8b", None, None, {}),
    ("ollama-rtx4060-laptop-phi4-partial.log", "phi-4", None, None, {}),
    # the log gives Ollama's placement and the free memory only: an 11 GB / an 80 GB card
    ("ollama-0.11-gemma3-12b-11gb-estimate.log", "gemma-3-12b", "rtx-2080-ti", None, {}),
    ("ollama-llama3.2-3b-80gb-estimate.log", "llama-3.2-3b", "a100-sxm-80gb", None, {}),

)


def _weights(result) -> float:
    """The log's weights per GPU, or, where it prints none, the plan's."""
    return result.reading.observed.get("weights", result.estimate.engine.weights)


def _naive_tokens(result) -> float:
    """``0.9 x nominal memory - the log's weights`` over the cache bytes per token."""
    m = model_shape(result.model)
    per_token = m.kv_elements_per_token * 2.0 / result.plan.n_gpus
    return (0.9 * result.gpu.memory_bytes - _weights(result)) / per_token


def _naive_layers(result) -> float:
    """The free memory over the mean layer (the model file's bytes, or Ollama's own
    ``memory.weights.total`` when the log stops before the file is read)."""
    r = result.reading
    free = r.observed.get("available_memory") or r.observed.get("free_memory")
    total = (r.observed.get("gpu_model_buffer", 0.0) + r.observed.get("host_model_buffer", 0.0)
             or r.observed["ollama_weights_total"])
    return min(free // (total / result.model.n_layers), result.model.n_layers + 1)


def main() -> int:
    models, gpus = catalog.load_models(), catalog.load_gpus()
    kv_errors: list[tuple[float, float]] = []
    layer_errors: list[tuple[float, float]] = []
    print(f"{'log':<50}{'figure':<16}{'observed':>10}{'estimate':>10}{'err':>7}"
          f"{'naive':>10}{'err':>7}")
    for name, model, gpu, version, fields in CASES:
        base = Plan(task="infer", **fields)
        checked = check_log((LOGS / name).read_text(), name, model=models[model],
                            gpu=gpus[gpu] if gpu else None, base=base,
                            engine_version=version, keep=False)
        result = checked.result
        rows = {row.key: row for row in result.rows}
        if result.reading.engine == "vllm":
            row = rows["kv_tokens"] if rows["kv_tokens"].observed else rows["kv_cache"]
            observed = row.observed
            planned = row.planned
            if row.key == "kv_cache":  # no token count printed: the bytes stand for it
                naive = 0.9 * result.gpu.memory_bytes - _weights(result)
            else:
                naive = _naive_tokens(result)
            figure = "KV " + ("tokens" if row.key == "kv_tokens" else "GiB")
            scale = 1 if row.key == "kv_tokens" else GiB
            errs = (planned / observed - 1, naive / observed - 1)
            kv_errors.append(errs)
        else:
            row = rows["gpu_layers"]
            observed, planned, naive, scale = row.observed, row.planned, \
                _naive_layers(result), 1
            figure = "GPU layers"
            errs = (planned / observed - 1, naive / observed - 1)
            layer_errors.append(errs)
        print(f"{name:<50}{figure:<16}{observed / scale:>10,.1f}{planned / scale:>10,.1f}"
              f"{errs[0]:>+7.0%}{naive / scale:>10,.1f}{errs[1]:>+7.0%}")
    for what, errors in (("vLLM KV capacity", kv_errors), ("layers on the GPU", layer_errors)):
        if errors:
            ours = statistics.median(abs(e[0]) for e in errors)
            naive = statistics.median(abs(e[1]) for e in errors)
            print(f"{what}: median |error| {ours:.1%} (naive {naive:.1%}) over "
                  f"{len(errors)} log(s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
