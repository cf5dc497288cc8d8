"""Small GGUF files written byte by byte from the format's description (no gguf package),
and a tiny Llama whose exact weight bytes are derived by hand in the tests.

Format (version 3, little-endian unless ``big_endian``): magic ``GGUF``, version u32, tensor
count u64, metadata count u64, metadata (key string, type u32, value), tensor infos (name
string, n_dims u32, dims u64 each, ggml type u32, data offset u64), padding to 32, data.
"""

from __future__ import annotations

import struct
from pathlib import Path

# metadata value types
U32, I32, F32, BOOL, STRING, ARRAY, U64 = 4, 5, 6, 7, 8, 9, 10
# ggml types used here, with (weights per block, bytes per block) from ggml-common.h
F32_T, F16_T, Q4_0, Q8_0, Q4_K, Q6_K, MXFP4 = 0, 1, 2, 8, 12, 14, 39
BLOCKS = {F32_T: (1, 4), F16_T: (1, 2), Q4_0: (32, 18), Q8_0: (32, 34), Q4_K: (256, 144),
          Q6_K: (256, 210), MXFP4: (32, 17)}


def _string(text: str, order: str) -> bytes:
    raw = text.encode("utf-8")
    return struct.pack(order + "Q", len(raw)) + raw


def _value(kind: int, value, order: str) -> bytes:
    if kind == STRING:
        return _string(value, order)
    if kind == ARRAY:
        item, values = value
        body = b"".join(_value(item, v, order) for v in values)
        return struct.pack(order + "IQ", item, len(values)) + body
    code = {U32: "I", I32: "i", F32: "f", BOOL: "?", U64: "Q"}[kind]
    return struct.pack(order + code, value)


def nbytes(shape: tuple[int, ...], kind: int) -> int:
    block, size = BLOCKS[kind]
    elements = 1
    for d in shape:
        elements *= d
    return elements // block * size


def write_gguf(path: Path, metadata: list[tuple[str, int, object]],
               tensors: list[tuple[str, tuple[int, ...], int]], *, version: int = 3,
               big_endian: bool = False, data: bool = True) -> Path:
    """Write a GGUF file; tensor data is zeros (``data=False`` leaves it out: truncated)."""
    order = ">" if big_endian else "<"
    out = bytearray(b"GGUF")
    out += struct.pack(order + "IQQ", version, len(tensors), len(metadata))
    for key, kind, value in metadata:
        out += _string(key, order) + struct.pack(order + "I", kind) + _value(kind, value, order)
    offset = 0
    for name, shape, kind in tensors:
        out += _string(name, order) + struct.pack(order + "I", len(shape))
        out += struct.pack(order + f"{len(shape)}Q", *shape)
        out += struct.pack(order + "IQ", kind, offset)
        offset += -(-nbytes(shape, kind) // 32) * 32
    out += b"\0" * (-len(out) % 32)
    if data:
        out += b"\0" * offset
    path.write_bytes(bytes(out))
    return path


# --------------------------------------------------------------------------- a tiny Llama
# 2 blocks, width 256, 4 heads of 64, 2 KV heads, MLP 512, vocabulary 1024, untied head.
TINY = {"layers": 2, "width": 256, "heads": 4, "kv_heads": 2, "ff": 512, "vocab": 1024}


def tiny_llama_tensors() -> list[tuple[str, tuple[int, ...], int]]:
    """A Q4_K_M-like mix: most matrices Q4_K, V / down / output Q6_K, norms F32.

    Shapes are ggml order: ``(inputs, outputs)``.
    """
    h, f, v, kv = TINY["width"], TINY["ff"], TINY["vocab"], TINY["kv_heads"] * 64
    tensors = [("token_embd.weight", (h, v), Q4_K), ("output_norm.weight", (h,), F32_T),
               ("output.weight", (h, v), Q6_K)]
    for i in range(TINY["layers"]):
        tensors += [
            (f"blk.{i}.attn_norm.weight", (h,), F32_T),
            (f"blk.{i}.attn_q.weight", (h, h), Q4_K),
            (f"blk.{i}.attn_k.weight", (h, kv), Q4_K),
            (f"blk.{i}.attn_v.weight", (h, kv), Q6_K),
            (f"blk.{i}.attn_output.weight", (h, h), Q4_K),
            (f"blk.{i}.ffn_norm.weight", (h,), F32_T),
            (f"blk.{i}.ffn_gate.weight", (h, f), Q4_K),
            (f"blk.{i}.ffn_up.weight", (h, f), Q4_K),
            (f"blk.{i}.ffn_down.weight", (f, h), Q6_K),
        ]
    return tensors


def tiny_llama_metadata(arch: str = "llama", tokens: int | None = None) -> list:
    meta = [
        ("general.architecture", STRING, arch),
        ("general.name", STRING, "Tiny Llama"),
        ("general.file_type", U32, 15),  # MOSTLY_Q4_K_M
        (f"{arch}.block_count", U32, TINY["layers"]),
        (f"{arch}.context_length", U32, 8192),
        (f"{arch}.embedding_length", U32, TINY["width"]),
        (f"{arch}.feed_forward_length", U32, TINY["ff"]),
        (f"{arch}.attention.head_count", U32, TINY["heads"]),
        (f"{arch}.attention.head_count_kv", U32, TINY["kv_heads"]),
        (f"{arch}.attention.layer_norm_rms_epsilon", F32, 1e-5),
        ("tokenizer.ggml.model", STRING, "gpt2"),
        ("tokenizer.ggml.tokens", ARRAY,
         (STRING, [f"t{i}" for i in range(tokens or TINY["vocab"])])),
        ("tokenizer.ggml.scores", ARRAY, (F32, [0.0] * 8)),
    ]
    return meta


def write_tiny_llama(path: Path, **kwargs) -> Path:
    """The tiny Llama as a GGUF file (see :func:`tiny_llama_tensors`)."""
    return write_gguf(path, tiny_llama_metadata(), tiny_llama_tensors(), **kwargs)


#: The tiny Llama's weight bytes, by hand from the block layouts (bytes per row x rows):
#: a Q4_K row of 256 weights is one 144-byte block, a Q6_K row one 210-byte block, and the
#: MLP's down matrix has rows of 512 (two Q6_K blocks, 420 bytes).
TINY_WEIGHT_BYTES = (
    1024 * 144  # token_embd: 1024 rows of 256, Q4_K
    + 256 * 4  # output_norm, F32
    + 1024 * 210  # output: 1024 rows of 256, Q6_K
    + 2 * (  # per block
        256 * 4  # attn_norm
        + 256 * 144  # attn_q: 256 rows of 256, Q4_K
        + 128 * 144  # attn_k: 128 rows
        + 128 * 210  # attn_v: 128 rows, Q6_K
        + 256 * 144  # attn_output
        + 256 * 4  # ffn_norm
        + 512 * 144  # ffn_gate: 512 rows of 256
        + 512 * 144  # ffn_up
        + 256 * 420  # ffn_down: 256 rows of 512, two Q6_K blocks each
    )
)
assert TINY_WEIGHT_BYTES == 1_115_648

#: Its parameters: embedding and head 2 x 1024 x 256, final norm 256, and per block
#: q 256x256, k and v 256x128, o 256x256, three MLP matrices 256x512, two norms of 256.
TINY_PARAMS = 2 * 1024 * 256 + 256 + 2 * (
    2 * 256 * 256 + 2 * 256 * 128 + 3 * 256 * 512 + 2 * 256)
