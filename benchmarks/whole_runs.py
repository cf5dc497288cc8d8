"""Whole published pre-training runs against what `gpuadvisor estimate --gpus N` prints.

Reads ``benchmarks/calibration/whole_runs.json`` (GPU-hours or days of whole runs, with
sources) and, for every run whose model has a preset and whose GPU count and tokens are
published, estimates the run as a user would type it: the preset, the GPU, ``--gpus N``,
``--tokens``, ``--seq`` and, where the source gives them, ``--global-batch`` and the
TP/PP layout (else the layout search picks), and ``--kernels fused`` where the row's stack
fuses its elementwise kernels. Prints each run's GPU-hours next to the naive
``6N x tokens / (peak x 0.40)`` and the median error of both.

    python benchmarks/whole_runs.py

These rows were gathered after the in-situ factor was set (``Assumptions.insitu_factor``
comes from the rows of ``benchmarks/accuracy.py``): they are a check the factor was not
chosen on.
"""

from __future__ import annotations

import json
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from gpuadvisor import catalog  # noqa: E402
from gpuadvisor.core.assumptions import DEFAULT_ASSUMPTIONS  # noqa: E402
from gpuadvisor.core.estimate import estimate  # noqa: E402
from gpuadvisor.core.parallel.plan_time import LayoutRequest  # noqa: E402
from gpuadvisor.core.parallel.search import Constraints  # noqa: E402
from gpuadvisor.core.plan import Plan  # noqa: E402
from gpuadvisor.core.resolve import with_layout  # noqa: E402

PATH = ROOT / "benchmarks" / "calibration" / "whole_runs.json"

#: Run id -> (preset, catalog GPU, global batch in sequences or None, tp, pp). The global
#: batch and layout are the row's own (its ``global_batch`` / ``parallel_layout`` fields);
#: None leaves them to the defaults a user gets.
RUNS = {
    # MPT-7B's card: "trained for 1T tokens (with batch size 1760 and sequence length 2048)"
    "RUN001": ("mpt-7b", "a100-sxm-40gb", 1760, None, None),
    "RUN002": ("smollm3-3b", "h100-sxm", 576, None, None),  # 2,359,296 tokens / 4096
    "RUN003": ("tinyllama-1.1b", "a100-sxm-40gb", 1024, None, None),
    # BLOOM ran Megatron-DeepSpeed, whose pipeline is DeepSpeed's (PipelineEngine's
    # TrainSchedule, plain 1F1B): no interleaved virtual stages (VPP below)
    "RUN007": ("bloom-176b", "a100-sxm-80gb", 2048, 4, 12),
    "RUN010": ("phi-2", "a100-sxm-80gb", None, None, None),
    "RUN011": ("phi-3-mini-4k", "h100-sxm", None, None, None),
    "RUN014": ("phi-4", "h100-sxm", None, None, None),
    "RUN020": ("llama-3.1-405b", "h100-sxm", 2048, 8, 16),  # 16M tokens / 8192
    "RUN022": ("llama-65b", "a100-sxm-80gb", 2048, None, None),  # 4M tokens / 2048
    "RUN025": ("gpt2", "a100-sxm-40gb", 480, None, None),  # 491,520 tokens / 1024
    # llm.c's launch script: "-b 64 -t 1024 -d 524288", 512 sequences of 1,024 tokens per
    # step (karpathy/llm.c scripts/run_gpt2_124M.sh @f1e2ace)
    "RUN026": ("gpt2", "a100-sxm-80gb", 512, None, None),
}
#: Run id -> the ZeRO stage the row's ``stack`` / ``parallel_layout`` names (FSDP full shard
#: is ZeRO-3, DDP is 0); the others are left to the layout search.
ZERO = {
    "RUN001": 3,  # MPT-7B: "sharded data parallelism using FSDP"
    "RUN003": 3,  # TinyLlama: "FSDP over 16 GPUs"
    "RUN007": 1,  # BLOOM: "ZeRO stage 1"
    "RUN025": 0,  # nanoGPT: "DDP, 8 GPUs, one node"
}
#: Run id -> the virtual pipeline stages the row's stack runs (None: the search picks).
VPP = {"RUN007": 1}
#: Run id -> the micro-batch (sequences per GPU per step) the row's source runs.
MICRO = {
    "RUN025": 12,  # nanoGPT config: "12 batch size * 1024 block size * 5 gradaccum * 8 GPUs"
    "RUN026": 64,  # llm.c run_gpt2_124M.sh: "-b 64 -t 1024 -d 524288" (64 x 1024 per GPU)
}
#: Runs whose stack fuses its elementwise kernels, as the row's ``stack`` says: ``--kernels
#: fused`` (the others keep the default, eager PyTorch kernels).
FUSED = {
    "RUN003",  # TinyLlama: "fused layernorm/SwiGLU/cross-entropy/RoPE"
    "RUN007",  # BLOOM: Megatron-DeepSpeed "fused CUDA kernels"
    "RUN026",  # llm.c: its own CUDA kernels (fused residual + layernorm, fused classifier)
}
#: Runs on a data-parallel stack of plain PyTorch modules (FSDP, DeepSpeed, DDP or their
#: own code) rather than a Megatron-style model-parallel one: the ``hf`` framework, whose
#: loss upcasts the logits (fused under ``--kernels fused``); the others keep the
#: pre-training default, Megatron's vocabulary-parallel loss.
FRAMEWORK = {rid: "hf" for rid in ("RUN001", "RUN003", "RUN010", "RUN011", "RUN014", "RUN022",
                                   "RUN025", "RUN026")}
#: Sequence length where the row gives none: the model's pre-training context as its card
#: states it (Phi-3-mini 4k, Phi-4 4k before its mid-training extension; Llama 3.1 405B's
#: main stage 8k, the paper's §3.4.1).
SEQ = {"RUN011": 4096, "RUN014": 4096, "RUN020": 8192, "RUN022": 2048}


def run_rows(path: Path = PATH) -> list[dict]:
    """Every expressible run: published and estimated GPU-hours, naive, and the layout."""
    rows = json.loads(path.read_text(encoding="utf-8"))["rows"]
    models = catalog.load_models()
    gpus = catalog.load_gpus()
    out = []
    for row in rows:
        if row["id"] not in RUNS or not row.get("gpu_hours"):
            continue
        preset, gpu_id, batch, tp, pp = RUNS[row["id"]]
        model, gpu = models[preset], gpus[gpu_id]
        n = int(row["n_gpus"])
        seq = int(row["seq"] or SEQ[row["id"]])
        tokens = float(row["tokens"])
        plan = Plan(task="pretrain", precision="bf16", seq_len=seq, n_gpus=n,
                    dataset_tokens=tokens, framework=FRAMEWORK.get(row["id"], "auto"))
        base = estimate(model, plan, gpu)
        request = LayoutRequest(global_batch=batch,
                                constraints=Constraints(tp=tp, pp=pp, vpp=VPP.get(row["id"]),
                                                        zero=ZERO.get(row["id"]),
                                                        micro_batch=MICRO.get(row["id"])),
                                kernels="fused" if row["id"] in FUSED else "eager")
        laid = with_layout(base, DEFAULT_ASSUMPTIONS, request)
        peak = gpu.peak_tflops("bf16") * 1e12
        naive = 6.0 * model.params().total * tokens / (peak * 0.40) / 3600.0
        out.append({"id": row["id"], "model": row["model"], "gpus": n, "gpu": gpu_id,
                    "published": float(row["gpu_hours"]), "estimated": laid.time.gpu_hours,
                    "naive": naive, "layout": laid.layout.chosen.layout.describe(),
                    "confidence": row.get("confidence", "")})
    return out


def main() -> int:
    rows = run_rows()
    print(f"{'id':<8}{'published':>12}{'estimate':>10}{'naive':>9}  run (GPU-hours; layout)")
    for r in rows:
        print(f"{r['id']:<8}{r['published']:>12,.0f}{r['estimated'] / r['published'] - 1:>+10.1%}"
              f"{r['naive'] / r['published'] - 1:>+9.1%}  {r['model'][:40]} on {r['gpus']} "
              f"{r['gpu']} ({r['layout']}; {r['confidence']})")
    est = statistics.median(abs(r["estimated"] / r["published"] - 1) for r in rows)
    naive = statistics.median(abs(r["naive"] / r["published"] - 1) for r in rows)
    within = sum(abs(r["estimated"] / r["published"] - 1) <= 0.20 for r in rows)
    print(f"\nwhole runs, n={len(rows)}: median |error| estimate {est:.1%} ({within} within "
          f"20%), naive {naive:.1%}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
