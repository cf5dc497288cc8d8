"""The ``decodecheck`` probe: an inference plan's real decode loop at reduced depth.

Builds the planned decoder at two depths (option ``depths``, default ``[1, 2]``): the
embedding, that many layers (norm, ``q``/``k``/``v``/``o`` projections, attention over a
KV cache, norm, gated or plain MLP), the final norm and the LM head, with random weights
in the plan's format (:mod:`decode_formats`: 16-bit, int8 or 4-bit, through torch's fused
weight-only kernels where it has them). At each depth it

1. prefills ``prefill_tokens`` of the prompt (at most the suite's cap; causal SDPA) once
   to warm up, then times a second prefill and scales that time to the whole prompt (per
   token: the attention's growth with the prompt is under-counted for prompts longer
   than measured);
2. fills the cache up to the plan's mean context with random values, as after a real
   prefill and half the generation;
3. runs ``warmup`` decode steps, then times ``decode_tokens`` greedy steps (the argmax of
   the logits is the next token; each step writes its K and V at its position and
   attends to the whole cache so far), synchronising the device after each; the median
   step (the window is centred on the mean context, and the median ignores a step the
   OS or a driver interrupted) stands for the depth.

Times per depth are extrapolated linearly to the plan's ``layers_full`` (``per_layer =
(t2 - t1) / (d2 - d1)``, ``full = t1 + (L - d1) x per_layer``, as the training plan
check does): ``decode_step_s_*``, ``prefill_s_*``, then ``tokens_per_s_full`` =
``micro_batch / decode_step_s_full``. The bytes one step reads at full depth
(:func:`decodecheck_shape.bytes_per_step`: weights, KV cache at the mean context, head)
over ``decode_step_s_full`` is ``achieved_gb_s_full``, the bandwidth the whole loop
reached; ``layer_gb_s`` is one layer's bytes over ``decode_step_s_per_layer``.

Eager PyTorch launches every operation from Python: on a fast GPU and a small model the
loop can be launch-bound, which engines with CUDA graphs or fused kernels (llama.cpp,
vLLM) avoid; ``conditions.notes`` says so. Rotary positions are not applied (a few
element-wise operations per layer; their bytes are not counted), quantized KV caches
(fp8, int8, q8_0, q4_0) are built at the activation width (the bytes counted are those
built), and the LM head is stored in the layers' format.

Options: see :mod:`decodecheck_shape` (``hidden``, ``heads``, ``kv_heads``, ``head_dim``,
``ffn``, ``gated``, ``norm``, ``vocab``, ``layers_full``, ``seq``, ``new_tokens``,
``micro_batch``, ``weights``, ``kv_dtype``, ``depths``, ``prefill_tokens``,
``decode_tokens``, ``warmup``). A model that does not fit is an ``out-of-memory`` error
naming the sizes. Runs in the worker (``kit`` is the worker module); imports neither torch
nor gpuadvisor.
"""

from __future__ import annotations

import math
import statistics
import time

from .decode_formats import activation_dtype, make_weight
from .decodecheck_shape import (
    CAPS,
    DTYPE_BYTES,
    MEMORY_SHARE,
    DecodeOptionError,
    bytes_per_step,
    check_options,
    complete_shape,
    head_bytes,
    kv_read_bytes,
    layer_matrices,
    layer_weight_bytes,
    memory_bytes,
    window,
)
from .step_shape import extrapolate

kit = None  # the worker module, set by the loader before any probe runs

BYTES_COUNTED = ("per decode step: every layer's weights as stored and its K and V cache "
                 "up to the step's context, the final norm and the LM head; the embedding "
                 "row is not counted")
EAGER_NOTE = ("eager PyTorch launches each operation from Python: a small model on a fast "
              "GPU may be launch-bound here, which engines with CUDA graphs or fused "
              "kernels (llama.cpp, vLLM) avoid")


def probe_decodecheck(torch, device, suite, channel, options) -> dict:
    """The ``decodecheck`` probe (see the module docstring)."""
    try:
        shape = complete_shape(check_options(options))
    except DecodeOptionError as exc:
        raise kit.ProbeFailed(exc.kind, str(exc)) from None
    caps = CAPS[(device.kind, suite.get("name", "quick"))]
    span = window(shape, caps)
    dtypes = _dtypes(torch, device, shape)
    act_bytes = DTYPE_BYTES[dtypes["act_name"]]
    notes = [EAGER_NOTE, "rotary positions are not applied (their bytes are not counted)"]
    if shape.get("kv_dtype", dtypes["act_name"]) != dtypes["act_name"]:
        notes.append(f"the {shape['kv_dtype']} KV cache is built at {dtypes['act_name']} "
                     "(the bytes counted are those built)")
    need = memory_bytes(shape, shape["depths"][1], span["max_context"], act_bytes, act_bytes)
    free = device.free_bytes()
    if free and need > MEMORY_SHARE[device.kind] * free:
        raise kit.ProbeFailed("out-of-memory", f"the decode check at depth "
                              f"{shape['depths'][1]} needs about {need / 2**30:.1f} GiB "
                              f"(weights, head, embedding, a {span['max_context']}-token KV "
                              f"cache); {free / 2**30:.1f} GiB is free here")
    per_depth = []
    for index, depth in enumerate(shape["depths"]):
        try:
            per_depth.append(_depth(torch, device, shape, span, dtypes, depth, channel,
                                    index))
        except Exception as exc:
            if not kit.is_oom(exc):
                raise
            raise kit.ProbeFailed("out-of-memory", f"the decode check does not fit at depth "
                                  f"{depth} ({need / 2**30:.1f} GiB estimated at depth "
                                  f"{shape['depths'][1]}): "
                                  f"{(str(exc).splitlines() or [''])[0][:200]}") from None
        finally:
            device.empty_cache()
    return _result(torch, device, shape, span, dtypes, per_depth, notes)


def _dtypes(torch, device, shape) -> dict:
    """The activation dtype: the weights' own for 16/32-bit weights, else bf16 where the
    device has it (the fused quantized kernels take bf16), else fp16."""
    weights = shape["weights"]
    if weights in ("fp32", "fp16", "bf16"):
        if weights == "bf16" and kit.dtype_unsupported(torch, device, torch.bfloat16):
            raise kit.ProbeFailed("unsupported", "bf16 weights: "
                                  + kit.dtype_unsupported(torch, device, torch.bfloat16))
        name = weights
    else:
        name = "bf16" if activation_dtype(torch, device) == torch.bfloat16 else "fp16"
    dtype = {"fp32": torch.float32, "fp16": torch.float16, "bf16": torch.bfloat16}[name]
    return {"act": dtype, "act_name": name}


class _Layer:
    """One decoder layer's weights, norms and KV cache."""

    def __init__(self, torch, device, shape, dtypes, max_context):
        act = dtypes["act"]
        b, kvh, d = shape["micro_batch"], shape["kv_heads"], shape["head_dim"]
        self.weights = {name: make_weight(torch, device, rows, cols, shape["weights"], act)
                        for name, rows, cols in layer_matrices(shape)}
        self.norms = [torch.ones(shape["hidden"], device=device.id, dtype=act)
                      for _ in range(2)]
        self.k_cache = torch.empty(b, kvh, max_context, d, device=device.id, dtype=act)
        self.v_cache = torch.empty(b, kvh, max_context, d, device=device.id, dtype=act)
        self.k_cache.uniform_(-1.0, 1.0)  # as after the prefill: the steps read real bytes
        self.v_cache.uniform_(-1.0, 1.0)


class _Model:
    """The plan's decoder at one depth: embedding, layers, final norm, head."""

    def __init__(self, torch, device, shape, dtypes, depth, max_context):
        act = dtypes["act"]
        self.torch, self.shape, self.act = torch, shape, act
        self.F = torch.nn.functional
        self.embedding = torch.empty(shape["vocab"], shape["hidden"], device=device.id,
                                     dtype=act)
        self.embedding.uniform_(-0.05, 0.05)
        self.layers = [_Layer(torch, device, shape, dtypes, max_context)
                       for _ in range(depth)]
        self.final_norm = torch.ones(shape["hidden"], device=device.id, dtype=act)
        self.head = make_weight(torch, device, shape["vocab"], shape["hidden"],
                                shape["weights"], act)
        self.scale = 1.0 / math.sqrt(shape["head_dim"])

    def norm(self, x, weight):
        F = self.F
        if self.shape["norm"] == "layernorm":
            return F.layer_norm(x, (x.shape[-1],), weight, None, 1e-5)
        if hasattr(F, "rms_norm"):
            return F.rms_norm(x, (x.shape[-1],), weight, 1e-6)
        variance = x.float().pow(2).mean(-1, keepdim=True)
        return (x.float() * self.torch.rsqrt(variance + 1e-6)).to(x.dtype) * weight

    def mlp(self, layer, h):
        w = layer.weights
        if self.shape["gated"]:
            return w["down"].apply(self.F.silu(w["gate"].apply(h)) * w["up"].apply(h))
        return w["down"].apply(self.F.gelu(w["up"].apply(h)))

    def prefill(self, tokens):
        """Run ``tokens`` (``b x P``) through the model; K and V go to positions 0..P-1.
        Returns the next tokens (the argmax of the last position's logits)."""
        return self.torch.argmax(self.prefill_logits(tokens), dim=-1)

    def step(self, tokens, position: int):
        """One decode step for ``tokens`` (``b``) written at ``position``; the next tokens."""
        return self.torch.argmax(self.step_logits(tokens, position), dim=-1)

    def prefill_logits(self, tokens):
        """:meth:`prefill`, returning the last position's logits (``b x vocab``)."""
        s = self.shape
        b, n = tokens.shape
        heads, kvh, d = s["heads"], s["kv_heads"], s["head_dim"]
        x = self.embedding[tokens].reshape(b * n, s["hidden"])
        for layer in self.layers:
            w = layer.weights
            h = self.norm(x, layer.norms[0])
            q = w["q"].apply(h).view(b, n, heads, d).transpose(1, 2)
            k = w["k"].apply(h).view(b, n, kvh, d).transpose(1, 2)
            v = w["v"].apply(h).view(b, n, kvh, d).transpose(1, 2)
            layer.k_cache[:, :, :n] = k
            layer.v_cache[:, :, :n] = v
            if kvh != heads:
                k = k.repeat_interleave(heads // kvh, dim=1)
                v = v.repeat_interleave(heads // kvh, dim=1)
            o = self.F.scaled_dot_product_attention(q, k, v, is_causal=True)
            x = x + w["o"].apply(o.transpose(1, 2).reshape(b * n, heads * d))
            x = x + self.mlp(layer, self.norm(x, layer.norms[1]))
        last = self.norm(x.view(b, n, -1)[:, -1], self.final_norm)
        return self.head.apply(last)

    def step_logits(self, tokens, position: int):
        """:meth:`step`, returning the logits (``b x vocab``)."""
        torch, s = self.torch, self.shape
        b = tokens.shape[0]
        heads, kvh, d = s["heads"], s["kv_heads"], s["head_dim"]
        group = heads // kvh
        x = self.embedding[tokens]
        context = position + 1
        for layer in self.layers:
            w = layer.weights
            h = self.norm(x, layer.norms[0])
            q = w["q"].apply(h).view(b, kvh, group, d)
            layer.k_cache[:, :, position] = w["k"].apply(h).view(b, kvh, d)
            layer.v_cache[:, :, position] = w["v"].apply(h).view(b, kvh, d)
            keys = layer.k_cache[:, :, :context]
            scores = torch.matmul(q, keys.transpose(-1, -2)) * self.scale
            probs = torch.softmax(scores.float(), dim=-1).to(self.act)
            o = torch.matmul(probs, layer.v_cache[:, :, :context]).reshape(b, heads * d)
            x = x + w["o"].apply(o)
            x = x + self.mlp(layer, self.norm(x, layer.norms[1]))
        return self.head.apply(self.norm(x, self.final_norm))


def _depth(torch, device, shape, span, dtypes, depth, channel, index) -> dict:
    """Build the model at ``depth``, prefill, then time the decode window."""
    progress = index / len(shape["depths"])
    channel.progress("decodecheck", progress, f"depth {depth}: building the model")
    model = _Model(torch, device, shape, dtypes, depth, span["max_context"])
    b, prompt = shape["micro_batch"], span["prefill_tokens"]
    with torch.inference_mode():
        tokens = torch.randint(0, shape["vocab"], (b, prompt), device=device.id)
        model.prefill(tokens)  # warm up: the kernels for these shapes, the allocator
        device.sync()
        started = time.perf_counter()
        next_tokens = model.prefill(tokens)
        device.sync()
        prefill_s = time.perf_counter() - started
        position = span["first_position"] - span["warmup"]
        for _ in range(span["warmup"]):
            next_tokens = model.step(next_tokens, position)
            position += 1
        device.sync()
        times = []
        for i in range(span["decode_tokens"]):
            if kit.stop_requested() and times:
                break
            started = time.perf_counter()
            next_tokens = model.step(next_tokens, position)
            device.sync()
            times.append(time.perf_counter() - started)
            position += 1
            channel.progress("decodecheck", progress + (i + 1) / span["decode_tokens"]
                             / len(shape["depths"]), f"depth {depth}: step {i + 1}")
    kernels = sorted({w.kernel for w in model.layers[0].weights.values()})
    fused = all(w.fused for layer in model.layers for w in layer.weights.values())
    return {"depth": depth, "prefill_s": prefill_s, "step_s": statistics.median(times),
            "step_s_mean": statistics.mean(times), "steps": len(times),
            "kernels": kernels, "fused": fused and model.head.fused,
            "weights_bytes": sum(w.nbytes for w in model.layers[0].weights.values())}


def _result(torch, device, shape, span, dtypes, per_depth, notes) -> dict:
    layers, depths = shape["layers_full"], tuple(shape["depths"])
    one, two = per_depth
    act_bytes = DTYPE_BYTES[dtypes["act_name"]]
    figures, units = {}, {}

    def add(name, value, unit):
        figures[name] = kit.sig(value, 6)
        units[name] = unit

    scale = shape["seq"] / span["prefill_tokens"]
    for name, v1, v2 in (("decode_step_s", one["step_s"], two["step_s"]),
                         ("prefill_s", one["prefill_s"] * scale, two["prefill_s"] * scale)):
        per_layer, _ = extrapolate(v1, v2, layers, depths)
        if per_layer <= 0:
            notes.append(f"{name}: depth {depths[1]} was not slower than depth {depths[0]} "
                         "(timing noise); per-layer time taken as 0, so the full-depth time "
                         "is a lower bound")
            per_layer = 0.0
        add(f"{name}_depth{depths[0]}", v1, "s")
        add(f"{name}_depth{depths[1]}", v2, "s")
        add(f"{name}_per_layer", per_layer, "s")
        add(f"{name}_full", v1 + (layers - depths[0]) * per_layer, "s")
    step_full = figures["decode_step_s_full"]
    context = span["mean_context"]
    step_bytes = bytes_per_step(shape, layers, context, act_bytes, act_bytes)
    add("tokens_per_s_full", shape["micro_batch"] / step_full, "tokens/s")
    add("bytes_per_token_full", step_bytes, "bytes")
    add("achieved_gb_s_full", step_bytes / step_full / 1e9, "GB/s")
    layer_bytes = (layer_weight_bytes(shape, act_bytes)
                   + kv_read_bytes(shape, context, act_bytes))
    if figures["decode_step_s_per_layer"] > 0:
        add("layer_gb_s", layer_bytes / figures["decode_step_s_per_layer"] / 1e9, "GB/s")
    add("weights_bytes_full", layers * layer_weight_bytes(shape, act_bytes)
        + head_bytes(shape, act_bytes), "bytes")
    if one["weights_bytes"] + 2 * shape["hidden"] * act_bytes != layer_weight_bytes(
            shape, act_bytes):
        notes.append(f"a layer stores {one['weights_bytes']} bytes of matrices, not the "
                     "counted ones (a padded packing)")
    if not one["fused"]:
        notes.append(f"{shape['weights']} weights ran unfused ({', '.join(one['kernels'])}): "
                     "each matrix is dequantized to 16 bits before its multiply")
    conditions = {"device": device.id, "device_name": device.name, "layers_full": layers,
                  "depths": list(depths), "activation_dtype": dtypes["act_name"],
                  "kv_dtype_built": dtypes["act_name"], "kernels": one["kernels"],
                  "fused": one["fused"], "context": round(context),
                  "mean_context": context, "steps": min(one["steps"], two["steps"]),
                  "bytes_counted": BYTES_COUNTED,
                  "extrapolation": f"per_layer = (t{depths[1]} - t{depths[0]}) / "
                                   f"{depths[1] - depths[0]}; full = t{depths[0]} + "
                                   f"({layers} - {depths[0]}) x per_layer",
                  "timing": "prefill: one pass over the measured prompt tokens after one "
                            "to warm up, synced, scaled to the whole prompt; decode: the "
                            "median of the timed steps (each synced), centred on the mean "
                            "context", "notes": notes}
    for name in ("hidden", "heads", "kv_heads", "head_dim", "ffn", "gated", "norm", "vocab",
                 "seq", "new_tokens", "micro_batch", "weights"):
        conditions[name] = shape[name]
    if "kv_dtype" in shape:
        conditions["kv_dtype"] = shape["kv_dtype"]
    conditions.update({k: span[k] for k in ("prefill_tokens", "decode_tokens", "warmup",
                                            "first_position")})
    if device.type == "cpu":
        conditions["threads"] = int(torch.get_num_threads())
    return {"figures": figures, "units": units, "conditions": conditions}


PROBES = {"decodecheck": probe_decodecheck}
