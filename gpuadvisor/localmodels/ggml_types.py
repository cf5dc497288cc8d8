"""ggml tensor types for reading GGUF files: the table lives in
:mod:`gpuadvisor.core.ggml_types` (the estimator sizes GGUF quantizations from it too); this
module adds the fallback to the optional ``gguf`` package for types newer than the table.
"""

from __future__ import annotations

from gpuadvisor.core.ggml_types import (
    GGML_TYPES,
    GGML_TYPES_BY_NAME,
    GgmlType,
    kind_tensor_bytes,
)


def ggml_type(type_id: int) -> GgmlType:
    """The ggml type with this id: from the core table, else from the ``gguf`` package's
    ``GGML_QUANT_SIZES`` when it is installed and newer than the table.

    Raises:
        ValueError: an id neither knows (a file newer than both, or a removed type).
    """
    known = GGML_TYPES.get(type_id)
    if known is not None:
        return known
    newer = _package_type(type_id)
    if newer is None:
        raise ValueError(f"unknown ggml tensor type {type_id} (a file newer than gpuadvisor? "
                         "installing or updating the 'gguf' package may help)")
    return newer


def _package_type(type_id: int) -> GgmlType | None:
    """A type only the installed ``gguf`` package knows, or None."""
    try:
        from gguf.constants import GGML_QUANT_SIZES, GGMLQuantizationType
        kind = GGMLQuantizationType(type_id)
        block_size, type_size = GGML_QUANT_SIZES[kind]
    except (ImportError, ValueError, KeyError):
        return None
    return GgmlType(type_id, kind.name, int(block_size), int(type_size))


def tensor_bytes(type_id: int, shape: tuple[int, ...]) -> int:
    """Bytes of a tensor of ``shape`` (ggml order: ``shape[0]`` is the row) and type
    (:func:`ggml_type`, so newer types from the ``gguf`` package count too).

    Raises:
        ValueError: an unknown type, a negative dimension, or a row that is not a whole
            number of blocks.
    """
    return kind_tensor_bytes(ggml_type(type_id), shape)


__all__ = ["GGML_TYPES", "GGML_TYPES_BY_NAME", "GgmlType", "ggml_type", "tensor_bytes"]
