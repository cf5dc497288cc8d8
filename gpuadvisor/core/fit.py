"""The levers: which change makes a plan fit a GPU, cheapest first.

Each lever is one change to the plan (turn on FlashAttention, recompute activations, smaller
micro-batches with more accumulation, an 8-bit optimizer, LoRA, QLoRA, more GPUs with ZeRO-3,
CPU offload), evaluated by the estimator itself, so its effect on memory and time is exact
within the model. :func:`levers` evaluates each lever alone; :func:`make_it_fit` stacks them in
order until the plan fits and so names the smallest change that would.
"""

from __future__ import annotations

from dataclasses import dataclass

from .assumptions import DEFAULT_ASSUMPTIONS, Assumptions
from .engines.combine import requests_held
from .estimate import estimate
from .gpu import GpuSpec
from .model import ModelSpec
from .plan import Plan
from .resolve import resolve

#: Lever ids in the order they are tried: what they cost the user, least first.
LEVER_ORDER = (
    "flash_attention",
    "checkpointing",
    "micro_batch",
    "optimizer_8bit",
    "lora",
    "qlora",
    "more_gpus",
    "zero3",
    "offload",
    "offload_params",
    # inference
    "quantize",
    "gpu_layers",
    "kv_8bit",
    # several of the above together (make_it_fit's fastest combination)
    "combination",
)


@dataclass(frozen=True)
class Lever:
    """One change to the plan and its effect.

    Attributes:
        id: one of :data:`LEVER_ORDER`.
        title: short name for people ("gradient checkpointing").
        detail: what changes, in words ("micro-batch 8 -> 2, accumulation 1 -> 4").
        cost: what the user pays for it, in words ("about 33% more compute").
        changes: the plan fields to set.
        plan: the plan with the change applied.
        before_bytes: memory per GPU before.
        after_bytes: memory per GPU after.
        fits: whether the changed plan fits the GPU.
        seconds_before: time before.
        seconds_after: time after.
        parts: for a ``combination`` of levers, ``(id, title)`` of each (in
            :data:`LEVER_ORDER`); empty for a single lever.
        requests_before, requests_after: on a server that reserves its share of the card
            whatever the plan (vLLM), the whole requests it runs at once before and after
            (its memory does not move; this does); 0 elsewhere.
    """

    id: str
    title: str
    detail: str
    cost: str
    changes: dict
    plan: Plan
    before_bytes: float
    after_bytes: float
    fits: bool
    seconds_before: float
    seconds_after: float
    parts: tuple = ()
    requests_before: int = 0
    requests_after: int = 0

    @property
    def saved_bytes(self) -> float:
        """Memory per GPU the lever saves (negative if it costs memory)."""
        return self.before_bytes - self.after_bytes


def _candidates(model: ModelSpec, plan: Plan, gpu: GpuSpec, assumptions: Assumptions, *,
                more_gpus: bool = True):
    """Yield (id, title, detail, cost, changes) for levers that apply to ``plan`` (the
    ``more_gpus`` lever only when asked)."""
    if not plan.is_training:
        if plan.framework in ("llama.cpp", "ollama"):
            yield from _llama_cpp_levers(model, plan, gpu, assumptions)
        elif plan.effective_quant in ("none",):
            yield ("quantize", "4-bit weights", "quantize weights to 4 bits (int4, GPTQ/AWQ)",
                   "small quality loss", {"quant": "int4"})
        if plan.micro_batch > 1:
            yield ("micro_batch", "fewer concurrent sequences",
                   f"batch {plan.micro_batch} -> 1", "lower throughput", {"micro_batch": 1})
        if plan.kv_dtype not in ("fp8", "int8") and model.kind == "decoder":
            yield ("kv_8bit", "8-bit KV cache", "KV cache in fp8",
                   "small quality loss", {"kv_dtype": "fp8"})
        if more_gpus:
            yield from _more_gpus(model, plan, gpu, assumptions)
        return
    if plan.attention == "eager" and model.kind != "opaque":
        yield ("flash_attention", "FlashAttention", "eager attention -> FlashAttention/SDPA",
               "none (usually faster)", {"attention": "flash"})
    if plan.checkpointing != "full":
        yield ("checkpointing", "gradient checkpointing",
               f"activation checkpointing {plan.checkpointing} -> full",
               "about 33% more compute", {"checkpointing": "full"})
    if plan.micro_batch > 1:
        mb = _largest_fitting_micro_batch(model, plan, gpu, assumptions)
        ga = -(-plan.micro_batch * plan.grad_accum // mb)
        yield ("micro_batch", "smaller micro-batch, more accumulation",
               f"micro-batch {plan.micro_batch} -> {mb}, accumulation {plan.grad_accum} -> {ga}"
               " (same global batch)", "lower GPU utilisation",
               {"micro_batch": mb, "grad_accum": ga})
    if plan.optimizer in ("adamw", "lion", "sgd") and plan.task in ("pretrain", "full"):
        yield ("optimizer_8bit", "8-bit AdamW", f"optimizer {plan.optimizer} -> adamw8bit",
               "none measurable for most fine-tunes", {"optimizer": "adamw8bit"})
    if plan.task in ("pretrain", "full") and model.kind != "opaque":
        yield ("lora", "LoRA", "full fine-tune -> LoRA adapters (rank 16, all linear layers)",
               "trains 0.1-1% of the weights", {"task": "lora", "lora_rank": 16,
                                                 "lora_targets": "all"})
    if plan.task in ("pretrain", "full", "lora") and model.kind != "opaque":
        yield ("qlora", "QLoRA", "frozen base in 4-bit NF4 + LoRA adapters",
               "about 30% slower than LoRA", {"task": "qlora", "quant": None,
                                              "lora_rank": plan.lora_rank or 16})
    if more_gpus:
        yield from _more_gpus(model, plan, gpu, assumptions)
    # Unified memory (Apple, GB10): "CPU RAM" is the same memory; offloading frees nothing.
    if plan.offload == "none" and plan.optimizer != "adafactor" and not gpu.unified_memory:
        zero = max(plan.zero_stage, 2 if plan.n_gpus == 1 else plan.zero_stage or 2)
        yield ("offload", "CPU offload of the optimizer",
               f"optimizer states to CPU RAM (DeepSpeed ZeRO-{zero} offload)",
               "slower steps, needs host RAM", {"offload": "optimizer", "zero_stage": zero})


_WIDE_GGUF = (None, "none", "f16", "bf16", "q8_0", "q6_k", "q5_k_m", "q5_k_s", "q5_1", "q5_0")


def _llama_cpp_levers(model, plan, gpu, assumptions):
    """llama.cpp/Ollama: a Q4_K_M file, a q8_0 KV cache, and layers left in host RAM
    (``-ngl``: the most layers that still fit on the card, each of the others read from
    host memory for every token)."""
    if plan.quant in _WIDE_GGUF:
        yield ("quantize", "Q4_K_M file", "a 4-bit GGUF (Q4_K_M, ~4.9 bits per weight)",
               "small quality loss", {"quant": "q4_k_m"})
    if plan.kv_dtype not in ("q8_0", "q4_0") and model.kind == "decoder":
        changes = {"kv_dtype": "q8_0"}
        if plan.attention != "flash":
            changes["attention"] = "flash"  # llama.cpp quantizes V only with flash attention
        yield ("kv_8bit", "8-bit KV cache", "llama.cpp -ctk q8_0 -ctv q8_0", "tiny quality loss",
               changes)
    layers = getattr(model, "n_layers", 0) or 0
    if layers <= 0 or (plan.gpu_layers is not None and plan.gpu_layers == 0):
        return
    top = layers if plan.gpu_layers is None else min(plan.gpu_layers, layers)

    def fits(n: int) -> bool:
        try:
            return bool(estimate(model, plan.with_changes(gpu_layers=n), gpu, assumptions).fits)
        except ValueError:
            return False

    if fits(top):
        return
    lo, hi = 0, top  # fits(lo) assumed (no layer on the GPU), fits(hi) false
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (mid, hi) if fits(mid) else (lo, mid)
    if lo > 0:
        yield ("gpu_layers", f"{lo} of {layers} layers on the GPU",
               f"-ngl {lo}: the other {layers - lo} layers in host RAM",
               "slower: those layers are read at host-memory speed", {"gpu_layers": lo})


def _more_gpus(model, plan, gpu, assumptions):
    if gpu.unified_memory:
        return  # one chip (Apple): more of it is not something to buy; a bigger chip is
    for n in (2, 4, 8, 16):
        if n <= plan.n_gpus:
            continue
        changes = {"n_gpus": n}
        if plan.is_training:
            changes["zero_stage"] = 3
        trial = plan.with_changes(**changes)
        if estimate(model, trial, gpu, assumptions).fits or n == 16:
            sharding = ("sharded with ZeRO-3/FSDP" if plan.is_training
                        else "split (tensor parallel)")
            yield ("more_gpus", f"{n} GPUs", f"{plan.n_gpus} -> {n} GPUs, {sharding}",
                   f"{n}x the hardware", changes)
            return


def _largest_fitting_micro_batch(model, plan, gpu, assumptions) -> int:
    mb = plan.micro_batch
    while mb > 1:
        mb = max(1, mb // 2)
        if estimate(model, plan.with_changes(micro_batch=mb), gpu, assumptions).fits:
            return mb
    return 1


def _apply(plan: Plan, changes: dict) -> Plan:
    values = plan.to_dict()
    values.update(changes)
    if values["task"] not in ("lora", "qlora"):
        values["lora_rank"] = None
    if values["task"] in ("lora",) and values.get("quant") not in (None, "none"):
        values["quant"] = None
    if values["offload"] == "optimizer" and values["zero_stage"] == 0:
        values["zero_stage"] = 2
    return Plan.from_dict(values)


def levers(model: ModelSpec, plan: Plan, gpu: GpuSpec,
           assumptions: Assumptions = DEFAULT_ASSUMPTIONS, *, timed=None) -> list[Lever]:
    """Every lever that applies to ``plan``, each evaluated alone, in :data:`LEVER_ORDER`;
    when the plan does not fit and no lever alone makes it fit, the fastest combination that
    does (:func:`make_it_fit` on the plan's GPUs, id ``combination``) comes first.

    ``timed(model, plan, gpu, assumptions)`` makes the estimate of the plan and of each
    changed plan (default :func:`~.estimate.estimate`); the Plan page passes one that runs
    several GPUs in their parallel layout, so a lever's memory and time are the layout's.
    Default :func:`~.resolve.resolve`, the estimate every door shows.

    On a server that reserves its share of the card whatever the plan (vLLM), a lever is
    what lets more of the plan's requests run at once (:func:`~.engines.combine.
    requests_held`), and it fits when all of them do.
    """
    timed = timed or resolve
    base = timed(model, plan, gpu, assumptions)
    held = requests_held(base.engine, base.plan) if base.engine is not None else None
    out = []
    for lever_id, title, detail, cost, changes in (*_candidates(model, plan, gpu, assumptions),
                                                   *_sharding_atoms(plan, gpu)):
        try:
            changed = _apply(plan, changes)
            # An engine may not run the changed plan (llama.cpp loads GGUF types only, ...):
            # such a lever does not apply.
            after = timed(model, changed, gpu, assumptions)
        except ValueError:
            continue
        fits, before_after = bool(after.fits), (0, 0)
        if held is not None:
            now = requests_held(after.engine, after.plan) if after.engine is not None else 0
            if not now or (now <= held and lever_id != "more_gpus"):
                continue  # no more requests at once: noise
            fits, before_after = after.verdict == "fits", (held, now)
        elif after.memory.total >= base.memory.total and lever_id != "more_gpus":
            continue  # a lever that saves nothing is noise
        out.append(Lever(lever_id, title, detail, cost, changes, changed, base.memory.total,
                         after.memory.total, fits, base.time.seconds, after.time.seconds,
                         requests_before=before_after[0], requests_after=before_after[1]))
    if base.fits is False and not any(lv.fits for lv in out):
        combined = _combination(model, plan, gpu, assumptions, timed, base)
        if combined is not None:
            out.insert(0, combined)  # the answer first; the single levers after it
    return out


def _combination(model, plan: Plan, gpu: GpuSpec, assumptions, timed, base) -> Lever | None:
    """When no lever alone makes ``plan`` fit: :func:`make_it_fit`'s fastest combination
    on the plan's own GPUs, as one lever (None when none fits or it is one lever)."""
    advice = make_it_fit(model, plan, gpu, assumptions, timed=timed, max_gpus=plan.n_gpus)
    if not advice.fits or len(advice.steps) < 2:
        return None
    before, after = plan.to_dict(), advice.plan.to_dict()
    changes = {k: v for k, v in after.items() if before[k] != v}
    result = advice.result
    return Lever("combination", " + ".join(s.title for s in advice.steps),
                 "; ".join(s.detail for s in advice.steps),
                 "; ".join(s.cost for s in advice.steps), changes, advice.plan,
                 base.memory.total, result.memory.total, True, base.time.seconds,
                 result.time.seconds, parts=tuple((s.id, s.title) for s in advice.steps))


@dataclass(frozen=True)
class FitAdvice:
    """The result of :func:`make_it_fit`.

    Attributes:
        fits_already: the plan fits as it is.
        steps: the levers of the chosen combination, in :data:`LEVER_ORDER`.
        plan: the final plan (the input plan when nothing helped).
        fits: whether the final plan fits.
        result: the estimate of the final plan, as it will run (``None`` only when the
            plan itself could not be estimated).
    """

    fits_already: bool
    steps: list
    plan: Plan
    fits: bool
    result: object = None


#: Levers of which a combination takes at most one (a task, an offload, a GPU count).
_GROUPS = {"lora": "task", "qlora": "task", "offload": "offload",
           "offload_params": "offload"}
#: Most combinations :func:`make_it_fit` evaluates at one GPU count (a bound on its time).
MAX_COMBINATIONS = 64
#: GPU counts the search may grow a plan to (when ``max_gpus`` allows).
GPU_COUNTS = (2, 4, 8, 16)


def _sharding_atoms(plan: Plan, gpu: GpuSpec | None = None):
    """Levers for several GPUs that the single levers leave out: ZeRO-3 / FSDP full
    sharding, and parameter + optimizer offload to CPU RAM (ZeRO-Infinity / FSDP CPU
    offload; not on unified memory, where it frees nothing). Parameter offload also works
    on one GPU (DeepSpeed ZeRO-3 offload)."""
    if not plan.is_training:
        return
    if plan.n_gpus > 1 and plan.zero_stage < 3 and plan.offload == "none":
        yield ("zero3", f"ZeRO-3 sharding over {plan.n_gpus} GPUs",
               f"ZeRO stage {plan.zero_stage} -> 3 (FSDP full shard over {plan.n_gpus} GPUs)",
               "more communication per step", {"zero_stage": 3})
    if plan.offload != "params" and not (gpu is not None and gpu.unified_memory):
        yield ("offload_params", "CPU offload of parameters and optimizer",
               "parameters and optimizer states to CPU RAM (ZeRO-3 / FSDP CPU offload)",
               "much slower steps, needs host RAM", {"offload": "params", "zero_stage": 3})


def _merge(plan: Plan, atoms) -> Plan:
    """``plan`` with every atom's changes applied (the highest ZeRO stage any asks for)."""
    changes: dict = {}
    zero = plan.zero_stage
    for atom in atoms:
        for key, value in atom[4].items():
            if key == "zero_stage":
                zero = max(zero, value)
            else:
                changes[key] = value
    changes["zero_stage"] = zero
    return _apply(plan, changes)


def _combinations(atoms):
    """Every combination of ``atoms`` (at most one per group), smallest first."""
    from itertools import combinations

    for size in range(1, len(atoms) + 1):
        for combo in combinations(atoms, size):
            groups = [_GROUPS[a[0]] for a in combo if a[0] in _GROUPS]
            if len(groups) == len(set(groups)):
                yield combo


def _strongest(atoms):
    """The combination that saves the most memory: every atom, the last of each group (the
    atoms come cheapest first, so the last of a group saves the most)."""
    chosen: dict = {}
    for atom in atoms:
        chosen[_GROUPS.get(atom[0], atom[0])] = atom
    return tuple(chosen.values())


def _fits(result, host_ram_bytes: float | None) -> bool:
    """Whether ``result`` fits its GPU, and its offloaded bytes the host's RAM."""
    if result is None or not result.fits:
        return False
    return host_ram_bytes is None or float(result.memory.cpu_bytes) <= host_ram_bytes


def _search(model, plan: Plan, gpu, assumptions, timed, atoms, goal: str,
            host_ram_bytes: float | None = None):
    """The fastest (``goal="fastest"``) or fewest-lever combination of ``atoms`` that fits,
    as ``(combo, plan, result)``, or None.

    A combination that contains a fitting one is not tried: levers cost time, so a superset
    is never faster (FlashAttention, which saves time, is tried like the others). When
    even the strongest combination does not fit, nothing is tried at all.
    """
    def run(combo):
        try:
            changed = _merge(plan, combo)
            return changed, timed(model, changed, gpu, assumptions)
        except ValueError:
            return None, None

    strongest = _strongest(atoms)
    if not strongest:
        return None
    _, result = run(strongest)
    if result is None or not result.fits:  # GPU memory only: offload trades it for host RAM
        return None
    fitting: list = []
    tried = 0
    for combo in _combinations(atoms):
        ids = {a[0] for a in combo}
        if any(f_ids <= ids for f_ids, *_ in fitting):
            continue
        if tried >= MAX_COMBINATIONS:
            break
        tried += 1
        trial, found = run(combo)
        if _fits(found, host_ram_bytes):
            fitting.append((ids, combo, trial, found))
            if goal != "fastest":
                break
    pruned = _pruned(strongest, run, host_ram_bytes)
    if pruned is not None:
        combo, trial, found = pruned
        fitting.append(({a[0] for a in combo}, combo, trial, found))
    if not fitting:
        return None
    best = min(fitting, key=lambda f: (_cost_seconds(f[3]), len(f[1])))
    return best[1], best[2], best[3]


#: The order in which :func:`_pruned` tries to drop levers from the strongest combination:
#: what slows a step most first (offload, a quantized base, recomputation, ...).
_DROP_FIRST = ("offload_params", "offload", "qlora", "lora", "checkpointing", "micro_batch",
               "zero3", "optimizer_8bit", "flash_attention")


def _pruned(strongest, run, host_ram_bytes):
    """The strongest combination with every lever dropped that it can fit without, the
    slowest levers tried first: a minimal combination however many levers it takes, in at
    most one evaluation per lever (the small combinations are tried exhaustively before)."""
    rank = {lever_id: i for i, lever_id in enumerate(_DROP_FIRST)}
    kept = list(strongest)
    plan, result = run(tuple(kept))
    if not _fits(result, host_ram_bytes):
        return None
    for atom in sorted(strongest, key=lambda a: rank.get(a[0], len(rank))):
        trial = tuple(a for a in kept if a is not atom)
        if not trial:
            continue
        changed, found = run(trial)
        if _fits(found, host_ram_bytes):
            kept, plan, result = list(trial), changed, found
    return tuple(kept), plan, result


def _cost_seconds(result) -> float:
    """What a combination costs in time: the training job's seconds, or for inference the
    seconds per sequence served (a smaller batch finishes its few sequences sooner but
    serves fewer per second)."""
    seconds = float(result.time.seconds)
    if result.plan.is_training:
        return seconds
    return seconds / max(1, result.plan.micro_batch)


def _steps(model, plan, combo, final: Plan, base, result) -> list[Lever]:
    """The levers of ``combo`` as :class:`Lever` records of the combined change."""
    order = {lever_id: i for i, lever_id in enumerate(LEVER_ORDER)}
    ranked = sorted(combo, key=lambda a: order.get(a[0], len(order)))
    return [Lever(lever_id, title, detail, cost, changes, final, base.memory.total,
                  result.memory.total, bool(result.fits), base.time.seconds,
                  result.time.seconds)
            for lever_id, title, detail, cost, changes in ranked]


def make_it_fit(model: ModelSpec, plan: Plan, gpu: GpuSpec,
                assumptions: Assumptions = DEFAULT_ASSUMPTIONS, *, timed=None,
                max_gpus: int = 16, goal: str = "fastest",
                host_ram_bytes: float | None = None) -> FitAdvice:
    """The combination of levers that makes ``plan`` fit ``gpu``, fastest first.

    Levers are combined, not stacked in a fixed order: gradient checkpointing, a smaller
    micro-batch with more accumulation, an 8-bit optimizer, LoRA or QLoRA, ZeRO-3 / FSDP
    sharding, CPU offload of the optimizer or of parameters too, the layout search over the
    GPUs (the estimate's own), and, up to ``max_gpus``, more GPUs (the fewest that fit).
    Each combination is timed as it will run by ``timed`` (default
    :func:`~.resolve.resolve`); the fastest that fits wins (``goal="fewest"``: the first,
    smallest combination that fits). ``host_ram_bytes``: the RAM offloaded states may take
    (None: not checked); a combination that offloads more does not fit.
    """
    timed = timed or resolve
    base = timed(model, plan, gpu, assumptions)
    if base.fits:
        return FitAdvice(True, [], plan, True, base)
    counts = [plan.n_gpus]
    if not gpu.unified_memory:
        counts += [n for n in GPU_COUNTS if plan.n_gpus < n <= max_gpus]
    for n in counts:
        start = plan if n == plan.n_gpus else plan.with_changes(n_gpus=n)
        atoms = list(_candidates(model, start, gpu, assumptions, more_gpus=False))
        atoms += list(_sharding_atoms(start, gpu))
        more = []
        if n != plan.n_gpus:
            more = [("more_gpus", f"{n} GPUs", f"{plan.n_gpus} -> {n} GPUs",
                     f"{n}x the hardware", {"n_gpus": n})]
            trial = timed(model, start, gpu, assumptions)
            if trial.fits:
                return FitAdvice(False, _steps(model, plan, more, start, base, trial), start,
                                 True, trial)
        found = _search(model, start, gpu, assumptions, timed, atoms, goal, host_ram_bytes)
        if found is not None:
            combo, final, result = found
            return FitAdvice(False, _steps(model, plan, (*more, *combo), final, base, result),
                             final, True, result)
    return FitAdvice(False, [], plan, False, base)
