"""Peak memory of published FSDP + QLoRA / LoRA fine-tunes on two RTX 3090s.

Answer.AI's "Benchmarking QLoRA+FSDP" (AnswerDotAI/fsdp_qlora ``benchmarks_03_2024.md`` @
05ed9f2a60f96a0795cb082bceab70a9b19fd213, "Case Study: A Dual 3090 'Basement Rig'") reports
the peak memory of ``train.py`` (Llama-2 7B and 70B; LoRA rank 64 on every linear layer,
``precision bf16`` (everything bf16), gradient checkpointing, FSDP full shard or its DDP mode,
CPU offload of the parameters for 70B) as PyTorch's ``max_memory_reserved``. That counter
holds neither the CUDA context nor NCCL's buffers, so each estimate is compared as its
per-GPU total less those two (``memory.context_bytes``), beside the total itself.

    python benchmarks/fsdp_qlora_memory.py
"""

from __future__ import annotations

import json
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.cli_run import run_cli  # noqa: E402

GiB = 2**30

#: (label, model, task, sequence, micro-batch, ZeRO stage (3: FSDP full shard, 0: its DDP
#: mode), offload, published peak reserved GiB)
ROWS = (
    ("7B QLoRA, 512 tokens, batch 1", "llama-2-7b", "qlora", 512, 1, 3, "none", 4.98),
    ("7B QLoRA, 2048 tokens, batch 1", "llama-2-7b", "qlora", 2048, 1, 3, "none", 5.21),
    ("7B LoRA, 512 tokens, batch 1", "llama-2-7b", "lora", 512, 1, 3, "none", 10.24),
    ("7B LoRA, 2048 tokens, batch 1", "llama-2-7b", "lora", 2048, 1, 3, "none", 10.22),
    ("7B QLoRA, 2048 tokens, batch 4", "llama-2-7b", "qlora", 2048, 4, 3, "none", 11.22),
    ("7B QLoRA, 2048 tokens, batch 10", "llama-2-7b", "qlora", 2048, 10, 3, "none", 20.97),
    ("7B LoRA, 2048 tokens, batch 4", "llama-2-7b", "lora", 2048, 4, 3, "none", 16.14),
    ("7B LoRA, 2048 tokens, batch 6", "llama-2-7b", "lora", 2048, 6, 3, "none", 21.35),
    ("7B QLoRA DDP, 2048 tokens, batch 8", "llama-2-7b", "qlora", 2048, 8, 0, "none", 20.94),
    ("7B LoRA DDP, 2048 tokens, batch 4", "llama-2-7b", "lora", 2048, 4, 0, "none", 22.04),
    ("70B QLoRA, CPU offload, batch 2", "llama-2-70b", "qlora", 2048, 2, 3, "params", 14.92),
)


def estimate(row) -> dict:
    _, model, task, seq, mb, zero, offload, _ = row
    code, out, err = run_cli(
        "estimate", "--model", model, "--task", task, "--gpu", "rtx-3090", "--gpus", "2",
        "--lora-rank", "64", "--lora-targets", "all", "--checkpointing", "full",
        "--precision", "bf16-pure", "--seq", str(seq), "--micro-batch", str(mb),
        "--layout", "manual", "--zero", str(zero), "--offload", offload, "--tokens", "1M",
        "--no-measured", "--json")
    if code not in (0, 3):
        raise SystemExit(err)
    return json.loads(out)["memory"]


def main() -> None:
    reserved_errors, total_errors = [], []
    print(f"{'run':38s} {'published':>9s} {'reserved':>9s} {'err':>7s} {'total':>7s} {'err':>7s}")
    for row in ROWS:
        memory = estimate(row)
        total = memory["per_gpu_bytes"] / GiB
        reserved = total - memory["context_bytes"] / GiB
        published = row[-1]
        reserved_errors.append(abs(reserved / published - 1))
        total_errors.append(abs(total / published - 1))
        print(f"{row[0]:38s} {published:9.2f} {reserved:9.2f} {reserved / published - 1:+7.1%}"
              f" {total:7.2f} {total / published - 1:+7.1%}")
    print(f"\nmedian |error|: against what PyTorch reserved "
          f"{statistics.median(reserved_errors):.1%}; the total with the CUDA context and "
          f"NCCL {statistics.median(total_errors):.1%} (n={len(ROWS)})")


if __name__ == "__main__":
    main()
