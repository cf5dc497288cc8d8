"""Reading a GGUF file's header: metadata and tensor list, never the weights.

A GGUF file (llama.cpp, Ollama, LM Studio) starts with a header::

    magic "GGUF" | version u32 | tensor count u64 | metadata count u64
    metadata:    key (string) | value type u32 | value
    tensor info: name (string) | n_dims u32 | dims u64 x n_dims | ggml type u32 | offset u64

followed by the tensor data, aligned to ``general.alignment`` (32 by default). A string is
a u64 byte count and UTF-8 bytes; an array is an element type u32, a u64 count and the
elements. Versions 2 and 3 are read (version 1, with 32-bit counts, was dropped by
llama.cpp in 2023). Files written on big-endian machines are recognised by their
byte-swapped version.

:func:`read_gguf_header` reads the header itself: every count and length is checked against
the bytes left in the file, so a damaged or hostile file ends in a :class:`GgufError` naming
what is wrong, never in a long loop or a huge allocation, and a 150,000-token vocabulary is
skipped in a fraction of a second. The ``gguf`` package (llama.cpp's own reader) is optional:
``reader="gguf"`` reads through it instead (the tests compare the two), and its table of
ggml types covers types newer than :mod:`.ggml_types` (see :func:`.ggml_types.ggml_type`).
Its reader is not the default because it builds a NumPy array per token (about 7 s for a
150,000-token vocabulary).
"""

from __future__ import annotations

import mmap
import os
import stat
import struct
from dataclasses import dataclass
from pathlib import Path

# Limits of a header (core.limits, each with its reason), checked before any loop or
# allocation they govern; a declared count or length must also fit in the bytes left in the
# file.
from gpuadvisor.core.limits import (
    MAX_ARRAY_LENGTH,
    MAX_HEADER_ITEMS,
    MAX_KEY_BYTES,
    MAX_METADATA_ENTRIES,
    MAX_STRING_BYTES,
    MAX_TENSOR_NAME_BYTES,
    MAX_TENSORS,
)

from .ggml_types import ggml_type, tensor_bytes

MAGIC = b"GGUF"
#: Highest dimension count ggml allows (``GGML_MAX_DIMS``).
MAX_DIMS = 4
#: Numeric arrays up to this length keep their values (per-layer head counts and the like);
#: longer ones (token scores, types, merges) keep only their length.
KEEP_ARRAY_VALUES = 4096
DEFAULT_ALIGNMENT = 32


# GGUF metadata value types: id -> (struct code, size); 8 = string, 9 = array.
_SCALARS = {
    0: ("B", 1), 1: ("b", 1), 2: ("H", 2), 3: ("h", 2), 4: ("I", 4), 5: ("i", 4),
    6: ("f", 4), 7: ("?", 1), 10: ("Q", 8), 11: ("q", 8), 12: ("d", 8),
}
_STRING, _ARRAY = 8, 9


class GgufError(ValueError):
    """A file that is not a readable GGUF file; the message says what is wrong."""


@dataclass(frozen=True)
class GgufTensor:
    """One tensor's description.

    Attributes:
        name: llama.cpp's tensor name (``blk.0.attn_q.weight``).
        shape: dimensions in ggml order (``shape[0]`` is the row, the innermost).
        type_id: the ggml type (see :mod:`.ggml_types`).
        offset: where its data starts, from the start of the data section.
    """

    name: str
    shape: tuple[int, ...]
    type_id: int
    offset: int

    @property
    def n_elements(self) -> int:
        """Elements (weights) in the tensor."""
        count = 1
        for d in self.shape:
            count *= d
        return count

    @property
    def nbytes(self) -> int:
        """Bytes of the tensor's data, from ggml's block layout of its type."""
        return tensor_bytes(self.type_id, self.shape)

    @property
    def type_name(self) -> str:
        """ggml's name of the tensor's type (``Q4_K``)."""
        return ggml_type(self.type_id).name


@dataclass(frozen=True)
class GgufHeader:
    """What a GGUF file says about itself.

    Attributes:
        path: the file.
        version: GGUF version (2 or 3).
        metadata: key -> value for scalars and strings; numeric arrays of at most
            :data:`KEEP_ARRAY_VALUES` elements as tuples.
        array_lengths: key -> element count, for every array (``tokenizer.ggml.tokens``).
        tensors: every tensor's description, in file order.
        data_offset: where the tensor data starts (bytes from the file's start).
        file_size_bytes: the file's size.
        reader: ``"gguf"`` (the gguf package) or ``"builtin"`` (this module).
    """

    path: str
    version: int
    metadata: dict[str, object]
    array_lengths: dict[str, int]
    tensors: tuple[GgufTensor, ...]
    data_offset: int
    file_size_bytes: int
    reader: str = "builtin"

    @property
    def architecture(self) -> str:
        """``general.architecture`` (e.g. ``llama``, ``qwen3moe``, ``gpt-oss``)."""
        value = self.metadata.get("general.architecture")
        return value if isinstance(value, str) else ""

    def arch_value(self, key: str, default: object = None) -> object:
        """The value of ``<architecture>.<key>`` (``block_count``, ``attention.head_count``)."""
        return self.metadata.get(f"{self.architecture}.{key}", default)

    @property
    def weights_bytes(self) -> int:
        """Bytes of all tensors: what llama.cpp holds in memory for the weights."""
        return sum(self.bytes_by_type().values())

    @property
    def n_elements(self) -> int:
        """Weights in all tensors (the model's exact parameter count as stored)."""
        return sum(t.n_elements for t in self.tensors)

    def bytes_by_type(self) -> dict[str, int]:
        """Tensor bytes by ggml type name, largest first."""
        totals: dict[str, int] = {}
        for t in self.tensors:
            totals[t.type_name] = totals.get(t.type_name, 0) + t.nbytes
        return dict(sorted(totals.items(), key=lambda kv: -kv[1]))

    def tensor(self, name: str) -> GgufTensor | None:
        """The tensor called ``name``, or None."""
        return next((t for t in self.tensors if t.name == name), None)


# ----------------------------------------------------------------------------- the file
def _open_checked(path: Path) -> int:
    """The size of ``path`` when it is a regular file GGUF could be; else GgufError."""
    try:
        info = os.stat(path)
    except FileNotFoundError:
        raise GgufError(f"{path}: file not found") from None
    except OSError as exc:
        raise GgufError(f"{path}: cannot read: {exc.strerror or exc}") from None
    if stat.S_ISDIR(info.st_mode):
        raise GgufError(f"{path}: is a folder, not a .gguf file")
    if not stat.S_ISREG(info.st_mode):
        raise GgufError(f"{path}: not a regular file (a pipe or device cannot be read)")
    if info.st_size < 24:
        raise GgufError(f"{path}: not a GGUF file (only {info.st_size} bytes)")
    return info.st_size


def read_gguf_header(path: str | os.PathLike[str], *, reader: str = "builtin") -> GgufHeader:
    """Read a GGUF file's metadata and tensor list (the weights are not read).

    Args:
        path: the ``.gguf`` file (an Ollama blob is one too).
        reader: ``"builtin"`` (this module) or ``"gguf"`` (the ``gguf`` package, which must
            be installed; a file it cannot read is read by the builtin reader, which says
            what is wrong).

    Returns:
        The header; tensor byte counts follow ggml's block layouts.

    Raises:
        GgufError: a missing, unreadable, non-regular, truncated or malformed file, with
            the file named and what is wrong with it.
    """
    file = Path(path)
    size = _open_checked(file)
    with open(file, "rb") as handle:
        if handle.read(4) != MAGIC:
            raise GgufError(f"{file}: not a GGUF file (it does not start with 'GGUF')")
    if reader == "gguf":
        header = _read_with_package(file, size)
        if header is not None:
            return header
    try:
        with open(file, "rb") as handle, mmap.mmap(handle.fileno(), 0,
                                                   access=mmap.ACCESS_READ) as view:
            header = _Parser(view, str(file)).parse()
    except OSError as exc:
        raise GgufError(f"{file}: cannot read: {exc.strerror or exc}") from None
    _check_tensors(header)
    return header


def _check_tensors(header: GgufHeader) -> None:
    """Every tensor has a known type, whole blocks per row, and data inside the file."""
    end = header.data_offset
    for t in header.tensors:
        try:
            nbytes = t.nbytes
        except ValueError as exc:
            raise GgufError(f"{header.path}: tensor '{t.name}': {exc}") from None
        end = max(end, header.data_offset + t.offset + nbytes)
    if end > header.file_size_bytes:
        raise GgufError(f"{header.path}: truncated: the tensors need {end} bytes, the file "
                        f"has {header.file_size_bytes} (an unfinished download?)")


# ----------------------------------------------------------------------------- builtin
class _Parser:
    """Walks the header in a read-only memory map, checking every length it reads."""

    def __init__(self, view, path: str) -> None:
        self.view, self.path, self.pos, self.end = view, path, 4, len(view)
        self.order = "<"
        self.items_left = MAX_HEADER_ITEMS

    def fail(self, what: str) -> GgufError:
        return GgufError(f"{self.path}: malformed GGUF header: {what}")

    def take(self, code: str, size: int, what: str):
        if self.pos + size > self.end:
            raise GgufError(f"{self.path}: truncated: the header ends inside {what}")
        (value,) = struct.unpack_from(self.order + code, self.view, self.pos)
        self.pos += size
        return value

    def count(self, what: str, min_item_bytes: int, limit: int | None = None,
              items: bool = False) -> int:
        """A u64 count or length, checked against ``limit`` and the bytes left before it
        is used; ``items``: the count is of things read one by one (it draws on the
        header's :data:`MAX_HEADER_ITEMS`)."""
        n = self.take("Q", 8, what)
        if limit is not None and n > limit:
            raise self.fail(f"{what} is {n:,}, more than {limit:,} (no real GGUF file "
                            "comes near it: a damaged or hostile file)")
        if n * min_item_bytes > self.end - self.pos:
            raise self.fail(f"{what} is {n:,}, more than the file can hold")
        if items:
            self.items_left -= n
            if self.items_left < 0:
                raise self.fail(f"the header declares more than {MAX_HEADER_ITEMS:,} items "
                                "(entries, array elements and tensors; real headers hold "
                                "under a million)")
        return n

    def string(self, what: str, limit: int = MAX_STRING_BYTES) -> str:
        n = self.count(f"the length of {what}", 1, limit)
        raw = bytes(self.view[self.pos:self.pos + n])
        self.pos += n
        return raw.decode("utf-8", errors="replace")

    def skip_string(self, what: str) -> None:
        n = self.count(f"the length of {what}", 1)
        self.pos += n

    def value(self, type_id: int, key: str):
        """One metadata value; arrays come back as ``(length, values or None)``."""
        if type_id in _SCALARS:
            code, size = _SCALARS[type_id]
            return self.take(code, size, f"the value of '{key}'")
        if type_id == _STRING:
            return self.string(f"the value of '{key}'")
        if type_id == _ARRAY:
            item = self.take("I", 4, f"the array type of '{key}'")
            if item in _SCALARS:
                code, size = _SCALARS[item]
                n = self.count(f"the length of '{key}'", size, MAX_ARRAY_LENGTH)
                values = None
                if n <= KEEP_ARRAY_VALUES:
                    values = struct.unpack_from(f"{self.order}{n}{code}", self.view, self.pos)
                self.pos += n * size
                return n, values
            if item == _STRING:
                n = self.count(f"the length of '{key}'", 8, MAX_ARRAY_LENGTH, items=True)
                for _ in range(n):
                    self.skip_string(f"an element of '{key}'")
                return n, None
            if item == _ARRAY:
                n = self.count(f"the length of '{key}'", 12, MAX_ARRAY_LENGTH, items=True)
                for _ in range(n):
                    self._nested(key)
                return n, None
            raise self.fail(f"'{key}' is an array of unknown type {item}")
        raise self.fail(f"'{key}' has unknown value type {type_id}")

    def _nested(self, key: str) -> None:
        """Skip one array inside an array (allowed by the format, unused by llama.cpp)."""
        item = self.take("I", 4, f"the array type inside '{key}'")
        if item in _SCALARS:
            size = _SCALARS[item][1]
            n = self.count(f"a length inside '{key}'", size, MAX_ARRAY_LENGTH)
            self.pos += n * size
        elif item == _STRING:
            for _ in range(self.count(f"a length inside '{key}'", 8, MAX_ARRAY_LENGTH,
                                      items=True)):
                self.skip_string(f"an element inside '{key}'")
        else:
            raise self.fail(f"'{key}' nests arrays more than two deep")

    def parse(self) -> GgufHeader:
        version = self.take("I", 4, "the version")
        if version & 0xFFFF == 0 and version != 0:  # written big-endian
            self.order = ">"
            version = struct.unpack(">I", struct.pack("<I", version))[0]
        if version == 1:
            raise self.fail("version 1 (2023) is no longer read by llama.cpp: convert the "
                            "model again")
        if version not in (2, 3):
            raise self.fail(f"unknown version {version}")
        n_tensors = self.count("the tensor count", 24, MAX_TENSORS, items=True)
        n_kv = self.count("the metadata count", 13, MAX_METADATA_ENTRIES, items=True)
        metadata: dict[str, object] = {}
        lengths: dict[str, int] = {}
        for i in range(n_kv):
            key = self.string(f"metadata key {i}", MAX_KEY_BYTES)
            type_id = self.take("I", 4, f"the type of '{key}'")
            value = self.value(type_id, key)
            if type_id == _ARRAY:
                n, values = value
                lengths[key] = n
                if values is not None:
                    metadata[key] = tuple(values)
            else:
                metadata[key] = value
        tensors = []
        for i in range(n_tensors):
            name = self.string(f"tensor name {i}", MAX_TENSOR_NAME_BYTES)
            n_dims = self.take("I", 4, f"the dimensions of '{name}'")
            if not 1 <= n_dims <= MAX_DIMS:
                raise self.fail(f"tensor '{name}' has {n_dims} dimensions (ggml allows 1 to "
                                f"{MAX_DIMS})")
            shape = tuple(self.take("Q", 8, f"the shape of '{name}'") for _ in range(n_dims))
            type_id = self.take("I", 4, f"the type of '{name}'")
            offset = self.take("Q", 8, f"the offset of '{name}'")
            tensors.append(GgufTensor(name, shape, type_id, offset))
        alignment = metadata.get("general.alignment", DEFAULT_ALIGNMENT)
        if not isinstance(alignment, int) or alignment <= 0 or alignment & (alignment - 1):
            raise self.fail(f"general.alignment must be a power of two, got {alignment!r}")
        data_offset = -(-self.pos // alignment) * alignment
        return GgufHeader(self.path, version, metadata, lengths, tuple(tensors), data_offset,
                          self.end, "builtin")


# ----------------------------------------------------------------------------- package
def _read_with_package(file: Path, size: int) -> GgufHeader | None:
    """The header as the ``gguf`` package reads it; None when it fails.

    Raises:
        GgufError: the package is not installed.
    """
    try:
        from gguf import GGUFReader
    except ImportError:
        raise GgufError(f"{file}: reading through the gguf package needs it installed "
                        "(pip install 'gpuadvisor[models]')") from None
    try:
        reader = GGUFReader(str(file), "r")
        metadata: dict[str, object] = {}
        lengths: dict[str, int] = {}
        for key, fld in reader.fields.items():
            if key.startswith("GGUF.") or not fld.types:
                continue
            main = int(fld.types[0])
            if main == _ARRAY:
                lengths[key] = len(fld.data)
                if int(fld.types[-1]) in _SCALARS and len(fld.data) <= KEEP_ARRAY_VALUES:
                    metadata[key] = tuple(fld.parts[i][0].item() for i in fld.data)
            elif main == _STRING:
                metadata[key] = bytes(fld.parts[-1]).decode("utf-8", errors="replace")
            else:
                value = fld.parts[-1][0].item()
                metadata[key] = bool(value) if main == 7 else value
        tensors = tuple(
            GgufTensor(t.name, tuple(int(d) for d in t.shape), int(t.tensor_type),
                       int(t.data_offset) - int(reader.data_offset))
            for t in reader.tensors
        )
        version = int(reader.fields["GGUF.version"].parts[-1][0])
        header = GgufHeader(str(file), version, metadata, lengths, tensors,
                            int(reader.data_offset), size, "gguf")
        _check_tensors(header)
        return header
    except Exception:  # the builtin reader reads it again and says precisely what is wrong
        return None


__all__ = ["GgufError", "GgufHeader", "GgufTensor", "read_gguf_header"]
