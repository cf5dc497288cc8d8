"""The layout step model against published training throughput (benchmarks/calibration).

    python benchmarks/layouts.py

For each row of ``benchmarks/calibration/throughput.json`` whose model and layout can be
expressed (a GPT/Llama/MPT block with known sizes, bf16/fp16, a catalog GPU), the step model
of ``gpuadvisor.core.parallel`` is evaluated at the published layout (TP, PP, CP, ZeRO/FSDP,
micro-batch, global batch, recomputation) with the published kernel fractions of that GPU
(``core/parallel/rates.py``) times the default in-situ factor (as ``estimate`` runs them) and
the link classes of ``core/parallel/links.py``. Printed:
published tokens/s per GPU, the model's, the naive calculator's
(``peak x 0.40 / 6N``), and the median absolute error of each.
"""

from __future__ import annotations

import json
import statistics
import sys
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from gpuadvisor import catalog
from gpuadvisor.core.assumptions import DEFAULT_ASSUMPTIONS
from gpuadvisor.core.model import ModelSpec
from gpuadvisor.core.parallel.cluster import Cluster
from gpuadvisor.core.parallel.links import default_network, intra_link
from gpuadvisor.core.parallel.plan_time import gpu_rates
from gpuadvisor.core.parallel.search import Constraints, search_layouts
from gpuadvisor.core.plan import Plan

ROWS = Path(__file__).resolve().parent / "calibration" / "throughput.json"

#: MPT sizes from mosaicml/llm-foundry scripts/train/yamls/pretrain/mpt-*.yaml
#: (d_model, n_heads, n_layers); GELU MLP with expansion 4, ALiBi, no biases, vocab 50368.
MPT = {"MPT-350M": (1024, 16, 24), "MPT-1B": (2048, 16, 24), "MPT-3B": (2560, 32, 32),
       "MPT-7B": (4096, 32, 32), "MPT-13B": (5120, 40, 40), "MPT-30B": (7168, 64, 48),
       "MPT-70B": (8192, 64, 80)}


def _gpu_id(text: str | None) -> str | None:
    """Catalog id of a row's GPU as published ("A100-80GB SXM (Selene)", "H100 96GB ...")."""
    text = text or ""
    if "A100" in text:
        return "a100-sxm-40gb" if "40" in text else "a100-sxm-80gb"
    if "H100" in text and "PCIe" not in text:
        return "h100-sxm"
    if "H200" in text:
        return "h200-sxm"
    if "B200" in text and "GB200" not in text:
        return "b200"
    return None


def _gpt(name, h, heads, layers, vocab, mlp="gelu", position="none", norm="layernorm"):
    return ModelSpec(id=name.lower().replace(" ", "-"), name=name, kind="decoder",
                     n_layers=layers, d_model=h, n_heads=heads, n_kv_heads=heads,
                     d_ff=4 * h, vocab_size=vocab, max_positions=8192, mlp=mlp, norm=norm,
                     position=position, tied_embeddings=True, final_norm=True)


def _model(row, models):
    name = row["model"]
    for key, (h, a, layers) in MPT.items():
        if name.startswith(key + " ") or name == key:
            return _gpt(key, h, a, layers, 50368)
    if name.startswith("GPT-2 124M"):
        return models["gpt2"]
    if name.startswith("GPT-2 350M"):
        return models["gpt2-medium"]
    if name.startswith("GPT-2 774M"):
        return models["gpt2-large"]
    if name.startswith("GPT-2 1558M"):
        return models["gpt2-xl"]
    for preset, prefixes in (("llama-3.1-8b", ("Llama 3.1 8B", "Llama 3 8B")),
                             ("llama-3.1-70b", ("Llama 3.1 70B", "Llama 3 70B")),
                             ("llama-3.1-405b", ("Llama 3.1 405B",))):
        if name.startswith(prefixes):
            return models[preset]
    if row.get("n_layers") and row.get("d_model") and row.get("n_heads"):
        return _gpt(name, row["d_model"], row["n_heads"], row["n_layers"],
                    row.get("vocab") or 51200)
    return None


def _tokens_per_s_per_gpu(row) -> float | None:
    unit = row["unit"]
    if unit.startswith("TFLOP/s per GPU"):
        return None  # compared as FLOP rates, see main()
    if unit.startswith("tokens/s per GPU"):
        return float(row["value"])
    if unit.startswith("ms per step") and row.get("global_batch"):
        return row["global_batch"] * row["seq"] / (row["value"] / 1000) / row["n_gpus"]
    return None


def _kernels(row) -> str:
    """The stack's elementwise kernels: fused (Megatron/NeMo, llm.c, torch.compile) or eager."""
    text = f"{row.get('source', '')} {row.get('conditions', '')} {row['model']}"
    if any(word in text for word in ("Megatron", "NeMo", "llm.c")):
        return "fused"
    if "compile" in text.lower() and "without compile" not in text.lower():
        return "fused"
    return "eager"


def _framework(row) -> str:
    """The stack's loss: Megatron's vocabulary-parallel one for Megatron/NeMo rows, else a
    PyTorch loss (llm.c, torchtitan, llm-foundry: ``hf``, fused under fused kernels)."""
    text = f"{row.get('source', '')} {row.get('conditions', '')} {row['model']}"
    return "megatron" if any(word in text for word in ("Megatron", "NeMo")) else "hf"


def _zero(text) -> int:
    text = str(text or "")
    if "SHARD_GRAD_OP" in text or "ZeRO-2" in text:
        return 2
    if "FSDP" in text or "ZeRO-3" in text:
        return 3
    if "ZeRO-1" in text:
        return 1
    return 0


def main() -> int:
    models = catalog.load_models()
    gpus = catalog.load_gpus()
    rows = json.loads(ROWS.read_text(encoding="utf-8"))
    errors_model, errors_naive = [], []
    print(f"{'id':7} {'model':28} {'GPUs':>5} {'published':>10} {'model':>10} {'naive':>10}"
          f" {'err':>7} {'naive err':>9}  layout")
    for row in rows:
        gpu_id = _gpu_id(row.get("gpu"))
        published = _tokens_per_s_per_gpu(row)
        flop_rate = row["unit"].startswith("TFLOP/s per GPU")
        model = _model(row, models)
        precision = str(row.get("precision") or "bf16")
        if (gpu_id is None or (published is None and not flop_rate) or model is None
                or "fp8" in precision
                or "float8" in precision or not row.get("global_batch")
                or not row.get("n_gpus")):
            continue
        gpu = gpus[gpu_id]
        n = int(row["n_gpus"])
        ckpt = {"full": "full", "selective": "selective"}.get(row.get("checkpointing"), "none")
        plan = Plan(task="pretrain", precision="fp16" if precision == "fp16" else "bf16",
                    seq_len=int(row["seq"]), n_gpus=n, checkpointing=ckpt,
                    framework=_framework(row))
        rates, _ = gpu_rates(gpu, "bf16")
        k = DEFAULT_ASSUMPTIONS.insitu_factor  # what `estimate` runs kernels at
        rates = replace(rates, matmul_fraction=rates.matmul_fraction * k,
                        attention_fraction=rates.attention_fraction * k,
                        bandwidth_b_s=rates.bandwidth_b_s * k)
        peak = rates.peak_flops
        intra = intra_link(gpu.p2p_link, gpu.pcie_gen, gpu.name)
        net = default_network(gpu.p2p_link)
        cluster = Cluster(int(row.get("gpus_per_node") or 8), intra.busbw_gb_s,
                          intra.latency_s, net.busbw_gb_s, net.latency_s)
        pinned = Constraints(tp=row.get("tp") or None, pp=row.get("pp") or None,
                             cp=row.get("cp") or None, zero=_zero(row.get("zero"))
                             if row.get("zero") else None,
                             micro_batch=row.get("micro_batch") or None)
        found = search_layouts(model, plan, n_gpus=n, global_batch=int(row["global_batch"]),
                               rates=rates, cluster=cluster, capacity_bytes=1e15,
                               assumptions=DEFAULT_ASSUMPTIONS, constraints=pinned, keep=1,
                               kernels=_kernels(row))
        if not found:
            continue
        best = found[0]
        params = model.params().total
        if flop_rate:
            # Megatron's TFLOP/s count the recomputed forward (Narayanan et al. 2021, eq. 3).
            flops = best.parts.hardware_flops_per_gpu if ckpt == "full" \
                else best.parts.flops_per_gpu
            published = float(row["value"])
            ours = flops / best.step_seconds / 1e12
            naive = 0.40 * peak / 1e12
        else:
            ours = row["global_batch"] * row["seq"] / best.step_seconds / n
            naive = peak * 0.40 / (6.0 * params)
        err = ours / published - 1
        nerr = naive / published - 1
        errors_model.append(abs(err))
        errors_naive.append(abs(nerr))
        print(f"{row['id']:7} {row['model'][:28]:28} {n:5d} {published:10.0f} {ours:10.0f} "
              f"{naive:10.0f} {err:+7.1%} {nerr:+9.1%}  {_kernels(row):5} "
              f"{best.layout.describe()}")
    if errors_model:
        print(f"\nrows: {len(errors_model)}; median |error|: step model "
              f"{statistics.median(errors_model):.1%}, naive calculator "
              f"{statistics.median(errors_naive):.1%}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
