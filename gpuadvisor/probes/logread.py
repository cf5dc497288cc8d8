"""Engine logs read back: what vLLM, llama.cpp, Ollama or PyTorch say they allocated (Qt-free).

:func:`read_log` finds which program wrote a log and reads, line by line, what it reports
about memory: the device's total, weights, buffers, the KV cache and its capacity, layers on
the GPU, a training run's peak. Only what the log states is kept (a figure it does not print
stays absent); each figure remembers its line so a comparison can point at it. The plan a
log belongs to and the comparison are in :mod:`gpuadvisor.probes.logcheck`.

The forms read (each from logs posted in the engines' public issues; the tests hold
excerpts with their sources):

* **vLLM** (V0 and V1): the engine's config line (``Initializing a V1 LLM engine (v0.8.5)
  with config: model='...', ..., tensor_parallel_size=1, ...``), ``non-default args`` /
  ``args: Namespace(...)``, ``Model loading took X GiB`` (``Loading model weights took X
  GB``), the memory profile (``total_gpu_memory (X GiB) x gpu_memory_utilization (0.90) =
  ...; model weights take ...; non_torch_memory takes ...; PyTorch activation peak memory
  takes ...; the rest of the memory reserved for KV Cache is ...``), ``# GPU blocks: N``,
  ``GPU KV cache size: N tokens``, ``Maximum concurrency for N tokens per request: X``,
  ``Graph capturing finished in N secs, took X GiB``, and the refusals (``max seq len ... is
  larger than the maximum number of tokens that can be stored in KV cache``, ``No
  available memory for the cache blocks``).
* **llama.cpp** (``llama-server``, ``llama-cli``; the ``llm_load_*`` / ``load_tensors`` /
  ``llama_context`` prefixes of every release since 2024): the device and its free memory,
  the file type and size, ``n_layer``, ``offloaded N/M layers to GPU``, model buffers per
  device, ``KV buffer size``, ``compute buffer size``, ``n_ctx``, ``n_seq_max``.
* **Ollama**: its ``offload to <library>`` line (``layers.model``, ``layers.offload``,
  ``memory.available``, ``memory.required.*``, ``memory.weights.*``, ``memory.graph.*``),
  the ``starting llama server`` command (``--ctx-size``, ``--n-gpu-layers``,
  ``--parallel``), its version, and the llama.cpp lines that follow.
* **PyTorch** (:mod:`.logread_torch`): ``torch.cuda.memory_summary()``'s table, printed
  ``max_memory_allocated`` / ``max_memory_reserved`` values and the out-of-memory message.

The reading itself and the byte units are in :mod:`.logreading`.
"""

from __future__ import annotations

import contextlib
import re
from typing import Any

from gpuadvisor.core.limits import MAX_LOG_BYTES
from gpuadvisor.probes.logread_torch import TORCH_MARK, read_torch
from gpuadvisor.probes.logreading import (
    ENGINES,
    SIZE,
    LogError,
    LogReading,
    number,
    size_bytes,
)

# --------------------------------------------------------------------------- detection
_VLLM_MARK = re.compile(r"vllm|LLM engine|KV cache size|# GPU blocks|gpu_memory_utilization"
                        r"|non_torch_memory|Maximum concurrency for", re.I)
_OLLAMA_MARK = re.compile(r'msg="?offload[ "]|msg="starting llama server"|source=\S+\.go:\d+'
                          r"|ollama", re.I)
_LLAMA_MARK = re.compile(r"llm_load_|load_tensors:|llama_context:|llama_new_context|"
                         r"llama_kv_cache|print_info:|ggml_cuda_init|offloaded \d+/\d+ layers|"
                         r"llama_params_fit")


def detect(text: str) -> str | None:
    """The program that wrote ``text`` (one of :data:`ENGINES`), or ``None``."""
    if _OLLAMA_MARK.search(text) and (_LLAMA_MARK.search(text) or "offload" in text
                                      or _O_MEMORY.search(text)):
        return "ollama"
    if _LLAMA_MARK.search(text):
        return "llama.cpp"
    if _VLLM_MARK.search(text) and not TORCH_MARK.search(text):
        return "vllm"
    if TORCH_MARK.search(text):
        return "torch"
    if _VLLM_MARK.search(text):
        return "vllm"
    return None


def read_log(text: str, source: str = "-", engine: str | None = None) -> LogReading:
    """Read ``text`` (a whole log or an excerpt) as ``engine`` (found when ``None``).

    Raises:
        LogError: an empty or oversized log, one no engine is recognized in, an unknown
            ``engine``, or a log with no memory figure at all; the message names the
            source.
    """
    if len(text.encode("utf-8", "replace")) > MAX_LOG_BYTES:
        raise LogError(f"{source}: the log is over {MAX_LOG_BYTES // 2**20} MiB; give the "
                       "part from the engine's start to its first request")
    if not text.strip():
        raise LogError(f"{source}: the log is empty")
    if engine is not None and engine not in ENGINES:
        raise LogError(f"engine must be one of {', '.join(ENGINES)}, got {engine!r}")
    found = engine or detect(text)
    if found is None:
        raise LogError(f"{source}: no vLLM, llama.cpp, Ollama or PyTorch memory lines found "
                       "(check-log reads a server's start-up log or a PyTorch memory summary)")
    reading = LogReading(engine=found, source=source)
    lines = text.splitlines()
    if found == "vllm":
        _read_vllm(lines, reading)
    elif found == "torch":
        read_torch(lines, reading)
    else:
        if found == "ollama":
            _read_ollama(lines, reading)
        _read_llamacpp(lines, reading)
    if not reading.observed and reading.refused is None:
        raise LogError(f"{source}: a {found} log, but with no memory figures (give the lines "
                       "the engine prints while it loads the model and sizes its cache)")
    return reading


# --------------------------------------------------------------------------- vLLM
_V_VERSION = re.compile(r"(?:LLM engine \(v|vLLM API server version |version[= ]v?)"
                        r"(\d+\.\d+(?:\.\d+)?[\w.+-]*)")
#: A setting as ``key=value`` (a config line, a Namespace) or as ``'key': value`` (V1's
#: "non-default args: {'model': '...', 'tensor_parallel_size': 8, ...}").
_V_KEY = re.compile(r"\b(model|max_seq_len|max_model_len|tensor_parallel_size|"
                    r"pipeline_parallel_size|gpu_memory_utilization|kv_cache_dtype|"
                    r"quantization|enforce_eager|dtype|max_num_seqs|max_num_batched_tokens|"
                    r"enable_chunked_prefill|block_size)['\"]?\s*[=:]\s*'?\"?([^,'\"}\s)]+)")
_V_WEIGHTS = re.compile(r"(?:Model loading took|Loading model weights took)\s+" + SIZE)
_V_TOTAL = re.compile(r"total_gpu_memory\s*(?:=|\(|\s)\s*" + SIZE)
_V_UTIL = re.compile(r"gpu_memory_utilization\s*(?:=|\(|\s)\s*([0-9.]+)")
#: The memory profile in its three forms: a sentence (``model weights take 14.96GiB;
#: non_torch_memory takes 0.16GiB; ...``, 0.7-0.8), a table of one figure per line (0.6.5,
#: 0.7) and ``name=value`` pairs (``Memory profiling results: total_gpu_memory=23.58GiB ...
#: peak_torch_memory=17.06GiB ... non_torch_memory=0.35GiB kv_cache_size=3.81GiB``, 0.6).
_V_PARTS = {
    "weights": re.compile(r"model weights take\s+" + SIZE),
    "non_torch": re.compile(r"non_torch_memory\s*(?:takes|=|\s)\s*" + SIZE),
    "activation_peak": re.compile(r"activation peak memory\s*(?:takes)?\s*" + SIZE),
    "peak_torch": re.compile(r"peak_torch_memory\s*=\s*" + SIZE),
    "kv_cache": re.compile(r"(?:reserved for KV Cache is|available_kv_cache_memory\s*=?|"
                           r"kv_cache_size\s*=)\s*" + SIZE),
}
_V_AVAILABLE = re.compile(r"Available KV cache memory:\s*" + SIZE)
#: "# GPU blocks: 7191" (0.4-0.7), "# cuda blocks: 3637" (0.8's V0 executor).
_V_BLOCKS = re.compile(r"(?:^|#|\s)(?i:GPU|CUDA) blocks:\s*([0-9,]+)")
#: V1's after-start summary (0.10-0.11): "Free memory on device (43.93/44.42 GiB) on
#: startup. ... Actual usage is 27.72 GiB for weight, 1.4 GiB for peak activation, 0.21 GiB
#: for non-torch memory, and 3.45 GiB for CUDAGraph memory."
_V_DEVICE = re.compile(r"Free memory on device \(\s*[0-9.]+\s*/\s*([0-9.]+)\s*(GiB|GB)\)")
_V_ACTUAL = {
    "weights": re.compile(r"Actual usage is\s+" + SIZE + r"\s+for weight"),
    "activation_peak": re.compile(r"\b" + SIZE + r"\s+for peak activation"),
    "non_torch": re.compile(r"\b" + SIZE + r"\s+for non-torch memory"),
    "cuda_graphs": re.compile(r"\b" + SIZE + r"\s+for CUDAGraph memory"),
}
_V_TOKENS = re.compile(r"GPU KV cache size:\s*([0-9,]+)\s*tokens")
_V_CONCURRENCY = re.compile(r"Maximum concurrency for\s*([0-9,]+)\s*tokens per request:\s*"
                            r"([0-9.,]+)\s*x")
_V_GRAPHS = re.compile(r"Graph capturing finished in\s*[0-9.]+\s*secs?(?:,\s*took\s+"
                       + SIZE + ")?")
_V_REFUSED = re.compile(r"(The model's max seq len \(\d+\) is larger than the maximum number "
                        r"of tokens that can be stored in KV cache \(\d+\)[^\n]*|"
                        r"No available memory for the cache blocks[^\n]*|"
                        r"[^\n]*KV cache is needed, which is larger than the available KV "
                        r"cache memory[^\n]*)")
_V_GPU = re.compile(r"(NVIDIA [A-Za-z0-9 \-]+?(?:GB|\b))(?:[,)\]]|\s{2}|$)")


#: The command line pasted above a log (``vllm serve MODEL --tensor-parallel-size 8 \``, one
#: flag per line or all on one): ``--flag value`` or ``--flag=value``.
_V_FLAG = re.compile(r"(?:^|\s)--(model|max-model-len|tensor-parallel-size|"
                     r"pipeline-parallel-size|gpu-memory-utilization|kv-cache-dtype|"
                     r"quantization|max-num-seqs|max-num-batched-tokens|dtype|block-size)"
                     r"(?:=|\s+)([^\s\\]+)")
_V_SERVE = re.compile(r"\bvllm serve\s+([^\s\\-][^\s\\]*)")


def _flag_number(raw: str) -> str:
    """A size as vLLM's flags take it: ``32K`` = 32,768 and ``32k`` = 32,000 (its
    human-readable integers: upper case binary, lower case decimal)."""
    m = re.fullmatch(r"([0-9.]+)([kKmMgG])", raw)
    if not m:
        return raw
    power = "kmg".index(m.group(2).lower()) + 1
    base = 1024 if m.group(2).isupper() else 1000
    return str(int(float(m.group(1)) * base**power))


def _read_command(line: str, r: LogReading, i: int) -> None:
    """The settings a pasted ``vllm serve`` / ``api_server`` command gives."""
    if m := _V_SERVE.search(line):
        _vllm_setting(r, "model", m.group(1), i)
    for m in _V_FLAG.finditer(line):
        key, raw = m.group(1).replace("-", "_"), m.group(2)
        _vllm_setting(r, key, _flag_number(raw) if key in ("max_model_len",) else raw, i)
    if re.search(r"(?:^|\s)--enforce-eager\b", line):
        _vllm_setting(r, "enforce_eager", "True", i)


def _vsize(number: str, unit: str) -> float:
    """A vLLM size: vLLM divides by 2**30 everywhere, also where it prints ``GB``
    (``Loading model weights took %.4f GB`` with ``/ float(2**30)``, worker/model_runner.py
    of 0.4-0.6)."""
    return size_bytes(number, "GiB" if unit == "GB" else unit)


def _read_vllm(lines: list[str], r: LogReading) -> None:
    size_bytes = _vsize
    for i, line in enumerate(lines, 1):
        if r.version is None and (m := _V_VERSION.search(line)):
            r.version = m.group(1).rstrip(".")
        if "--" in line and not ("config" in line or "args" in line):
            _read_command(line, r, i)
        if "config" in line or "args" in line or "Namespace(" in line:
            for m in _V_KEY.finditer(line):
                _vllm_setting(r, m.group(1), m.group(2), i)
        if m := _V_WEIGHTS.search(line):
            r.set("weights", size_bytes(m.group(1), m.group(2)), i)
        if m := _V_TOTAL.search(line):
            r.set("total_memory", size_bytes(m.group(1), m.group(2)), i)
        if m := _V_UTIL.search(line):
            r.set("gpu_memory_utilization", float(m.group(1)), i, table="settings")
        for name, pattern in _V_PARTS.items():
            if m := pattern.search(line):
                r.set(name, size_bytes(m.group(1), m.group(2)), i)
        if m := _V_AVAILABLE.search(line):
            r.set("kv_cache", size_bytes(m.group(1), m.group(2)), i)
        if "total_memory" not in r.observed and (m := _V_DEVICE.search(line)):
            r.set("total_memory", size_bytes(m.group(1), m.group(2)), i)
        if "Actual usage is" in line:
            for name, pattern in _V_ACTUAL.items():
                if name not in r.observed and (m := pattern.search(line)):
                    r.set(name, size_bytes(m.group(1), m.group(2)), i)
        if m := _V_BLOCKS.search(line):
            r.set("kv_blocks", number(m.group(1)), i)
        if m := _V_TOKENS.search(line):
            r.set("kv_tokens", number(m.group(1)), i)
        if m := _V_CONCURRENCY.search(line):
            r.set("max_concurrency", number(m.group(2)), i)
            r.set("concurrency_tokens", number(m.group(1)), i, table="settings")
        if (m := _V_GRAPHS.search(line)) and m.group(1):
            r.set("cuda_graphs", size_bytes(m.group(1), m.group(2)), i)
        if r.refused is None and (m := _V_REFUSED.search(line)):
            r.refused = m.group(1).strip()
            r.lines["refused"] = i
        if r.gpu_name is None and "NVIDIA" in line and (m := _V_GPU.search(line)):
            r.gpu_name = m.group(1).strip()
    if "activation_peak" not in r.observed and "peak_torch" in r.observed \
            and "weights" in r.observed:  # 0.6: the peak holds the weights
        r.set("activation_peak", r.observed["peak_torch"] - r.observed["weights"],
              r.lines["peak_torch"])
    if "kv_tokens" not in r.observed and "kv_blocks" in r.observed:
        block = int(r.settings.get("block_size", 16))
        r.set("kv_tokens", r.observed["kv_blocks"] * block, r.lines["kv_blocks"])


def _vllm_setting(r: LogReading, key: str, raw: str, line: int) -> None:
    value: Any = raw.strip("'\"")
    if key == "model":
        if r.model is None:
            r.model = value
            r.lines["model"] = line
        return
    if key == "dtype":
        value = value.replace("torch.", "")
    if value in ("None", "none"):
        return
    if value in ("True", "False", "true", "false"):
        value = value.lower() == "true"
    else:
        with contextlib.suppress(ValueError):
            value = float(value) if "." in value else int(value)
    if key == "max_seq_len":
        key = "max_model_len"
    r.set(key, value, line, table="settings", first=True)


# --------------------------------------------------------------------------- llama.cpp
_L_DEVICE = re.compile(r"Device \d+:\s*(.+?),\s*(?:compute capability|gfx)")
_L_FREE = re.compile(r"using device \w+ \((.+?)\)(?: \([^)]*\))? - ([0-9]+) MiB free")
_L_FTYPE = re.compile(r"(?:model ftype|file type)\s*=\s*(.+?)\s*$")
_L_FSIZE = re.compile(r"(?:model size|file size)\s*=\s*" + SIZE)
_L_PARAMS = re.compile(r"model params\s*=\s*([0-9.]+)\s*([KMBT])")
_L_NAME = re.compile(r"general\.name\s*(?:=|str\s*=)\s*(.+?)\s*$")
_L_NLAYER = re.compile(r"\bn_layer\s*=\s*(\d+)")
_L_OFFLOADED = re.compile(r"offloaded\s+(\d+)/(\d+)\s+layers to GPU")
_L_BUFFER = re.compile(r"(?:^|\s|:)([A-Za-z_]+[0-9]*)(?:_Mapped)?\s+(?:model\s+)?buffer size"
                       r"\s*=\s*" + SIZE)
_L_KV = re.compile(r"([A-Za-z_]+[0-9]*)\s+KV buffer size\s*=\s*" + SIZE)
_L_KV_SELF = re.compile(r"KV self size\s*=\s*" + SIZE)
_L_COMPUTE = re.compile(r"([A-Za-z_]+[0-9]*)\s+compute buffer size\s*=\s*" + SIZE)
_L_CTX = re.compile(r"\bn_ctx\s*=\s*(\d+)")
_L_SEQ = re.compile(r"\bn_seq_max\s*=\s*(\d+)")
_L_TYPE_K = re.compile(r"type_k\s*=\s*'?(\w+)'?|K \((\w+)\)")
_L_FLASH = re.compile(r"flash_attn\s*=\s*(\w+)")
#: ``--fit`` (llama.cpp b6900 and later, ``llama_params_fit_impl``): what llama.cpp projects its
#: buffers will take, against the free memory, in total and per device.
_L_FIT_TOTAL = re.compile(r"projected to use\s+([0-9]+)\s*MiB of device memory vs\.\s*"
                          r"([0-9]+)\s*MiB of free device memory")
_L_FIT_DEVICE = re.compile(r"-\s*\w+\s*\((.+?)\):\s*([0-9]+)\s*total,\s*([0-9]+)\s*used")
_L_MMPROJ = re.compile(r"estimated memory usage of mmproj is\s*" + SIZE)
_HOST = ("CPU", "CUDA_Host", "ROCm_Host", "Metal_Host", "Vulkan_Host", "CPU_Mapped",
         "CPU_REPACK", "AMX")


def _is_host(name: str) -> bool:
    return name in _HOST or name.endswith("_Host") or name.startswith("CPU")


def _read_llamacpp(lines: list[str], r: LogReading) -> None:
    # buffer sizes by kind (model weights, KV cache, compute) and place (GPU or host)
    buffers: dict[str, list[float]] = {}
    free_total = 0.0

    def add(kind: str, device: str, number: str, unit: str, line: int) -> None:
        sizes = buffers.setdefault(kind, [0.0, 0.0])
        sizes[1 if _is_host(device) else 0] += size_bytes(number, unit)
        r.lines[kind] = line
    for i, line in enumerate(lines, 1):
        if m := _L_DEVICE.search(line):
            r.gpu_name = r.gpu_name or m.group(1).strip()
        if m := _L_FREE.search(line):
            r.gpu_name = r.gpu_name or m.group(1).strip()
            free_total += float(m.group(2)) * 2**20
            r.set("free_memory", free_total, i)
        if m := _L_FTYPE.search(line):
            r.set("file_type", m.group(1).strip(), i, table="settings", first=True)
        if m := _L_FSIZE.search(line):
            r.set("file_bytes", size_bytes(m.group(1), m.group(2)), i)
        if m := _L_PARAMS.search(line):
            scale = {"K": 1e3, "M": 1e6, "B": 1e9, "T": 1e12}[m.group(2)]
            r.set("params", float(m.group(1)) * scale, i)
        if r.model is None and (m := _L_NAME.search(line)):
            r.model = m.group(1).strip()
            r.lines["model"] = i
        if m := _L_NLAYER.search(line):
            r.set("model_layers", float(m.group(1)), i)
        if m := _L_OFFLOADED.search(line):
            r.set("gpu_layers", float(m.group(1)), i)
            r.set("offload_units", float(m.group(2)), i)
        if (m := _L_KV.search(line)) and "KV self" not in line:
            add("kv_cache", *m.groups(), i)
        elif m := _L_COMPUTE.search(line):
            add("compute_buffer", *m.groups(), i)
        elif (m := _L_BUFFER.search(line)) and "output buffer" not in line \
                and "KV" not in line:
            add("gpu_model_buffer", *m.groups(), i)
        if (m := _L_KV_SELF.search(line)) and "kv_cache" not in buffers:
            r.set("kv_total", size_bytes(m.group(1), m.group(2)), i)
        if m := _L_CTX.search(line):
            r.set("n_ctx", int(m.group(1)), i, table="settings")
        if m := _L_SEQ.search(line):
            r.set("n_parallel", int(m.group(1)), i, table="settings")
        if (m := _L_TYPE_K.search(line)) and "type_k" not in r.settings:
            r.set("type_k", (m.group(1) or m.group(2)).lower(), i, table="settings")
        if m := _L_FLASH.search(line):
            r.set("flash_attn", m.group(1).lower() in ("1", "true", "enabled", "on"), i,
                  table="settings")
        if (m := _L_FIT_TOTAL.search(line)) and "fit_projected" not in r.observed:
            # the first projection is of the parameters as given (later ones, of the
            # parameters --fit changed, follow)
            r.set("fit_projected", float(m.group(1)) * 2**20, i)
            r.set("free_memory", float(m.group(2)) * 2**20, i)
        if (m := _L_FIT_DEVICE.search(line)) and "total_memory" not in r.observed:
            r.gpu_name = r.gpu_name or m.group(1).strip()
            r.set("total_memory", float(m.group(2)) * 2**20, i)
        if m := _L_MMPROJ.search(line):
            r.set("projector", size_bytes(m.group(1), m.group(2)), i)
    for kind, host in (("gpu_model_buffer", "host_model_buffer"),
                       ("kv_cache", "host_kv_cache"),
                       ("compute_buffer", "host_compute_buffer")):
        if kind in buffers:
            r.observed[kind], r.observed[host] = buffers[kind]


# --------------------------------------------------------------------------- Ollama
#: ``msg="offload to cuda" layers...`` (to 0.10) or ``msg=offload library=cuda layers...``.
_O_OFFLOAD = re.compile(r'msg="?offload(?: to (\w+)"|(?=\s))(.*)$')
_O_FIELD = re.compile(r'([a-z.]+)=("[^"]*"|\S+)')
_O_SERVER = re.compile(r'msg="starting llama server"\s+cmd="([^"]*)"')
_O_VERSION = re.compile(r'(?:version=|\(version |Ollama version |ollama version is )"?v?'
                        r'(\d+\.\d+\.\d+)')
_O_FLAG = re.compile(r"--(ctx-size|n-gpu-layers|parallel|batch-size|model|threads|"
                     r"flash-attn|kv-cache-type)(?:[ =]+(\S+))?")
_OSIZES = re.compile(r"([0-9.]+)\s*(B|KiB|MiB|GiB|TiB)")
#: Ollama's own engine (0.12 and later, ``ml/device.go``): each buffer by device,
#: ``msg="model weights" device=CUDA0 size="5.1 GiB"``; and its GPU discovery,
#: ``msg="inference compute" ... name="NVIDIA GeForce RTX 3070" total="7.7 GiB"
#: available="7.0 GiB"``.
_O_DEVICE = re.compile(r'msg="(model weights|kv cache|compute graph)"\s+device=(\S+)\s+'
                       r'size="([0-9.]+)\s*(B|KiB|MiB|GiB|TiB)"')
_O_COMPUTE = re.compile(r'msg="inference compute".*?\bname="([^"]+)".*?\btotal="([0-9.]+)\s*'
                        r'(B|KiB|MiB|GiB|TiB)"(?:.*?\bavailable="([0-9.]+)\s*(B|KiB|MiB|GiB|'
                        r'TiB)")?')
#: Its runner's load requests (0.11 and later): ``msg=load request="{Operation:fit ...
#: Parallel:1 BatchSize:512 FlashAttention:true KvSize:8192 KvCacheType:q8_0 ...
#: GPULayers:29[ID:GPU-... Layers:29(0..28)] ...}"``, and the model it read (``ggml.go``:
#: ``file_type=Q4_K_M name="DeepSeek R1 Distill Qwen 1.5B"``).
_O_LOAD = re.compile(r'msg=load request="\{(.*)\}"')
_O_LOAD_FIELD = re.compile(r"(\w+):([^\s\[\]]*)")
_O_MODEL = re.compile(r'\bfile_type=(\S+)\s+name="([^"]+)"')
_O_MEMORY = re.compile(r'msg="(?:model weights|kv cache|compute graph|inference compute)"')
_O_KINDS = {"model weights": ("gpu_model_buffer", "host_model_buffer"),
            "kv cache": ("kv_cache", "host_kv_cache"),
            "compute graph": ("compute_buffer", "host_compute_buffer")}
_O_CTX = re.compile(r"(?:num_ctx|OLLAMA_CONTEXT_LENGTH|context_length)[=:]\s*(\d+)")


def _ollama_size(value: str) -> float | None:
    found = _OSIZES.findall(value)
    if not found:
        return None
    return sum(size_bytes(n, u) for n, u in found)


def _unwrap_offload(lines: list[str]) -> list[str]:
    """``lines`` with the continuation lines of a console-wrapped ``msg=offload`` line (each
    indented, ``key=value`` fields) appended to it; the others stay, so line numbers hold
    (a continuation becomes an empty line)."""
    out = list(lines)
    head = None
    for i, line in enumerate(lines):
        if _O_OFFLOAD.search(line):
            head = i
        elif head is not None and line[:1].isspace() and "=" in line \
                and not _O_SERVER.search(line):
            out[head] = out[head].rstrip() + " " + line.strip()
            out[i] = ""
        else:
            head = None
    return out


def _read_ollama(lines: list[str], r: LogReading) -> None:
    buffers: dict[str, list[float]] = {}
    for i, line in enumerate(_unwrap_offload(lines), 1):
        if r.version is None and (m := _O_VERSION.search(line)):
            r.version = m.group(1)
        if m := _O_DEVICE.search(line):
            gpu, host = _O_KINDS[m.group(1)]
            sizes = buffers.setdefault(m.group(1), [0.0, 0.0])
            sizes[1 if _is_host(m.group(2)) else 0] += size_bytes(m.group(3), m.group(4))
            r.lines[gpu] = r.lines[host] = i
        if (m := _O_COMPUTE.search(line)) and r.gpu_name is None:
            r.gpu_name = m.group(1)
            r.set("total_memory", size_bytes(m.group(2), m.group(3)), i)
            if m.group(4):
                r.set("available_memory", size_bytes(m.group(4), m.group(5)), i)
        if m := _O_LOAD.search(line):  # the last request (fit, alloc, commit) is the one run
            fields = dict(_O_LOAD_FIELD.findall(m.group(1)))
            if fields.get("GPULayers", "").isdigit():
                r.set("planned_gpu_layers", float(fields["GPULayers"]), i)
            for key, name in (("KvSize", "n_ctx"), ("Parallel", "n_parallel"),
                              ("BatchSize", "batch_size")):
                if fields.get(key, "").isdigit():
                    r.set(name, int(fields[key]), i, table="settings")
            if fields.get("FlashAttention") in ("true", "false"):
                r.set("flash_attn", fields["FlashAttention"] == "true", i, table="settings")
            if fields.get("KvCacheType"):
                r.set("type_k", fields["KvCacheType"].lower(), i, table="settings")
        if m := _O_MODEL.search(line):
            r.set("file_type", m.group(1), i, table="settings", first=True)
            if r.model is None:
                r.model = m.group(2)
                r.lines["model"] = i
        if m := _O_OFFLOAD.search(line):
            fields = {k: v.strip('"') for k, v in _O_FIELD.findall(m.group(2))}
            library = m.group(1) or fields.get("library")
            if library:
                r.set("library", library, i, table="settings")
            for key, name in (("layers.model", "offload_units"),
                              ("layers.offload", "planned_gpu_layers")):
                if fields.get(key, "").isdigit():
                    r.set(name, float(fields[key]), i)
            for key, name in (("memory.available", "available_memory"),
                              ("memory.required.full", "ollama_required_full"),
                              ("memory.required.partial", "ollama_required_partial"),
                              ("memory.required.kv", "ollama_kv"),
                              ("memory.weights.total", "ollama_weights_total"),
                              ("memory.weights.repeating", "ollama_weights_repeating"),
                              ("memory.weights.nonrepeating", "ollama_weights_nonrepeating"),
                              ("memory.graph.full", "ollama_graph_full"),
                              ("memory.graph.partial", "ollama_graph_partial"),
                              ("memory.projector.weights", "ollama_projector")):
                if key in fields and (size := _ollama_size(fields[key])) is not None:
                    r.set(name, size, i)
        if m := _O_SERVER.search(line):
            for flag, value in _O_FLAG.findall(m.group(1)):
                if flag == "model":  # a blob path: the GGUF's general.name says more
                    r.set("model_path", value, i, table="settings")
                    continue
                if value and value.lstrip("-").isdigit():
                    r.set(flag.replace("-", "_"), int(value), i, table="settings")
                elif flag == "flash-attn":
                    r.set("flash_attn", True, i, table="settings")
                elif value:
                    r.set(flag.replace("-", "_"), value, i, table="settings")
        if (m := _O_CTX.search(line)) and "num_ctx" not in r.settings:
            r.set("num_ctx", int(m.group(1)), i, table="settings")
    for kind, (gpu, host) in _O_KINDS.items():
        if kind in buffers:  # llama.cpp's own lines, where the log has them, replace these
            r.observed[gpu], r.observed[host] = buffers[kind]


__all__ = ["ENGINES", "LogError", "LogReading", "detect", "read_log", "size_bytes"]
