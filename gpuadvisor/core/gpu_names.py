"""A GPU named as people, drivers and reviews write it -> one catalog GPU (pure: no I/O).

``--gpu`` takes a catalog id (``rtx-4090``) or a name: what ``nvidia-smi``/NVML print
(``NVIDIA GeForce RTX 4090``, ``Tesla V100-SXM2-16GB``, ``NVIDIA A100-SXM4-80GB``,
``NVIDIA H100 80GB HBM3``), what ROCm torch prints (``AMD Radeon RX 7900 XTX``), what macOS
names a chip (``Apple M2 Max``), and what reviews and shops write (``RTX 4090``, ``4090``,
``RTX 4090 Founders Edition``).

How a name is read (:func:`name_tokens`): case does not count; trademarks (``(R)``, ``™``)
go; dashes, underscores, slashes, commas and parentheses separate words as spaces do; a size
split from its unit is joined (``80 GB`` and ``80G`` read ``80gb``); vendor and brand words
that never tell two catalog cards apart are dropped (:data:`VENDOR_WORDS`: ``NVIDIA``,
``GeForce``, ``Tesla``, ``AMD``, ``Radeon``, ``Instinct``, ``Intel``, ``Apple``, ...), as
are words of packaging (:data:`PACKAGING_WORDS`: ``Founders Edition``, ``GPU``); word
order does not count (``A100 80GB SXM4`` = ``A100-SXM4-80GB``). A product line written
before the model number (:data:`LINE_WORDS`: ``RTX``, ``GTX``, ``RX``, ``Quadro``, ``Arc``)
may be left out (``4090`` = ``RTX 4090``); written after it, it is part of the name
(``TITAN RTX``).

Each catalog GPU is known by its id, its name, that name without a trailing parenthesis
(``Apple M2 Max (38-core GPU, 96 GB)`` -> ``Apple M2 Max``; ``... RTX 4090 48GB (modified
board)`` -> ``RTX 4090 48GB``) and its driver aliases. :func:`match_gpu_name` tries, in
order, and stops at the first step that finds any card:

1. the id, written with spaces or dashes (``RTX-4090``, ``rtx 4090``, ``h100 sxm``);
2. the same words as a card's name, then as a card's alias: a card whose own name matches
   wins over one that merely shares the alias (the 48 GB RTX 4090 board reports the plain
   card's name, but ``NVIDIA GeForce RTX 4090`` is the plain card);
3. fewer words than a card's name or alias (``4090 laptop``, ``P100``), a word of letters
   also standing for itself followed by a number (``A100 SXM`` for ``A100 SXM4``); accepted
   only when they fit exactly one card.

Several cards left is ambiguous (``A100``: 40 and 80 GB, SXM and PCIe; ``RTX 3080``: 10 and
12 GB), and the answer lists them, except for Apple chips: macOS names the chip, not its
variant, and the catalog's fullest variant of the chip is taken, as detection does
(:mod:`gpuadvisor.hardware.match`), saying so and naming the others. No card at all is
unknown, and the answer names the closest catalog cards (:func:`difflib.get_close_matches`
over the names read as above).
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Mapping
from dataclasses import dataclass

from .gpu import GpuSpec

#: Vendor and brand words: dropped, they never tell two catalog GPUs apart.
VENDOR_WORDS = frozenset({"nvidia", "geforce", "tesla", "amd", "ati", "radeon", "instinct",
                          "intel", "apple", "graphics"})
#: Words of packaging and marketing, not of the chip: dropped on both sides.
PACKAGING_WORDS = frozenset({"founders", "edition", "fe", "gpu"})
#: Product-line words that may be left out when written before the model number.
LINE_WORDS = frozenset({"rtx", "gtx", "rx", "quadro", "arc"})

_TRADEMARKS = re.compile(r"\((?:r|tm|c)\)|[®™©]", re.IGNORECASE)
_SEPARATORS = re.compile(r"[\s\-_/,()\[\]]+")
_SIZE_WITH_UNIT = re.compile(r"^(\d+(?:\.\d+)?)g(?:b|ib)?$")
_NUMBER = re.compile(r"^\d+(?:\.\d+)?$")
_UNITS = frozenset({"gb", "g", "gib"})
_TRAILING_PARENTHESIS = re.compile(r"\s*\([^)]*\)\s*$")


class GpuNameError(ValueError):
    """A GPU name that names no catalog card, or several: the message says which.

    Attributes:
        candidates: the catalog ids it could mean (ambiguous) or the closest ones (unknown).
    """

    def __init__(self, message: str, candidates: tuple[str, ...] = ()) -> None:
        super().__init__(message)
        self.candidates = candidates


@dataclass(frozen=True)
class GpuMatch:
    """What :func:`match_gpu_name` made of a name.

    Attributes:
        text: the name as given.
        gpu_id: the catalog id, or ``None`` (ambiguous or unknown).
        how: ``id``, ``name``, ``alias``, ``partial`` (fewer words, one card), ``variant``
            (an Apple chip name: its fullest variant), ``ambiguous`` or ``unknown``.
        candidates: ambiguous: every card it could mean; unknown: the closest cards;
            ``variant``: the chip's other variants.
        note: one sentence for people when the reading is not plain (``partial``,
            ``variant``), else empty.
    """

    text: str
    gpu_id: str | None
    how: str
    candidates: tuple[str, ...] = ()
    note: str = ""


def name_tokens(text: str) -> tuple[str, ...]:
    """The words of a GPU name as matching reads them (see the module docstring).

    ``"NVIDIA A100-SXM4-80GB"`` -> ``("a100", "sxm4", "80gb")``;
    ``"Intel(R) Arc(TM) A770 Graphics"`` -> ``("arc", "a770")``;
    ``"NVIDIA H100 80 GB HBM3"`` -> ``("h100", "80gb", "hbm3")``.
    """
    words = [w for w in _SEPARATORS.split(_TRADEMARKS.sub(" ", text).lower()) if w]
    joined: list[str] = []
    for word in words:
        if word in _UNITS and joined and _NUMBER.match(joined[-1]):
            joined[-1] += "gb"
            continue
        size = _SIZE_WITH_UNIT.match(word)
        joined.append(f"{size.group(1)}gb" if size else word)
    return tuple(w for w in joined if w not in VENDOR_WORDS and w not in PACKAGING_WORDS)


def core_tokens(tokens: tuple[str, ...]) -> frozenset[str]:
    """``tokens`` without product-line words written first (``rtx 4090`` -> ``{4090}``;
    ``titan rtx`` stays), as a set: word order does not count."""
    start = 0
    while start < len(tokens) - 1 and tokens[start] in LINE_WORDS:
        start += 1
    return frozenset(tokens[start:])


def _forms(spec: GpuSpec) -> tuple[list[frozenset[str]], list[frozenset[str]]]:
    """``(name forms, alias forms)`` of a catalog GPU as core token sets."""
    names = [spec.name, _TRAILING_PARENTHESIS.sub("", spec.name)]
    name_forms = [core_tokens(name_tokens(n)) for n in names]
    alias_forms = [core_tokens(name_tokens(a)) for a in spec.aliases]
    return ([f for f in name_forms if f], [f for f in alias_forms if f])


def _word_in(word: str, form: frozenset[str]) -> bool:
    """``word`` is in ``form``, or is a word of letters that a word of ``form`` extends
    with a number (``sxm`` in ``sxm4``; ``a10`` is not in ``a100``)."""
    if word in form:
        return True
    return word.isalpha() and any(w.startswith(word) and w[len(word):].isdigit()
                                  for w in form)


def _within(query: frozenset[str], form: frozenset[str]) -> bool:
    """Every word of ``query`` is in ``form`` (see :func:`_word_in`), and ``form`` says
    more."""
    return query != form and all(_word_in(word, form) for word in query)


def _id_key(text: str) -> str:
    return re.sub(r"-+", "-", _SEPARATORS.sub("-", text.strip().lower())).strip("-")


def _label(spec: GpuSpec) -> str:
    return f"{spec.id} ({spec.name})"


#: Most cards an ambiguous name's message lists by name.
LISTED = 8


def _labels(ids, gpus: Mapping[str, GpuSpec]) -> str:
    text = ", ".join(_label(gpus[i]) for i in ids[:LISTED])
    if len(ids) > LISTED:
        text += f" and {len(ids) - LISTED} more ({', '.join(ids[LISTED:])})"
    return text


def _fullest_variant(found: list[GpuSpec]) -> GpuSpec | None:
    """The Apple chip variant with the most GPU cores (then the most memory), when every
    card found is a unified-memory variant of one chip; else ``None``."""
    if len(found) < 2 or not all(s.unified_memory for s in found):
        return None
    chips = {_TRAILING_PARENTHESIS.sub("", s.name).strip().lower() for s in found}
    if len(chips) != 1:
        return None
    ranked = sorted(found, key=lambda s: (s.gpu_cores or 0, s.memory_gib), reverse=True)
    top = ranked[0]
    if (top.gpu_cores or 0, top.memory_gib) == (ranked[1].gpu_cores or 0, ranked[1].memory_gib):
        return None
    return top


def _settle(text: str, found: list[GpuSpec], how: str, gpus: Mapping[str, GpuSpec]
            ) -> GpuMatch:
    """One card found: that one; several: an Apple chip's fullest variant, or ambiguous."""
    if len(found) == 1:
        note = ""
        if how == "partial":
            note = f"read as {_label(found[0])}, the only catalog GPU named like that"
        return GpuMatch(text, found[0].id, how, (), note)
    variant = _fullest_variant(found)
    if variant is not None:
        others = tuple(s.id for s in found if s.id != variant.id)
        note = (f"read as {_label(variant)}, the fullest of the chip's {len(found)} catalog "
                f"variants (as detection takes it); for another give its id: "
                f"{', '.join(others)}")
        return GpuMatch(text, variant.id, "variant", others, note)
    ids = tuple(sorted(s.id for s in found))
    return GpuMatch(text, None, "ambiguous", ids)


def match_gpu_name(text: str, gpus: Mapping[str, GpuSpec]) -> GpuMatch:
    """Read ``text`` as a catalog GPU (see the module docstring for the steps).

    Args:
        text: a catalog id or a GPU's name as drivers, reviews or people write it.
        gpus: the GPU catalog, id -> spec.

    Returns:
        A :class:`GpuMatch`; ``gpu_id`` is ``None`` when the name is ambiguous or unknown.
    """
    if not isinstance(text, str) or not text.strip():
        return GpuMatch(str(text), None, "unknown", _closest("", gpus))
    if text in gpus:
        return GpuMatch(text, text, "id")
    key = _id_key(text)
    if key in gpus:
        return GpuMatch(text, key, "id")
    query = core_tokens(name_tokens(text))
    if not query:
        return GpuMatch(text, None, "unknown", _closest(text, gpus))
    forms = {gpu_id: _forms(spec) for gpu_id, spec in gpus.items()}
    by_name = [gpus[i] for i, (names, _) in forms.items() if query in names]
    if by_name:
        return _settle(text, by_name, "name", gpus)
    by_alias = [gpus[i] for i, (_, aliases) in forms.items() if query in aliases]
    if by_alias:
        return _settle(text, by_alias, "alias", gpus)
    partial = [gpus[i] for i, (names, aliases) in forms.items()
               if any(_within(query, form) for form in (*names, *aliases))]
    if partial:
        return _settle(text, partial, "partial", gpus)
    return GpuMatch(text, None, "unknown", _closest(text, gpus))


def _closest(text: str, gpus: Mapping[str, GpuSpec], n: int = 3) -> tuple[str, ...]:
    """The ids of up to ``n`` catalog GPUs whose names read closest to ``text``."""
    readings: dict[str, str] = {}
    for gpu_id, spec in gpus.items():
        for name in (spec.name, *spec.aliases, gpu_id.replace("-", " ")):
            readings.setdefault(" ".join(name_tokens(name)), gpu_id)
    wanted = " ".join(name_tokens(text)) if text else ""
    close = difflib.get_close_matches(wanted, list(readings), n=4 * n, cutoff=0.5)
    ids = list(dict.fromkeys(readings[c] for c in close))
    return tuple(ids[:n])


def resolve_gpu_name(text: str, gpus: Mapping[str, GpuSpec]) -> GpuMatch:
    """:func:`match_gpu_name`, with a card found or :class:`GpuNameError` saying why not.

    Raises:
        GpuNameError: ambiguous (the message lists every card it could mean) or unknown
            (the message names the closest catalog cards).
    """
    match = match_gpu_name(text, gpus)
    if match.gpu_id is not None:
        return match
    if match.how == "ambiguous":
        raise GpuNameError(
            f"{text!r} matches {len(match.candidates)} catalog GPUs: "
            f"{_labels(match.candidates, gpus)}; give one of these ids", match.candidates)
    tail = (f"closest: {_labels(match.candidates, gpus)}" if match.candidates
            else "see 'gpuadvisor catalog list --kind gpus'")
    raise GpuNameError(f"unknown GPU {text!r} ({tail})", match.candidates)


__all__ = ["LINE_WORDS", "PACKAGING_WORDS", "VENDOR_WORDS", "GpuMatch", "GpuNameError",
           "core_tokens", "match_gpu_name", "name_tokens", "resolve_gpu_name"]
