"""Which engine runs an inference plan, and that engine's evaluation.

``framework = auto`` picks by the weights' format, then by platform:

1. a GGUF file type (or a model read from a ``.gguf`` file) runs on llama.cpp, EXL2 on
   ExLlamaV2; a plan that sets an engine's own knob (``gpu_layers``/``n_cpu_moe``/
   ``backend``: llama.cpp, ``gpu_memory_utilization``: vLLM) runs on that engine;
2. on an Apple GPU (``vendor = "apple"``) a 16-bit decoder language model whose weights are
   unquantized or in one of mlx-lm's formats (:data:`MLX_AUTO_QUANTS`: ``mlx_lm.convert -q
   --q-bits 3|4|8``) runs on MLX, the engine Apple silicon's own framework serves
   (ml-explore/mlx-lm); there GGUF files still go to llama.cpp by rule 1. An fp32 plan, or a
   quantization mlx-lm has no format for (bitsandbytes' nf4, fp8), keeps the generic model;
3. anything else runs on Hugging Face transformers, the estimator's long-standing model.

A named engine is used as named. The rule that chose is the estimate's
``engine_source`` assumption (``auto: Apple GPU: MLX``).
"""

from __future__ import annotations

from gpuadvisor.core.architecture import ModelShape
from gpuadvisor.core.assumptions import Assumptions
from gpuadvisor.core.engines import exllamav2, llamacpp, mlx, vllm
from gpuadvisor.core.engines.base import EngineResult
from gpuadvisor.core.gpu import GpuSpec
from gpuadvisor.core.plan import Plan, exl2_bits, is_gguf_quant

#: Plan quants an Apple GPU runs on MLX under ``auto``: unquantized (16-bit) weights and
#: mlx-lm's affine 3-, 4- and 8-bit formats (:mod:`.mlx`).
MLX_AUTO_QUANTS = (None, "none", "int3", "int4", "int8")
#: Precisions MLX runs under ``auto``: mlx-lm serves 16-bit models (:mod:`.mlx` sizes the
#: weights it does not quantize at 2 bytes).
MLX_AUTO_PRECISIONS = ("fp16", "bf16", "bf16-pure")


def engine_for(plan: Plan, model: ModelShape, gpu: GpuSpec | None = None) -> tuple[str, str]:
    """``(engine, why)`` for an inference plan (see the module docstring).

    Args:
        plan: the plan (its ``framework``, ``quant`` and engine knobs).
        model: the model's shape (a model read from a GGUF file, a decoder or not).
        gpu: the GPU the plan runs on (None: the platform rule does not apply).
    """
    if plan.framework != "auto":
        return plan.framework, "plan"
    if is_gguf_quant(plan.quant):
        return "llama.cpp", f"auto: {plan.quant} is a GGUF file type"
    if plan.quant is None and model.weights_file_bytes:
        return "llama.cpp", "auto: the model is a GGUF file"
    if exl2_bits(str(plan.quant)) is not None:
        return "exllamav2", f"auto: {plan.quant} is ExLlamaV2's format"
    if plan.gpu_layers is not None or plan.n_cpu_moe or plan.backend is not None:
        return "llama.cpp", "auto: gpu_layers / n_cpu_moe / backend are llama.cpp settings"
    if plan.gpu_memory_utilization is not None:
        return "vllm", "auto: gpu_memory_utilization is a vLLM setting"
    if gpu is not None and gpu.vendor == "apple" and model.kind == "decoder" \
            and model.block is not None:
        if plan.precision not in MLX_AUTO_PRECISIONS:
            return "transformers", (f"auto: Apple GPU, {plan.precision} (MLX serves 16-bit "
                                    "models): Hugging Face transformers")
        if plan.quant not in MLX_AUTO_QUANTS:
            return "transformers", (f"auto: Apple GPU, {plan.quant} (not an mlx-lm format): "
                                    "Hugging Face transformers")
        return "mlx", "auto: Apple GPU: MLX"
    return "transformers", "auto: Hugging Face transformers"


def runs_on_engine(plan: Plan, model: ModelShape, gpu: GpuSpec | None = None) -> bool:
    """Whether ``plan`` is an inference plan whose engine brings its own memory terms
    (anything but ``transformers``, the generic model) on ``gpu``."""
    return plan.task == "infer" and engine_for(plan, model, gpu)[0] != "transformers"


def evaluate_engine(engine: str, model: ModelShape, plan: Plan, gpu: GpuSpec,
                    assumptions: Assumptions, *, host_bandwidth_gb_s: float | None = None,
                    host_source: str = "measured") -> EngineResult | None:
    """The engine's :class:`EngineResult`, or None for ``transformers`` (the generic model).

    Raises:
        ValueError: what the engine refuses (its message names the field).
    """
    if engine in ("llama.cpp", "ollama"):
        return llamacpp.evaluate(model, plan, gpu, assumptions, ollama=engine == "ollama",
                                 host_bandwidth_gb_s=host_bandwidth_gb_s,
                                 host_source=host_source)
    if engine == "vllm":
        return vllm.evaluate(model, plan, gpu, assumptions)
    if engine == "exllamav2":
        return exllamav2.evaluate(model, plan, gpu, assumptions)
    if engine == "mlx":
        return mlx.evaluate(model, plan, gpu, assumptions)
    return None


__all__ = ["MLX_AUTO_PRECISIONS", "MLX_AUTO_QUANTS", "engine_for", "evaluate_engine",
           "runs_on_engine"]
