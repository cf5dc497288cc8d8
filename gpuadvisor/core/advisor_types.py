"""The advice's records: an :class:`Option` (a way to run the plan), a :class:`Suggestion` (an
option estimated) and the :class:`Advice` (every suggestion ranked). Re-exported by
:mod:`gpuadvisor.core.advisor`, which makes them.

Pure: no files, no Qt. Money in US dollars.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .gpu import GpuSpec
from .offers import Offer
from .plan import Plan


@dataclass(frozen=True)
class Option:
    """One way to run the plan, before estimating it.

    Attributes:
        id: unique (``own``, ``buy-used:rtx-3090:x2``, ``offer:runpod-a100-80gb``).
        kind: one of :data:`OPTION_KINDS`.
        gpu: the card (for ``own``: the set's weakest card, which limits fit and speed;
            see :func:`own_options`).
        n_gpus: GPUs offered (own: the set's count; buy: cards bought; rent: one instance).
        offer: the price it comes from (``None`` for ``own``).
        label: a short name for people ("2x used RTX 3090", "RunPod A100 80GB (spot)").
    """

    id: str
    kind: str
    gpu: GpuSpec
    n_gpus: int
    offer: Offer | None
    label: str


@dataclass(frozen=True)
class Suggestion:
    """An option, estimated.

    Attributes:
        option: what it is.
        fits: whether the plan (with ``levers``) fits in memory.
        plan: the plan as it would run there (levers applied, its GPU count).
        levers: titles of the levers needed to fit (empty when the plan fits as given).
        n_gpus: GPUs the job runs on.
        instances: rent/cloud: instances rented (GPUs / GPUs per instance, rounded up).
        hours: wall-clock hours of the job.
        gpu_hours: GPU-hours of the job.
        hardware_usd: buy: the cards' price (0 otherwise).
        energy_usd: electricity for the job (own and buy; 0 for rent/cloud, which includes it).
        rent_usd: rent/cloud: hours x instances x instance price.
        memory_bytes: memory per GPU needed.
        capacity_bytes: memory per GPU available.
        price_age_days: days since the price was seen (``None`` for own).
        stale: the price is older than :data:`~.offers.STALE_AFTER_DAYS`.
        why: one sentence for people.
        tflops_per_gpu: the achieved TFLOPS per GPU the time was computed with.
        efficiency: that as a share of the GPU's peak.
        time_source: where the efficiency comes from (``assumed``, ``plan``, ``measured
            <date>``), as the estimate's assumptions say.
        bound: what limits the speed (``compute``, ``communication``, ``memory bandwidth``,
            ``host``).
        within_budget, within_deadline: the constraints given to :func:`rank` (``True``
            when none was given).
        tokens_per_s: tokens (generated tokens for inference) per second of the whole job,
            all GPUs together, prompts' prefill included (the estimate's
            ``time.tokens_per_s``).
        prefill_seconds: inference: prefilling one batch's prompts, i.e. the time to the
            first token (0 otherwise).
        decode_tokens_per_s: inference: generated tokens per second while decoding, the
            whole batch together (0 otherwise).
        users: a serving plan (vLLM, llama-server): the requests it serves at once within
            reading speed each (:mod:`~.serving_load`); its token speed and first token are
            at that load. 0: the plan's own batch.
    """

    option: Option
    fits: bool
    plan: Plan
    levers: tuple[str, ...]
    n_gpus: int
    instances: int
    hours: float
    gpu_hours: float
    hardware_usd: float
    energy_usd: float
    rent_usd: float
    memory_bytes: float
    capacity_bytes: float
    price_age_days: int | None
    stale: bool
    why: str = ""
    tflops_per_gpu: float = 0.0
    efficiency: float = 0.0
    time_source: str = ""
    bound: str = ""
    within_budget: bool = True
    within_deadline: bool = True
    tokens_per_s: float = 0.0
    prefill_seconds: float = 0.0
    decode_tokens_per_s: float = 0.0
    users: int = 0

    @property
    def cost_usd(self) -> float:
        """Money for this job: hardware + electricity (own, buy) or the rent."""
        return self.hardware_usd + self.energy_usd + self.rent_usd

    @property
    def acceptable(self) -> bool:
        """Fits, within the budget and the deadline."""
        return self.fits and self.within_budget and self.within_deadline

    @property
    def as_asked(self) -> bool:
        """Fits the plan as the user gave it: no lever (LoRA, QLoRA, ZeRO-3, ...) needed."""
        return self.fits and not self.levers

    def counts(self, allow_changes: bool) -> bool:
        """Whether this option answers the question: it fits as asked, or with levers when
        the user allows changes to the plan."""
        return self.as_asked or (allow_changes and self.fits)


@dataclass(frozen=True)
class Advice:
    """:func:`advise`'s answer.

    Attributes:
        suggestions: every option estimated, ranked (acceptable first, by the goal).
        goal, budget_usd, deadline_hours: what the ranking used.
        pareto_ids: ids of the options on the time-cost Pareto front (of the options that
            fit as asked, or that fit at all when ``allow_changes``).
        nothing_fits: ``None`` when something fits; else one sentence naming the closest
            option and the smallest change that would make the plan fit.
    """

    suggestions: tuple[Suggestion, ...]
    goal: str
    budget_usd: float | None
    deadline_hours: float | None
    pareto_ids: frozenset[str] = field(default_factory=frozenset)
    nothing_fits: str | None = None
    allow_changes: bool = True

    @property
    def best(self) -> Suggestion | None:
        """The first acceptable suggestion (fitting as asked unless ``allow_changes``), or
        ``None``."""
        return next((s for s in self.suggestions
                     if s.acceptable and s.counts(self.allow_changes)), None)

    @property
    def fit_as_asked(self) -> int:
        """How many options fit the plan as asked (no lever)."""
        return sum(1 for s in self.suggestions if s.as_asked)

    @property
    def fit_with_changes(self) -> int:
        """How many options fit only with levers (a changed plan)."""
        return sum(1 for s in self.suggestions if s.fits and not s.as_asked)


__all__ = ["Advice", "Option", "Suggestion"]
