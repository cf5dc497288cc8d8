"""The plan: what the user wants to do with a model.

A :class:`Plan` holds choices only (task, precision, optimizer, batch, sequence, parallelism,
data set size, ...). Numbers that a choice implies but the user did not give (LoRA rank, the
quantization of a QLoRA base, the KV-cache dtype) are resolved by :meth:`Plan.resolved`, and
each such default is reported back in the estimate's ``assumptions``.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, fields, replace

from .limits import MAX_BATCH, MAX_GPUS, MAX_SEQ_TOKENS, PLAN_BOUNDS, check_table

TASKS = ("pretrain", "full", "lora", "qlora", "infer")
PRECISIONS = ("fp32", "fp16", "bf16", "bf16-pure", "fp8")
OPTIMIZERS = ("adamw", "adamw8bit", "adafactor", "sgd", "lion")
CHECKPOINTING = ("none", "selective", "full")
ATTENTION = ("eager", "flash")
#: GGUF file types (llama.cpp's ``llama-quantize`` names, lower case), largest first; their
#: tensor mixtures are in :mod:`gpuadvisor.core.gguf_quant`. ``mxfp4_moe`` is
#: llama.cpp's MXFP4_MOE (experts MXFP4, the rest Q8_0).
GGUF_QUANTS = ("f16", "bf16", "q8_0", "q6_k", "q5_k_m", "q5_k_s", "q5_1", "q5_0", "q4_k_m",
               "q4_k_s", "q4_1", "q4_0", "iq4_xs", "iq4_nl", "q3_k_l", "q3_k_m", "q3_k_s",
               "iq3_m", "iq3_s", "iq3_xs", "iq3_xxs", "q2_k", "q2_k_s", "iq2_m", "iq2_s",
               "iq2_xs", "iq2_xxs", "iq1_m", "iq1_s", "mxfp4_moe")
#: Base-weight quantizations. ``exl2`` is ExLlamaV2's format at its converter's default
#: 4.125 bits per weight; ``exl2-<bits>`` (``exl2-4.65``) names another rate (2 to 8).
QUANT = ("none", "int8", "nf4", "nf4-dq", "int4", "int3", "mxfp4", "nvfp4", "fp8",
         *GGUF_QUANTS,
         "exl2")
#: A release number as engines print it (``0.6.4``, ``0.10.1.1``, ``0.13.0+faa43dbf``).
ENGINE_VERSION = re.compile(r"^\d{1,3}\.\d{1,3}(?:\.\d{1,4}){0,2}(?:[.+-][0-9A-Za-z.+-]{1,40})?$")
#: ``exl2-<bits per weight>``: ExLlamaV2 quantizes to any mean rate (convert.py ``-b``).
EXL2_PATTERN = re.compile(r"^exl2-(\d+(?:\.\d+)?)$")
#: Mean bits per weight ExLlamaV2 accepts (convert.py warns outside 2-8).
EXL2_BITS_RANGE = (2.0, 8.0)
OFFLOAD = ("none", "optimizer", "params")
LORA_TARGETS = ("qv", "attn", "all")
#: KV-cache element types every engine's memory model sizes.
KV_DTYPES = ("fp32", "fp16", "bf16", "fp8", "int8")
#: KV types only some engines have: llama.cpp's quantized cache (``-ctk/-ctv``; ExLlamaV2's
#: Q8/Q4 cache is sized alike); llama.cpp needs flash attention for them. Sized by the
#: engines (:mod:`gpuadvisor.core.engines`), not by the generic memory model.
QUANTIZED_KV = ("q8_0", "q4_0")
#: Every KV type a plan may name.
ALL_KV_DTYPES = (*KV_DTYPES, *QUANTIZED_KV)
#: Software that runs the plan. ``auto`` picks by task and platform (see
#: :attr:`Plan.effective_framework`). Training frameworks and inference engines apart:
TRAIN_FRAMEWORKS = ("hf", "unsloth", "torchtune", "axolotl", "megatron")
#: Training frameworks that run tensor, pipeline, context and expert parallelism; the others
#: (Hugging Face Trainer with DeepSpeed or FSDP, Unsloth, torchtune, Axolotl) run data
#: parallelism with ZeRO/FSDP sharding.
MODEL_PARALLEL_FRAMEWORKS = ("megatron",)
#: Degrees a framework runs when they are pinned but does not choose by itself: tensor and
#: context parallelism under accelerate's FSDP2 (its N-D ``parallelism_config``).
PINNABLE_DEGREES = {"hf": ("tp", "cp"), "axolotl": ("tp", "cp")}
INFER_ENGINES = ("transformers", "llama.cpp", "ollama", "vllm", "exllamav2", "mlx")
#: llama.cpp's GPU backends, as its build options name them (docs/build.md: GGML_CUDA,
#: GGML_HIP for ROCm, GGML_VULKAN, GGML_METAL).
BACKENDS = ("cuda", "rocm", "vulkan", "metal")
FRAMEWORKS = ("auto", *TRAIN_FRAMEWORKS, *INFER_ENGINES)

TASK_LABELS = {
    "pretrain": "pre-training",
    "full": "full fine-tune",
    "lora": "LoRA fine-tune",
    "qlora": "QLoRA fine-tune",
    "infer": "inference",
}
PRECISION_LABELS = {
    "fp32": "fp32",
    "fp16": "fp16 mixed",
    "bf16": "bf16 mixed",
    "bf16-pure": "pure bf16",
    "fp8": "fp8 (bf16 master)",
}

#: Parallel degrees a training plan on several GPUs may pin (None in the plan: the layout
#: search chooses it): tensor, pipeline, virtual pipeline, context and expert parallel.
LAYOUT_PINS = ("tp", "pp", "vpp", "cp", "ep")
#: Largest global batch a plan may pin (sequences per optimizer step): far above any run.
MAX_GLOBAL_BATCH = MAX_BATCH * MAX_GPUS

DEFAULT_LORA_RANK = 16
DEFAULT_QLORA_QUANT = "nf4-dq"


#: Gradient checkpointing each training framework runs with unless told otherwise, by task,
#: and where that default is set. ``auto`` trains as ``hf``.
_HF_FINETUNE = ("full", "TRL SFTTrainer: SFTConfig gradient_checkpointing defaults to True "
                "(huggingface/trl@016013e8 trl/trainer/sft_config.py); PEFT's "
                "prepare_model_for_kbit_training turns it on for QLoRA")
FRAMEWORK_CHECKPOINTING = {
    "hf": {"pretrain": ("none", "transformers TrainingArguments: gradient_checkpointing "
                                "defaults to False"),
           "full": _HF_FINETUNE, "lora": _HF_FINETUNE, "qlora": _HF_FINETUNE},
    "unsloth": dict.fromkeys(("pretrain", "full", "lora", "qlora"), (
        "full", "Unsloth: get_peft_model(use_gradient_checkpointing=\"unsloth\") in its "
                "notebooks and defaults (block inputs offloaded to host RAM)")),
    "torchtune": dict.fromkeys(("pretrain", "full", "lora", "qlora"), (
        "full", "torchtune recipe configs: enable_activation_checkpointing: True")),
    "axolotl": dict.fromkeys(("pretrain", "full", "lora", "qlora"), (
        "none", "Axolotl config: gradient_checkpointing defaults to false")),
    "megatron": {
        "pretrain": ("none", "Megatron-LM: --recompute-granularity defaults to None "
                             "(megatron/training/arguments.py @d98e8a64)"),
        **dict.fromkeys(("full", "lora", "qlora"), (
            "full", "Megatron-Bridge fine-tuning recipes recompute (llama3_70b_peft_8gpu_"
                    "h100_bf16_config: recompute_granularity full, recompute_method block; "
                    "src/megatron/bridge/perf_recipes/llama/h100/llama3.py @067f987d)"))},
}


def auto_training_framework(task: str, pins: dict | None = None) -> str:
    """The framework an ``auto`` training plan runs on: Megatron-LM / NeMo for
    pre-training and for a plan that pins tensor, pipeline, context or expert parallelism
    (the tools that run them), Hugging Face transformers + PEFT for the other fine-tunes
    and for QLoRA (a 4-bit base Megatron does not train)."""
    if task == "qlora":
        return "hf"
    model_parallel = any((pins.get(k) or 1) > 1 for k in ("tp", "pp", "vpp", "cp", "ep")
                         ) if pins else False
    return "megatron" if task == "pretrain" or model_parallel else "hf"


def default_checkpointing(task: str, framework: str = "auto",
                          pins: dict | None = None) -> tuple[str, str]:
    """``(checkpointing, source)`` the framework uses for ``task`` when the user sets none
    (:data:`FRAMEWORK_CHECKPOINTING`); inference has none. ``pins``: the plan's pinned
    layout degrees, which decide what ``auto`` runs on (:func:`auto_training_framework`)."""
    if task == "infer":
        return "none", "inference keeps no activations for a backward pass"
    if framework == "auto":
        framework = auto_training_framework(task, pins)
    name = "hf" if framework in INFER_ENGINES else framework
    return FRAMEWORK_CHECKPOINTING[name][task]


def is_quant(name: object) -> bool:
    """Whether ``name`` is a quantization gpuadvisor knows: one of :data:`QUANT` or
    ``exl2-<bits>`` with bits in :data:`EXL2_BITS_RANGE`."""
    if not isinstance(name, str):
        return False
    return name in QUANT or exl2_bits(name) is not None


def exl2_bits(name: str) -> float | None:
    """Bits per weight of an EXL2 quant name (``exl2`` -> 4.125, ``exl2-4.65`` -> 4.65), or
    None for another name or a rate outside :data:`EXL2_BITS_RANGE`."""
    if name == "exl2":
        return 4.125
    found = EXL2_PATTERN.match(name)
    if found is None:
        return None
    bits = float(found.group(1))
    low, high = EXL2_BITS_RANGE
    return bits if low <= bits <= high and math.isfinite(bits) else None


def is_gguf_quant(name: object) -> bool:
    """Whether ``name`` is a GGUF file type (:data:`GGUF_QUANTS`)."""
    return name in GGUF_QUANTS


@dataclass(frozen=True)
class Plan:
    """What to run: task, numerics, batch shape, parallelism and data set size.

    Attributes:
        task: ``pretrain``, ``full`` (fine-tune), ``lora``, ``qlora`` or ``infer``.
        precision: ``fp32``; ``fp16``/``bf16`` mixed precision (16-bit compute, fp32 master
            weights); ``bf16-pure`` (everything in bf16, no fp32 copy); ``fp8`` (fp8 matmuls,
            bf16 weights, fp32 master).
        optimizer: ``adamw``, ``adamw8bit``, ``adafactor``, ``sgd`` (with momentum) or ``lion``.
        micro_batch: sequences per GPU per forward/backward pass (inference: concurrent
            sequences).
        grad_accum: micro-batches accumulated before each optimizer step.
        seq_len: tokens per sequence (inference: prompt/context length).
        checkpointing: activation recomputation: ``none``, ``selective`` (attention core
            recomputed) or ``full`` (only each block's input kept).
        attention: ``eager`` (scores materialised) or ``flash`` (FlashAttention/SDPA kernels).
        lora_rank: LoRA rank for ``lora``/``qlora`` (None = default 16).
        lora_targets: adapted matrices: ``qv``, ``attn`` (q,k,v,o) or ``all`` linear layers.
        quant: base-weight quantization: ``none``, ``int8``, ``nf4``, ``nf4-dq`` (double quant),
            GPTQ/AWQ-style ``int4``/``int3`` with group-wise scales, ``mxfp4`` (4-bit values
            + an 8-bit scale per 32: gpt-oss's experts), ``nvfp4`` (4-bit values + an FP8
            scale per 16: Blackwell's NVFP4 checkpoints) or block-scaled ``fp8`` (e4m3 +
            an fp32 scale per 128 x 128 block: DeepSeek-V3, Qwen3-FP8). ``qlora`` defaults
            to ``nf4-dq``; ``infer`` may use any, and uses the model's shipped quantization
            when it names none.
        n_gpus: GPUs working together on the job.
        zero_stage: 0 = plain data parallel; 1, 2, 3 = ZeRO stages (FSDP FULL_SHARD is 3,
            SHARD_GRAD_OP is 2).
        offload: ``none``, ``optimizer`` (optimizer states in CPU RAM) or ``params``
            (parameters too; needs ZeRO-3).
        dataset_tokens: training tokens in total (all epochs), if given that way.
        dataset_samples: samples per epoch, if given that way (with ``epochs``).
        epochs: passes over ``dataset_samples`` (or over ``dataset``).
        dataset: a known data set (:data:`~.datasets.DATASETS`): its samples and their
            measured token lengths make the job (``dataset_samples`` may take a part of it).
            A fine-tune that names no data set is timed on Alpaca's.
        packing: samples are packed into full ``seq_len`` sequences instead of each
            micro-batch being padded to its longest sample.
        new_tokens: inference: tokens generated per sequence.
        kv_dtype: inference KV-cache dtype (None = the compute dtype).
        efficiency: achieved fraction of the GPU's peak (None = a default, see assumptions).
        framework: the software that runs it: a fine-tuning framework (``hf`` = Hugging Face
            transformers + PEFT, ``unsloth``, ``torchtune``, ``axolotl``) for training, an
            inference engine (``transformers``, ``llama.cpp``, ``ollama``, ``vllm``,
            ``exllamav2``, ``mlx``) for ``infer``; ``auto`` = ``hf`` for training and, for
            inference, the engine the weights' format implies (a GGUF quant or file:
            llama.cpp; EXL2: exllamav2), else ``transformers`` (see
            :func:`gpuadvisor.core.engines.select.engine_for`).
        gpu_layers: llama.cpp/Ollama ``-ngl``/``num_gpu``: transformer layers on the GPU(s);
            the rest stay in host RAM and are read at host memory bandwidth each token.
            ``n_layers + 1`` also puts the output layer on the GPU (llama.cpp counts it);
            0 = CPU only. None = all (llama.cpp), as many as fit (Ollama).
        n_cpu_moe: llama.cpp ``--n-cpu-moe N``: the expert tensors of the first N layers of a
            mixture of experts stay in host RAM (0 = none).
        gpu_memory_utilization: vLLM's share of each GPU's memory it may use (weights,
            activations, CUDA graphs and the KV blocks); None = vLLM's default 0.9.
        tp, pp, vpp, cp, ep: a pinned multi-GPU layout (training): tensor-parallel ranks,
            pipeline stages, virtual stages per pipeline rank, context-parallel ranks and
            expert-parallel ranks (MoE). None = the layout search chooses that degree; the
            data-parallel degree is what is left, ``n_gpus / (tp x pp x cp)``. Whether the
            pins fit the GPU count is :func:`.layout_pins.layout_pin_problem` (not checked
            here: a copy of the plan on one GPU, as the layout model makes, stays valid).
        num_ctx: Ollama's context (its ``PARAMETER num_ctx``; None: Ollama's default for
            the card's memory); its KV cache is allocated for all of it, up to the model's own
            context.
        layout_global_batch: sequences per optimizer step the layout holds (None =
            :attr:`global_batch`, ``micro_batch x grad_accum x n_gpus``).
        max_num_batched_tokens: vLLM's token budget per scheduler step
            (``--max-num-batched-tokens``), the size of its profiling pass; None = the
            release's default.
        enforce_eager: vLLM ``--enforce-eager``: no CUDA graphs (no graph memory, every
            kernel launched one by one).
        recompute_layers: with ``checkpointing`` full, recompute only this many of the
            model's layers and keep every activation of the others (Megatron-LM / NeMo's
            ``--recompute-granularity full --recompute-method block --recompute-num-layers``,
            counted here over the whole model: per pipeline stage Megatron's N times the
            stages); None = every layer. Hugging Face, Unsloth, Axolotl and torchtune
            recompute every layer.
        engine_version: the vLLM or Ollama release whose allocation rules apply
            (``0.6.4``); None = the current one. vLLM before 0.8 (V0) profiles a whole
            ``max_model_len`` when chunked prefill is off; Ollama before 0.30 places layers
            by its own estimate (``llm/memory.go``), later ones by llama-server's ``--fit``.
        backend: llama.cpp's GPU backend (:data:`BACKENDS`); None = the card's own
            (CUDA on NVIDIA, ROCm on AMD, Metal on Apple, Vulkan elsewhere). Ollama runs
            the backend it discovers for the card, so it takes only that one.
    """

    task: str = "full"
    precision: str = "bf16"
    optimizer: str = "adamw"
    micro_batch: int = 1
    grad_accum: int = 1
    seq_len: int = 2048
    checkpointing: str = "none"
    attention: str = "flash"
    lora_rank: int | None = None
    lora_targets: str = "all"
    quant: str | None = None
    n_gpus: int = 1
    zero_stage: int = 0
    offload: str = "none"
    dataset_tokens: float | None = None
    dataset_samples: float | None = None
    epochs: float = 1.0
    dataset: str | None = None
    packing: bool = False
    new_tokens: int = 256
    kv_dtype: str | None = None
    efficiency: float | None = None
    framework: str = "auto"
    gpu_layers: int | None = None
    n_cpu_moe: int = 0
    gpu_memory_utilization: float | None = None
    num_ctx: int | None = None
    tp: int | None = None
    pp: int | None = None
    vpp: int | None = None
    cp: int | None = None
    ep: int | None = None
    layout_global_batch: int | None = None
    max_num_batched_tokens: int | None = None
    enforce_eager: bool = False
    engine_version: str | None = None
    recompute_layers: int | None = None
    backend: str | None = None

    def __post_init__(self) -> None:
        _check_choice("task", self.task, TASKS)
        _check_choice("precision", self.precision, PRECISIONS)
        _check_choice("optimizer", self.optimizer, OPTIMIZERS)
        _check_choice("checkpointing", self.checkpointing, CHECKPOINTING)
        _check_choice("attention", self.attention, ATTENTION)
        _check_choice("lora_targets", self.lora_targets, LORA_TARGETS)
        _check_choice("offload", self.offload, OFFLOAD)
        _check_choice("framework", self.framework, FRAMEWORKS)
        if self.task == "infer" and self.framework in TRAIN_FRAMEWORKS:
            raise ValueError(f"framework {self.framework!r} is for training; for inference "
                             f"choose one of {', '.join(INFER_ENGINES)}")
        if self.task == "qlora" and self.framework == "megatron":
            raise ValueError("framework megatron: Megatron-LM / NeMo train 16-bit or fp8 "
                             "bases, not QLoRA's 4-bit one; choose hf, unsloth, torchtune or "
                             "axolotl (or task lora)")
        if self.task != "infer" and self.framework in INFER_ENGINES:
            raise ValueError(f"framework {self.framework!r} is an inference engine; for "
                             f"training choose one of {', '.join(TRAIN_FRAMEWORKS)}")
        if self.quant is not None and not is_quant(self.quant):
            if isinstance(self.quant, str) and self.quant.startswith("exl2-"):
                low, high = EXL2_BITS_RANGE
                raise ValueError(f"quant {self.quant!r}: EXL2 takes exl2-<bits per weight> "
                                 f"with bits from {low:g} to {high:g} (e.g. exl2-4.65)")
            _check_choice("quant", self.quant, QUANT)
        if self.kv_dtype is not None:
            _check_choice("kv_dtype", self.kv_dtype, ALL_KV_DTYPES)
        self._check_engine_fields()
        self._check_layout_pins()
        for name in ("micro_batch", "grad_accum", "seq_len", "n_gpus", "new_tokens"):
            _check_positive_int(name, getattr(self, name))
        # Finite and inside a physical range: infinite epochs, 10**30 tokens and the like are
        # refused here too, not only by the command line and the plan-file reader.
        check_table({name: getattr(self, name) for name in PLAN_BOUNDS}, PLAN_BOUNDS)
        if self.zero_stage not in (0, 1, 2, 3) or isinstance(self.zero_stage, bool):
            raise ValueError(f"zero_stage must be 0, 1, 2 or 3, got {self.zero_stage!r}")
        if self.lora_rank is not None:
            _check_positive_int("lora_rank", self.lora_rank)
            if self.task not in ("lora", "qlora"):
                raise ValueError(
                    f"lora_rank is only for the lora and qlora tasks, not {self.task!r}"
                )
        if self.task == "qlora" and self.quant == "none":
            raise ValueError("quant: qlora needs a quantized base (int8, nf4 or nf4-dq)")
        if self.task in ("pretrain", "full", "lora") and self.quant not in (None, "none"):
            hint = "use task qlora" if self.task == "lora" else "quantized weights cannot train"
            raise ValueError(f"quant {self.quant!r} is not for task {self.task!r}: {hint}")
        if self.task == "qlora" and (is_gguf_quant(self.quant) or exl2_bits(str(self.quant))):
            raise ValueError(f"quant {self.quant!r} is an inference format (llama.cpp/ExLlamaV2): "
                             "QLoRA trains on int8, nf4 or nf4-dq")
        layers = self.recompute_layers
        if layers is not None:
            if isinstance(layers, bool) or not isinstance(layers, int) \
                    or not 1 <= layers <= 65_536:
                raise ValueError(f"recompute_layers must be a whole number of layers from 1 "
                                 f"up, got {layers!r}")
            if self.checkpointing != "full":
                raise ValueError("recompute_layers: partial recomputation needs checkpointing "
                                 f"full (it recomputes that many layers), not "
                                 f"{self.checkpointing!r}")
            if self.framework in ("unsloth", "axolotl", "torchtune"):
                raise ValueError(f"recompute_layers: {self.framework} recomputes every layer "
                                 "(Megatron-LM and NeMo recompute some)")
        if self.offload == "optimizer" and self.zero_stage == 0:
            raise ValueError("offload: optimizer offload needs zero_stage 1, 2 or 3 (DeepSpeed)")
        if self.offload == "params" and self.zero_stage != 3:
            raise ValueError("offload: 'params' needs zero_stage 3 (ZeRO-Infinity / FSDP)")
        if self.dataset_tokens is not None and self.dataset_samples is not None:
            raise ValueError("give the data set as dataset_tokens or dataset_samples, not both")
        for name in ("dataset_tokens", "dataset_samples"):
            value = getattr(self, name)
            if value is not None and not value > 0:
                raise ValueError(f"{name} must be positive, got {value!r}")
        if not self.epochs > 0:
            raise ValueError(f"epochs must be positive, got {self.epochs!r}")
        if self.dataset is not None:
            from .datasets import DATASETS

            if self.dataset not in DATASETS:
                raise ValueError(f"dataset must be one of {', '.join(DATASETS)}, got "
                                 f"{self.dataset!r}")
            if self.dataset_tokens is not None:
                raise ValueError("give the data set as dataset or dataset_tokens, not both")
        if not isinstance(self.packing, bool):
            raise ValueError(f"packing must be true or false, got {self.packing!r}")
        if self.efficiency is not None and not 0 < self.efficiency <= 1:
            raise ValueError(f"efficiency must be in (0, 1], got {self.efficiency!r}")

    def _check_engine_fields(self) -> None:
        """The inference-engine fields: ranges, and which engines take them."""
        layers = self.gpu_layers
        if layers is not None and (isinstance(layers, bool) or not isinstance(layers, int)
                                   or not 0 <= layers <= 65_536):
            raise ValueError(f"gpu_layers must be a whole number of layers from 0 up, "
                             f"got {layers!r}")
        if isinstance(self.n_cpu_moe, bool) or not isinstance(self.n_cpu_moe, int) \
                or not 0 <= self.n_cpu_moe <= 65_536:
            raise ValueError(f"n_cpu_moe must be a whole number of layers from 0 up, "
                             f"got {self.n_cpu_moe!r}")
        util = self.gpu_memory_utilization
        if util is not None and (isinstance(util, bool) or not isinstance(util, int | float)
                                 or not 0 < util <= 1):
            raise ValueError(f"gpu_memory_utilization must be in (0, 1], got {util!r}")
        ctx = self.num_ctx
        if ctx is not None and (isinstance(ctx, bool) or not isinstance(ctx, int)
                                or not 1 <= ctx <= MAX_SEQ_TOKENS):
            raise ValueError(f"num_ctx must be a whole number of tokens from 1 to "
                             f"{MAX_SEQ_TOKENS:,}, got {ctx!r}")
        batched = self.max_num_batched_tokens
        if batched is not None and (isinstance(batched, bool) or not isinstance(batched, int)
                                    or not 1 <= batched <= MAX_SEQ_TOKENS):
            raise ValueError(f"max_num_batched_tokens must be a whole number of tokens from 1 "
                             f"to {MAX_SEQ_TOKENS:,}, got {batched!r}")
        if not isinstance(self.enforce_eager, bool):
            raise ValueError(f"enforce_eager must be true or false, got {self.enforce_eager!r}")
        version = self.engine_version
        if version is not None and (not isinstance(version, str)
                                    or not ENGINE_VERSION.match(version)):
            raise ValueError(f"engine_version must be a release like 0.6.4, got "
                             f"{str(version)[:40]!r}")
        engine = self.framework
        vllm_only = (("max_num_batched_tokens", None), ("enforce_eager", False))
        if self.backend is not None:
            _check_choice("backend", self.backend, BACKENDS)
        if self.task != "infer":
            for name, unset in (("gpu_layers", None), ("n_cpu_moe", 0), ("backend", None),
                                ("engine_version", None),
                                ("gpu_memory_utilization", None), ("num_ctx", None),
                                *vllm_only):
                if getattr(self, name) != unset:
                    raise ValueError(f"{name} is for inference plans, not {self.task!r}")
            return
        llama = ("llama.cpp", "ollama", "auto")
        if (self.gpu_layers is not None or self.n_cpu_moe or self.backend is not None) \
                and engine not in llama:
            name = ("gpu_layers" if self.gpu_layers is not None else
                    "n_cpu_moe" if self.n_cpu_moe else "backend")
            raise ValueError(f"{name} is a llama.cpp/Ollama setting, not one of {engine}")
        if util is not None and engine not in ("vllm", "auto"):
            raise ValueError(f"gpu_memory_utilization is a vLLM setting, not one of {engine}")
        for name, unset in vllm_only:
            if getattr(self, name) != unset and engine != "vllm":
                raise ValueError(f"{name} is a vLLM setting, not one of {engine}: give "
                                 "framework vllm")
        if version is not None and engine not in ("vllm", "ollama"):
            raise ValueError(f"engine_version is a vLLM or Ollama setting (the release whose "
                             f"rules apply), not one of {engine}: give framework vllm or "
                             "ollama")
        if ctx is not None and engine != "ollama":
            raise ValueError(f"num_ctx is an Ollama setting (its PARAMETER num_ctx), not one "
                             f"of {engine}: give framework ollama")
        if self.kv_dtype in QUANTIZED_KV:
            if engine not in ("llama.cpp", "ollama", "exllamav2"):
                raise ValueError(f"kv_dtype {self.kv_dtype} is llama.cpp's (or ExLlamaV2's) "
                                 f"quantized cache: choose framework llama.cpp, ollama or "
                                 f"exllamav2 (framework {engine} has none; try fp8)")
            if engine in ("llama.cpp", "ollama") and self.attention != "flash":
                raise ValueError(f"kv_dtype {self.kv_dtype}: llama.cpp quantizes the V cache "
                                 "only with flash attention: set attention to flash")

    def _check_layout_pins(self) -> None:
        """The pinned degrees and global batch: positive whole numbers in range."""
        for name in LAYOUT_PINS:
            value = getattr(self, name)
            if value is not None:
                _check_positive_int(name, value)
                if value > MAX_GPUS:
                    raise ValueError(f"{name} must be at most {MAX_GPUS:,}, got {value!r}")
        batch = self.layout_global_batch
        if batch is not None:
            _check_positive_int("layout_global_batch", batch)
            if batch > MAX_GLOBAL_BATCH:
                raise ValueError(f"layout_global_batch must be at most {MAX_GLOBAL_BATCH:,}, "
                                 f"got {batch!r}")
        if self.vpp is not None and self.vpp > 1 and (self.pp or 1) == 1:
            raise ValueError(f"vpp {self.vpp} interleaves a pipeline: pin pp to 2 or more "
                             "as well")

    @property
    def layout_pins(self) -> dict[str, int]:
        """The pinned degrees (``{"tp": 2}``), without the free ones."""
        return {name: getattr(self, name) for name in LAYOUT_PINS
                if getattr(self, name) is not None}

    @property
    def is_training(self) -> bool:
        """True for every task but inference."""
        return self.task != "infer"

    @property
    def is_adapter(self) -> bool:
        """True for LoRA and QLoRA: the base weights are frozen."""
        return self.task in ("lora", "qlora")

    def recomputed_layers(self, n_layers: int) -> int:
        """Layers whose forward runs again in the backward pass under full checkpointing:
        all ``n_layers``, or :attr:`recompute_layers` of them (0 without full
        checkpointing)."""
        if self.checkpointing != "full":
            return 0
        if self.recompute_layers is None:
            return int(n_layers)
        return min(int(self.recompute_layers), int(n_layers))

    @property
    def effective_quant(self) -> str:
        """Base-weight quantization after defaults (QLoRA -> nf4 with double quant)."""
        if self.quant is not None:
            return self.quant
        return DEFAULT_QLORA_QUANT if self.task == "qlora" else "none"

    @property
    def effective_framework(self) -> str:
        """The framework after defaults: for training :func:`auto_training_framework`
        (``megatron`` to pre-train or with model-parallel pins, else ``hf``),
        ``transformers`` for inference (the engine an ``auto`` inference plan runs on also
        depends on its weights and GPU: :func:`gpuadvisor.core.engines.select.engine_for`)."""
        if self.framework != "auto":
            return self.framework
        if self.task == "infer":
            return "transformers"
        return auto_training_framework(self.task, self.layout_pins)

    @property
    def effective_lora_rank(self) -> int:
        """LoRA rank after defaults."""
        return self.lora_rank if self.lora_rank is not None else DEFAULT_LORA_RANK

    @property
    def global_batch(self) -> int:
        """Sequences per optimizer step over all GPUs: micro_batch x grad_accum x n_gpus."""
        return self.micro_batch * self.grad_accum * self.n_gpus

    def with_changes(self, **changes) -> Plan:
        """A copy with some fields changed (validated again)."""
        return replace(self, **changes)

    def to_dict(self) -> dict:
        """The plan's fields as a plain dict (for JSON files and the CLI)."""
        return {f.name: getattr(self, f.name) for f in fields(self)}

    @classmethod
    def from_dict(cls, data: dict) -> Plan:
        """Build a plan from a dict; unknown keys raise ``ValueError`` naming them."""
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(data) - known)
        if unknown:
            raise ValueError(f"unknown plan field(s): {', '.join(unknown)}")
        return cls(**data)


def _check_choice(name: str, value: object, allowed: tuple[str, ...]) -> None:
    if value not in allowed:
        raise ValueError(f"{name} must be one of {', '.join(allowed)}; got {value!r}")


def _check_positive_int(name: str, value: object) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
        raise ValueError(f"{name} must be a positive whole number, got {value!r}")
