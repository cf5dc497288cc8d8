"""Which engine runs an inference plan, and that engine's evaluation.

``framework = auto`` picks by the weights' format: a GGUF file type (or a model read from a
``.gguf`` file) runs on llama.cpp, EXL2 on ExLlamaV2; anything else on Hugging Face
transformers, the estimator's long-standing model. A named engine is used as named.
"""

from __future__ import annotations

from gpuadvisor.core.architecture import ModelShape
from gpuadvisor.core.assumptions import Assumptions
from gpuadvisor.core.engines import exllamav2, llamacpp, mlx, vllm
from gpuadvisor.core.engines.base import EngineResult
from gpuadvisor.core.gpu import GpuSpec
from gpuadvisor.core.plan import Plan, exl2_bits, is_gguf_quant


def engine_for(plan: Plan, model: ModelShape) -> tuple[str, str]:
    """``(engine, why)`` for an inference plan (see the module docstring)."""
    if plan.framework != "auto":
        return plan.framework, "plan"
    if is_gguf_quant(plan.quant):
        return "llama.cpp", f"auto: {plan.quant} is a GGUF file type"
    if plan.quant is None and model.weights_file_bytes:
        return "llama.cpp", "auto: the model is a GGUF file"
    if exl2_bits(str(plan.quant)) is not None:
        return "exllamav2", f"auto: {plan.quant} is ExLlamaV2's format"
    if plan.gpu_layers is not None or plan.n_cpu_moe:
        return "llama.cpp", "auto: gpu_layers / n_cpu_moe are llama.cpp settings"
    if plan.gpu_memory_utilization is not None:
        return "vllm", "auto: gpu_memory_utilization is a vLLM setting"
    return "transformers", "auto: Hugging Face transformers"


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


__all__ = ["engine_for", "evaluate_engine"]
