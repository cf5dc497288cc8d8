"""Which llama.cpp backend runs a plan on a card: the card's own (CUDA, ROCm/HIP, Metal,
Vulkan for the rest) unless the plan names one its vendor's cards run, and never another
than the card's own under Ollama."""

from __future__ import annotations

from gpuadvisor.core.gpu import GpuSpec
from gpuadvisor.core.plan import Plan

#: llama.cpp's GPU backends, by the catalog's ecosystem.
BACKENDS = {"cuda": "cuda", "rocm": "hip", "mps": "metal", "xpu": "vulkan", "gaudi": "vulkan"}
#: A plan's backend (:data:`~gpuadvisor.core.plan.BACKENDS`) -> llama.cpp's own name.
PLAN_BACKENDS = {"cuda": "cuda", "rocm": "hip", "vulkan": "vulkan", "metal": "metal"}
#: The vendor each vendor-specific backend runs on (Vulkan runs on any of them: llama.cpp
#: docs/build.md; on macOS through MoltenVK).
BACKEND_VENDOR = {"cuda": "nvidia", "rocm": "amd", "metal": "apple"}
VENDOR_NAMES = {"nvidia": "NVIDIA", "amd": "AMD", "apple": "Apple"}
BACKEND_LABELS = {"cuda": "CUDA", "hip": "ROCm/HIP", "vulkan": "Vulkan", "metal": "Metal"}


def backend_runs_on(backend: str | None, gpu: GpuSpec | None) -> bool:
    """Whether a plan's ``backend`` (None: the card's own) runs on ``gpu`` (any without a
    GPU): Vulkan on every vendor's cards, the others on their own vendor's."""
    vendor = BACKEND_VENDOR.get(backend or "")
    return vendor is None or gpu is None or gpu.vendor == vendor


def plan_for_card(plan: Plan, gpu: GpuSpec | None) -> Plan:
    """``plan`` with a backend ``gpu`` cannot run (CUDA on an AMD card) set back to the
    card's own: the same software built for that card (the advisor's options, a GPU picked
    on the Plan page)."""
    if plan.backend is None or backend_runs_on(plan.backend, gpu):
        return plan
    return plan.with_changes(backend=None)


def plan_backend(plan: Plan, gpu: GpuSpec, ollama: bool) -> tuple[str, str]:
    """``(llama.cpp backend, why)`` of ``plan`` on ``gpu``.

    The plan's ``backend`` where it names one, else the card's own (:data:`BACKENDS`).
    Ollama runs the backend its discovery picks for the card (discover/runner.go: the
    CUDA or ROCm runner where the card has one; Vulkan for the others), so it takes no
    other.

    Raises:
        ValueError: a backend for another vendor's cards (CUDA on an AMD card), or one that
            Ollama would not run on this card; the message names the field.
    """
    own = BACKENDS.get(gpu.ecosystem, "vulkan")
    if plan.backend is None:
        return own, f"the card's own ({BACKEND_LABELS[own]})"
    vendor = BACKEND_VENDOR.get(plan.backend)
    if not backend_runs_on(plan.backend, gpu):
        others = [b for b, v in BACKEND_VENDOR.items() if v == gpu.vendor] + ["vulkan"]
        raise ValueError(f"backend {plan.backend} runs on {VENDOR_NAMES[vendor]} GPUs; "
                         f"{gpu.name} takes {' or '.join(others)}")
    wanted = PLAN_BACKENDS[plan.backend]
    if ollama and wanted != own:
        raise ValueError(f"backend {plan.backend}: Ollama runs {gpu.name} on its own "
                         f"{own} runner (it picks the backend itself); use framework "
                         f"llama.cpp to choose {plan.backend}")
    return wanted, "plan"


__all__ = ["BACKENDS", "BACKEND_LABELS", "BACKEND_VENDOR", "PLAN_BACKENDS", "VENDOR_NAMES",
           "backend_runs_on", "plan_backend", "plan_for_card"]
