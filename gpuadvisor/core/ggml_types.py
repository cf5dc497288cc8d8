"""ggml tensor types: how many weights one block holds and how many bytes it takes.

A GGUF file stores each tensor as rows of blocks along its first (innermost) dimension; a
tensor of ``n`` elements of type ``t`` takes ``n / block_size(t) * type_size(t)`` bytes.
The table is ggml's ``type_traits`` (``ggml/src/ggml.c``: ``.blck_size``, ``.type_size``)
with the block structs of ``ggml/src/ggml-common.h`` (each struct's size is pinned there by
a ``static_assert``), read from ggml-org/ggml at commit d99724f2 (2026-08-21). The sums
below spell the struct out: ``ggml_half`` is 2 bytes, ``QK_K`` is 256, ``K_SCALE_SIZE`` 12.
Ids 4, 5 and 31-33, 36-38 were removed from ggml and are not valid in files.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class GgmlType:
    """One ggml tensor type.

    Attributes:
        id: the ``ggml_type`` number stored in a GGUF tensor info.
        name: ggml's name, upper case as llama.cpp prints it (``Q4_K``).
        block_size: weights per block (1 for plain types).
        type_size: bytes per block.
    """

    id: int
    name: str
    block_size: int
    type_size: int

    @property
    def bits_per_weight(self) -> float:
        """Bits per stored weight, scales included (e.g. 4.5 for Q4_K)."""
        return 8.0 * self.type_size / self.block_size


_QK_K = 256
_HALF = 2

GGML_TYPES: dict[int, GgmlType] = {
    t.id: t
    for t in (
        GgmlType(0, "F32", 1, 4),
        GgmlType(1, "F16", 1, 2),
        GgmlType(2, "Q4_0", 32, _HALF + 32 // 2),  # d; 4-bit quants
        GgmlType(3, "Q4_1", 32, 2 * _HALF + 32 // 2),  # d, m
        GgmlType(6, "Q5_0", 32, _HALF + 4 + 32 // 2),  # d; high bits (uint32); quants
        GgmlType(7, "Q5_1", 32, 2 * _HALF + 4 + 32 // 2),
        GgmlType(8, "Q8_0", 32, _HALF + 32),
        GgmlType(9, "Q8_1", 32, 2 * _HALF + 32),  # d, s (gguf-py lists 40: float d, s of old)
        GgmlType(10, "Q2_K", _QK_K, 2 * _HALF + _QK_K // 16 + _QK_K // 4),
        GgmlType(11, "Q3_K", _QK_K, _HALF + _QK_K // 4 + _QK_K // 8 + 12),
        GgmlType(12, "Q4_K", _QK_K, 2 * _HALF + 12 + _QK_K // 2),
        GgmlType(13, "Q5_K", _QK_K, 2 * _HALF + 12 + _QK_K // 2 + _QK_K // 8),
        GgmlType(14, "Q6_K", _QK_K, _HALF + _QK_K // 16 + 3 * _QK_K // 4),
        GgmlType(15, "Q8_K", _QK_K, 4 + _QK_K + _QK_K // 16 * 2),  # float d; int16 sums
        GgmlType(16, "IQ2_XXS", _QK_K, _HALF + _QK_K // 8 * 2),
        GgmlType(17, "IQ2_XS", _QK_K, _HALF + _QK_K // 8 * 2 + _QK_K // 32),
        GgmlType(18, "IQ3_XXS", _QK_K, _HALF + 3 * (_QK_K // 8)),
        GgmlType(19, "IQ1_S", _QK_K, _HALF + _QK_K // 8 + _QK_K // 16),
        GgmlType(20, "IQ4_NL", 32, _HALF + 32 // 2),
        GgmlType(21, "IQ3_S", _QK_K, _HALF + 13 * (_QK_K // 32) + _QK_K // 64),
        GgmlType(22, "IQ2_S", _QK_K, _HALF + _QK_K // 4 + _QK_K // 16),
        GgmlType(23, "IQ4_XS", _QK_K, _HALF + 2 + _QK_K // 64 + _QK_K // 2),
        GgmlType(24, "I8", 1, 1),
        GgmlType(25, "I16", 1, 2),
        GgmlType(26, "I32", 1, 4),
        GgmlType(27, "I64", 1, 8),
        GgmlType(28, "F64", 1, 8),
        GgmlType(29, "IQ1_M", _QK_K, _QK_K // 8 + _QK_K // 16 + _QK_K // 32),
        GgmlType(30, "BF16", 1, 2),
        GgmlType(34, "TQ1_0", _QK_K, _HALF + _QK_K // 64 + (_QK_K - 4 * _QK_K // 64) // 5),
        GgmlType(35, "TQ2_0", _QK_K, _HALF + _QK_K // 4),
        GgmlType(39, "MXFP4", 32, 1 + 32 // 2),  # one E8M0 scale; 4-bit E2M1 values
        GgmlType(40, "NVFP4", 64, 64 // 16 + 64 // 2),  # four E4M3 scales (one per 16)
        GgmlType(41, "Q1_0", 128, _HALF + 128 // 8),
        GgmlType(42, "Q2_0", 64, _HALF + 64 // 4),
    )
}

#: ggml type name -> type (``"Q4_K"`` -> its :class:`GgmlType`).
GGML_TYPES_BY_NAME = {t.name: t for t in GGML_TYPES.values()}


def ggml_type(type_id: int) -> GgmlType:
    """The ggml type with this id (from the table above).

    :mod:`gpuadvisor.localmodels.ggml_types` wraps this with a fallback to the optional
    ``gguf`` package for types newer than the table (the core stays free of it).

    Raises:
        ValueError: an id the table does not know (a file newer than gpuadvisor, or a
            removed type).
    """
    known = GGML_TYPES.get(type_id)
    if known is None:
        raise ValueError(f"unknown ggml tensor type {type_id} (a file newer than gpuadvisor? "
                         "installing or updating the 'gguf' package may help)")
    return known


def ggml_type_named(name: str) -> GgmlType:
    """The ggml type called ``name`` (case-insensitive: ``"q4_k"`` or ``"Q4_K"``).

    Raises:
        ValueError: a name the table does not know.
    """
    known = GGML_TYPES_BY_NAME.get(name.upper())
    if known is None:
        raise ValueError(f"unknown ggml tensor type {name!r}; known: "
                         f"{', '.join(sorted(GGML_TYPES_BY_NAME))}")
    return known


def kind_tensor_bytes(kind: GgmlType, shape: tuple[int, ...]) -> int:
    """Bytes of a tensor of ``shape`` (ggml order: ``shape[0]`` is the row) stored as
    ``kind``: ``elements / block_size x type_size``.

    Blocks run along the row, so the row length must be a whole number of blocks.

    Raises:
        ValueError: a negative dimension, or a row that is not a whole number of blocks.
    """
    if any(d < 0 for d in shape):
        raise ValueError(f"negative dimension in shape {list(shape)}")
    row = shape[0] if shape else 1
    if row % kind.block_size:
        raise ValueError(f"row of {row} elements is not a whole number of {kind.name} blocks "
                         f"({kind.block_size} weights each)")
    elements = 1
    for d in shape:
        elements *= d
    return elements // kind.block_size * kind.type_size


def tensor_bytes(type_id: int, shape: tuple[int, ...]) -> int:
    """Bytes of a tensor of ``shape`` and type id (see :func:`kind_tensor_bytes`).

    Raises:
        ValueError: an unknown type, a negative dimension, or a row that is not a whole
            number of blocks.
    """
    return kind_tensor_bytes(ggml_type(type_id), shape)


__all__ = ["GGML_TYPES", "GGML_TYPES_BY_NAME", "GgmlType", "ggml_type", "ggml_type_named",
           "kind_tensor_bytes", "tensor_bytes"]
