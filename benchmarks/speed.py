"""Speed of the estimator: one plan, and the sweep the GUI redraws on every slider move.

    python benchmarks/speed.py

The sweep is a 64 micro-batch x 64 sequence-length fit map for the plan plus the plan on every
catalog GPU at 1, 2, 4 and 8 GPUs. Goal: at most a quarter of a 60 Hz frame (4 ms); the result
is printed as a fraction of one frame (16.7 ms).
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from gpuadvisor import catalog
from gpuadvisor.core.estimate import sweep_fit_map
from gpuadvisor.core.plan import Plan
from gpuadvisor.core.resolve import resolve

FRAME_MS = 1000.0 / 60.0
GOAL_MS = FRAME_MS / 4


def _time(fn, repeats: int) -> tuple[float, float]:
    """Median and best wall time of ``fn`` in milliseconds."""
    fn()  # warm caches (parameter counts, catalog)
    samples = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        samples.append((time.perf_counter() - start) * 1000.0)
    return statistics.median(samples), min(samples)


def main() -> int:
    models = catalog.load_models()
    gpus = catalog.load_gpus()
    micro_batches = np.arange(1, 65)
    seq_lens = np.unique(np.geomspace(128, 131072, 64).astype(int))
    cases = [
        ("llama-3.1-8b", Plan(task="qlora", checkpointing="full"), "rtx-4090"),
        ("llama-3.1-70b", Plan(task="full", n_gpus=8, zero_stage=3), "h100-sxm"),
        ("mixtral-8x7b", Plan(task="lora", checkpointing="selective"), "a100-sxm-80gb"),
        ("qwen2.5-7b", Plan(task="infer", micro_batch=8, seq_len=8192), "rtx-4090"),
    ]
    print(f"fit map {len(micro_batches)} x {len(seq_lens)}; the estimate is resolve's (every "
          "door's, layouts included)")
    print(f"{'plan':<40}{'estimate':>12}{'sweep':>12}{'of a frame':>12}{'goal':>8}")
    worst = 0.0
    for model_id, plan, gpu_id in cases:
        model, gpu = models[model_id], gpus[gpu_id]
        one, _ = _time(lambda m=model, p=plan, g=gpu: resolve(m, p, g), 200)

        def sweep(m=model, p=plan):
            sweep_fit_map(m, p, micro_batches, seq_lens)

        both, _ = _time(sweep, 100)
        worst = max(worst, both)
        label = f"{model_id} {plan.task} on {gpu_id}"
        ok = "ok" if both <= GOAL_MS else "SLOW"
        print(f"{label:<40}{one:>9.3f} ms{both:>9.3f} ms{both / FRAME_MS:>11.1%}{ok:>8}")
    print(f"worst sweep: {worst:.3f} ms = {worst / FRAME_MS:.1%} of a 16.7 ms frame "
          f"(goal <= 25%, i.e. {GOAL_MS:.2f} ms)")
    _layout_search(models, gpus)
    return 0


#: Goal for one layout search (issue: a 1024-GPU plan answers in at most 50 ms).
SEARCH_GOAL_MS = 50.0


def _layout_search(models, gpus) -> None:
    """Time the layout search (``--layout auto``) for large plans."""
    from gpuadvisor.core.assumptions import DEFAULT_ASSUMPTIONS
    from gpuadvisor.core.parallel.plan_time import LayoutRequest, layout_estimate

    cases = [("llama-3.1-405b", 1024, 1024, 8192, "h100-sxm"),
             ("llama-2-70b", 2048, 1024, 4096, "a100-sxm-80gb"),
             ("llama-3.1-8b", 1024, 1024, 8192, "h100-sxm"),
             ("mixtral-8x7b", 1024, 1024, 4096, "h100-sxm")]
    print(f"\n{'layout search':<40}{'median':>12}{'best':>12}{'goal':>12}")
    for model_id, n, batch, seq, gpu_id in cases:
        plan = Plan(task="pretrain", seq_len=seq, n_gpus=n)
        request = LayoutRequest(global_batch=batch)

        def search(m=models[model_id], p=plan, g=gpus[gpu_id], r=request):
            layout_estimate(m, p, g, DEFAULT_ASSUMPTIONS, dtype="bf16", tokens=1e12,
                            request=r)

        median, best = _time(search, 10)
        ok = "ok" if median <= SEARCH_GOAL_MS else "SLOW"
        label = f"{model_id} on {n} x {gpu_id}"
        print(f"{label:<40}{median:>9.1f} ms{best:>9.1f} ms{ok:>12}")


if __name__ == "__main__":
    sys.exit(main())
