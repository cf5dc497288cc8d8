"""Load and validate catalog files (``catalog/*.toml``) into core records.

The package, by concern (each module imports only those above it, plus ``gpuadvisor.core``
and ``gpuadvisor.userfiles``):

- :mod:`~gpuadvisor.catalog.schema`: the rules for each kind's entries (:class:`Field`,
  :class:`Schema`, :data:`KINDS`) and :class:`CatalogError`; no file access.
- :mod:`~gpuadvisor.catalog.files`: one file read and checked, the shipped folder
  (:func:`catalog_dir`), a file's kind (:func:`kind_of`), offers against GPUs
  (:func:`check_offer_gpus`).
- :mod:`~gpuadvisor.catalog.overrides`: the user's catalog folder (:func:`user_catalog_dir`,
  :func:`override_path`, :func:`updated_path`) and the catalog in effect.
- :mod:`~gpuadvisor.catalog.loaders`: :func:`load_gpus`, :func:`load_models`,
  :func:`load_offers`, :func:`load_apis`, :func:`validate_file`, :func:`catalog_warnings`.
- :mod:`~gpuadvisor.catalog.updater`: ``gpuadvisor catalog update`` (:func:`update_catalog`).

The catalog in effect (the loaders without a path) is the shipped one, or the one installed by
``gpuadvisor catalog update``, with the user's own entries on top. A user file with problems is
not used: it is set aside (renamed ``<name>.bad-<date>-<time>``, kept, its text never
changed) and reported (:func:`catalog_warnings`; :func:`set_aside_notices` for what this
process set aside, which every command and the app's window tell the user).

The package may read files and, in :func:`update_catalog` only, download one over HTTPS; it
never imports Qt, torch or pynvml. Callers use it as ``from gpuadvisor import catalog`` and
``catalog.load_gpus()``: a test that replaces ``catalog.load_offers`` is seen by every caller
that goes through the package attribute (nothing inside the package calls it).
"""

from __future__ import annotations

from .files import catalog_dir, check_offer_gpus, kind_of
from .loaders import (
    catalog_warnings,
    load_apis,
    load_gpus,
    load_models,
    load_offers,
    validate_file,
)
from .overrides import (
    PREVIOUS_SUFFIX,
    UPDATES_FOLDER,
    USER_CATALOG_FOLDER,
    override_path,
    set_aside_notices,
    updated_path,
    user_catalog_dir,
)
from .schema import (
    API_SCHEMA,
    CATALOG_SCHEMA_VERSION,
    GPU_SCHEMA,
    KINDS,
    OFFER_SCHEMA,
    CatalogError,
    CatalogKind,
    Field,
    FieldKind,
    Schema,
)
from .serving import load_serving
from .updater import (
    ALLOW_HTTP_LOOPBACK_ENV,
    MAX_UPDATE_BYTES,
    UPDATE_TIMEOUT_S,
    CatalogChanges,
    UpdateError,
    UpdateResult,
    diff_catalogs,
    fetch_catalog_bytes,
    update_catalog,
)

__all__ = [
    "ALLOW_HTTP_LOOPBACK_ENV",
    "API_SCHEMA",
    "CATALOG_SCHEMA_VERSION",
    "GPU_SCHEMA",
    "KINDS",
    "MAX_UPDATE_BYTES",
    "OFFER_SCHEMA",
    "PREVIOUS_SUFFIX",
    "UPDATES_FOLDER",
    "UPDATE_TIMEOUT_S",
    "USER_CATALOG_FOLDER",
    "CatalogChanges",
    "CatalogError",
    "CatalogKind",
    "Field",
    "FieldKind",
    "Schema",
    "UpdateError",
    "UpdateResult",
    "catalog_dir",
    "catalog_warnings",
    "check_offer_gpus",
    "diff_catalogs",
    "fetch_catalog_bytes",
    "kind_of",
    "load_apis",
    "load_gpus",
    "load_models",
    "load_offers",
    "load_serving",
    "override_path",
    "set_aside_notices",
    "update_catalog",
    "updated_path",
    "user_catalog_dir",
    "validate_file",
]
