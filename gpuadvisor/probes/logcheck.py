"""Planned vs observed: an engine's log held against the estimate of the plan it ran (Qt-free).

:func:`plan_of` turns what a log states (:mod:`gpuadvisor.probes.logread`) into the plan it
ran: the model (named by the caller, or found from the log's Hub id / GGUF name), the GPU
(named by the caller, or found from the log's device name) and the engine's settings as the
log prints them; what the log does not say is left at the estimate's defaults and listed.
:func:`check` resolves that plan - the same estimate every door shows - and puts each term
beside what the engine reported (:class:`Row`), with the difference and what explains it.
:func:`format_check` writes it for people; :meth:`Check.to_json` for scripts.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from gpuadvisor.core.assumptions import DEFAULT_ASSUMPTIONS, Assumptions
from gpuadvisor.core.estimate import Estimate
from gpuadvisor.core.gpu import GpuSpec
from gpuadvisor.core.gpu_names import match_gpu_name
from gpuadvisor.core.model import ModelSpec
from gpuadvisor.core.phrase import Phrase
from gpuadvisor.core.plan import GGUF_QUANTS, Plan
from gpuadvisor.core.resolve import resolve
from gpuadvisor.core.units import GiB, format_bytes

from .logread import LogReading

#: vLLM's ``max_num_seqs`` when its log does not print it (``SchedulerConfig`` default).
VLLM_MAX_NUM_SEQS = 256
#: Tokens of a vLLM plan's context left for new tokens (the rest is the prompt).
_NEW_TOKENS = 256
#: llama.cpp's ``general.file_type`` words -> the plan's GGUF quant.
_FILE_TYPES = {"all f32": "f32", "mostly f16": "f16", "f16": "f16", "bf16": "bf16",
               "q8_0": "q8_0", "q6_k": "q6_k", "q5_k - medium": "q5_k_m",
               "q5_k - small": "q5_k_s", "q4_k - medium": "q4_k_m", "q4_k - small": "q4_k_s",
               "q4_0": "q4_0", "q4_1": "q4_1", "q5_0": "q5_0", "q5_1": "q5_1",
               "q3_k - large": "q3_k_l", "q3_k - medium": "q3_k_m", "q3_k - small": "q3_k_s",
               "q2_k - medium": "q2_k", "q2_k": "q2_k", "iq4_xs - 4.25 bpw": "iq4_xs",
               "iq4_nl - 4.5 bpw": "iq4_nl", "mxfp4 moe": "mxfp4_moe"}
#: vLLM's ``--quantization`` -> the plan's quant.
_VLLM_QUANT = {"awq": "int4", "awq_marlin": "int4", "gptq": "int4", "gptq_marlin": "int4",
               "compressed-tensors": None, "fp8": "fp8", "bitsandbytes": "nf4",
               "moe_wna16": "int4"}


#: A checkpoint's quantization as Hub names say it (``Qwen/Qwen3-235B-A22B-Instruct-2507-FP8``,
#: ``Qwen2.5-7B-Instruct-AWQ``, ``...-GPTQ-Int4``): vLLM reads it from the checkpoint's
#: config and prints it only with the engine's full config line.
_NAME_QUANT = (("fp8", "fp8"), ("awq", "int4"), ("gptq-int4", "int4"), ("gptq-int8", "int8"),
               ("gptq", "int4"))


def _quant_in_name(model: str) -> str | None:
    """The plan's quant a model's Hub name states (its last path part, dash-separated)."""
    tail = model.lower().rstrip("/").rsplit("/", 1)[-1]
    parts = tail.replace("_", "-").split("-")
    joined = "-".join(parts)
    for word, quant in _NAME_QUANT:
        if ("-" in word and f"-{word}" in f"-{joined}") or word in parts:
            return quant
    return None


def _gguf_in_name(model: str) -> str | None:
    """The GGUF type a file's name states (``Llama-3.2-3B-Instruct-Q8_0.gguf`` -> q8_0)."""
    tail = model.lower().rstrip("/").rsplit("/", 1)[-1].removesuffix(".gguf")
    words = re.split(r"[-.]", tail)
    found = [w for w in words if w in GGUF_QUANTS]
    return found[-1] if found else None


class PlanNotFound(ValueError):
    """The log does not say enough to find its plan; the message names the flag to give."""


@dataclass(frozen=True)
class Row:
    """One term planned and observed.

    Attributes:
        term: for people (``KV cache``).
        key: for scripts (``kv_cache``).
        planned: the estimate's value (bytes, tokens, layers), or None.
        observed: the log's value, or None.
        unit: ``bytes``, ``tokens``, ``layers`` or ``x``.
        line: the log line the observation is on (0 when derived).
        why: what explains the difference (empty when there is none to explain), with the
            template and values it was made from (:class:`Phrase`).
    """

    term: str
    key: str
    planned: float | None
    observed: float | None
    unit: str
    line: int = 0
    why: Phrase = field(default_factory=lambda: Phrase(""))

    @property
    def why_template(self) -> str:
        """``why`` before its values were put in."""
        return self.why.template

    @property
    def why_args(self) -> dict:
        """The values ``why_template`` takes."""
        return self.why.args

    @property
    def difference(self) -> float | None:
        """``planned / observed - 1`` (None when either is missing or observed is 0)."""
        if self.planned is None or not self.observed:
            return None
        return self.planned / self.observed - 1.0

    @property
    def difference_text(self) -> str:
        """:attr:`difference` as a signed whole percent (``+7%``), ``0%`` when it rounds to
        nothing (no ``-0%``), empty when there is none."""
        diff = self.difference
        if diff is None:
            return ""
        return "0%" if round(diff * 100) == 0 else f"{diff:+.0%}"


@dataclass
class Check:
    """A log held against its plan's estimate."""

    reading: LogReading
    model: ModelSpec
    gpu: GpuSpec
    plan: Plan
    estimate: Estimate
    rows: list[Row] = field(default_factory=list)
    assumed: list[Phrase] = field(default_factory=list)
    notes: list[Phrase] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {"engine": self.reading.engine, "version": self.reading.version,
                "source": self.reading.source, "model": self.model.id, "gpu": self.gpu.id,
                "plan": self.plan.to_dict(), "assumed": list(self.assumed),
                "refused": self.reading.refused,
                "estimate_refuses": (self.estimate.engine.refuses
                                     if self.estimate.engine is not None else None),
                "rows": [{"term": r.term, "key": r.key, "planned": r.planned,
                          "observed": r.observed, "unit": r.unit, "line": r.line,
                          "difference": r.difference, "why": r.why} for r in self.rows],
                "notes": list(self.notes)}


# --------------------------------------------------------------------------- the plan
def _words(text: str) -> str:
    return re.sub(r"[^a-z0-9.]+", " ", text.lower()).strip()


def find_model(reading: LogReading, models: Mapping[str, ModelSpec],
               hub_ids: Mapping[str, str]) -> str:
    """The preset id a log's model is (``hub_ids``: preset id -> its Hugging Face repo).

    Raises:
        PlanNotFound: the log names no model, or one no preset is.
    """
    named = (reading.model or "").strip()
    if not named:
        raise PlanNotFound("the log does not name its model: give --model")
    low = named.lower().rstrip("/")
    for pid, repo in hub_ids.items():
        if repo and repo.lower() in (low, low.split("/", 2)[-1] if low.count("/") > 1
                                     else low):
            return pid
    tail = low.rsplit("/", 1)[-1]
    base = re.sub(r"[-_](instruct|chat|it|hf)$", "", tail)
    for pid, repo in hub_ids.items():
        if repo and re.sub(r"[-_](instruct|chat|it|hf)$", "", repo.lower().rsplit("/", 1)[-1]) \
                == base:
            return pid
    words = set(re.sub(r"\b(meta|instruct|chat|hf)\b", " ", _words(named)).split())
    hits = [pid for pid, spec in models.items()
            if words and words <= set(_words(f"{spec.name} {pid}").split())]
    exact = [pid for pid in hits if set(_words(pid).split()) == words]
    if len(hits) == 1 or len(exact) == 1:
        return hits[0] if len(hits) == 1 else exact[0]
    raise PlanNotFound(f"the log's model {named[:80]!r} is no preset: give --model (a preset "
                       "id, or the model's folder or .gguf file)")


def find_gpu(reading: LogReading, gpus: Mapping[str, GpuSpec]) -> str:
    """The catalog GPU a log's device is.

    Raises:
        PlanNotFound: the log names no device, or one that is not one catalog GPU.
    """
    if not reading.gpu_name:
        raise PlanNotFound(f"the {reading.engine} log does not name its GPU: give --gpu")
    match = match_gpu_name(reading.gpu_name, gpus)
    if match.gpu_id is None:
        raise PlanNotFound(f"the log's GPU {reading.gpu_name!r} is not one catalog GPU: give "
                           "--gpu")
    return match.gpu_id


def plan_of(reading: LogReading, base: Plan | None = None) -> tuple[Plan, list[Phrase]]:
    """``(plan, assumed)``: the plan the log ran, and the settings it did not state (taken
    from ``base``, the flags given, or the engine's defaults)."""
    assumed: list[Phrase] = []
    base = base or Plan(task="infer")
    if reading.engine == "vllm":
        return _vllm_plan(reading, base, assumed), assumed
    if reading.engine in ("llama.cpp", "ollama"):
        return _llama_plan(reading, base, assumed), assumed
    assumed.append(Phrase("the whole plan (a PyTorch memory line names no model or "
                          "settings): from the flags given"))
    return base, assumed


def _vllm_plan(reading: LogReading, base: Plan, assumed: list[Phrase]) -> Plan:
    s = reading.settings
    max_len = s.get("max_model_len") or s.get("concurrency_tokens")
    if not max_len:
        max_len = base.seq_len + base.new_tokens
        assumed.append(Phrase("max_model_len {n} (the log does not print it)",
                              n=f"{int(max_len):,}"))
    max_len = int(max_len)
    new = min(_NEW_TOKENS, max(1, max_len // 2))
    quant = base.quant
    if str(s.get("quantization", "")).lower() == "gguf":
        if quant is None and (named := _gguf_in_name(reading.model or "")) is not None:
            quant = named
            assumed.append(Phrase("quant {quant} (the GGUF file's name; the log does not "
                                  "print its type)", quant=named))
    elif s.get("quantization"):
        quant = _VLLM_QUANT.get(str(s["quantization"]).lower(), quant)
    elif quant is None and (named := _quant_in_name(reading.model or "")) is not None:
        quant = named
        assumed.append(Phrase("quant {quant} (from the model's name {name}; the log does "
                              "not print the quantization)", quant=named,
                              name=repr((reading.model or "").rsplit("/", 1)[-1][:60])))
    kv = "fp8" if str(s.get("kv_cache_dtype", "")).startswith("fp8") else base.kv_dtype
    tp, pp = int(s.get("tensor_parallel_size", 0)), int(s.get("pipeline_parallel_size", 1))
    if not tp:
        tp = base.n_gpus // (base.pp or 1)
        if "kv_tokens" in reading.observed or "kv_blocks" in reading.observed:
            assumed.append(Phrase("tensor_parallel_size {n} (the log does not print it)",
                                  n=tp))
    seqs = s.get("max_num_seqs")
    if not seqs:
        if base.micro_batch > 1:
            seqs = base.micro_batch
            assumed.append(Phrase("max_num_seqs {n} (as given; the log does not print it)",
                                  n=seqs))
        else:
            seqs = VLLM_MAX_NUM_SEQS
            assumed.append(Phrase("max_num_seqs {n} (vLLM's default; the log does not "
                                  "print it)", n=seqs))
    util = s.get("gpu_memory_utilization")
    if util is None:
        assumed.append(Phrase("gpu_memory_utilization 0.9 (vLLM's default; not in the "
                              "log)"))
    version = base.engine_version or reading.version
    if version is None:
        assumed.append(Phrase("the vLLM release (not printed): the current one's rules "
                              "(V1); give --engine-version"))
    return replace(base, task="infer", framework="vllm", seq_len=max_len - new,
                   new_tokens=new, micro_batch=int(seqs), n_gpus=tp * pp,
                   pp=pp if pp > 1 else None, quant=quant, kv_dtype=kv,
                   gpu_memory_utilization=float(util) if util else None,
                   enforce_eager=bool(s.get("enforce_eager", base.enforce_eager)),
                   max_num_batched_tokens=(int(s["max_num_batched_tokens"])
                                           if s.get("max_num_batched_tokens")
                                           else base.max_num_batched_tokens),
                   engine_version=version,
                   gpu_layers=None, n_cpu_moe=0, num_ctx=None)


#: The release an Ollama log is read as when it prints llm/memory.go's estimate but no
#: version: the last before llama-server's --fit placed the layers (0.30).
PRE_FIT_OLLAMA = "0.29"

def _llama_plan(reading: LogReading, base: Plan, assumed: list[Phrase]) -> Plan:
    s = reading.settings
    ollama = reading.engine == "ollama"
    parallel = int(s.get("n_parallel") or s.get("parallel") or 1)
    n_ctx = int(s.get("n_ctx") or s.get("ctx_size") or 0)
    if not n_ctx:
        n_ctx = (base.seq_len + base.new_tokens) * parallel
        assumed.append(Phrase("n_ctx {n} (the log does not print it)", n=f"{n_ctx:,}"))
    per_seq = max(2, n_ctx // parallel)
    ftype = str(s.get("file_type", "")).lower().strip()
    quant = _FILE_TYPES.get(ftype, base.quant)
    if ftype and ftype not in _FILE_TYPES:
        assumed.append(Phrase("the GGUF file type {ftype} is not known: quant {quant}",
                              ftype=repr(s["file_type"]), quant=base.quant or "the default"))
    kv = {"f16": None, "q8_0": "q8_0", "q4_0": "q4_0", "f32": "fp32"}.get(
        str(s.get("type_k", "f16")), base.kv_dtype)
    flash = s.get("flash_attn")
    attention = "flash" if flash or kv in ("q8_0", "q4_0") else "eager"
    if flash is None:
        assumed.append(Phrase("flash attention on (not in the log)" if attention == "flash"
                              else "flash attention off (not in the log)"))
    layers = None
    if not ollama and "gpu_layers" in reading.observed:
        layers = int(reading.observed["gpu_layers"])  # llama.cpp: -ngl as given
    new = min(_NEW_TOKENS, max(1, per_seq // 2))
    version = None
    if ollama:
        # Ollama's placement rules changed at 0.30 (llama-server's --fit); a log that
        # prints llm/memory.go's layer estimate ("offload to cuda ... layers.offload")
        # comes from an earlier release.
        version = base.engine_version or reading.version
        if version is None and "planned_gpu_layers" in reading.observed:
            version = PRE_FIT_OLLAMA
            assumed.append(Phrase("an Ollama release before 0.30 (the log prints "
                                  "llm/memory.go's layer estimate, not its version)"))
    return replace(base, task="infer", framework="ollama" if ollama else "llama.cpp",
                   seq_len=per_seq - new, new_tokens=new, micro_batch=parallel,
                   quant=quant, kv_dtype=kv, attention=attention, gpu_layers=layers,
                   num_ctx=per_seq if ollama else None, n_gpus=base.n_gpus,
                   gpu_memory_utilization=None, max_num_batched_tokens=None,
                   enforce_eager=False, engine_version=version, pp=None)


# --------------------------------------------------------------------------- the check
def check(reading: LogReading, model: ModelSpec, gpu: GpuSpec, plan: Plan,
          assumptions: Assumptions = DEFAULT_ASSUMPTIONS, assumed: list[Phrase] | None = None
          ) -> Check:
    """The estimate of ``plan`` held against ``reading``, term by term.

    An Ollama log states the memory free when the model was placed (``memory.available``:
    other programs' memory already gone); the layers are placed in that, as Ollama did."""
    free = reading.observed.get("available_memory") if reading.engine == "ollama" else None
    if free and plan.n_gpus == 1:
        gpu = replace(gpu, cuda_memory_mib=free / 2**20,
                      memory_report_source="the free memory the Ollama log reports")
    est = resolve(model, plan, gpu, assumptions)
    result = Check(reading, model, gpu, plan, est, assumed=list(assumed or []))
    if reading.engine == "vllm":
        _vllm_rows(result)
    elif reading.engine in ("llama.cpp", "ollama"):
        _llama_rows(result)
    else:
        _torch_rows(result)
    refuses = est.engine.refuses if est.engine is not None else None
    if reading.engine == "torch" and reading.refused:
        # the message itself is shown as the log's refusal; this says how the verdict held
        result.notes.append(Phrase("PyTorch ran out of memory; the estimate said it would fit"
                                   if est.fits else "PyTorch ran out of memory, as the "
                                   "estimate says: it does not fit"))
    elif reading.refused and not refuses:
        result.notes.append(Phrase("vLLM refused to start; the estimate said it would fit: "
                                   "{why}", why=reading.refused[:200]))
    elif refuses and not reading.refused and reading.engine == "vllm":
        result.notes.append(Phrase("the estimate says vLLM would refuse this plan; the log "
                                   "shows it started"))
    return result


def _add(result: Check, term: str, key: str, planned, unit: str = "bytes",
         why: str = "", **why_args) -> None:
    """One row; ``why`` is a sentence template its ``why_args`` fill in (str.format)."""
    r = result.reading
    observed = r.observed.get(key)
    if observed is None and planned is None:
        return
    if observed is None:
        why, why_args = "", {}
    result.rows.append(Row(term, key, None if planned is None else float(planned),
                           None if observed is None else float(observed), unit,
                           r.lines.get(key, 0), Phrase(why, **why_args)))


def _vllm_rows(result: Check) -> None:
    e, est, r = result.estimate.engine, result.estimate, result.reading
    total = e.terms["total_gpu_memory"]
    seen_total = r.observed.get("total_memory")
    why_total = ""
    if seen_total and abs(seen_total / total - 1) > 0.002:
        why_total = "the estimate used {source}; CUDA reported {seen}"
    _add(result, "total GPU memory (CUDA)", "total_memory", total, why=why_total,
         source=result.gpu.usable_source, seen=format_bytes(seen_total or 0),
         gpu=result.gpu.name)
    _add(result, "weights", "weights", e.weights, why=_why_weights(result),
         quantization=r.settings.get("quantization", "none"))
    nt = e.terms["non_torch"]
    _add(result, "non-torch memory", "non_torch", nt,
         why=("vLLM's non-torch growth (cuBLAS, NCCL buffers) on this machine"
              if "non_torch" in r.observed and abs(r.observed["non_torch"] - nt) > 0.05 * GiB
              else ""))
    how = est.assumptions.get("engine_max_num_batched_tokens_source",
                              Phrase("the release's default"))
    _add(result, "activation peak (profiling)", "activation_peak", e.activations,
         why="profiling pass of {tokens} tokens ({how})",
         tokens=f"{e.settings['max_num_batched_tokens']:,}", how=how)
    _add(result, "KV cache", "kv_cache", e.terms["kv_pool"],
         why="what the budget leaves after the rows above")
    _add(result, "KV cache tokens", "kv_tokens", e.capacity_tokens, unit="tokens",
         why="KV cache / (16 x bytes per token) blocks of 16")
    _add(result, "maximum concurrency", "max_concurrency", e.settings["max_concurrency"],
         unit="x", why="KV cache tokens / max_model_len")
    _add(result, "CUDA graphs", "cuda_graphs", e.terms["cuda_graphs"],
         why="captured after the KV pool, beside the budget")


def _why_weights(result: Check) -> str:
    r = result.reading
    seen = r.observed.get("weights")
    planned = result.estimate.engine.weights if result.estimate.engine else None
    if not seen or not planned or abs(planned / seen - 1) < 0.03:
        return ""
    return ("the checkpoint's bytes differ from the plan's weights: check --quant (the log's "
            "quantization: {quantization}) and the model")


def _llama_rows(result: Check) -> None:
    e, r = result.estimate.engine, result.reading
    s = e.settings
    n = result.model.n_layers
    planned_layers = min(int(s["n_gpu_layers"]), n + 1)
    free = r.observed.get("free_memory") or r.observed.get("available_memory")
    why_layers = ""
    if free and r.engine == "ollama":
        why_layers = ("placed in the {free} the log says were free, less Ollama's 457 MiB "
                      "minimum, the compute graph and one layer's margin")
    if "gpu_layers" not in r.observed and "planned_gpu_layers" in r.observed:
        # an Ollama log cut before llama.cpp's lines: Ollama's own placement (layers.offload)
        r.observed["gpu_layers"] = r.observed["planned_gpu_layers"]
        r.lines["gpu_layers"] = r.lines.get("planned_gpu_layers", 0)
    _add(result, "layers on the GPU", "gpu_layers", planned_layers, unit="layers",
         why=why_layers, free=format_bytes(free or 0))
    _add(result, "weights on the GPU", "gpu_model_buffer", e.weights * result.plan.n_gpus,
         why="the GGUF's tensors of the layers on the GPU (and the output layer)")
    file_why = "the token embedding (kept on the CPU) and the layers left there"
    seen = r.observed.get("gpu_model_buffer", 0.0) + r.observed.get("host_model_buffer", 0.0)
    planned = e.weights * result.plan.n_gpus + e.terms["host_weights"]
    ftype = r.settings.get("file_type")
    if seen and abs(planned / seen - 1) > 0.05:
        file_why = ("the model file holds {seen}, the plan's {plan_bytes}: give --quant (the "
                    "log's file type: {ftype})" if ftype else
                    "the model file holds {seen}, the plan's {plan_bytes}: give --quant (the "
                    "log does not print the file type)")
    _add(result, "weights in host RAM", "host_model_buffer", e.terms["host_weights"],
         why=file_why, seen=format_bytes(seen), plan_bytes=format_bytes(planned),
         ftype=ftype or "")
    _add(result, "KV cache on the GPU", "kv_cache", e.kv_cache * result.plan.n_gpus,
         why="n_ctx {cells} cells x the GPU layers' K and V ({kind})",
         cells=f"{s['n_ctx']:,}", kind=s["cache_type_k"])
    _add(result, "compute buffer", "compute_buffer", e.activations,
         why="the worst-case graph of a 512-token micro-batch")
    if "projector" in r.observed:
        _add(result, "vision projector (mmproj)", "projector", e.terms.get("projector", 0.0),
             why="the projector's weights as its GGUF stores them (llama.cpp's "
                 "estimate adds the buffers of its image pass)")
    if "fit_projected" in r.observed:
        # the rows above, on the GPUs: weights, KV cache and compute buffer
        planned = sum(row.planned or 0.0 for row in result.rows
                      if row.key in ("gpu_model_buffer", "kv_cache", "compute_buffer"))
        _add(result, "device memory (--fit)", "fit_projected", planned,
             why="llama.cpp's own projection of its buffers on the GPUs (weights, KV cache, "
                 "compute) before --fit changes anything; the plan's are {plan_bytes}",
             plan_bytes=format_bytes(planned))
    graph = s.get("ollama_graph")
    if graph is not None and r.engine == "ollama":
        seen = max(r.observed.get("ollama_graph_full", 0.0),
                   r.observed.get("ollama_graph_partial", 0.0))
        r.observed.setdefault("ollama_graph", seen or None)
        r.lines.setdefault("ollama_graph", r.lines.get("ollama_graph_partial", 0))
        _add(result, "graph Ollama reserves", "ollama_graph", graph,
             why="Ollama's own estimate (fs/ggml GraphSize) of a {batch}-token batch over "
                 "{ctx} tokens, the larger of its full- and partial-offload sizes",
             batch="512", ctx=f"{s['n_ctx']:,}")


def _torch_rows(result: Check) -> None:
    est = result.estimate
    context = est.assumptions.get("cuda_context_bytes", 0.0)
    planned = est.memory.total - (context if isinstance(context, int | float) else 0.0)
    r = result.reading
    if "oom_needed" not in r.observed or "peak_allocated" in r.observed:
        _add(result, "peak allocated (PyTorch)", "peak_allocated", planned,
             why="the estimate's total less the CUDA context (PyTorch does not count it)")
    _add(result, "peak reserved (PyTorch)", "peak_reserved", None)
    if "oom_needed" in r.observed:
        _add(result, "needed when it ran out", "oom_needed", planned,
             why="PyTorch had {allocated} allocated and asked for {request} more: the run "
                 "needs at least that, the estimate's total less the CUDA context is "
                 "{plan_bytes}",
             allocated=format_bytes(r.observed["oom_allocated"]),
             request=format_bytes(r.observed["oom_request"]), plan_bytes=format_bytes(planned))
        _add(result, "total GPU memory (CUDA)", "total_memory",
             result.estimate.capacity_bytes)


# --------------------------------------------------------------------------- for people
def _value(value: float | None, unit: str) -> str:
    if value is None:
        return "-"
    if unit == "bytes":
        return format_bytes(value)
    if unit == "x":
        return f"{value:.2f}x"
    return f"{value:,.0f} {unit}"


def format_check(result: Check) -> str:
    """The check as text: the plan, each term planned vs observed, and the notes."""
    r = result.reading
    version = f" {r.version}" if r.version else ""
    lines = [f"{r.engine}{version} log ({r.source}): {result.model.name} on {result.gpu.name}"]
    for a in result.assumed:
        lines.append(f"  assumed: {a}")
    lines.append("")
    lines.append(f"  {'term':<28}{'planned':>15}{'observed':>15}{'diff':>8}  line")
    for row in result.rows:
        diff = row.difference
        d = row.difference_text
        lines.append(f"  {row.term:<28}{_value(row.planned, row.unit):>15}"
                     f"{_value(row.observed, row.unit):>15}{d:>8}  "
                     f"{row.line or ''}")
        if row.why and row.observed is not None and diff is not None and abs(diff) >= 0.05:
            lines.append(f"      {row.why}")
    if r.refused and r.engine == "torch":
        lines.append(f"\n  the run ran out of memory: {r.refused[:240]}")
    elif r.refused:
        lines.append(f"\n  the engine refused to start: {r.refused[:240]}")
    for note in result.notes:
        lines.append(f"  note: {note}")
    return "\n".join(lines) + "\n"


__all__ = ["VLLM_MAX_NUM_SEQS", "Check", "PlanNotFound", "Row", "check", "find_gpu",
           "find_model", "format_check", "plan_of"]
