"""Loading the catalog: GPUs, model presets, offers and hosted APIs, from a file or as in
effect.

Without a path, :func:`load_gpus`, :func:`load_models` and :func:`load_offers` give the catalog
in effect: the shipped one, or the one installed by ``gpuadvisor catalog update``, with the
user's own entries on top (see :mod:`gpuadvisor.catalog.overrides`). A user file with problems
is reported (:func:`catalog_warnings`) and not used, never changed. With a path, they load that
one file and raise :class:`~gpuadvisor.catalog.schema.CatalogError` listing every problem.
"""

from __future__ import annotations

import functools
from dataclasses import replace

from gpuadvisor.core.apis import ApiOffer
from gpuadvisor.core.gpu import GpuSpec
from gpuadvisor.core.model import ModelSpec
from gpuadvisor.core.offers import Offer

from .files import CatalogPath, display_name, kind_of, load_checked, load_or_raise
from .overrides import in_effect, in_effect_gpu_ids, in_effect_model_ids, set_aside_notices
from .schema import KINDS


def validate_file(path: CatalogPath) -> list[str]:
    """Check a catalog file and return every problem found (not just the first).

    The kind is told from the file name (see :func:`kind_of`). Offers are also checked
    against the GPU catalog in effect (every ``gpu_id`` must name a GPU). Used by
    ``gpuadvisor catalog validate PATH``.

    Args:
        path: The catalog file.

    Returns:
        One line per problem, each naming file, entry and field; empty when the file is valid.
    """
    name = display_name(path)
    kind = kind_of(path)
    if kind is None:
        return [f"{name}: cannot tell the catalog kind from the file name; "
                "name it gpus.toml, models.toml, offers.toml or apis.toml (or e.g. "
                "lab-gpus.toml)"]
    if kind not in KINDS:
        return [f"{name}: catalog kind '{kind}' has no schema registered yet"]
    _records, problems = load_checked(path, kind, in_effect_gpu_ids, in_effect_model_ids)
    return problems


def load_gpus(path: CatalogPath | None = None, *,
              warnings: list[str] | None = None) -> dict[str, GpuSpec]:
    """Load a GPU catalog file, or the GPU catalog in effect.

    ``path=None`` gives the catalog in effect: the shipped ``gpus.toml`` (or the one installed
    by ``gpuadvisor catalog update``), with the user's own ``gpus.toml`` overrides on top (see
    :func:`user_catalog_dir`). It is parsed once and cached (the GUI asks on every
    recompute); each call returns a fresh dict over the same records, re-read only when one of
    the user's files changes.

    Args:
        path: A ``gpus`` catalog file; ``None`` for the catalog in effect.
        warnings: With ``path=None``, a list that receives one message per user file that was
            not used because it has problems (the shipped data is used instead).

    Returns:
        The GPUs by catalog id, in file order (user additions last).

    Raises:
        CatalogError: If the file given cannot be read or has any problem (all are listed).
    """
    if path is None:
        return in_effect("gpus", warnings)
    return load_or_raise(path, "gpus", in_effect_gpu_ids)


def load_models(path: CatalogPath | None = None, *,
                warnings: list[str] | None = None) -> dict[str, ModelSpec]:
    """Load a model-preset catalog file, or the presets in effect (see :func:`load_gpus`).

    Raises:
        CatalogError: If the file given cannot be read or has any problem (all are listed).
    """
    if path is None:
        return _with_ollama_tags(in_effect("models", warnings))
    return load_or_raise(path, "models", in_effect_gpu_ids)


def _with_ollama_tags(models: dict[str, ModelSpec]) -> dict[str, ModelSpec]:
    """The presets with the GGUF type of their default Ollama tag (catalog/serving.toml),
    so an Ollama plan that names no quantization runs what ``ollama run`` pulls."""
    from .serving import load_serving

    serving = load_serving()
    return {mid: _tagged(spec, serving[mid].ollama_quant)
            if mid in serving and serving[mid].ollama_quant and not spec.ollama_quant
            else spec for mid, spec in models.items()}


@functools.lru_cache(maxsize=1024)
def _tagged(spec: ModelSpec, quant: str) -> ModelSpec:
    """``spec`` with its default Ollama tag's type (made once per preset and type)."""
    return replace(spec, ollama_quant=quant)


def load_offers(path: CatalogPath | None = None, *,
                warnings: list[str] | None = None) -> dict[str, Offer]:
    """Load an offers catalog file, or the offers in effect.

    ``path=None`` gives the offers in effect: the shipped ``offers.toml`` (or the one
    installed by ``gpuadvisor catalog update``), then the user's own overrides
    (``<user data>/catalog/offers.toml``, :func:`override_path`): an entry with the id of an
    offer replaces it, a new id adds one, and every entry from that file is marked
    ``user=True``. A user file with any problem is not used at all (the message says which
    file, entry and field); it is never changed or moved.

    Every ``gpu_id`` must name a GPU of the GPU catalog in effect (:func:`load_gpus`).

    Args:
        path: An ``offers`` catalog file; ``None`` for the offers in effect.
        warnings: With ``path=None``, a list that receives one message per user file not used.

    Returns:
        The offers by id, in file order (user additions last).

    Raises:
        CatalogError: If the file given cannot be read or has any problem (all are listed).
    """
    if path is None:
        return in_effect("offers", warnings)
    return load_or_raise(path, "offers", in_effect_gpu_ids)


def load_apis(path: CatalogPath | None = None, *,
              warnings: list[str] | None = None) -> dict[str, ApiOffer]:
    """Load a hosted-API catalog file, or the API offers in effect.

    ``path=None`` gives the offers in effect: the shipped ``apis.toml`` (or the one installed
    by ``gpuadvisor catalog update``), then the user's own ``apis.toml`` on top (an entry with
    the id of a shipped one replaces it, a new id adds one; every entry of that file is marked
    ``user=True``), as for :func:`load_offers`. Every ``model`` and ``also_for`` id must name a
    model preset in effect (:func:`load_models`).

    Args:
        path: An ``apis`` catalog file; ``None`` for the API offers in effect.
        warnings: With ``path=None``, a list that receives one message per user file not used.

    Returns:
        The API offers by id, in file order (user additions last).

    Raises:
        CatalogError: If the file given cannot be read or has any problem (all are listed).
    """
    if path is None:
        return in_effect("apis", warnings)
    return load_or_raise(path, "apis", in_effect_gpu_ids, in_effect_model_ids)


def catalog_warnings() -> list[str]:
    """Messages about the user's catalog files that are not used (all kinds), for display.

    Each message names the file, says what is used instead, and lists every problem.
    """
    for kind in KINDS:
        in_effect(kind, None)
    return set_aside_notices()

