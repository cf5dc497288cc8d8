"""Serving exports: an Ollama Modelfile, a ``llama-server`` line and a ``vllm serve`` line
with the settings an inference estimate used.

Each takes an :class:`~gpuadvisor.core.estimate.Estimate` whose engine is the one exported
(its ``engine.flags`` hold what the memory and time were computed with), the model as the
user names it (a ``.gguf`` path, an Ollama tag, a Hugging Face repo id, or a preset id) and,
for a preset, its :class:`~gpuadvisor.core.serving.ServingIds`: then the line names what the
engine loads (the Hugging Face repo for vLLM, the GGUF repository and file of the estimate's
GGUF type for llama-server, the Ollama library tag of that type), never the preset's own id,
which no engine resolves. Every value from outside is quoted for its format; a value that
cannot be written safely raises ``ValueError`` naming the field.

Flags (llama.cpp ``tools/server/README.md``; vLLM ``vllm serve --help``; Ollama
``docs/modelfile.md`` and ``docs/faq.md``):

* llama-server: ``-m`` (a local file) or ``-hf REPO --hf-file FILE`` (downloaded from the
  Hub; llama.cpp ``common/arg.cpp``), ``-c`` (context of all slots together), ``-ngl``,
  ``-fa on|off``, ``--cache-type-k/-v``, ``--n-cpu-moe``, ``-np`` (parallel slots).
* vllm serve: ``--max-model-len``, ``--gpu-memory-utilization``, ``--max-num-seqs``,
  ``--kv-cache-dtype``, ``--tensor-parallel-size``, ``--quantization``; a GGUF is served
  from its local file with ``--tokenizer`` naming the original repository (vLLM's GGUF
  guide), without ``--quantization``.
* Ollama: ``PARAMETER num_ctx`` and ``num_gpu`` in the Modelfile; flash attention, the KV
  cache type and parallel requests are server settings (``OLLAMA_FLASH_ATTENTION``,
  ``OLLAMA_KV_CACHE_TYPE``, ``OLLAMA_NUM_PARALLEL``), written as the line that starts it.
"""

from __future__ import annotations

import json
import re

from gpuadvisor.core.engines.llamacpp_backends import BACKEND_LABELS

from .quoting import LINE_BREAKS, comment_text, shell_word

#: Export kinds and the engine each needs.
SERVE_EXPORTS = {"ollama": "ollama", "llama-server": "llama.cpp", "vllm": "vllm"}
#: vLLM ``--quantization`` for the plan's quant names (None: leave the flag out and let vLLM
#: read the checkpoint's own ``quantization_config``).
#: Values from ``QuantizationMethods`` in vllm/model_executor/layers/quantization/__init__.py
#: of the release named in catalog/serving.toml ``[engines.vllm]`` (checked by
#: tests/export/test_engine_flags.py against the list read from that release).
VLLM_QUANTIZATION = {"fp8": "fp8", "int4": "gptq", "int3": "gptq", "mxfp4": "mxfp4",
                     "nvfp4": "modelopt_fp4"}
#: Plan quantizations vLLM cannot load: bitsandbytes is no longer a quantization method
#: there (neither ``--quantization`` nor ``--load-format`` takes it), and what it serves
#: instead, for the refusal.
VLLM_CANNOT = {"nf4": "int4", "nf4-dq": "int4", "int8": "fp8"}


#: The engines' default ports: vLLM's ``--port`` (vllm/entrypoints/openai/cli_args.py),
#: llama-server's ``--port`` (common/common.h ``port = 8080``), Ollama's OLLAMA_HOST
#: (envconfig/config.go, ``127.0.0.1:11434``).
VLLM_PORT, LLAMA_SERVER_PORT, OLLAMA_PORT = 8000, 8080, 11434

#: A model reference a Modelfile takes unquoted (a path or tag of plain characters).
_PLAIN_REF = re.compile(r"^[A-Za-z0-9._/:@+-]+$")


def _flags(result, engine: str) -> dict:
    """The engine flags of ``result``; ValueError when it was estimated on another engine."""
    if result.engine_name != engine or result.engine is None:
        raise ValueError(f"framework: this export is for {engine}; the estimate ran on "
                         f"{result.engine_name or 'no inference engine'}")
    return result.engine.flags


def _model_text(model_ref: str, field: str = "model") -> str:
    text = str(model_ref)
    if not text.strip():
        raise ValueError(f"{field}: empty")
    if any(c in LINE_BREAKS or c == "\0" for c in text):
        raise ValueError(f"{field}: {comment_text(text)!r} holds a line break")
    return text


def _header(result, what: str) -> list[str]:
    model = result.model
    gpu = result.time_gpu
    memory = result.memory.total / 2**30
    return [f"# {comment_text(what)} for {comment_text(model.name)} on "
            f"{comment_text(gpu.name)} (gpuadvisor estimate: {memory:.1f} GiB per GPU, "
            f"{result.time.decode_tokens_per_s:.0f} tokens/s decode)"]


def _gguf_type(result) -> str | None:
    """The GGUF type the estimate ran (``q4_k_m``), lower case, or None."""
    flags = result.engine.flags if result.engine is not None else {}
    name = flags.get("gguf") or result.plan.quant
    return str(name).lower() if name else None


#: llama.cpp's CMake option of each GPU backend (docs/build.md; Metal is on by default on
#: macOS).
BUILD_OPTIONS = {"cuda": "-DGGML_CUDA=ON", "hip": "-DGGML_HIP=ON", "vulkan": "-DGGML_VULKAN=ON",
                 "metal": "-DGGML_METAL=ON"}


def llama_server_line(result, model_path: str, ids=None) -> str:
    """``llama-server`` with the context, layers, flash attention, KV types, expert offload
    and slots the estimate used; a preset with a known GGUF file of the estimate's type is
    downloaded from its repository (``-hf REPO --hf-file FILE``)."""
    f = _flags(result, "llama.cpp")
    found = ids.gguf_file(_gguf_type(result)) if ids is not None else None
    if found is not None:
        source = ["-hf", shell_word(_model_text(found[0], "gguf_repo")),
                  "--hf-file", shell_word(_model_text(found[1], "gguf_file"))]
    elif ids is not None:
        raise ValueError(f"model: no {(_gguf_type(result) or 'GGUF').upper()} file of this "
                         "preset is known; give --model the path of a .gguf file")
    else:
        source = ["-m", shell_word(_model_text(model_path))]
    words = ["llama-server", *source,
             "-c", str(int(f["ctx_size"])), "-ngl", str(int(f["n_gpu_layers"])),
             "-fa", "on" if f["flash_attn"] else "off",
             "--cache-type-k", f["cache_type_k"], "--cache-type-v", f["cache_type_v"]]
    if f.get("n_cpu_moe"):
        words += ["--n-cpu-moe", str(int(f["n_cpu_moe"]))]
    words += ["-np", str(int(f["parallel"]))]
    lines = _header(result, f"llama.cpp server ({f['gguf']} GGUF)")
    lines.append("# -c is the context of all slots together (-np slots share it).")
    backend = result.engine.settings.get("backend") if result.engine is not None else None
    if backend in BUILD_OPTIONS:
        lines.append(f"# Timed on llama.cpp's {BACKEND_LABELS[backend]} backend: a build "
                     f"configured with cmake -B build {BUILD_OPTIONS[backend]} "
                     "(llama.cpp docs/build.md).")
    lines.append(f"# Serves on http://127.0.0.1:{LLAMA_SERVER_PORT} (llama-server's default); "
                 f"ready when curl http://127.0.0.1:{LLAMA_SERVER_PORT}/health answers.")
    return "\n".join([*lines, " ".join(words)]) + "\n"


def ollama_modelfile(result, model_ref: str, ids=None) -> str:
    """A Modelfile (``num_ctx``, ``num_gpu``) and, as comments, the server line with the
    flash-attention, KV-cache and parallel settings the estimate used. A preset is named by
    its Ollama library tag of the estimate's GGUF type, or, where the library has none, by
    the GGUF file to download from its repository."""
    f = _flags(result, "ollama")
    settings = result.engine.settings
    notes: list[str] = []
    if ids is not None:
        quant = result.plan.quant
        priced = quant or _gguf_type(result)  # the GGUF type the estimate sized
        tag = ids.ollama_tag(priced) if priced else ids.ollama_tag(None)
        file = ids.gguf_file(priced)
        if tag is not None:
            ref = tag
        elif file is not None:
            ref = f"./{file[1]}"
            notes.append(f"# Download first: huggingface-cli download {comment_text(file[0])} "
                         f"{comment_text(file[1])} --local-dir .")
        else:
            also = (f"; its default tag {ids.ollama} holds {ids.ollama_quant.upper()}: "
                    f"estimate with --quant {ids.ollama_quant}"
                    if ids.ollama and ids.ollama_quant else "")
            raise ValueError("model: the Ollama library has no tag of this preset at "
                             f"{(priced or 'its default type').upper()}, and no GGUF file is "
                             f"known{also}; or give --model an Ollama tag or a .gguf path")
        if ids.ollama and ids.ollama_quant and ref != ids.ollama:
            notes.append(f"# The library's default tag {ids.ollama} holds "
                         f"{ids.ollama_quant.upper()} weights (smaller and faster); estimate "
                         f"with --quant {ids.ollama_quant} to plan that one.")
    else:
        ref = _model_text(model_ref)
    quoted = ref if _PLAIN_REF.match(ref) else json.dumps(ref, ensure_ascii=False)
    env = [f"OLLAMA_FLASH_ATTENTION={1 if f['flash_attn'] else 0}",
           f"OLLAMA_KV_CACHE_TYPE={f['cache_type_k']}",
           f"OLLAMA_NUM_PARALLEL={int(f['parallel'])}"]
    lines = _header(result, "Ollama Modelfile")
    lines += ["# Start the server with the settings the estimate used:",
              f"#   {' '.join(env)} ollama serve",
              f"# It listens on http://127.0.0.1:{OLLAMA_PORT}; ready when curl "
              f"http://127.0.0.1:{OLLAMA_PORT}/api/version answers.",
              "# then: ollama create NAME -f Modelfile",
              *notes,
              f"FROM {quoted}",
              f"PARAMETER num_ctx {int(settings['num_ctx'])}",
              f"PARAMETER num_gpu {int(f['n_gpu_layers'])}"]
    return "\n".join(lines) + "\n"


def vllm_serve_line(result, model_ref: str, ids=None) -> str:
    """``vllm serve`` with the context, memory reserve, sequences, KV type, tensor
    parallelism and quantization the estimate used; a preset is served from its Hugging
    Face repository, a GGUF from its file with the repository's tokenizer."""
    f = _flags(result, "vllm")
    quant = result.plan.quant
    if quant in VLLM_CANNOT:
        from gpuadvisor.catalog.serving import engine_release

        release = engine_release("vllm")
        raise ValueError(
            f"quant: vLLM {release.release} cannot load {quant} weights (bitsandbytes is not "
            f"among its quantization methods); estimate the plan with --quant "
            f"{VLLM_CANNOT[quant]} (a {'GPTQ/AWQ' if VLLM_CANNOT[quant] == 'int4' else 'fp8'} "
            f"checkpoint vLLM serves), or serve {quant} with Hugging Face transformers")
    notes: list[str] = []
    tokenizer: list[str] = []
    if quant == "nvfp4" and ids is not None:
        # vLLM loads NVFP4 weights quantized ahead of time, not a 16-bit repository
        raise ValueError("quant: vLLM serves NVFP4 from a checkpoint quantized to it (NVIDIA "
                         "TensorRT Model Optimizer or llm-compressor); give --model that "
                         "checkpoint's folder or config.json")
    if ids is not None and quant and quant not in VLLM_QUANTIZATION and quant != "none":
        found = ids.gguf_file(quant)
        if found is None:
            raise ValueError(f"model: no {quant.upper()} GGUF file of this preset is known; "
                             "give --model the path of a .gguf file")
        model = f"./{found[1]}"
        tokenizer = ["--tokenizer", shell_word(_model_text(ids.hf_repo, "hf_repo"))]
        notes.append(f"# Download first: huggingface-cli download {comment_text(found[0])} "
                     f"{comment_text(found[1])} --local-dir .")
    elif ids is not None:
        model = ids.hf_repo
    elif str(model_ref).replace("\\", "/").rsplit("/", 1)[-1] == "config.json":
        # vLLM loads a model folder (its config.json, tokenizer and weights together)
        model = str(model_ref)[:-len("config.json")].rstrip("/\\") or "."
    else:
        model = model_ref
    words = ["vllm", "serve", shell_word(_model_text(model)), *tokenizer,
             "--max-model-len", str(int(f["max_model_len"])),
             "--gpu-memory-utilization", f"{float(f['gpu_memory_utilization']):g}",
             "--max-num-seqs", str(int(f["max_num_seqs"])),
             "--kv-cache-dtype", str(f["kv_cache_dtype"]),
             "--tensor-parallel-size", str(int(f["tensor_parallel_size"]))]
    if int(f.get("pipeline_parallel_size") or 1) > 1:
        words += ["--pipeline-parallel-size", str(int(f["pipeline_parallel_size"]))]
    if f.get("max_num_batched_tokens"):
        words += ["--max-num-batched-tokens", str(int(f["max_num_batched_tokens"]))]
    if f.get("enforce_eager"):
        words.append("--enforce-eager")
    if quant in VLLM_QUANTIZATION:
        words += ["--quantization", VLLM_QUANTIZATION[quant]]
    lines = _header(result, "vLLM server")
    lines.append(f"# Serves on http://127.0.0.1:{VLLM_PORT} (vLLM's default); ready when curl "
                 f"http://127.0.0.1:{VLLM_PORT}/health answers.")
    capacity = result.engine.capacity_tokens
    if capacity:
        lines.append(f"# KV pool: {int(capacity):,} tokens in blocks of 16.")
    return "\n".join([*lines, *notes, " ".join(words)]) + "\n"


__all__ = ["SERVE_EXPORTS", "VLLM_QUANTIZATION", "llama_server_line", "ollama_modelfile",
           "vllm_serve_line"]
