"""GGUF files: the header is read exactly (builtin reader and the gguf package agree), the
weight bytes follow ggml's block layouts, and a bad file is one line naming it."""

from __future__ import annotations

import os
import struct

import pytest

from gpuadvisor.localmodels import (
    GGML_TYPES,
    GgufError,
    ggml_type,
    read_gguf_header,
    spec_from_gguf,
    tensor_bytes,
)
from gpuadvisor.localmodels.gguf_file import KEEP_ARRAY_VALUES

from .gguf_bytes import (
    ARRAY,
    F16_T,
    F32_T,
    MXFP4,
    Q4_0,
    Q8_0,
    STRING,
    TINY_PARAMS,
    TINY_WEIGHT_BYTES,
    U32,
    tiny_llama_metadata,
    tiny_llama_tensors,
    write_gguf,
    write_tiny_llama,
)


# ----------------------------------------------------------------------------- block layouts
@pytest.mark.parametrize(("name", "block", "size"), [
    # (type, weights per block, bytes per block), each from its struct in ggml-common.h
    ("Q4_0", 32, 2 + 16),  # fp16 scale + 32 4-bit quants
    ("Q4_1", 32, 2 + 2 + 16),  # scale and min
    ("Q5_0", 32, 2 + 4 + 16),  # + 32 high bits
    ("Q8_0", 32, 2 + 32),
    ("Q2_K", 256, 16 + 64 + 2 + 2),  # scales, quants, d, dmin
    ("Q3_K", 256, 32 + 64 + 12 + 2),  # hmask, quants, scales, d
    ("Q4_K", 256, 2 + 2 + 12 + 128),  # d, dmin, 12 bytes of 6-bit scales, quants
    ("Q5_K", 256, 2 + 2 + 12 + 32 + 128),
    ("Q6_K", 256, 128 + 64 + 16 + 2),  # ql, qh, scales, d
    ("IQ4_XS", 256, 2 + 2 + 4 + 128),
    ("MXFP4", 32, 1 + 16),  # one E8M0 scale, 32 E2M1 values
    ("BF16", 1, 2),
    ("F32", 1, 4),
])
def test_block_layouts_match_ggml(name, block, size):
    kind = next(t for t in GGML_TYPES.values() if t.name == name)
    assert (kind.block_size, kind.type_size) == (block, size)


def test_bits_per_weight_of_common_quantizations():
    assert ggml_type(12).bits_per_weight == 4.5  # Q4_K
    assert ggml_type(14).bits_per_weight == 6.5625  # Q6_K
    assert ggml_type(8).bits_per_weight == 8.5  # Q8_0
    assert ggml_type(39).bits_per_weight == 4.25  # MXFP4


def test_tensor_bytes_counts_blocks_along_the_row():
    assert tensor_bytes(12, (4096, 4096)) == 4096 * 16 * 144  # 16 Q4_K blocks per row
    assert tensor_bytes(39, (2880, 5760, 32)) == 2880 * 5760 * 32 // 32 * 17
    with pytest.raises(ValueError, match="whole number of Q4_K blocks"):
        tensor_bytes(12, (100, 4))
    with pytest.raises(ValueError, match="unknown ggml tensor type 4"):
        tensor_bytes(4, (32,))  # Q4_2, removed from ggml


def test_the_table_agrees_with_the_gguf_package_except_q8_1():
    constants = pytest.importorskip("gguf.constants")
    for kind, (block, size) in constants.GGML_QUANT_SIZES.items():
        mine = GGML_TYPES[int(kind)]
        if mine.name == "Q8_1":
            # ggml-common.h: block_q8_1 is {ggml_half d, s; int8 qs[32]} = 36 bytes; gguf-py
            # still lists the old float d, s (40). Q8_1 never appears in a file.
            assert (mine.type_size, size) == (36, 40)
            continue
        assert (mine.block_size, mine.type_size) == (block, size), mine.name


# ----------------------------------------------------------------------------- the reader
def test_builtin_reader_reads_the_tiny_llama_exactly(tmp_path):
    path = write_tiny_llama(tmp_path / "tiny-Q4_K_M.gguf")
    header = read_gguf_header(path)
    assert header.reader == "builtin"
    assert header.version == 3
    assert header.architecture == "llama"
    assert header.arch_value("block_count") == 2
    assert header.metadata["general.name"] == "Tiny Llama"
    assert header.array_lengths["tokenizer.ggml.tokens"] == 1024
    assert header.metadata["tokenizer.ggml.scores"] == (0.0,) * 8
    assert "tokenizer.ggml.tokens" not in header.metadata  # strings are counted, not kept
    assert len(header.tensors) == 3 + 2 * 9
    q = header.tensor("blk.0.attn_k.weight")
    assert (q.shape, q.type_name, q.nbytes) == ((256, 128), "Q4_K", 128 * 144)
    assert header.weights_bytes == TINY_WEIGHT_BYTES
    assert header.n_elements == TINY_PARAMS
    by_type = header.bytes_by_type()
    assert list(by_type) == ["Q4_K", "Q6_K", "F32"]
    assert sum(by_type.values()) == TINY_WEIGHT_BYTES


def test_big_endian_file_reads_the_same(tmp_path):
    little = read_gguf_header(write_tiny_llama(tmp_path / "le.gguf"))
    big = read_gguf_header(write_tiny_llama(tmp_path / "be.gguf", big_endian=True))
    assert big.metadata == little.metadata
    assert big.tensors == little.tensors
    assert big.weights_bytes == TINY_WEIGHT_BYTES


def test_long_numeric_arrays_keep_only_their_length(tmp_path):
    meta = [*tiny_llama_metadata(),
            ("tokenizer.ggml.token_type", ARRAY, (U32, [1] * (KEEP_ARRAY_VALUES + 1)))]
    header = read_gguf_header(write_gguf(tmp_path / "m.gguf", meta, tiny_llama_tensors()))
    assert header.array_lengths["tokenizer.ggml.token_type"] == KEEP_ARRAY_VALUES + 1
    assert "tokenizer.ggml.token_type" not in header.metadata


def _write_with_package(path, tensors):
    """A GGUF written by llama.cpp's own writer (gguf package)."""
    gguf = pytest.importorskip("gguf")
    import numpy as np

    writer = gguf.GGUFWriter(str(path), "llama")
    writer.add_name("Packaged")
    writer.add_block_count(1)
    writer.add_token_list([f"t{i}" for i in range(64)])
    for name, rows, row_bytes, kind in tensors:
        if kind is None:
            writer.add_tensor(name, np.zeros((rows, row_bytes), dtype=np.float16))
        else:
            writer.add_tensor(name, np.zeros((rows, row_bytes), dtype=np.uint8),
                              raw_dtype=gguf.GGMLQuantizationType(kind))
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    return path


def test_file_from_llama_cpps_writer_gives_exact_bytes_with_both_readers(tmp_path):
    # (name, rows, bytes per row as written, ggml type): rows of 64 weights in Q8_0 are two
    # 34-byte blocks; rows of 96 MXFP4 weights three 17-byte blocks; Q4_0 rows of 32 one
    # 18-byte block; F16 rows of 10 weights 20 bytes.
    path = _write_with_package(tmp_path / "pkg.gguf", [
        ("a", 5, 2 * 34, Q8_0), ("b", 7, 3 * 17, MXFP4), ("c", 3, 18, Q4_0), ("d", 4, 10, None),
    ])
    expected = 5 * 2 * 34 + 7 * 3 * 17 + 3 * 18 + 4 * 10 * 2
    builtin = read_gguf_header(path)
    packaged = read_gguf_header(path, reader="gguf")
    assert packaged.reader == "gguf"
    assert builtin.weights_bytes == packaged.weights_bytes == expected
    assert builtin.tensors == packaged.tensors
    assert builtin.metadata == packaged.metadata
    assert builtin.array_lengths == packaged.array_lengths == {"tokenizer.ggml.tokens": 64}
    assert builtin.tensor("b").shape == (96, 7)  # ggml order: the row first
    assert builtin.tensor("d").type_id == F16_T


# ----------------------------------------------------------------------------- bad files
def _bad(tmp_path, name: str, data: bytes):
    path = tmp_path / name
    path.write_bytes(data)
    return path


def _header(version=3, n_tensors=0, n_kv=0) -> bytes:
    return b"GGUF" + struct.pack("<IQQ", version, n_tensors, n_kv)


BAD_FILES = [
    ("empty", b"", "only 0 bytes"),
    ("not-gguf", b"PK\x03\x04" + b"\0" * 100, "does not start with 'GGUF'"),
    ("version-1", _header(1) + b"\0" * 8, "version 1"),
    ("version-99", _header(99) + b"\0" * 8, "unknown version 99"),
    ("huge-tensor-count", _header(3, 2**60, 0), "tensor count"),
    ("huge-kv-count", _header(3, 0, 2**62), "metadata count"),
    ("huge-string", _header(3, 0, 1) + struct.pack("<Q", 2**40) + b"k" * 32, "length of"),
    ("cut-in-kv", _header(3, 0, 1) + struct.pack("<Q", 3) + b"key" + struct.pack("<I", 4),
     "truncated"),
    ("unknown-value-type", _header(3, 0, 1) + struct.pack("<Q", 1) + b"k"
     + struct.pack("<I", 77) + b"\0" * 8, "unknown value type 77"),
    ("too-many-dims", _header(3, 1, 0) + struct.pack("<Q", 1) + b"t" + struct.pack("<I", 9)
     + b"\0" * 80, "9 dimensions"),
]


@pytest.mark.parametrize(("name", "data", "words"), BAD_FILES, ids=[b[0] for b in BAD_FILES])
def test_bad_file_is_one_line_naming_it(tmp_path, name, data, words):
    path = _bad(tmp_path, f"{name}.gguf", data)
    with pytest.raises(GgufError) as info:
        read_gguf_header(path)
    message = str(info.value)
    assert "\n" not in message
    assert str(path) in message
    assert words in message


def test_truncated_download_is_reported(tmp_path):
    path = write_tiny_llama(tmp_path / "partial.gguf", data=False)
    with pytest.raises(GgufError, match=r"truncated: the tensors need .* \(an unfinished"):
        read_gguf_header(path)


def test_unknown_tensor_type_is_named(tmp_path):
    path = write_gguf(tmp_path / "new.gguf", tiny_llama_metadata(),
                      [("odd_tensor", (32,), F32_T)])
    data = bytearray(path.read_bytes())
    at = data.index(b"odd_tensor") + len("odd_tensor") + 4 + 8  # the name, n_dims, one dim
    data[at:at + 4] = struct.pack("<I", 200)
    path.write_bytes(bytes(data))
    with pytest.raises(GgufError, match="tensor 'odd_tensor': unknown ggml tensor type 200"):
        read_gguf_header(path)


def test_folder_fifo_and_missing_file(tmp_path):
    with pytest.raises(GgufError, match="is a folder"):
        read_gguf_header(tmp_path)
    with pytest.raises(GgufError, match="file not found"):
        read_gguf_header(tmp_path / "nope.gguf")
    if hasattr(os, "mkfifo"):
        fifo = tmp_path / "pipe.gguf"
        os.mkfifo(fifo)
        with pytest.raises(GgufError, match="not a regular file"):
            read_gguf_header(fifo)  # never opened: opening a FIFO would wait for a writer


def test_100_mb_of_junk_is_refused_at_once(tmp_path):
    junk = tmp_path / "junk.gguf"
    with open(junk, "wb") as handle:
        handle.truncate(100 * 1024 * 1024)  # sparse: 100 MB of zeros
    with pytest.raises(GgufError, match="does not start with 'GGUF'"):
        read_gguf_header(junk)
    with open(junk, "r+b") as handle:  # the right magic, then zeros: an empty header
        handle.write(_header(3, 0, 0))
    assert read_gguf_header(junk).tensors == ()


def test_array_of_strings_longer_than_the_file_is_refused(tmp_path):
    # One metadata pair: key "k", an array (9) of strings (8) claiming 2**50 elements.
    data = _header(3, 0, 1) + struct.pack("<Q", 1) + b"k" + struct.pack("<IIQ", 9, 8, 2**50)
    path = _bad(tmp_path, "a.gguf", data + b"\0" * 64)
    with pytest.raises(GgufError, match="the length of 'k' is 1,125,899,906,842,624, more than"):
        read_gguf_header(path)


# ----------------------------------------------------------------------------- the spec
def test_spec_from_the_tiny_llama_matches_its_tensors(tmp_path):
    header = read_gguf_header(write_tiny_llama(tmp_path / "tiny-Q4_K_M.gguf"))
    spec = spec_from_gguf(header)
    assert spec.id == "tiny-Q4_K_M"
    assert spec.name == "Tiny Llama (Q4_K_M GGUF)"
    assert (spec.n_layers, spec.d_model, spec.n_heads, spec.n_kv_heads, spec.head_dim) == (
        2, 256, 4, 2, 64)
    assert (spec.d_ff, spec.vocab_size, spec.max_positions) == (512, 1024, 8192)
    assert not spec.tied_embeddings  # output.weight is in the file
    assert spec.params().total == TINY_PARAMS == header.n_elements
    assert spec.extra["weights_file_bytes"] == TINY_WEIGHT_BYTES
    assert spec.extra["file_params"] == TINY_PARAMS
    assert spec.extra["file_quant"] == "Q4_K_M"
    assert "tiny-Q4_K_M.gguf" in spec.source


def test_tied_embeddings_when_the_file_has_no_output_matrix(tmp_path):
    tensors = [t for t in tiny_llama_tensors() if t[0] != "output.weight"]
    header = read_gguf_header(write_gguf(tmp_path / "tied.gguf", tiny_llama_metadata(),
                                         tensors))
    spec = spec_from_gguf(header)
    assert spec.tied_embeddings
    assert spec.params().total == header.n_elements


def test_moe_file_with_mxfp4_experts(tmp_path):
    # An architecture the config reader may not know is read Mixtral-style; the weights stay
    # exact: 4 experts x (gate, up: 256 -> 128; down: 128 -> 256) in MXFP4.
    arch = "some-new-moe"
    meta = [(k.replace("llama.", f"{arch}."), kind, v) for k, kind, v in tiny_llama_metadata()
            if k != "general.architecture"]
    meta += [("general.architecture", STRING, arch), (f"{arch}.expert_count", U32, 4),
             (f"{arch}.expert_used_count", U32, 2),
             (f"{arch}.expert_feed_forward_length", U32, 128)]
    tensors = [t for t in tiny_llama_tensors() if "ffn_" not in t[0] or "norm" in t[0]]
    for i in range(2):
        tensors += [(f"blk.{i}.ffn_gate_inp.weight", (256, 4), F32_T),
                    (f"blk.{i}.ffn_gate_exps.weight", (256, 128, 4), MXFP4),
                    (f"blk.{i}.ffn_up_exps.weight", (256, 128, 4), MXFP4),
                    (f"blk.{i}.ffn_down_exps.weight", (128, 256, 4), MXFP4)]
    header = read_gguf_header(write_gguf(tmp_path / "moe.gguf", meta, tensors))
    spec = spec_from_gguf(header)
    assert (spec.n_experts, spec.experts_per_token, spec.d_ff) == (4, 2, 128)
    experts = 2 * 3 * (256 * 128 * 4 // 32 * 17)  # layers x matrices x MXFP4 bytes
    assert header.bytes_by_type()["MXFP4"] == experts
    assert spec.extra["weights_file_bytes"] == header.weights_bytes
    assert "Mixtral-style" in spec.source and "weights exact" in spec.source


def test_missing_architecture_numbers_name_the_key(tmp_path):
    meta = [m for m in tiny_llama_metadata() if m[0] != "llama.block_count"]
    header = read_gguf_header(write_gguf(tmp_path / "x.gguf", meta, tiny_llama_tensors()))
    with pytest.raises(GgufError, match=r"missing 'llama\.block_count'"):
        spec_from_gguf(header)
    meta = [m for m in tiny_llama_metadata() if m[0] != "general.architecture"]
    header = read_gguf_header(write_gguf(tmp_path / "y.gguf", meta, tiny_llama_tensors()))
    with pytest.raises(GgufError, match=r"missing 'general\.architecture'"):
        spec_from_gguf(header)


def test_a_string_where_a_number_belongs_is_named(tmp_path):
    meta = [m if m[0] != "llama.block_count" else ("llama.block_count", STRING, "two")
            for m in tiny_llama_metadata()]
    header = read_gguf_header(write_gguf(tmp_path / "s.gguf", meta, tiny_llama_tensors()))
    with pytest.raises(GgufError, match=r"'llama\.block_count' must be a number, got 'two'"):
        spec_from_gguf(header)


def test_a_bert_file_is_read_as_an_encoder(tmp_path):
    meta = [(k.replace("llama.", "bert."), kind, v) for k, kind, v in tiny_llama_metadata()
            if k != "general.architecture"] + [("general.architecture", STRING, "bert")]
    tensors = [("token_embd.weight", (256, 1024), F16_T), ("token_types.weight", (256, 2), F32_T),
               ("position_embd.weight", (256, 8192), F16_T)]
    spec = spec_from_gguf(read_gguf_header(write_gguf(tmp_path / "b.gguf", meta, tensors)))
    assert (spec.kind, spec.type_vocab_size, spec.vocab_size) == ("encoder", 2, 1024)
