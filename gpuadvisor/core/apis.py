"""Hosted APIs: a model served by someone else, paid per token.

An :class:`ApiOffer` is one dated price for one open model from one provider (Together,
Fireworks, DeepInfra, Groq, OpenRouter, ...): US dollars per million input tokens and per
million output tokens, billed separately. Offers come from the shipped ``catalog/apis.toml``
(validated by :mod:`gpuadvisor.catalog`) and from the user's own ``apis.toml`` (their
negotiated rate), which take precedence and are marked ``user=True``.

Which offers apply to a plan (:func:`apis_for`): an offer names the model preset it serves
(``model``, e.g. ``llama-3.3-70b``) and may name presets of the same architecture it serves
as well (``also_for``: a Llama 3.3 70B endpoint answers for Llama 3.1 70B, which has the same
weights' shape and so the same cost to serve). A model that is not a preset (a Hugging Face
``config.json``) is matched by name: the provider's model name and the model's own name are
reduced to a key (:func:`match_key`: organisation, ``Meta-`` and words such as ``Instruct``,
``Turbo`` or ``FP8`` dropped) and compared with each other and with the preset ids.
Nothing else matches: a 7B offer never stands in for an 8B model.

Pure: no files, no Qt. Prices in US dollars.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from .offers import parse_day

#: The option kind of a hosted API (beside own, buy-new, buy-used, rent, cloud).
API_KIND = "api"

#: Words in a provider's model name that say how it is served, not what it is.
_SERVING_WORDS = frozenset({
    "instruct", "it", "chat", "turbo", "fp8", "fp16", "bf16", "fp4", "int8", "int4", "awq",
    "gptq", "hf", "versatile", "instant", "preview", "free", "latest", "serverless", "base",
})


@dataclass(frozen=True)
class ApiOffer:
    """One dated per-token price for one model from one provider.

    Attributes:
        id: unique id (``deepinfra-llama-3.3-70b-turbo``). A user entry with the id of a
            shipped one replaces it; a new id adds one.
        provider: who serves it (``DeepInfra``, ``Fireworks``, ``OpenRouter``).
        model: the model preset it serves (a ``models.toml`` id, ``llama-3.3-70b``).
        model_name: the provider's name for it (``meta-llama/Llama-3.3-70B-Instruct-Turbo``).
        input_usd_per_mtok: US dollars per million input (prompt) tokens.
        output_usd_per_mtok: US dollars per million output (generated) tokens.
        as_of: the day the price was seen (``YYYY-MM-DD``).
        source: where the price was read (a URL and what it says), for people.
        also_for: other presets of the same architecture this endpoint answers for.
        quant: the weights' format as served, when the provider says (``fp8``, ``bf16``).
        notes: anything a buyer should know.
        estimate: the price is derived, not read from a price list (``notes`` says how).
        user: the user's own price (their ``apis.toml``).
    """

    id: str
    provider: str
    model: str
    model_name: str
    input_usd_per_mtok: float
    output_usd_per_mtok: float
    as_of: str
    source: str
    also_for: tuple[str, ...] = ()
    quant: str | None = None
    notes: str = ""
    estimate: bool = False
    user: bool = False

    def __post_init__(self) -> None:
        for name in ("input_usd_per_mtok", "output_usd_per_mtok"):
            value = getattr(self, name)
            if (isinstance(value, bool) or not isinstance(value, int | float)
                    or not math.isfinite(value) or value < 0):
                raise ValueError(f"{name} must be a number of US dollars, zero or more, "
                                 f"got {value!r}")
        if self.input_usd_per_mtok == 0 and self.output_usd_per_mtok == 0:
            raise ValueError("prices are both 0 (input_usd_per_mtok and "
                             "output_usd_per_mtok): a free tier is not a price")
        parse_day(self.as_of)
        for name in ("provider", "model", "model_name", "source"):
            if not isinstance(getattr(self, name), str) or not getattr(self, name).strip():
                raise ValueError(f"{name} must not be empty")

    @property
    def kind(self) -> str:
        """Always :data:`API_KIND`."""
        return API_KIND

    @property
    def models(self) -> tuple[str, ...]:
        """Every preset this offer answers for: ``model`` then ``also_for``."""
        return (self.model, *self.also_for)

    def usd_per_mtok_output(self, prompt_tokens: float, new_tokens: float) -> float:
        """US dollars per million generated tokens, each carrying its share of the prompt:
        ``output + input x prompt / new`` (a request of ``prompt`` in and ``new`` out costs
        ``(input x prompt + output x new) / 1e6``; divided by its ``new`` tokens)."""
        if not new_tokens > 0:
            raise ValueError(f"new_tokens must be positive, got {new_tokens}")
        return self.output_usd_per_mtok + self.input_usd_per_mtok * prompt_tokens / new_tokens

    def blended_usd_per_mtok(self, prompt_tokens: float, new_tokens: float) -> float:
        """US dollars per million tokens of either kind at ``prompt:new``:
        ``(input x prompt + output x new) / (prompt + new)``."""
        total = prompt_tokens + new_tokens
        if not total > 0:
            raise ValueError("prompt_tokens + new_tokens must be positive")
        return (self.input_usd_per_mtok * prompt_tokens
                + self.output_usd_per_mtok * new_tokens) / total


def match_key(name: str) -> str:
    """A model name reduced for matching: the part after the last ``/``, lower case, words
    joined by ``-``, a leading ``meta-`` and serving words (:data:`_SERVING_WORDS`) dropped.

    ``"meta-llama/Meta-Llama-3.1-8B-Instruct-Turbo"`` and ``"llama-3.1-8b"`` both give
    ``"llama-3.1-8b"``; ``"google/gemma-3-27b-it"`` gives ``"gemma-3-27b"``.
    """
    text = name.strip().lower().rsplit("/", 1)[-1]
    words = [w for w in re.split(r"[-_\s]+", text) if w]
    if words[:1] == ["meta"] and len(words) > 1:
        words = words[1:]
    words = [w for w in words if w not in _SERVING_WORDS]
    return "-".join(words)


def serves(offer: ApiOffer, model_id: str, model_name: str = "") -> bool:
    """Whether ``offer`` answers for the model with preset id ``model_id`` (and display
    name ``model_name``): the id is one of :attr:`ApiOffer.models`, or (a model not in the
    presets) its name's or id's :func:`match_key` is the offer's model name's or one of its
    presets' key."""
    if model_id in offer.models:
        return True
    keys = {match_key(offer.model_name), *(match_key(m) for m in offer.models)}
    mine = {match_key(model_id)} | ({match_key(model_name)} if model_name else set())
    return bool(keys & mine)


def apis_for(model_id: str, offers: Iterable[ApiOffer], model_name: str = "",
             known_ids: Sequence[str] = ()) -> list[ApiOffer]:
    """The offers that serve the model, cheapest output price first.

    ``known_ids`` are the preset ids: a model that is one of them matches by id only (a
    preset's name never borrows another preset's price); any other model matches by name
    too (see the module docstring).
    """
    chosen = []
    for offer in offers:
        if model_id in known_ids:
            ok = model_id in offer.models
        else:
            ok = serves(offer, model_id, model_name)
        if ok:
            chosen.append(offer)
    return sorted(chosen, key=lambda o: (o.output_usd_per_mtok, o.input_usd_per_mtok, o.id))


__all__ = ["API_KIND", "ApiOffer", "apis_for", "match_key", "serves"]
