"""Serving many users at once: tokens per second each and in all, and the time to the first
token, against the number of concurrent requests (vLLM's continuous batching, llama-server's
parallel slots).

Every point is the one estimate (:func:`~gpuadvisor.core.resolve.resolve`) of the plan
serving ``n`` requests together (``micro_batch = n``: vLLM's running sequences, llama-server's
``-np`` slots), each with the plan's prompt (``seq_len``) and output (``new_tokens``):

* **a decode step** serving ``n`` sequences takes ``t(n) = n / decode tokens/s`` of that
  estimate (the weights read once per step, each sequence's KV cache once, or the compute
  when ``n`` is past the crossover; :func:`~gpuadvisor.core.inference_time.inference_time`),
  whose parts (:class:`~.compute.DecodeStep`) time a step that also carries prompt tokens.
* **prompts beside the decodes** (steady state, every user always waiting for an answer,
  no think time): ``n`` users each generating a token a step finish ``n / new`` requests a
  step, each bringing a new prompt of ``s`` tokens. Engines that run a prompt in the same
  steps as the running decodes (llama-server: its loop adds each generating slot's token
  to the batch, then prompt tokens up to ``n_batch``; vLLM V1, and V0 past 32K of context:
  chunked prefill) split it into chunks of what the step's budget ``C`` leaves beside the
  other users' decodes, ``q = s / ceil(s / (C - n + 1))`` tokens each, and a step carrying
  a chunk takes ``max(reads + (k - 1) x weights, matmuls + q x per prompt token) + k x
  fixed`` (:meth:`~.compute.DecodeStep.mixed`; ``k`` forward passes, llama.cpp's 512-token
  micro-batches each reading the weights again): a memory-bound decode step takes prompt
  tokens for the price of their matmuls beyond its reads (Sarathi-Serve, Agrawal et al.,
  OSDI 2024). A round of ``n`` tokens takes ``t(n) + (n s / new / q) x (t_chunk - t(n))``,
  ``r = 1 / round`` per user. An engine whose prompts run in steps of their own (vLLM V0
  below 32K) splits the GPU's time: ``1 = (n r / new) T_pf + r t(n)``, ``T_pf`` the
  estimate's ``prefill_seconds`` for one prompt.
* **time to the first token**: the prompt alone (``T_pf``), plus, where its chunks ride
  along the other ``n - 1`` users' decodes, what those add to each chunk's pass (their
  KV reads and matmuls: ``max(reads', matmuls' + q x per token) - max(weights', q x per
  token)``); where they do not, ``ceil(s / C) x t(n - 1)``; plus ``h`` steps for a model
  whose reply opens with ``h`` tokens a streaming client is not shown
  (:attr:`~.architecture.ModelShape.reply_header_tokens`: gpt-oss's harmony channel
  header).
* **memory**: ``n`` requests hold ``n x (prompt + new)`` tokens of KV cache. vLLM's pool is
  fixed (its ``kv_cache_tokens``): past it requests wait. llama-server allocates ``n_ctx``
  for all slots: the estimate of ``n`` slots, with the plan's layers on the GPU (``-ngl``
  as the plan runs; more slots bought by moving layers to the CPU are not the plan's
  server), must fit the card.

:func:`capacity` is the most users served within a speed floor per user and a first-token
ceiling: by default reading speed, 238 words per minute (Brysbaert 2019, "How many words do
we read per minute? A review and meta-analysis of reading rate", J. Memory and Language 109:
silent reading of non-fiction) x 1.33 tokens per word (OpenAI's rule for English text, "1
token ~= 3/4 words", help.openai.com "What are tokens and how to count them") = 5.3 tokens/s;
and 1 second to the first token (Nielsen 1993, Usability Engineering ch. 5: the
limit for the user's flow of thought to stay uninterrupted).
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass, replace

from .assumptions import DEFAULT_ASSUMPTIONS, Assumptions
from .engines.combine import requests_at_once
from .estimate import Estimate
from .model import model_shape
from .plan import Plan
from .resolve import resolve

#: The engines served to many users at once.
ENGINES = ("vllm", "llama.cpp")
#: Reading speed in tokens per second (see the module docstring).
READING_TOKENS_PER_S = 238.0 / 60.0 * 1.33
#: The first-token ceiling, seconds (see the module docstring).
FIRST_TOKEN_S = 1.0
#: llama-server's prompt chunk (``--batch-size``, default 2048).
LLAMA_SERVER_BATCH = 2048
#: Concurrency points of the curve.
USERS = (1, 2, 4, 8, 16, 32, 64, 128, 256)


@dataclass(frozen=True)
class LoadPoint:
    """``users`` requests served at once.

    Attributes:
        users: concurrent requests.
        tokens_per_s_user: generated tokens per second each user sees.
        tokens_per_s_total: in all.
        first_token_s: time to the first token of a new request.
        step_s: one decode step serving them all.
        kv_tokens: KV-cache tokens the requests hold.
        fits: whether they fit (vLLM's pool; llama-server's memory).
        limit: why not, when they do not (``"kv pool"``, ``"memory"``), else "".
    """

    users: int
    tokens_per_s_user: float
    tokens_per_s_total: float
    first_token_s: float
    step_s: float
    kv_tokens: int
    fits: bool
    limit: str = ""


@dataclass(frozen=True)
class Capacity:
    """The most users the plan serves within the targets, and the curve it was read from."""

    users: int
    point: LoadPoint | None
    curve: tuple[LoadPoint, ...]
    min_tokens_per_s: float
    max_first_token_s: float
    prompt: int
    new_tokens: int
    engine: str = "vllm"
    slots: int = 1

    @property
    def setting(self) -> str:
        """The engine flag that serves that many at once when the plan's own is lower
        (vLLM's ``--max-num-seqs``, llama-server's ``-np``), or ""."""
        if self.point is None or self.users <= self.slots:
            return ""
        flag = "--max-num-seqs" if self.engine == "vllm" else "-np"
        return f"{flag} {self.users}"

    def sentence(self) -> str:
        """``8 users at 8,448 tokens of context: first token in 0.42 s, 35 tokens/s each``
        (and what the first token misses, when it takes longer than the ceiling)."""
        context = self.prompt + self.new_tokens
        if self.point is None:
            first = self.curve[0] if self.curve else None
            why = (f"one request alone gets {first.tokens_per_s_user:.1f} tokens/s"
                   if first is not None and first.fits else "one request does not fit")
            return (f"no user at {context:,} tokens of context gets "
                    f"{self.min_tokens_per_s:.1f} tokens/s: {why}")
        p = self.point
        who = "1 user" if p.users == 1 else f"{p.users} users"
        text = (f"{who} at {context:,} tokens of context: first token in "
                f"{p.first_token_s:.2f} s, {p.tokens_per_s_user:.0f} tokens/s each "
                f"({p.tokens_per_s_total:,.0f} in all)")
        if self.setting:
            text += f" with {self.setting}"
        if p.first_token_s > self.max_first_token_s:
            text += f"; the first token takes over {self.max_first_token_s:g} s"
        return text

    def to_json(self) -> dict:
        return {"users": self.users, "sentence": self.sentence(), "setting": self.setting,
                "min_tokens_per_s": self.min_tokens_per_s,
                "max_first_token_s": self.max_first_token_s, "prompt": self.prompt,
                "new_tokens": self.new_tokens,
                "curve": [p.__dict__.copy() for p in self.curve]}


def serves_many(result: Estimate) -> bool:
    """Whether the estimate is of an engine that serves many users at once."""
    return result.plan.task == "infer" and result.engine_name in ENGINES \
        and result.engine is not None


def _chunk(result: Estimate) -> int:
    if result.engine_name == "vllm":
        return int(result.engine.settings["max_num_batched_tokens"])
    return LLAMA_SERVER_BATCH


def mixes_prompts(result: Estimate) -> bool:
    """Whether the engine runs waiting prompts in the same steps as the running decodes:
    llama-server always (its loop adds each generating slot's token to the batch, then
    prompt tokens up to ``n_batch``); vLLM when it chunks prompts (V1; V0 past 32K of
    context: :func:`~.engines.vllm.chunked_prefill`)."""
    if result.engine_name == "vllm":
        return bool(result.engine.settings["chunked_prefill"])
    return True


def _pass_tokens(result: Estimate) -> int:
    """Tokens one forward pass holds: vLLM's step is one pass of up to its token budget;
    llama.cpp splits a batch into micro-batches of ``n_ubatch`` (512), each reading the
    weights again."""
    return int(result.engine.decode.ubatch_tokens)


def load_point(base: Estimate, users: int, assumptions: Assumptions = DEFAULT_ASSUMPTIONS,
               *, _seen: dict | None = None, **options) -> LoadPoint:
    """The plan of ``base`` serving ``users`` requests at once (see the module docstring).
    ``options`` go to :func:`~gpuadvisor.core.resolve.resolve` as ``base`` was made;
    ``_seen`` keeps the estimates of a curve, each user count resolved once."""
    seen = {} if _seen is None else _seen

    def at(n: int) -> Estimate:
        if n not in seen:
            seen[n] = _at(base, n, assumptions, **options)
        return seen[n]

    plan = base.plan
    many = at(users)
    one_prompt = at(1).time.prefill_seconds
    new = plan.new_tokens
    header = model_shape(base.model).reply_header_tokens
    chunk = _chunk(base)
    if mixes_prompts(base):
        # a step gives every user a token; a new request's prompt rides along in chunks
        # of what the step's budget leaves beside the other users' decodes (users / new
        # requests finish a step, so as many prompts come in per step): each chunk makes
        # its step the longer of the step's reads and its matmuls with the chunk's
        # past what vLLM's KV pool holds, only that many run (the wave's step); the
        # rest wait their turn
        running = requests_at_once(many.engine, many.plan) or users
        room = max(chunk - (running - 1), 1)
        size = plan.seq_len / math.ceil(plan.seq_len / room)
        per_step = running * plan.seq_len / new / size
        parts = many.time.decode_step
        alone = parts.seconds()
        carrying = parts.mixed(size, (running + size) / _pass_tokens(base))
        step = (alone + per_step * (carrying - alone)) * users / running
        per_user = 1.0 / step
        first = one_prompt
        if users > 1:
            # the new prompt's chunks each ride along the other users' decodes: what they
            # add to a chunk's pass is their KV reads and matmuls
            others = at(users - 1).time.decode_step
            full, last = divmod(plan.seq_len, room)
            first += full * others.added_to(room) + (others.added_to(last) if last else 0.0)
        first += header * step
    else:
        # the prompts run in steps of their own while the decodes wait
        step = users / many.time.decode_tokens_per_s
        per_user = 1.0 / (step + users * one_prompt / new)
        others = step if users == 1 else (users - 1) / at(users - 1).time.decode_tokens_per_s
        chunks = math.ceil(plan.seq_len / chunk)
        first = one_prompt + chunks * (others if users > 1 else 0.0) + header * step
    kv = users * (plan.seq_len + new)
    if base.engine_name == "vllm":
        fits, limit = kv <= base.engine.capacity_tokens, "kv pool"
    else:
        fits, limit = bool(many.fits), "memory"
    return LoadPoint(users, per_user, users * per_user, first, step, kv, fits,
                     "" if fits else limit)


def _at(base: Estimate, users: int, assumptions: Assumptions, **options) -> Estimate:
    plan: Plan = replace(base.plan, micro_batch=users, dataset_samples=None)
    if base.engine_name == "llama.cpp" and plan.gpu_layers is None:
        # the server keeps the plan's layers on the GPU: more slots that fit only by moving
        # layers to the CPU (llama.cpp's --fit would) do not fit this plan's layout, as
        # the fit map counts them
        plan = replace(plan, gpu_layers=int(base.engine.settings["n_gpu_layers"]))
    if plan == base.plan:
        return base
    return resolve(base.model, plan, base.gpu, assumptions, **options)


def curve(base: Estimate, users: Iterable[int] = USERS,
          assumptions: Assumptions = DEFAULT_ASSUMPTIONS, **options) -> tuple[LoadPoint, ...]:
    """:func:`load_point` at each of ``users``."""
    seen: dict = options.pop("_seen", None) or {}
    return tuple(load_point(base, n, assumptions, _seen=seen, **options) for n in users)


def capacity(base: Estimate, *, min_tokens_per_s: float = READING_TOKENS_PER_S,
             max_first_token_s: float = FIRST_TOKEN_S,
             assumptions: Assumptions = DEFAULT_ASSUMPTIONS, **options) -> Capacity:
    """The most users served at once with at least ``min_tokens_per_s`` each and the
    requests fitting; found on :data:`USERS`, then narrowed between the last point that
    holds and the first that does not. The first token's time is reported beside it, and
    the sentence says when it is over ``max_first_token_s`` (a long prompt's prefill takes
    what it takes whatever the load)."""
    seen: dict = {}
    points = list(curve(base, USERS, assumptions, _seen=seen, **options))

    def good(p: LoadPoint) -> bool:
        return p.fits and p.tokens_per_s_user >= min_tokens_per_s

    best = None
    for p in points:
        if not good(p):
            break
        best = p
    if best is not None and best.users < USERS[-1]:
        lo, hi = best.users, next(u for u in USERS if u > best.users)
        while hi - lo > 1:
            mid = (lo + hi) // 2
            p = load_point(base, mid, assumptions, _seen=seen, **options)
            if good(p):
                lo, best = mid, p
            else:
                hi = mid
    return Capacity(best.users if best else 0, best, tuple(points), min_tokens_per_s,
                    max_first_token_s, base.plan.seq_len, base.plan.new_tokens,
                    base.engine_name, base.plan.micro_batch)


__all__ = ["ENGINES", "FIRST_TOKEN_S", "READING_TOKENS_PER_S", "USERS", "Capacity",
           "LoadPoint", "capacity", "curve", "load_point", "serves_many"]
