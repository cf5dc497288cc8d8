"""Accuracy of the estimator against published measurements.

Runs the estimator on every row of the calibration set (``shared/calibration/published.json``,
or the path given as the first argument) that it can express, prints the error of each row,
and the median and maximum error per kind. Rows it cannot express are listed with the reason.

    python benchmarks/accuracy.py [path/to/published.json]

Comparisons (read each row's ``conditions``):

* ``gpu_hours``/``train_time``: estimated GPU-hours (wall-clock x GPUs) at the default
  efficiency vs. the published figure (which includes restarts and evaluation).
* ``throughput``: estimated tokens/s per GPU at the default efficiency vs. measured.
* ``memory`` (model states): weights + gradients + optimizer states, as the ZeRO paper counts.
* ``memory`` (nvidia-smi): the whole breakdown, with the CUDA context the source states.
* ``memory`` (peak allocated, GPTQ): tensors only (breakdown minus overhead).
* Megatron TP/PP (``benchmarks/calibration/megatron_runs.json``): published Megatron-LM,
  Megatron-DeepSpeed, NeMo and Megatron-Bridge runs at their own TP/PP/VPP/CP/EP layout and
  global batch, in tokens/s per GPU (TFLOP/s converted with the row's own FLOPs formula):
  the default (anchored) estimate, the unanchored kernel-rate one and the naive calculator,
  with the median error per group.
"""

from __future__ import annotations

import json
import statistics
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from gpuadvisor import catalog  # noqa: E402
from gpuadvisor.core.assumptions import DEFAULT_ASSUMPTIONS  # noqa: E402
from gpuadvisor.core.estimate import estimate  # noqa: E402
from gpuadvisor.core.memory import memory_breakdown  # noqa: E402
from gpuadvisor.core.model import ModelSpec  # noqa: E402
from gpuadvisor.core.plan import Plan  # noqa: E402

DEFAULT_PATH = ROOT.parent / "shared" / "calibration" / "published.json"
GB = 1e9
MB = 1e6
MiB = 2**20


@dataclass
class Row:
    """One compared row."""

    id: str
    kind: str
    label: str
    published: float
    estimated: float
    unit: str
    note: str = ""

    @property
    def error(self) -> float:
        return self.estimated / self.published - 1.0


# --------------------------------------------------------------------------- models
def _decoder(mid, name, L, h, a, f, V, *, kv=0, mlp="gated", norm="rmsnorm", tied=False,
             pos="rope", bias=False, ctx=4096):
    return ModelSpec(id=mid, name=name, n_layers=L, d_model=h, n_heads=a, n_kv_heads=kv or a,
                     d_ff=f, vocab_size=V, max_positions=ctx, mlp=mlp, norm=norm,
                     tied_embeddings=tied, position=pos, qkv_bias=bias, out_bias=bias,
                     mlp_bias=bias)


def _extra_models() -> dict[str, ModelSpec]:
    """Models of the calibration set that are not presets, from their papers' tables."""
    m = {}
    # LLaMA (Touvron et al. 2023, Table 2): 33B and 65B shapes.
    m["llama-33b"] = _decoder("llama-33b", "LLaMA-33B", 60, 6656, 52, 17920, 32000, ctx=2048)
    m["llama-65b"] = _decoder("llama-65b", "LLaMA-65B", 80, 8192, 64, 22016, 32000, ctx=2048)
    # Llama 2 34B (Touvron et al. 2023b): 48 layers, 8192 wide, GQA 8 kv heads.
    m["llama-2-34b"] = _decoder("llama-2-34b", "Llama-2-34B", 48, 8192, 64, 22016, 32000, kv=8)
    # Pythia (Biderman et al. 2023, Table 1): GPT-NeoX blocks, untied, vocab 50304.
    for size, (L, h, a) in {"70m": (6, 512, 8), "160m": (12, 768, 12), "410m": (24, 1024, 16),
                            "1b": (16, 2048, 8), "1.4b": (24, 2048, 16), "2.8b": (32, 2560, 32),
                            "6.9b": (32, 4096, 32), "12b": (36, 5120, 40)}.items():
        m[f"pythia-{size}"] = _decoder(f"pythia-{size}", f"Pythia-{size}", L, h, a, 4 * h,
                                       50304, mlp="gelu", norm="layernorm", bias=True, ctx=2048)
    # MPT (llm-foundry yamls): GELU MLP 4h, no biases, tied, ALiBi, vocab 50368.
    for size, (L, h, a) in {"125m": (12, 768, 12), "1b": (24, 2048, 16), "3b": (32, 2560, 20),
                            "7b": (32, 4096, 32), "13b": (40, 5120, 40), "30b": (48, 7168, 64),
                            "70b": (80, 8192, 64)}.items():
        m[f"mpt-{size}"] = _decoder(f"mpt-{size}", f"MPT-{size}", L, h, a, 4 * h, 50368,
                                    mlp="gelu", norm="layernorm", tied=True, pos="none",
                                    ctx=2048)
    # BLOOM-7b1 (bigscience/bloom-7b1 config.json): 30 layers, 4096 wide, vocab 250880.
    m["bloomz-7b1"] = ModelSpec(
        id="bloomz-7b1", name="bloomz-7b1", n_layers=30, d_model=4096, n_heads=32, d_ff=16384,
        vocab_size=250880, mlp="gelu", norm="layernorm", position="none", tied_embeddings=True,
        qkv_bias=True, out_bias=True, mlp_bias=True, embedding_norm=True)
    # T5-family models by parameter count (encoder-decoder; short tweets: tiny activations).
    m["t0-3b"] = ModelSpec(id="t0-3b", name="T0_3B", kind="opaque",
                           params_override=2_849_757_184, flops_per_sample=1.0)
    m["mt0-xxl"] = ModelSpec(id="mt0-xxl", name="mt0-xxl", kind="opaque",
                             params_override=12_921_057_280, flops_per_sample=1.0)
    # GPT-3 175B shape (Brown et al. 2020): 96 layers, 12288 wide, 96 heads.
    m["gpt3-175b"] = _decoder("gpt3-175b", "GPT-3 175B", 96, 12288, 96, 4 * 12288, 50257,
                              mlp="gelu", norm="layernorm", bias=True, pos="learned", ctx=2048)
    return m


MODEL_BY_NAME = {
    "Llama 2 7B": "llama-2-7b", "Llama 2 13B": "llama-2-13b", "Llama 2 70B": "llama-2-70b",
    "Llama 2 34B": "llama-2-34b", "LLaMA-7B": "llama-2-7b", "LLaMA-13B": "llama-2-13b",
    "LLaMA-33B": "llama-33b", "LLaMA-65B": "llama-65b", "TinyLlama-1.1B": "tinyllama-1.1b",
    "TinyLlama-1.1B (Chinchilla-optimal)": "tinyllama-1.1b",
}
GPU_BY_NAME = {"A100-80GB": "a100-sxm-80gb", "A100-40GB": "a100-sxm-40gb",
               "H100-80GB": "h100-sxm", "H100-80GB (FP8)": "h100-sxm",
               "V100-16GB": "v100-sxm2-16gb", "RTX 3090": "rtx-3090"}


def _model(row, models):
    name = row["model"]
    if name in MODEL_BY_NAME:
        return models[MODEL_BY_NAME[name]]
    if name.startswith("Pythia-"):
        return models[name.lower()]
    if name.startswith("MPT-"):
        return models[name.lower()]
    if name.startswith("LLaMA-") and name.split()[0] in MODEL_BY_NAME:
        return models[MODEL_BY_NAME[name.split()[0]]]
    raise KeyError(name)


# --------------------------------------------------------------------------- comparisons
def gpu_hours_row(row, models, gpus) -> Row:
    model = _model(row, models)
    ctx = int(row["seq"] or 2048)
    precision = "fp16" if "fp16" in (row["precision"] or "") else "bf16"
    plan = Plan(task="pretrain", precision=precision, seq_len=ctx,
                dataset_tokens=float(row["tokens"]), micro_batch=1)
    e = estimate(model, plan, gpus[GPU_BY_NAME[row["gpu"]]])
    published = float(row["value"])
    if row["kind"] == "train_time":  # wall-clock hours on n GPUs
        return Row(row["id"], "train_time", f"{row['model']} on {row['n_gpus']} {row['gpu']}",
                   published, e.time.seconds / row["n_gpus"] / 3600, "h")
    return Row(row["id"], "gpu_hours", f"{row['model']} {row['tokens'] / 1e12:.2f}T tokens",
               published, e.time.gpu_hours, "GPU-h")


def throughput_row(row, models, gpus) -> Row | None:
    cond = row["conditions"]
    if "tokens/s/GPU" not in cond:
        return None
    measured = float(cond.split("throughput ")[1].split(" tokens/s/GPU")[0])
    model = _model(row, models)
    mb = int(cond.split("micro-batch ")[1].split(",")[0])
    ga = int(cond.split("grad-accum ")[1].split(",")[0])
    ckpt = "full" if "activation ckpt True" in cond else "none"
    precision = {"amp_fp8": "fp8", "bf16 (PURE)": "bf16-pure"}.get(row["precision"], "bf16")
    plan = Plan(task="pretrain", precision=precision, seq_len=int(row["seq"]), micro_batch=mb,
                grad_accum=ga, n_gpus=int(row["n_gpus"]), zero_stage=3, checkpointing=ckpt,
                dataset_tokens=1e9)
    e = estimate(model, plan, gpus[GPU_BY_NAME[row["gpu"]]])
    return Row(row["id"], "throughput", f"{row['model']} {row['n_gpus']}x{row['gpu']} "
               f"mb{mb} seq{row['seq']}", measured, e.time.tokens_per_s_per_gpu, "tok/s/GPU",
               f"published MFU {row['value']}%")


#: Pythia's runs as laid out in their GPT-NeoX configs (EleutherAI/pythia @a19eecb,
#: models/<size>/pythia-<size>.yml): model-parallel size (TP), micro-batch per GPU, gradient
#: accumulation; every one runs ZeRO-1, FlashAttention, full activation checkpointing
#: ("checkpoint-activations": true, one layer per checkpoint) and fp16.
PYTHIA_LAYOUT = {"pythia-70m": (1, 32, 1), "pythia-160m": (1, 32, 1),
                 "pythia-410m": (1, 32, 1), "pythia-1b": (1, 16, 1),
                 "pythia-1.4b": (1, 16, 1), "pythia-2.8b": (1, 16, 1),
                 "pythia-6.9b": (2, 8, 2), "pythia-12b": (4, 8, 2)}

#: GPUs of runs whose papers give the count but not in the row: LLaMA (Touvron et al. 2023,
#: §2.4: "2048 A100 GPU with 80GB of RAM"). Llama 2 gives none; the same 2048 is assumed.
ASSUMED_GPUS = 2048


def time_model_rows(rows, models, gpus) -> list[tuple]:
    """GPU-hours and throughput rows three ways: the flat model, the layout model, naive.

    Returns ``(id, label, published, flat, layout, naive, unit)`` for every row the layout
    model can express (the published GPU count, or :data:`ASSUMED_GPUS`; the global batch
    from the row's tokens per step; fused kernels for Megatron-derived stacks: LLaMA's
    xformers code, GPT-NeoX (Pythia), TinyLlama's fused kernels; eager for Composer (MPT)).
    """
    from gpuadvisor.core.parallel.plan_time import LayoutRequest
    from gpuadvisor.core.parallel.search import Constraints
    from gpuadvisor.core.resolve import with_layout

    out = []
    for row in rows:
        if row["kind"] not in ("gpu_hours", "train_time", "throughput", "mfu") \
                or row["model"].endswith("total"):
            continue
        try:
            model = _model(row, models)
            gpu = gpus[GPU_BY_NAME[row["gpu"]]]
        except KeyError:
            continue
        seq = int(row["seq"] or 2048)
        precision = "fp16" if "fp16" in (row["precision"] or "") else "bf16"
        peak = gpu.peak_tflops(precision) * 1e12
        if row["kind"] in ("gpu_hours", "train_time"):
            n = int(row["n_gpus"] or ASSUMED_GPUS)
            tokens = float(row["tokens"])
            batch_tokens = 4e6 if "4M" in str(row["batch"]) else 2 * 1024 * 2048
            global_batch = max(n, round(batch_tokens / seq / n) * n)
            constraints = Constraints()
            # GPT-NeoX (Pythia) is Megatron's code, loss included; LLaMA, Llama 2 and
            # TinyLlama ran their own PyTorch stacks (the Hugging Face-style upcast loss).
            plan = Plan(task="pretrain", precision=precision, seq_len=seq, n_gpus=n,
                        dataset_tokens=tokens,
                        framework="megatron" if model.id in PYTHIA_LAYOUT else "hf")
            if model.id in PYTHIA_LAYOUT:
                tp, mb, ga = PYTHIA_LAYOUT[model.id]
                plan = plan.with_changes(micro_batch=mb, grad_accum=ga, checkpointing="full",
                                         zero_stage=1)
                global_batch = 1024  # 2M tokens = 1024 x 2048 (the Pythia paper, §2.4)
                constraints = Constraints(tp=tp, pp=1, micro_batch=mb, zero=1,
                                          hybrid_shard=False)
            flat = estimate(model, plan.with_changes(n_gpus=1), gpu).time.gpu_hours
            kernels = "fused"
            published = float(row["value"])
            naive = 6.0 * model.params().total * tokens / (peak * 0.40) / 3600.0
        else:
            cond = row["conditions"]
            if "tokens/s/GPU" not in cond:
                continue
            published = float(cond.split("throughput ")[1].split(" tokens/s/GPU")[0])
            n = int(row["n_gpus"])
            mb = int(cond.split("micro-batch ")[1].split(",")[0])
            ga = int(cond.split("grad-accum ")[1].split(",")[0])
            if row["precision"] not in (None, "amp_bf16", "bf16", "bf16 (PURE)"):
                continue
            ckpt = "full" if "activation ckpt True" in cond else "none"
            plan = Plan(task="pretrain", precision="bf16", seq_len=seq, micro_batch=mb,
                        grad_accum=ga, n_gpus=n, zero_stage=3, checkpointing=ckpt,
                        dataset_tokens=1e9, framework="hf")  # llm-foundry: PyTorch + FSDP
            tokens = 1e9
            global_batch = mb * ga * n
            flat = estimate(model, plan, gpu).time.tokens_per_s_per_gpu
            kernels = "eager"
            # llm-foundry's table: FSDP FULL_SHARD at the listed micro-batch, one node's 8
            # GPUs sharding (its yamls' default), the rest replicas only when stated.
            constraints = Constraints(tp=1, pp=1, zero=3, micro_batch=mb)
            naive = peak * 0.40 / (6.0 * model.params().total)
        request = LayoutRequest(global_batch=global_batch, kernels=kernels,
                                constraints=constraints)
        base = estimate(model, plan, gpu)
        try:
            anchored = with_layout(base, DEFAULT_ASSUMPTIONS, request)
            kernel_rates = with_layout(base, DEFAULT_ASSUMPTIONS, request, anchored=False)
        except ValueError:
            continue
        if row["kind"] == "train_time":  # wall-clock hours on n GPUs
            layout, raw = anchored.time.seconds / 3600, kernel_rates.time.seconds / 3600
            flat, naive = flat / n, naive / n
            label = f"{row['model']} on {n} {row['gpu']}"
            unit = "h"
        elif row["kind"] == "gpu_hours":
            layout, raw = anchored.time.gpu_hours, kernel_rates.time.gpu_hours
            label = f"{row['model']} on {n} {row['gpu']}"
            unit = "GPU-h"
        else:
            layout = anchored.time.tokens_per_s_per_gpu
            raw = kernel_rates.time.tokens_per_s_per_gpu
            label = f"{row['model']} {n}x{row['gpu']}"
            unit = "tok/s/GPU"
        out.append((row["id"], label, published, float(flat), float(layout), float(naive),
                    unit, anchored.layout.chosen.layout.describe(), float(raw)))
    return out


def zero_rows(rows, models, gpus) -> list[Row]:
    """ZeRO paper, Table 1: 7.5B params, 64 GPUs, model states per GPU."""
    model = ModelSpec(id="zero-7.5b", name="7.5B", kind="opaque", params_override=7_500_000_000,
                      flops_per_sample=1.0)
    stage = {"CAL051": 0, "CAL052": 1, "CAL053": 2, "CAL054": 3}
    master = DEFAULT_ASSUMPTIONS.with_overrides({"mixed_style": "master"})
    out = []
    for row in rows:
        if row["id"] not in stage:
            continue
        plan = Plan(task="pretrain", precision="fp16", n_gpus=64, zero_stage=stage[row["id"]],
                    dataset_samples=1)
        mem = memory_breakdown(model, plan, master)
        out.append(Row(row["id"], "model_states", f"ZeRO-{stage[row['id']]} 7.5B on 64 GPUs",
                       float(row["value"]), mem.model_states / GB, "GB"))
    return out


BERT_PLANS = {
    # id: (micro_batch, grad_accum, precision, checkpointing, optimizer)
    "CAL065": (4, 1, "fp32", "none", "adamw"),
    "CAL066": (1, 4, "fp32", "none", "adamw"),
    "CAL067": (1, 4, "fp32", "full", "adamw"),
    "CAL068": (4, 1, "fp16", "none", "adamw"),
    "CAL069": (1, 4, "fp16", "full", "adamw"),
    "CAL070": (4, 1, "fp32", "none", "adafactor"),
    "CAL071": (1, 4, "fp16", "full", "adafactor"),
    "CAL072": (4, 1, "fp32", "none", "adamw8bit"),
    "CAL073": (1, 4, "fp16", "full", "adamw8bit"),
}
#: The HF table's rows state their CUDA context: "includes ~1.3 GB CUDA context" and
#: "CUDA kernels alone 1343 MB" (transformers docs, model_memory_anatomy.md).
HF_TABLE_CONTEXT = 1343 * MB


def bert_rows(rows, models, gpus) -> list[Row]:
    model = models["bert-large-uncased"]
    gpu = gpus["v100-sxm2-16gb"]
    assumptions = DEFAULT_ASSUMPTIONS.with_overrides({"cuda_context_bytes": HF_TABLE_CONTEXT})
    out = []
    for row in rows:
        if row["id"] == "CAL064":
            weights = model.params().total * 4
            out.append(Row(row["id"], "memory_smi", "BERT-large context + fp32 weights",
                           float(row["value"]) * MB / MB, (weights + HF_TABLE_CONTEXT) / MB,
                           "MB"))
        if row["id"] not in BERT_PLANS:
            continue
        mb, ga, prec, ckpt, opt = BERT_PLANS[row["id"]]
        plan = Plan(task="full", precision=prec, micro_batch=mb, grad_accum=ga, seq_len=512,
                    checkpointing=ckpt, optimizer=opt, attention="eager", dataset_samples=512)
        e = estimate(model, plan, gpu, assumptions)
        out.append(Row(row["id"], "memory_smi", f"BERT-large {row['method']}",
                       float(row["value"]), e.memory.total / MB, "MB"))
    return out


def peft_rows(rows, models, gpus) -> tuple[list[Row], list[tuple[str, str]]]:
    """PEFT README table (fp32, batch 8, short tweets: activations are small)."""
    out, skipped = [], []
    which = {"T0_3B": "t0-3b", "mt0-xxl": "mt0-xxl", "bloomz-7b1": "bloomz-7b1"}
    gpu = gpus["a100-sxm-80gb"]
    for row in rows:
        if not row["id"].startswith("CAL0") or not 76 <= int(row["id"][3:]) <= 84:
            continue
        key = which[row["model"].split("/")[-1]]
        model = models[key]
        if "ZeRO-3" in row["method"]:
            skipped.append((row["id"], "DeepSpeed ZeRO-3 CPU offload of frozen weights with "
                            "LoRA: which frozen layers stay resident depends on DeepSpeed's "
                            "persistence thresholds, not modelled"))
            continue
        task = "full" if row["method"] == "full fine-tuning" else "lora"
        rank = 8 if task == "lora" else None
        plan = Plan(task=task, precision="fp32", micro_batch=8, seq_len=64, lora_rank=rank,
                    lora_targets="qv", attention="eager", dataset_samples=1000)
        e = estimate(model, plan, gpu)
        value = str(row["value"])
        if value.startswith("OOM"):
            out.append(Row(row["id"], "oom", f"{row['model']} {row['method']} (OOM on 80 GB)",
                           1.0, 0.0 if not e.fits else 1.0 * 0 + 2.0, "fits?",
                           f"estimated {e.memory.total / GB:.0f} GB"))
            continue
        published = float(value.split("GB")[0])
        out.append(Row(row["id"], "memory_smi", f"{row['model']} {row['method']}", published,
                       e.memory.total / GB, "GB", "fp32, seq 64 assumed (short tweets)"))
    return out, skipped


GPTQ_QUANT = {"16-bit": "none", "8-bit": "int8", "4-bit": "int4", "3-bit": "int3"}


def gptq_rows(rows, models, gpus) -> list[Row]:
    out = []
    names = {"LLaMA-7B": "llama-2-7b", "LLaMA-13B": "llama-2-13b", "LLaMA-33B": "llama-33b"}
    for row in rows:
        if not 88 <= int(row["id"][3:]) <= 96:
            continue
        model = models[names[row["model"].split()[0]]]
        quant = GPTQ_QUANT[row["precision"]]
        plan = Plan(task="infer", precision="fp16", micro_batch=1, seq_len=1, new_tokens=2047,
                    quant=quant)
        e = estimate(model, plan, gpus["rtx-3090"])
        allocated = e.memory.total - e.memory.overhead
        out.append(Row(row["id"], "memory_alloc", f"{row['model']} inference 2048 tokens",
                       float(row["value"]), allocated / MiB, "MiB",
                       "tensors only (peak allocated)"))
    return out


def selective_row(row, models) -> Row:
    """Korthikanti et al. Table: selective recompute saves 70% of GPT-3 activations."""
    model = models["gpt3-175b"]
    base = Plan(task="pretrain", seq_len=2048, attention="eager", micro_batch=1)
    from gpuadvisor.core.memory import activation_bytes

    full = activation_bytes(model, base, DEFAULT_ASSUMPTIONS)
    sel = activation_bytes(model, base.with_changes(checkpointing="selective"),
                           DEFAULT_ASSUMPTIONS)
    return Row(row["id"], "ratio", "GPT-3 175B: activations saved by selective recompute",
               float(row["value"]), 100 * (1 - sel / full), "%")


# --------------------------------------------------------------------------- Megatron TP/PP
MEGATRON_PATH = ROOT / "benchmarks" / "calibration" / "megatron_runs.json"
#: Printed groups of ``megatron_runs.json`` (row ``group`` values), in order.
MEGATRON_GROUPS = {
    "Megatron-LM on A100, 2021-22 (Narayanan Table 1, GPT-3 example, BLOOM, MT-NLG)":
        ("narayanan2021", "megatron-gpt3-example", "bloom", "mt-nlg"),
    "Megatron-Core on H100, 2024 weak scaling": ("mcore-h100-2024",),
    "NeMo / Megatron-Bridge on H100, FP8": ("nemo-fp8-h100",),
    "Megatron-Bridge on H100, BF16 MoE": ("bridge-h100",),
}
#: The rows the issue's "within 15%" criterion reads: Megatron TP/PP runs in 16-bit.
MEGATRON_16BIT = ("narayanan2021", "megatron-gpt3-example", "bloom", "mt-nlg",
                  "mcore-h100-2024")
MEGATRON_GPU = {"A100": "a100-sxm-80gb", "H100": "h100-sxm"}


def megatron_flops_per_token(row: dict) -> float:
    """FLOPs per token by the row's own formula (``megatron_runs.json`` ``formulas``).

    ``megatron-2021`` (Narayanan et al. 2021, eq. 3): ``24 c l h^2 (1 + s/(6h) + V/(16 l h))``
    with ``c = 4`` under full recomputation (the recomputed forward counted), else 3.
    ``megatron-core-2024`` (Megatron-LM ``num_floating_point_operations``, multi-head
    attention, no recompute term): ``12 l h^2 ((2 + s/h) + f/h x gated) + 6 h V``.
    """
    layers, h, s, vocab = row["n_layers"], row["d_model"], row["seq"], row["vocab"]
    if row["flops_formula"] == "megatron-2021":
        c = 4 if row["checkpointing"] == "full" else 3
        return 24 * c * layers * h * h * (1 + s / (6 * h) + vocab / (16 * layers * h))
    if row["flops_formula"] == "megatron-core-2024":
        gated = 1.5 if row["mlp"] == "gated" else 1.0
        return 12 * layers * h * h * ((2 + s / h) + row["d_ff"] / h * gated) + 6 * h * vocab
    raise ValueError(f"{row['id']}: unknown flops_formula {row['flops_formula']!r}")


def megatron_published(row: dict) -> float | None:
    """The row's throughput in tokens/s per GPU (``None`` when it gives none to compare)."""
    unit = row["unit"]
    if unit == "tokens/s per GPU":
        return float(row["value"])
    if unit == "s per iteration":
        return row["global_batch"] * row["seq"] / (row["value"] * row["n_gpus"])
    if unit == "TFLOP/s per GPU":
        return row["value"] * 1e12 / megatron_flops_per_token(row)
    return None


def _megatron_model(row: dict, models: dict) -> ModelSpec:
    if row.get("preset"):
        return models[row["preset"]]
    bias = bool(row["bias"])
    position = {"alibi": "none"}.get(row["position"], row["position"])
    return ModelSpec(
        id=row["id"].lower(), name=row["model"], n_layers=row["n_layers"],
        d_model=row["d_model"], n_heads=row["n_heads"], n_kv_heads=row["n_heads"],
        d_ff=row["d_ff"], vocab_size=row["vocab"], max_positions=row["seq"], mlp=row["mlp"],
        norm=row["norm"], position=position, tied_embeddings=row["tied_embeddings"],
        qkv_bias=bias, out_bias=bias, mlp_bias=bias,
        embedding_norm=bool(row.get("embedding_norm")))


@dataclass
class MegatronRow:
    """One published Megatron run against the estimator at its layout."""

    id: str
    group: str
    label: str
    published: float
    default: float
    kernels: float
    naive: float
    anchor_only: float
    layout: str
    searched: str
    assumed: str
    shares: dict

    def err(self, which: str) -> float:
        return getattr(self, which) / self.published - 1.0


def megatron_rows(models, gpus, path: Path = MEGATRON_PATH):
    """Every comparable row of ``megatron_runs.json`` at its published layout.

    Each row is a ``LayoutRequest``: TP, PP, VPP, CP, EP, ZeRO stage, micro-batch and the
    global batch as published, fused kernels (Megatron/Transformer Engine), plain sharding.
    ``manual`` when the source gives every degree; when it leaves the micro-batch, the
    virtual stages or the ZeRO stage open, the row's ``assumed`` value (with its reason) is
    used, else those alone are searched (``auto`` with the rest pinned); the row says
    which. Throughput is the step's: global batch x sequence / step seconds / GPUs
    (benchmark iterations: no restarts or evaluation in it, so no goodput factor).

    Returns ``(compared, skipped, checks)``: :class:`MegatronRow` s, ``(id, why)`` pairs,
    and ``(id, reported TFLOP/s, TFLOP/s from the iteration time by the row's formula)`` for
    rows that publish both (a check of the FLOPs formula used for the conversions).
    """
    from gpuadvisor.core.parallel.plan_time import LayoutRequest
    from gpuadvisor.core.parallel.search import Constraints
    from gpuadvisor.core.resolve import with_layout

    data = json.loads(path.read_text(encoding="utf-8"))
    compared, skipped, checks = [], [], []
    for row in data["rows"]:
        published = megatron_published(row)
        if published is not None and row.get("reported_tflops_per_gpu"):
            checks.append((row["id"], row["reported_tflops_per_gpu"],
                           published * megatron_flops_per_token(row) / 1e12))
        if published is None or row["tp"] is None or row["pp"] is None:
            skipped.append((row["id"], f"{row['model']}: {row['unit']} without the layout "
                                       "(TP/PP/GPUs) in the source"))
            continue
        model = _megatron_model(row, models)
        gpu = gpus[MEGATRON_GPU[row["gpu"].split()[0]]]
        precision = row["precision"] or "bf16"
        plan = Plan(task="pretrain", precision=precision, seq_len=row["seq"],
                    micro_batch=row["micro_batch"] or 1, n_gpus=row["n_gpus"],
                    checkpointing=row["checkpointing"] or "none",
                    attention="eager" if "unfused" in str(row["attention"]) else "flash",
                    dataset_tokens=1e9)
        assumed = {k: v for k, v in row.get("assumed", {}).items() if row.get(k) is None}
        degree = {name: row[name] if row[name] is not None else assumed.get(name)
                  for name in ("micro_batch", "vpp", "zero")}
        open_fields = [name for name, value in degree.items() if value is None]
        constraints = Constraints(tp=row["tp"], pp=row["pp"], vpp=degree["vpp"], cp=row["cp"],
                                  ep=row["ep"], zero=degree["zero"], hybrid_shard=False,
                                  micro_batch=degree["micro_batch"])
        request = LayoutRequest(mode="auto" if open_fields else "manual",
                                constraints=constraints, global_batch=row["global_batch"],
                                gpus_per_node=row["gpus_per_node"], kernels="fused")
        base = estimate(model, plan, gpu)
        try:
            default = with_layout(base, DEFAULT_ASSUMPTIONS, request)
            raw = with_layout(base, DEFAULT_ASSUMPTIONS, request, anchored=False)
        except ValueError as exc:
            skipped.append((row["id"], f"{row['model']}: {exc}"))
            continue
        per_step = row["global_batch"] * row["seq"] / row["n_gpus"]
        anchored = default.layout.chosen.parts
        alone = anchored.compute + anchored.memory_bound + anchored.optimizer
        parts = raw.layout.chosen.parts
        step = parts.step
        shares = {"compute": parts.compute, "memory": parts.memory_bound,
                  "tp": parts.tp_comm + parts.cp_comm + parts.ep_comm,
                  "bubble": parts.pp_bubble + parts.pp_comm,
                  "dp": parts.dp_comm + parts.optimizer}
        peak = gpu.peak_tflops(precision) * 1e12
        compared.append(MegatronRow(
            id=row["id"], group=row["group"],
            label=f"{row['model']} on {row['n_gpus']} {row['gpu'].split()[0]}",
            published=published,
            default=per_step / default.layout.chosen.step_seconds,
            kernels=per_step / step, naive=peak * 0.40 / (6.0 * model.params().total),
            anchor_only=per_step / float(alone),
            layout=raw.layout.chosen.layout.describe(), searched=", ".join(open_fields),
            assumed=", ".join(f"{k} {v}" for k, v in assumed.items() if k != "why"),
            shares={k: float(v) / step for k, v in shares.items()}))
    return compared, skipped, checks


MEGATRON_NOTES = (
    "default: what `estimate --layout manual --tp --pp --global-batch --kernels fused` prints:",
    "  the step model at the published kernel rates x the in-situ factor (0.73). The 2021-22",
    "  A100 runs (NGC 20.12 / PyTorch 1.8-1.11, unfused attention, DeepSpeed's pipeline for",
    "  BLOOM and MT-NLG) keep ~0.61-0.80 of kernel rates, the 2024 Megatron-Core H100 runs",
    "  ~0.7-1.0: MT-NLG's 2021 stack (0.61-0.64) reads fast, the largest 2024 runs slow.",
    "kernels: the same at the kernel rates as published (an upper bound).",
    "anchor_only: the default's per-GPU work alone (its TP/CP/EP collectives, bubble and",
    "  data-parallel traffic left out): 18% off, so the layout terms carry the difference.",
    "H100 2024: the runs overlap TP communication (--tp-comm-overlap); the step model",
    "  exposes every TP collective, so TP-8 rows may read slow by up to that share.",
    "  'searched' = micro-batch / VPP not published, left to the search; it drops VPP where",
    "  the interleaved schedule's activations do not fit 80 GB (314B, 462B), so the bubble",
    "  grows.",
    "FP8 rows: Transformer Engine's recipe: the blocks' linears at the fp8 GEMM fraction",
    "  (mamf-fp8), attention and the output layer 16-bit, the cast-transpose kernels as memory",
    "  traffic; NeMo's tuned stack keeps more of the kernel rates than the median run.",
    "naive: 6N uses all parameters; for an MoE (GPT OSS 120B) that is ~24x the active ones.",
)


def print_megatron(compared: list[MegatronRow], skipped: list[tuple[str, str]],
                   checks: list[tuple[str, float, float]]) -> None:
    """The Megatron TP/PP group: each row, then the median |error| per group."""
    print("Megatron TP/PP: published runs at their own layout (tokens/s/GPU; the row's FLOPs "
          "formula converts TFLOP/s): default = what `--layout manual --tp --pp "
          "--global-batch --kernels fused` prints (anchored), kernels = unanchored kernel "
          "rates, naive = peak x 0.40 / 6N. Shares of the kernel-rate step.")
    print(f"{'id':<8}{'published':>10}{'default':>9}{'kernels':>9}{'naive':>9}  "
          f"{'comp':>5}{'mem':>5}{'tp':>5}{'bub':>5}{'dp':>5}  row; layout")
    for title, groups in MEGATRON_GROUPS.items():
        rows = [r for r in compared if r.group in groups]
        if not rows:
            continue
        print(f"  {title}")
        for r in rows:
            s = r.shares
            searched = f" [searched: {r.searched}]" if r.searched else ""
            searched += f" [assumed: {r.assumed}]" if r.assumed else ""
            print(f"{r.id:<8}{r.published:>10,.1f}{r.err('default'):>+9.1%}"
                  f"{r.err('kernels'):>+9.1%}{r.err('naive'):>+9.1%}  "
                  f"{s['compute']:>5.2f}{s['memory']:>5.2f}{s['tp']:>5.2f}{s['bubble']:>5.2f}"
                  f"{s['dp']:>5.2f}  {r.label}; {r.layout}{searched}")
    print()
    summary = dict(MEGATRON_GROUPS)
    summary["all 16-bit Megatron TP/PP rows (the issue's within-15% set)"] = MEGATRON_16BIT
    for title, groups in summary.items():
        rows = [r for r in compared if r.group in groups]
        if not rows:
            continue
        cells = []
        for which in ("default", "kernels", "naive", "anchor_only"):
            errs = [abs(r.err(which)) for r in rows]
            within = sum(e <= 0.15 for e in errs)
            cells.append(f"{which} {100 * statistics.median(errs):.1f}% ({within}/{len(rows)})")
        print(f"  {title}: n={len(rows)}; median |error| (rows within 15%): " + ", ".join(cells))
    print("  anchor_only: the default's per-GPU work alone (its TP/CP/EP collectives, bubble "
          "and data-parallel traffic left out). On the dense 16-bit rows it is closer than the "
          "default: the anchor already holds them.")
    print()
    if checks:
        print("  FLOPs formula check (reported TFLOP/s vs the iteration time x the row's "
              "formula): " + "; ".join(f"{rid} {rep:g} vs {ours:.1f}"
                                       for rid, rep, ours in checks))
        print()
    print("Why the Megatron rows are off:")
    for line in MEGATRON_NOTES:
        print(f"  {line}")
    if skipped:
        print("Megatron rows not compared:")
        for rid, why in skipped:
            print(f"  {rid:<8} {why}")
    print()


FAR_OFF_NOTES = (
    "Pythia-70M/160M (CAL010-011, -35%/-22%): 6-12 layers of width 512-768 in 2022's GPT-NeoX",
    "  with a CUDA synchronisation per layer ('synchronize-each-layer': true in its configs);",
    "  such small kernels lose more to launch gaps than the in-situ factor holds.",
    "Llama 2 34B (CAL004, -32%): the GPU count and layout are not published (2048 assumed).",
    "MPT-7B at 65k tokens (CAL029, +30%): attention at FlashAttention's 2k-16k fraction; at",
    "  64k its triton kernel runs further from the published fraction.",
    "MPT on A100 at 64-128 GPUs (CAL032-034, -18% to -23%): llm-foundry keeps 0.9-0.96 of",
    "  kernel rates there, a tuned stack: --assume insitu_factor=0.9 models it.",
    "BERT-large fp16 (CAL068, -17%): the HF table's fp16 row keeps fp32 LayerNorm/softmax",
    "  inputs under autocast; the estimator counts all saved activations at 2 bytes.",
    "Opt-in levers: --assume insitu_factor=..., --assume inter_node_gb_s=..., --efficiency",
)


def main(path: Path) -> int:
    rows = json.loads(path.read_text(encoding="utf-8"))
    models = {**catalog.load_models(), **_extra_models()}
    gpus = catalog.load_gpus()
    results: list[Row] = []
    skipped: list[tuple[str, str]] = []
    for row in rows:
        rid = row["id"]
        try:
            if row["kind"] in ("gpu_hours", "train_time"):
                if row["model"].endswith("family total"):
                    skipped.append((rid, "a sum over several models' runs"))
                    continue
                results.append(gpu_hours_row(row, models, gpus))
            elif row["kind"] in ("throughput", "mfu"):
                r = throughput_row(row, models, gpus)
                if r is None:
                    skipped.append((rid, "matmul microbenchmark or MFU without throughput: "
                                         "compared by the probe page, not the estimator"))
                else:
                    results.append(r)
            elif rid == "CAL063":
                results.append(selective_row(row, models))
        except KeyError as exc:
            skipped.append((rid, f"no model/GPU for {exc}"))
    results += zero_rows(rows, models, gpus)
    results += bert_rows(rows, models, gpus)
    peft, peft_skipped = peft_rows(rows, models, gpus)
    results += peft
    skipped += peft_skipped
    results += gptq_rows(rows, models, gpus)
    for rid, why in (
        ("CAL055", "bytes/param accounting: checked exactly in tests/test_memory.py"),
        ("CAL056", "bytes/param accounting: checked exactly in tests/test_memory.py"),
        ("CAL057", "activation formula: checked term by term in tests/test_memory.py"),
        ("CAL062", "full-recompute formula: checked in tests/test_memory.py"),
        ("CAL058-061", "tensor/sequence parallelism is not modelled"),
        ("CAL074-075", "these are the sources of the context and NCCL defaults"),
        ("CAL085-087", "Stable Diffusion DreamBooth: the UNet's activations are measured per "
                       "sample, but the frozen VAE and text encoder resident beside it and "
                       "the script's prior-preservation batch are not modelled"),
    ):
        skipped.append((rid, why))

    compared = time_model_rows(rows, models, gpus)
    laid_out = {row[0]: row for row in compared}
    for r in results:  # time and throughput as `estimate --gpus N` prints them
        if r.id in laid_out and r.kind in ("gpu_hours", "train_time", "throughput"):
            r.estimated = laid_out[r.id][4]
            r.note = f"{r.note + '; ' if r.note else ''}{laid_out[r.id][7]}"
    print(f"{'id':<8}{'kind':<14}{'published':>12}{'estimated':>12}  {'unit':<10}{'error':>8}  row")
    for r in results:
        if r.kind == "oom":
            ok = "ok" if r.estimated == 0.0 else "WRONG"
            print(f"{r.id:<8}{r.kind:<14}{'OOM':>12}{'no fit' if ok == 'ok' else 'fits':>12}  "
                  f"{'':<10}{ok:>8}  {r.label} ({r.note})")
            continue
        print(f"{r.id:<8}{r.kind:<14}{r.published:>12,.1f}{r.estimated:>12,.1f}  {r.unit:<10}"
              f"{100 * r.error:>+7.1f}%  {r.label}{' — ' + r.note if r.note else ''}")
    print()
    groups = {
        "GPU-hours (published training runs)": ["gpu_hours"],
        "wall-clock training time": ["train_time"],
        "throughput (tokens/s/GPU at default efficiency)": ["throughput"],
        "model states (ZeRO paper)": ["model_states"],
        "measured peak memory (nvidia-smi / allocated)": ["memory_smi", "memory_alloc"],
        "ratios": ["ratio"],
    }
    for title, kinds in groups.items():
        errs = [abs(r.error) for r in results if r.kind in kinds]
        if errs:
            median = 100 * statistics.median(errs)
            print(f"{title:<50} n={len(errs):>3}  median |error| {median:5.1f}%"
                  f"  max {100 * max(errs):5.1f}%")
    ooms = [r for r in results if r.kind == "oom"]
    if ooms:
        right = sum(r.estimated == 0.0 for r in ooms)
        print(f"{'out-of-memory verdicts':<50} n={len(ooms):>3}  {right} of {len(ooms)} right")
    print()
    print_time_rows(compared)
    megatron = megatron_rows(models, gpus)
    print_megatron(*megatron)
    print_insitu(compared, megatron[0])
    print("Why the far-off rows are off (read with each row's conditions):")
    for line in FAR_OFF_NOTES:
        print(f"  {line}")
    print()
    print("Not expressed by the estimator:")
    for rid, why in skipped:
        print(f"  {rid:<11} {why}")
    return 0


def print_time_rows(compared) -> None:
    """The time rows (:func:`time_model_rows`) four ways, with the median error per group."""
    if not compared:
        return
    print("Time four ways at each run's GPU count and layout: flat (one GPU's efficiency x "
          "GPUs, data parallel), layout (what `estimate --gpus N` prints: the layout model "
          "at kernel rates x the in-situ factor), kernels (kernel rates as published, an "
          "upper bound), naive 6N / (peak x 0.40):")
    print(f"{'id':<8}{'published':>12}{'flat':>9}{'layout':>9}{'kernels':>9}{'naive':>9}  row")
    for rid, label, pub, flat, lay, naive, unit, how, raw in compared:
        print(f"{rid:<8}{pub:>12,.0f}{flat / pub - 1:>+9.1%}{lay / pub - 1:>+9.1%}"
              f"{raw / pub - 1:>+9.1%}{naive / pub - 1:>+9.1%}  {label} ({unit}; {how})")
    for title, units in (("time of published runs (GPU-hours, wall-clock)", ("GPU-h", "h")),
                         ("throughput (tokens/s/GPU)", ("tok/s/GPU",))):
        group = [row for row in compared if row[6] in units]
        errs = {name: statistics.median(abs(row[index] / row[2] - 1) for row in group)
                for name, index in (("flat", 3), ("layout", 4), ("kernels", 8), ("naive", 5))}
        within = sum(abs(row[4] / row[2] - 1) <= 0.15 for row in group)
        print(f"  {title}, n={len(group)}: median |error| layout (the default) "
              f"{errs['layout']:.1%} ({within} within 15%), naive {errs['naive']:.1%}, "
              f"flat {errs['flat']:.1%}, kernels {errs['kernels']:.1%}")
    print()


def print_insitu(compared, megatron) -> None:
    """The in-situ factor's provenance: published throughput over the layout model's at the
    published kernel rates, per row, and their median (``Assumptions.insitu_factor``)."""
    ratios = {}
    for rid, _label, pub, _flat, _lay, _naive, unit, _how, raw in compared:
        ratios[rid] = raw / pub if unit in ("GPU-h", "h") else pub / raw
    for r in megatron:
        if r.group in MEGATRON_16BIT:
            ratios[r.id] = r.published / r.kernels
    values = sorted(ratios.values())
    q1, q3 = values[len(values) // 4], values[(3 * len(values)) // 4]
    print(f"In-situ ratio (published / the step model at kernel rates), n={len(values)}: "
          f"median {statistics.median(values):.3f}, interquartile {q1:.2f}-{q3:.2f} "
          f"(the default in-situ factor is {DEFAULT_ASSUMPTIONS.insitu_factor}):")
    for start in range(0, len(ratios), 10):
        chunk = list(ratios.items())[start:start + 10]
        print("  " + ", ".join(f"{rid} {v:.2f}" for rid, v in chunk))
    print()

if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1]) if len(sys.argv) > 1 else DEFAULT_PATH))
