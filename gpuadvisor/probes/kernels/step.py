"""Training-step probes: ``step`` (transformer blocks) and ``plancheck`` (the plan's model).

Loaded by path by the worker (:func:`gpuadvisor.probes.worker.load_kernels`), which sets
``kit`` to itself. Like the worker, this file needs only the standard library and the
``torch`` handed to each probe, and runs on Python 3.8+: it must never import torch or
gpuadvisor. It runs the steps and reports; its neighbours hold the rest:
:mod:`step_shape` the pure planning (option checks, shapes, FLOP and parameter counts,
extrapolation, rough memory sizes, cutting a step to the memory or to a CPU's speed; no
torch, so tests load it without torch) and :mod:`step_model` the torch side (the modules,
numerics, optimizer and one timed step).

``step``: N decoder blocks (N = 1 in the tiny suite, else 2; option ``layers``) timed over
forward + backward + ``optimizer.step()`` on random activations, after warm-up steps.
Options (all optional): ``hidden``, ``heads``, ``kv_heads``, ``head_dim``, ``ffn``,
``gated`` (SwiGLU, else GELU MLP), ``norm``, ``position`` (``rope`` | ``none``),
``qkv_bias``/``out_bias``/``mlp_bias``, ``dropout``, ``seq``, ``micro_batch``, ``layers``,
``precision`` (``fp32`` | ``tf32`` | ``fp16`` | ``bf16`` | ``bf16-pure``), ``optimizer``
(``adamw`` | ``sgd`` | ``lion`` | ``adafactor``), ``checkpointing`` (``none`` |
``selective`` | ``full``), ``attention`` (``flash``: SDPA, causal | ``eager``: explicit
scores and softmax), ``steps`` (timed), ``warmup``. Without options: a 1B-class block
(hidden 2048, 16 heads, gated MLP 5632, seq 1024, micro-batch 1) at bf16 mixed precision
where the GPU has bf16 units (fp16 mixed where it has not; fp32 on CPU and MPS); on CPU
the quick and tiny suites use smaller blocks. When the run would not fit in the memory it
may use (:data:`STEP_MEMORY_SHARE` of the free memory on a GPU, the worker's share of RAM
on the CPU), micro-batch, then sequence, then layers are halved, and an out-of-memory
retries smaller; ``conditions.shrunk`` says so. Figures: ``achieved_tflops`` and
``model_tflops`` (TFLOPS), ``tokens_per_s`` (tokens/s), ``step_s`` (s, median), and
``peak_allocated_bytes`` (bytes) where memory is measurable. Conditions: ``dtype`` (the peak
label the estimator uses: fp32, tf32, fp16, bf16), the shape (hidden, heads, kv_heads,
head_dim, ffn, gated, seq, micro_batch, layers), precision, optimizer, checkpointing,
attention, ``steps`` (timed), ``warmup``, the FLOPs counted, ``shrunk``/``requested``/
``oom_retries``, ``notes``.

``plancheck``: the planned model itself (embedding, blocks, final norm, LM head, loss) at
two reduced depths (option ``depths``, default ``[1, 2]``), a few training steps each;
step time (split into forward+backward and optimizer) and, on CUDA/ROCm/XPU, peak memory
(``max_memory_allocated`` / ``max_memory_reserved``) are extrapolated linearly to the full
depth ``layers_full``: ``per_layer = (m2 - m1) / (d2 - d1)``, ``full = m1 + (L - d1) x
per_layer`` (see :func:`extrapolate`). Extra options: ``vocab``, ``tie_embeddings``,
``final_norm``, ``max_positions`` (learned positions), ``norms_per_layer``, ``task``
(``full`` | ``pretrain`` | ``lora`` | ``qlora``), ``lora_rank``, ``lora_targets``,
``lora_alpha``, ``quant``. The plan is never shrunk: what does not fit is an
``out-of-memory`` error naming the sizes (after one retry at the same size). Figures, for
``X`` in ``step_s`` (forward + backward + optimizer), ``forward_backward_s`` and
``optimizer_s`` (s): ``X_depth1``, ``X_depth2``, ``X_per_layer`` (never below 0: timing noise
is reported in ``notes``) and ``X_full``; ``tokens_per_s_full``; on CUDA/ROCm/XPU also
``peak_allocated_bytes_*`` and ``peak_reserved_bytes_*`` (bytes, same suffixes). Without
memory figures, ``conditions.memory_note`` says why. Conditions also carry the parameter
counts built (``params_depth1/2``, ``params_full``, ``trainable_params_full``) so the app can
check them against its own count.

FLOPs are counted as :func:`step_shape.flops_per_token` says (the convention of
``gpuadvisor.core.compute``), recomputation included in ``achieved_tflops``.
"""

from __future__ import annotations

import math
import statistics
import time

from .step_model import (
    Numerics,
    TrainingRun,
    add_lora,
    default_precision,
    free_memory,
    gqa_supported,
    memory_api,
    memory_note,
    model_classes,
    rope_tables,
    set_matmul_precision,
)
from .step_shape import (
    CPU_PLANCHECK_MAX_S,
    CPU_STEP_TARGET_S,
    FLOPS_CONVENTION,
    MAX_OOM_RETRIES,
    MIN_TIMED_STEPS,
    PLANCHECK_CPU_RAM_SHARE,
    PLANCHECK_OPTIONS,
    PLANCHECK_SHAPES,
    PLANCHECK_TIMING,
    STEP_MEMORY_SHARE,
    STEP_OPTIONS,
    STEP_SHAPES,
    TIMING,
    OptionError,
    block_params,
    check_options,
    complete_shape,
    describe_plan,
    extrapolate,
    fit_cpu_step_time,
    fit_step_shape,
    flops_per_token,
    plancheck_memory_bytes,
    shrink_after_oom,
)

kit = None  # the worker module, set by the loader before any probe runs


# --------------------------------------------------------------------------- step
def step_shape(torch, device, suite_name: str, options: dict) -> dict:
    """The step probe's shape: options over the defaults for this device and suite."""
    shape = dict(STEP_SHAPES[(device.kind, suite_name)])
    shape["layers"] = 1 if suite_name == "tiny" else 2
    shape["position"] = "rope"
    shape.update(options)
    shape.setdefault("precision", default_precision(torch, device))
    shape = complete_shape(shape)
    if shape["position"] == "learned":
        shape["position"] = "none"  # learned positions live outside the blocks
    return shape



#: Measured CPU matmul rates, by dtype: the plan check and the step probe of one run share
#: them (in bf16 on a CPU without bf16 units one measurement takes seconds).
_CPU_RATES: dict = {}


def cpu_matmul_flops(torch, dtype) -> float:
    """FLOP/s of this CPU on a 256 x 512 x 512 matmul in ``dtype`` (the best of three;
    measured once per worker process)."""
    if dtype not in _CPU_RATES:
        _CPU_RATES[dtype] = _measure_cpu_matmul(torch, dtype)
    return _CPU_RATES[dtype]


def _measure_cpu_matmul(torch, dtype) -> float:
    a = torch.randn(256, 512).to(dtype)
    b = torch.randn(512, 512).to(dtype)
    a @ b  # warm-up
    best = math.inf
    for _ in range(3):
        started = time.perf_counter()
        a @ b
        best = min(best, time.perf_counter() - started)
    return 2.0 * 256 * 512 * 512 / max(best, 1e-9)



def probe_step(torch, device, suite, channel, options) -> dict:
    """The ``step`` probe (see the module docstring)."""
    try:
        checked = check_options("step", options, STEP_OPTIONS)
        requested = step_shape(torch, device, suite["name"], checked)
    except OptionError as exc:
        raise kit.ProbeFailed(exc.kind, str(exc)) from None
    numerics = Numerics(torch, device, requested["precision"])
    previous = set_matmul_precision(torch, numerics.matmul_precision)
    try:
        numerics.check()
        if device.kind == "gpu":
            free = device.free_bytes()
            budget = free * STEP_MEMORY_SHARE if free else None
        else:
            budget = device.budget_bytes()
        shape, shrunk = fit_step_shape(requested, budget)
        if device.kind == "cpu" and "steps" not in checked:
            rate = cpu_matmul_flops(torch, numerics.compute_dtype)
            shape, notes = fit_cpu_step_time(shape, rate * CPU_STEP_TARGET_S, rate)
            shrunk += notes
        timing = dict(TIMING[suite["name"]])
        oom_retries = 0
        while True:
            out_of_memory = None
            try:
                measured = _time_step(torch, device, shape, numerics, timing, checked, channel)
                break
            except Exception as exc:
                if not kit.is_oom(exc):
                    raise
                out_of_memory = str(exc).splitlines()[0][:200] if str(exc) else "out of memory"
            free_memory(device)  # now that the exception (and its frames' tensors) are gone
            note = shrink_after_oom(shape) if oom_retries < MAX_OOM_RETRIES else None
            if note is None:
                raise kit.ProbeFailed("out-of-memory", "the step probe ran out of memory even "
                                      f"at micro-batch 1, seq {shape['seq']}, "
                                      f"{shape['layers']} layer(s): {out_of_memory}")
            oom_retries += 1
            shrunk.append(note)
            channel.progress("step", 0.0, note)
    finally:
        torch.set_float32_matmul_precision(previous)
    step_s = measured["step_s"]
    tokens = shape["micro_batch"] * shape["seq"]
    flops = flops_per_token(shape, shape["layers"])
    figures = {"achieved_tflops": kit.sig(flops["train"] * tokens / step_s / 1e12),
               "model_tflops": kit.sig(flops["model_train"] * tokens / step_s / 1e12),
               "tokens_per_s": kit.sig(tokens / step_s),
               "step_s": kit.sig(step_s, 6)}
    units = {"achieved_tflops": "TFLOPS", "model_tflops": "TFLOPS", "tokens_per_s": "tokens/s",
             "step_s": "s"}
    if measured.get("peak_allocated_bytes") is not None:
        figures["peak_allocated_bytes"] = float(measured["peak_allocated_bytes"])
        units["peak_allocated_bytes"] = "bytes"
    conditions = {"device": device.id, "device_name": device.name,
                  "dtype": numerics.dtype_label}
    for name in ("hidden", "heads", "kv_heads", "head_dim", "ffn", "gated", "seq",
                 "micro_batch", "layers", "precision", "optimizer", "checkpointing",
                 "attention", "norm", "position", "dropout"):
        conditions[name] = shape[name]
    conditions.update(
        steps=measured["steps"], warmup=measured["warmup"],
        step_s_all=[kit.sig(t, 6) for t in measured["times"]],
        step_s_min=kit.sig(min(measured["times"]), 6),
        optimizer_impl=measured["optimizer_impl"], autocast=numerics.autocast,
        grad_scaler=measured["grad_scaler"],
        flops_per_token_train=flops["train"], flops_per_token_forward=flops["forward"],
        flops_per_step=flops["train"] * tokens, flops_convention=FLOPS_CONVENTION,
        tokens_per_step=tokens, params=shape["layers"] * block_params(shape),
        shrunk=shrunk, oom_retries=oom_retries,
        requested={k: requested[k] for k in ("micro_batch", "seq", "layers")},
        notes=numerics.notes + measured["notes"],
        timing="forward + backward + optimizer.step() + zero_grad per step, synced; median "
               "of the timed steps after warm-up; random activations, no data loading")
    if measured.get("peak_allocated_bytes") is None:
        conditions["memory_note"] = memory_note(device)
    if device.type == "cpu":
        conditions["threads"] = int(torch.get_num_threads())
    return {"figures": figures, "units": units, "conditions": conditions}


def _time_step(torch, device, shape, numerics, timing, options, channel) -> dict:
    classes = model_classes(torch)
    rope = rope_tables(torch, shape, device, numerics.compute_dtype)
    model = classes["Stack"](shape, shape["layers"], device.id, numerics.param_dtype, rope,
                             gqa_supported(torch, device))
    model.train()
    x = torch.randn(shape["micro_batch"], shape["seq"], shape["hidden"], device=device.id,
                    dtype=numerics.param_dtype)
    run = TrainingRun(torch, device, model, numerics, shape["optimizer"], (x,))
    memory = memory_api(torch, device)
    if memory is not None:
        memory.reset_peak_memory_stats(device.id)
    warmup = options.get("warmup", timing["warmup"])
    device.sync()
    notes = []
    warm_s = 0.0
    for i in range(warmup):
        channel.progress("step", 0.1 * (i + 1) / max(warmup, 1), f"warm-up step {i + 1}")
        warm_s = run.step(split=False)[0]
    steps = options.get("steps")
    if steps is None:
        steps = timing["steps"]
        if warm_s > 0:
            steps = max(MIN_TIMED_STEPS, min(steps, int(timing["budget_s"] / warm_s)))
    times = []
    for i in range(steps):
        if kit.stop_requested() and len(times) >= 1:
            notes.append(f"stopped early: {len(times)} of {steps} timed steps")
            break
        times.append(run.step(split=False)[0])
        channel.progress("step", 0.1 + 0.9 * (i + 1) / steps,
                         f"step {i + 1}/{steps}: {times[-1]:.3g} s")
    if not run.optimizer_ran():
        notes.append("every optimizer step was skipped (fp16 overflow): optimizer time and "
                     "memory are missing")
    result = {"step_s": statistics.median(times), "times": times, "steps": len(times),
              "warmup": warmup, "optimizer_impl": run.optimizer_impl,
              "grad_scaler": run.scaler is not None, "notes": notes}
    if memory is not None:
        result["peak_allocated_bytes"] = int(memory.max_memory_allocated(device.id))
    return result


# --------------------------------------------------------------------------- plancheck
def plancheck_shape(torch, device, suite_name: str, options: dict) -> dict:
    """The plan check's shape: the options (the plan) over a default model."""
    key = "cpu-tiny" if (device.kind == "cpu" and suite_name == "tiny") else "default"
    shape = dict(PLANCHECK_SHAPES[key])
    shape.update(options)
    shape.setdefault("precision", default_precision(torch, device))
    shape.setdefault("depths", [1, 2])
    shape = complete_shape(shape)
    if shape["task"] == "pretrain":
        shape["task"] = "full"
    if shape["layers_full"] < shape["depths"][0]:
        raise OptionError(f"layers_full {shape['layers_full']} is below the first depth "
                          f"measured ({shape['depths'][0]})")
    return shape



def probe_plancheck(torch, device, suite, channel, options) -> dict:
    """The ``plancheck`` probe (see the module docstring)."""
    try:
        checked = check_options("plancheck", options, PLANCHECK_OPTIONS)
        shape = plancheck_shape(torch, device, suite["name"], checked)
    except OptionError as exc:
        raise kit.ProbeFailed(exc.kind, str(exc)) from None
    numerics = Numerics(torch, device, shape["precision"], lora=shape["task"] == "lora")
    depths = shape["depths"]
    if device.type == "cpu":
        need = plancheck_memory_bytes(shape, depths[1])
        free = device.free_bytes()
        if free and need > PLANCHECK_CPU_RAM_SHARE * free:
            raise kit.ProbeFailed("out-of-memory", f"the plan at depth {depths[1]} "
                                  f"({describe_plan(shape)}) would need about "
                                  f"{need / 2**30:.1f} GiB of RAM; {free / 2**30:.1f} GiB is "
                                  "free: check this plan on a GPU")
    timing = PLANCHECK_TIMING[suite["name"]]
    warmup = checked.get("warmup", timing["warmup"])
    steps = checked.get("steps", timing["steps"])
    if device.type == "cpu":
        rate = cpu_matmul_flops(torch, numerics.compute_dtype)
        tokens = shape["micro_batch"] * shape["seq"]
        flops = sum(flops_per_token(shape, depth, include_head=True)["train"] * tokens
                    for depth in depths) * (warmup + steps)
        if flops / rate > CPU_PLANCHECK_MAX_S:
            raise kit.ProbeFailed(
                "unsupported", f"the plan check ({describe_plan(shape)}) would take about "
                f"{flops / rate / 60:.0f} min on this CPU ({rate / 1e9:.2g} GFLOPS in "
                f"{shape['precision']}): check this plan on a GPU")
    memory = memory_api(torch, device)
    previous = set_matmul_precision(torch, numerics.matmul_precision)
    per_depth = []
    notes = list(numerics.notes)
    try:
        numerics.check()
        for index, depth in enumerate(depths):
            measured = _plancheck_depth_with_retry(torch, device, shape, depth, numerics,
                                                   warmup, steps, memory, channel, index,
                                                   per_depth)
            per_depth.append(measured)
            notes.extend(measured["notes"])
    finally:
        torch.set_float32_matmul_precision(previous)
    return _plancheck_result(torch, device, shape, numerics, per_depth, memory, notes,
                             warmup)


def _plancheck_depth_with_retry(torch, device, shape, depth, numerics, warmup, steps, memory,
                                channel, index, done) -> dict:
    """Measure one depth; after an out-of-memory, free everything and try once more (the
    allocator may have been fragmented), then give up naming the sizes."""
    failures = []
    for attempt in range(2):
        out_of_memory = None
        try:
            return _plancheck_depth(torch, device, shape, depth, numerics, warmup, steps,
                                    memory, channel, index)
        except Exception as exc:
            if not kit.is_oom(exc):
                raise
            out_of_memory = (str(exc).splitlines() or ["out of memory"])[0][:200]
        free_memory(device)
        failures.append(out_of_memory)
        if attempt == 0:
            channel.progress("plancheck", index / 2, f"depth {depth}: out of memory, retrying")
    message = (f"the plan does not fit at depth {depth} ({describe_plan(shape)}): "
               f"{failures[-1]}")
    if done and done[0].get("peak_allocated_bytes") is not None:
        message += (f"; at depth {done[0]['depth']} it peaked at "
                    f"{done[0]['peak_allocated_bytes'] / 2**30:.2f} GiB, so "
                    f"{shape['layers_full']} layers cannot fit either")
    raise kit.ProbeFailed("out-of-memory", message)


def _plancheck_depth(torch, device, shape, depth, numerics, warmup, steps, memory, channel,
                     index) -> dict:
    classes = model_classes(torch)
    free_memory(device)  # a clean cache: the reserved peak must not count the last depth's blocks
    channel.progress("plancheck", index / 2, f"depth {depth}: building the model")
    rope = rope_tables(torch, shape, device, numerics.compute_dtype)
    model = classes["LanguageModel"](shape, depth, device.id, numerics.param_dtype, rope,
                                     gqa_supported(torch, device))
    params = sum(p.numel() for p in model.parameters())
    if shape["task"] == "lora":
        add_lora(torch, model, shape, device)
    trainable = sum(p.numel() for p in model.parameters() if p.requires_grad)
    model.train()
    b, s = shape["micro_batch"], shape["seq"]
    tokens = torch.randint(0, shape["vocab"], (b, s), device=device.id)
    targets = torch.randint(0, shape["vocab"], (b, s), device=device.id)
    device.sync()
    if memory is not None:
        memory.reset_peak_memory_stats(device.id)
    run = TrainingRun(torch, device, model, numerics, shape["optimizer"], (tokens, targets))
    total = warmup + steps
    fb, opt, notes = [], [], []
    for i in range(total):
        if kit.stop_requested() and len(fb) >= 1:
            notes.append(f"depth {depth}: stopped early after {len(fb)} timed step(s)")
            break
        forward_backward_s, optimizer_s = run.step(split=True)
        if i >= warmup:
            fb.append(forward_backward_s)
            opt.append(optimizer_s)
        channel.progress("plancheck", (index + (i + 1) / total) / 2,
                         f"depth {depth}: step {i + 1}/{total}")
    if not fb:
        raise kit.ProbeFailed("exception", "stopped before any step was timed")
    if not run.optimizer_ran():
        notes.append(f"depth {depth}: every optimizer step was skipped (fp16 overflow)")
    measured = {"depth": depth, "params": params, "trainable": trainable,
                "forward_backward_s": statistics.median(fb), "optimizer_s": statistics.median(opt),
                "step_s": statistics.median([fb[i] + opt[i] for i in range(len(fb))]),
                "steps": len(fb), "optimizer_impl": run.optimizer_impl,
                "grad_scaler": run.scaler is not None, "notes": notes}
    if memory is not None:
        measured["peak_allocated_bytes"] = int(memory.max_memory_allocated(device.id))
        measured["peak_reserved_bytes"] = int(memory.max_memory_reserved(device.id))
    return measured



def _plancheck_result(torch, device, shape, numerics, per_depth, memory, notes,
                      warmup) -> dict:
    layers = shape["layers_full"]
    depths = tuple(shape["depths"])
    one, two = per_depth
    figures, units = {}, {}

    def add(name, value, unit):
        figures[name] = value
        units[name] = unit

    for name in ("step_s", "forward_backward_s", "optimizer_s"):
        v1, v2 = kit.sig(one[name], 6), kit.sig(two[name], 6)
        per_layer, _ = extrapolate(v1, v2, layers, depths)
        if per_layer <= 0:
            notes.append(f"{name}: depth {depths[1]} was not slower than depth {depths[0]} "
                         "(timing noise); per-layer time taken as 0, so the full-depth time "
                         "is a lower bound")
            per_layer = 0.0
        per_layer = kit.sig(per_layer, 6)
        add(f"{name}_depth{depths[0]}", v1, "s")
        add(f"{name}_depth{depths[1]}", v2, "s")
        add(f"{name}_per_layer", per_layer, "s")
        add(f"{name}_full", kit.sig(v1 + (layers - depths[0]) * per_layer, 6), "s")
    tokens = shape["micro_batch"] * shape["seq"]
    add("tokens_per_s_full", kit.sig(tokens / figures["step_s_full"]), "tokens/s")
    if memory is not None:
        for name in ("peak_allocated_bytes", "peak_reserved_bytes"):
            m1, m2 = one[name], two[name]
            per_layer, full = extrapolate(m1, m2, layers, depths)
            add(f"{name}_depth{depths[0]}", float(m1), "bytes")
            add(f"{name}_depth{depths[1]}", float(m2), "bytes")
            add(f"{name}_per_layer", float(per_layer), "bytes")
            add(f"{name}_full", float(full), "bytes")
    params_per_layer, params_full = extrapolate(one["params"], two["params"], layers, depths)
    trainable_per_layer, trainable_full = extrapolate(one["trainable"], two["trainable"],
                                                      layers, depths)
    flops = flops_per_token(shape, layers, include_head=True)
    conditions = {"device": device.id, "device_name": device.name,
                  "dtype": numerics.dtype_label, "layers_full": layers, "depths": list(depths)}
    for name in ("hidden", "heads", "kv_heads", "head_dim", "ffn", "gated", "vocab", "seq",
                 "micro_batch", "precision", "optimizer", "checkpointing", "attention",
                 "norm", "norms_per_layer", "position", "tie_embeddings", "final_norm",
                 "qkv_bias", "out_bias", "mlp_bias", "dropout", "task"):
        conditions[name] = shape[name]
    if shape["task"] == "lora":
        for name in ("lora_rank", "lora_targets", "lora_alpha"):
            conditions[name] = shape[name]
    conditions.update(
        steps=min(one["steps"], two["steps"]), warmup=warmup,
        params_depth1=one["params"], params_depth2=two["params"],
        params_per_layer=int(params_per_layer), params_full=int(params_full),
        trainable_params_full=int(trainable_full),
        trainable_params_per_layer=int(trainable_per_layer),
        optimizer_impl=one["optimizer_impl"], autocast=numerics.autocast,
        grad_scaler=one["grad_scaler"], memory_measured=memory is not None,
        flops_per_token_train=flops["train"], flops_convention=FLOPS_CONVENTION,
        tokens_per_step=tokens,
        extrapolation=f"per_layer = (m{depths[1]} - m{depths[0]}) / {depths[1] - depths[0]}; "
                      f"full = m{depths[0]} + ({layers} - {depths[0]}) x per_layer",
        timing="per step: forward + backward, sync, optimizer.step() + zero_grad, sync; "
               "medians of the timed steps after warm-up; random tokens, no data loading",
        notes=notes)
    if memory is None:
        conditions["memory_note"] = memory_note(device)
    else:
        conditions["memory_counted"] = ("max_memory_allocated: tensors only (no CUDA "
                                        "context); max_memory_reserved: the caching "
                                        "allocator's pool, also without the context")
    if device.type == "cpu":
        conditions["threads"] = int(torch.get_num_threads())
    return {"figures": figures, "units": units, "conditions": conditions}


PROBES = {"step": probe_step, "plancheck": probe_plancheck}
