"""Plain-text renderings of estimates and catalog listings for the terminal."""

from __future__ import annotations

from .core.engines.llamacpp_backends import BACKEND_LABELS
from .core.estimate import TERMS, Estimate
from .core.plan import PRECISION_LABELS, TASK_LABELS
from .core.units import format_bytes, format_count, format_duration, format_flops, format_sig

TERM_LABELS = {
    "weights": "weights",
    "gradients": "gradients",
    "optimizer": "optimizer states",
    "activations": "activations",
    "logits": "logits / loss",
    "kv_cache": "KV cache",
    "overhead": "overhead",
}
BAR_WIDTH = 30
#: Inference engines as their projects write their names.
ENGINE_LABELS = {"llama.cpp": "llama.cpp", "ollama": "Ollama", "vllm": "vLLM",
                 "exllamav2": "ExLlamaV2", "mlx": "MLX"}


def _bar(value: float, scale: float) -> str:
    if scale <= 0:
        return ""
    eighths = round(BAR_WIDTH * 8 * min(value / scale, 1.0))
    full, rest = divmod(eighths, 8)
    return "█" * full + ("▏▎▍▌▋▊▉"[rest - 1] if rest else "")


def _plan_line(e: Estimate) -> str:
    p = e.plan
    parts = [
        f"micro-batch {p.micro_batch} × accum {p.grad_accum} × seq {p.seq_len}"
        if e.model.kind != "opaque" else f"micro-batch {p.micro_batch} × accum {p.grad_accum}",
        f"{p.n_gpus} GPU" + ("s" if p.n_gpus > 1 else ""),
    ]
    if p.zero_stage:
        parts.append(f"ZeRO-{p.zero_stage}")
    if p.offload != "none":
        parts.append(f"offload {p.offload}")
    if p.is_training:
        parts.append(f"checkpointing {p.checkpointing}")
    parts.append("FlashAttention" if p.attention == "flash" else "eager attention")
    if p.is_adapter:
        parts.append(f"LoRA r={p.effective_lora_rank} on {p.lora_targets}")
    if p.effective_quant != "none":
        parts.append(f"base {p.effective_quant}")
    return " · ".join(parts)


def _llamacpp_parts(e: Estimate, settings: dict) -> list[str]:
    gguf = settings["gguf_file_type"]
    parts = ["GGUF file as stored" if gguf == "file" else f"GGUF {gguf}"]
    if e.plan.backend is not None:
        parts.insert(0, f"{BACKEND_LABELS[settings['backend']]} backend")
    n, ngl = e.model.n_layers, settings["n_gpu_layers"]
    on_gpu = min(ngl, n)
    where = f"-ngl {ngl}: {on_gpu} of {n} layers" + (" + output" if ngl > n else "")
    where += " on the GPU" + ("s" if e.plan.n_gpus > 1 else "")
    if on_gpu < n:
        where += f", {n - on_gpu} in host RAM"
    parts.append(where)
    if settings.get("n_cpu_moe"):
        parts.append(f"experts of {settings['n_cpu_moe']} layers in host RAM (--n-cpu-moe)")
    k, v = settings["cache_type_k"], settings["cache_type_v"]
    parts.append(f"KV {k}" if k == v else f"KV {k}/{v}")
    if "num_ctx" in settings:
        parts.append(f"num_ctx {settings['num_ctx']:,}")
    return parts


def _engine_line(e: Estimate) -> str | None:
    """One line naming the engine of an inference plan and what it runs: the weights'
    format, where the layers are (llama.cpp's ``-ngl``), the KV cache type and vLLM's pool
    in tokens (None without an engine record: the generic transformers model)."""
    r = e.engine
    if r is None:
        return None
    settings = r.settings
    parts = [ENGINE_LABELS.get(r.engine, r.engine)]
    if r.engine in ("llama.cpp", "ollama"):
        parts += _llamacpp_parts(e, settings)
    elif r.engine == "vllm":
        # the weights the estimate ran: the plan's, or the checkpoint's own (shipped) format
        quant = e.assumptions.get("quant", e.plan.effective_quant)
        plain = "fp32" if e.plan.precision == "fp32" else "16-bit"
        parts.append(f"{plain if quant == 'none' else quant} weights")
        kv = settings["kv_cache_dtype"]
        parts.append(f"KV {kv}" + (" (the model's dtype)" if kv == "auto" else ""))
        parts.append(f"KV pool {r.capacity_tokens:,.0f} tokens at gpu_memory_utilization "
                     f"{settings['gpu_memory_utilization']:g}")
    elif r.engine == "exllamav2":
        bits = settings["bits_per_weight"]
        parts.append("16-bit weights" if bits >= 16 else
                     f"EXL2 {bits:g} bpw (head {settings['head_bits']:g})")
        parts.append(f"KV {settings['cache']}")
    elif r.engine == "mlx":
        bits = r.flags.get("bits")
        parts.append("16-bit weights" if bits is None else
                     f"{bits}-bit mlx-lm ({settings['bits_per_weight']:g} bits per weight "
                     f"with group-{settings['group_size']} scales)")
        parts.append(f"KV {settings['kv_cache']}")
    return "  engine: " + " · ".join(parts)


def _prompt_rate_line(e) -> str:
    """How an inference plan's prompt (prefill) is timed: at the engine's own prompt-kernel
    rate when it has one (``engine_prefill_tflops``, its source with any probe scaling),
    else at the peak x the prefill efficiency (scaled by a probe's matmul when measured).
    Decode is timed from the memory bandwidth (the lines below)."""
    a, t = e.assumptions, e.time
    gpu = e.time_gpu.name
    decode = e.engine.decode if e.engine is not None else None
    convert = ""
    if decode is not None and decode.convert_bytes:
        convert = ("; each pass of 64 tokens or more (prompt or decode) first converts the "
                   "weights to "
                   f"fp16 for cuBLAS ({format_sig(decode.convert_bytes / 1e9)} GB read "
                   "and written)")
    if a.get("engine_prefill_tflops"):
        return (f"Time on {gpu}: prompt at {format_sig(a['engine_prefill_tflops'])} TFLOPS "
                f"per GPU ({a['engine_prefill_source']}){convert}")
    measured = ""
    if a.get("prompt_rate_scale") is not None:
        measured = (f"; {a['efficiency_source']}: {a['measured_matmul_tflops']:.4g} TFLOPS "
                    f"{a['measured_dtype']} matmul on this card, x {a['prompt_rate_scale']:.2f}"
                    " the default")
    return (f"Time on {gpu}: prompt at {a['peak_tflops']:g} TFLOPS {a['peak_tflops_dtype']} "
            f"peak × {format_sig(t.efficiency)} efficiency = "
            f"{format_sig(t.achieved_tflops_per_gpu)} TFLOPS per GPU{measured}{convert}")


def estimate_table(e: Estimate, units: str = "GiB") -> str:
    """A readable multi-line summary of an estimate."""

    def b(x: float) -> str:
        return format_bytes(x, units)

    p = e.plan
    lines = []
    optimizer = f", {p.optimizer}" if p.is_training else ""
    lines.append(
        f"{e.model.name} ({format_count(e.params.total)} params"
        + (f", {format_count(e.params.active)} active" if e.params.active != e.params.total
           else "")
        + f") — {TASK_LABELS[p.task]}, {PRECISION_LABELS[p.precision]}{optimizer}"
    )
    if p.is_training:
        share = 100.0 * e.params_trainable / max(e.params.total, 1)
        lines.append(f"  trainable {format_count(e.params_trainable)} ({share:.2f}%)")
    lines.append(f"  {_plan_line(e)}")
    if (engine := _engine_line(e)) is not None:
        lines.append(engine)
    lines.append("")
    where = f" on {e.gpu.name} ({b(e.capacity_bytes)})" if e.gpu else ""
    lines.append(f"Memory per GPU{where}")
    scale = max(e.memory.total, e.capacity_bytes or 0.0)
    for term in TERMS:
        value = getattr(e.memory, term)
        lines.append(f"  {TERM_LABELS[term]:<17}{b(value):>11}  {_bar(value, scale)}")
    total = f"  {'total':<17}{b(e.memory.total):>11}"
    if e.gpu is not None:
        head = e.headroom_bytes
        if e.fits:
            total += f"  of {b(e.capacity_bytes)}: {e.verdict.upper()}, {b(head)} free"
        else:
            total += f"  of {b(e.capacity_bytes)}: DOES NOT FIT by {b(-head)}"
    lines.append(total)
    if e.memory.cpu_bytes:
        lines.append(f"  host RAM for offload: {b(e.memory.cpu_bytes)}")
    lines.append("")
    t = e.time
    a = e.assumptions
    if p.task == "infer":
        lines.append(_prompt_rate_line(e))
    elif "measured_step_tflops" in a:
        shape = f" at {a['measured_shape']}" if a.get("measured_shape") else ""
        lines.append(
            f"Time on {e.time_gpu.name}: {a['efficiency_source']}: training step{shape}, "
            f"{a['measured_dtype']}: {t.achieved_tflops_per_gpu:.1f} TFLOPS per GPU "
            f"({t.efficiency:.0%} of the {a['peak_tflops']:g} TFLOPS peak)"
        )
    elif "measured_matmul_tflops" in a and "matmul_to_step" not in a:
        lines.append(
            f"Time on {e.time_gpu.name}: {a['efficiency_source']}: "
            f"{a['measured_matmul_tflops']:.4g} TFLOPS {a['measured_dtype']} matmul in the "
            f"plan's kernels × in-situ factor {a['insitu_factor']:.2f} = "
            f"{t.achieved_tflops_per_gpu:.1f} TFLOPS per GPU ({t.efficiency:.0%} of the "
            f"{a['peak_tflops']:g} TFLOPS peak)"
        )
    elif "measured_matmul_tflops" in a:
        lines.append(
            f"Time on {e.time_gpu.name}: {a['efficiency_source']}: "
            f"{a['measured_matmul_tflops']:.4g} TFLOPS {a['measured_dtype']} matmul "
            f"× {a['matmul_to_step']:.2f} matmul_to_step = {t.achieved_tflops_per_gpu:.1f} "
            f"TFLOPS per GPU ({t.efficiency:.0%} of the {a['peak_tflops']:g} TFLOPS peak)"
        )
    elif getattr(e, "layout", None) is not None:
        # One name per figure: a layout's step has communication and a bubble, so its MFU
        # (model FLOPs / (peak x step)) is below the efficiency of one GPU's own kernels.
        lines.append(
            f"Time on {e.time_gpu.name}: {a['peak_tflops']:g} TFLOPS {a['peak_tflops_dtype']} "
            f"peak; MFU {e.layout.chosen.mfu:.0%} (model FLOPs ÷ peak over the whole step, "
            f"communication and bubble included); each GPU's own kernels at "
            f"{format_sig(t.efficiency)} of peak"
        )
    else:
        counted = "model FLOPs ÷ peak"
        if p.task == "qlora" or (p.is_adapter and p.effective_quant != "none"):
            counted = "model FLOPs × the 4-bit dequantization overhead ÷ peak"
        lines.append(
            f"Time on {e.time_gpu.name}: {a['peak_tflops']:g} TFLOPS {a['peak_tflops_dtype']} "
            f"peak × {format_sig(t.efficiency)} efficiency ({counted}) = "
            f"{format_sig(t.achieved_tflops_per_gpu)} TFLOPS per GPU"
        )
    if p.is_training:
        source = a.get("dataset_tokens_source", "plan")
        unit = "samples" if e.model.kind == "opaque" else "tokens"
        lines.append(f"  data          {format_count(a['dataset_tokens'])} {unit} ({source})"
                     + (f": {a['dataset']}" if a.get("dataset") else ""))
        lines.append(
            f"  total         {format_duration(t.seconds)} · {format_count(t.tokens_per_s)} "
            f"{unit}/s · {format_sig(t.gpu_hours)} GPU-hours · {format_flops(t.flops_total)}"
        )
        laid = getattr(e, "layout", None)
        goodput = f" ÷ {laid.goodput:g} goodput" if laid is not None and laid.goodput < 1 else ""
        lines.append(f"  steps         {t.steps:,.0f} × {format_duration(t.step_seconds)}"
                     f"{goodput} (bound by {t.bound})")
    else:
        lines.append(f"  prefill       {format_duration(t.prefill_seconds)}")
        lines.append(f"  decode        {t.decode_tokens_per_s:,.1f} tokens/s (bound by {t.bound})")
        if str(a.get("bandwidth_source", "")).startswith("measured"):
            lines.append(f"  bandwidth     {a['memory_bandwidth_gb_s']:,.0f} GB/s "
                         f"{a['bandwidth_source']} ({a.get('measured_bandwidth_source', '')})")
        lines.append(f"  total         {format_duration(t.seconds)}")
    lines.append("")
    lines.append("Assumptions (override with --assume NAME=VALUE or the matching flag)")
    width = max(len(k) for k in a)
    for name, value in a.items():
        if name.endswith("_bytes"):
            shown = format_bytes(value, units)
        elif isinstance(value, float) and value >= 1e5:
            shown = format_count(value)
        elif isinstance(value, float):
            shown = format_sig(value)  # no raw floats (0.6132488...) in text
        else:
            shown = value
        lines.append(f"  {name:<{width}}  {shown}")
    if e.warnings:
        lines.append("")
        lines.append("Warnings")
        lines.extend(f"  ! {w}" for w in e.warnings)
    return "\n".join(lines)


def catalog_table(kind: str, items: list[dict]) -> str:
    """A compact table of catalog entries."""
    if kind == "gpus":
        header = f"{'id':<24}{'name':<40}{'memory':>9}{'bf16/fp16 TFLOPS':>18}{'GB/s':>8}"
        rows = [
            f"{i['id']:<24}{i['name'][:39]:<40}{i['memory_gib']:>6g} GiB"
            f"{(i['bf16_tensor_tflops'] or i['fp16_tensor_tflops']):>18g}"
            f"{i['memory_bandwidth_gb_s']:>8g}"
            for i in items
        ]
    else:
        header = f"{'id':<24}{'name':<36}{'kind':<9}{'params':>10}"
        rows = [f"{i['id']:<24}{i['name'][:35]:<36}{i['kind']:<9}"
                f"{format_count(i['params_total']):>10}" for i in items]
    return "\n".join([header, *rows, f"({len(items)} {kind})"])


def advice_table(advice, *, limit: int = 15, money=None) -> str:
    """The ranked suggestions of :func:`gpuadvisor.core.advisor.advise` for a terminal.

    Args:
        advice: the :class:`~gpuadvisor.core.advisor.Advice`.
        limit: rows shown (the rest are counted).
        money: formats a USD amount for display (default: ``$1,234``).
    """
    from .core.offers import STALE_AFTER_DAYS

    money = money or (lambda usd: f"${usd:,.2f}" if usd < 10 else f"${usd:,.0f}")
    goal = {"cheapest": "cheapest first", "fastest": "fastest first"}[advice.goal]
    limits = []
    if advice.budget_usd is not None:
        limits.append(f"budget {money(advice.budget_usd)}")
    if advice.deadline_hours is not None:
        limits.append(f"deadline {format_duration(advice.deadline_hours * 3600)}")
    lines = [f"Options ({goal}{', ' + ', '.join(limits) if limits else ''}; "
             "* = on the time-cost Pareto front)"]
    if advice.nothing_fits:
        lines.append(advice.nothing_fits)
    best = advice.best
    if best is not None:
        lines.append(f"Best: {best.why}.")
    lines.append("")
    header = f"  {'#':>3}  {'option':<44} {'GPUs':>4} {'time':>10} {'cost':>10}  notes"
    lines.append(header)
    shown = advice.suggestions[:limit]
    for i, s in enumerate(shown, 1):
        notes = []
        if not s.fits:
            notes.append("does not fit")
        else:
            if not s.within_budget:
                notes.append("over budget")
            if not s.within_deadline:
                notes.append("past the deadline")
            if s.levers:
                notes.append("with " + ", ".join(s.levers))
        if s.stale:
            notes.append(f"price {s.price_age_days} days old (> {STALE_AFTER_DAYS})")
        if s.option.offer is not None and s.option.offer.user:
            notes.append("your price")
        mark = "*" if s.option.id in advice.pareto_ids else " "
        time = format_duration(s.hours * 3600) if s.fits else "-"
        cost = money(s.cost_usd) if s.fits else "-"
        lines.append(f"{mark} {i:>3}  {s.option.label[:44]:<44} {s.n_gpus:>4} {time:>10} "
                     f"{cost:>10}  {'; '.join(notes)}")
    if len(advice.suggestions) > limit:
        lines.append(f"  ... {len(advice.suggestions) - limit} more (--limit N, or --json)")
    return "\n".join(lines)


def layout_text(layout, units: str = "GiB") -> str:
    """The chosen parallel layout, its step decomposed, and the runners-up (a blank line
    first)."""
    chosen = layout.chosen
    parts = chosen.parts.as_dict()
    step = chosen.step_seconds
    names = {"compute": "compute", "memory_bound": "memory-bound", "tp_comm": "TP comm",
             "cp_comm": "CP comm", "ep_comm": "EP comm", "pp_bubble": "PP bubble",
             "pp_comm": "PP sends", "dp_comm": "DP comm", "optimizer": "optimizer"}
    pieces = " + ".join(f"{names[k]} {v:.3g}" for k, v in parts.items() if v > 0)
    lines = [
        "",
        f"Layout on {layout.n_gpus} GPUs ({layout.gpus_per_node} per node; "
        f"{layout.intra.label}; {layout.net.label}): {chosen.layout.describe()}",
        f"  global batch {layout.global_batch} sequences; step {step:.3g} s = {pieces} s",
        f"  MFU {chosen.mfu:.0%}, HFU {chosen.hfu:.0%}; "
        f"{format_bytes(chosen.memory_per_gpu_bytes, units)} per GPU"
        + ("" if layout.fits else " — DOES NOT FIT"),
        f"  {format_duration(layout.seconds)} in all, {format_sig(layout.gpu_hours)} GPU-hours "
        f"({layout.steps:,.0f} steps"
        + (f"; {layout.goodput:.0%} of the time training, the rest restarts and checkpoints"
           if layout.goodput < 1 else "") + ")",
    ]
    for alt in layout.alternatives:
        lines.append(f"  runner-up: {alt.layout.describe()}: step {alt.step_seconds:.3g} s"
                     + ("" if alt.fits else " (does not fit)"))
    lines.append(f"  rates: {layout.rates.matmul_fraction:.0%} of peak on matmuls, "
                 f"{layout.rates.attention_fraction:.0%} on attention "
                 f"({layout.rates_source})")
    return "\n".join(lines)


def serving_text(capacity) -> str:
    """Serving many users at once (:class:`~gpuadvisor.core.serving_load.Capacity`): the
    capacity sentence, then the curve it comes from."""
    c = capacity
    rows = (("users", lambda p: f"{p.users:>8}"),
            ("tokens/s each", lambda p: f"{p.tokens_per_s_user:>8.1f}"),
            ("tokens/s in all", lambda p: f"{p.tokens_per_s_total:>8,.0f}"),
            ("first token (s)", lambda p: f"{p.first_token_s:>8.2f}"),
            ("fits", lambda p: f"{'yes' if p.fits else p.limit:>8}"))
    lines = ["", f"Serving many users (each: a {c.prompt:,}-token prompt and {c.new_tokens:,} "
                 f"new tokens, read at {c.min_tokens_per_s:.1f} tokens/s or more)",
             f"  {c.sentence()}"]
    lines += [f"  {name:<16}" + "".join(cell(p) for p in c.curve) for name, cell in rows]
    return "\n".join(lines)
