"""GGUF headers that declare more than any real file: a damaged download or a hostile file is
refused with one line naming what, before any long loop or large allocation.

The files are sparse (a header, then a hole of zeros), so they claim gigabytes on disk
without using them: a count that the file's size alone would allow is still refused by the
reader's limits (``gguf_file.MAX_*``). Each read runs in a child process with a time and
memory budget, so a regression fails instead of hanging the suite.
"""

from __future__ import annotations

import struct
import subprocess
import sys
import textwrap

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gpuadvisor.localmodels import gguf_file as G

HOLE = 3 * 2**30  # a sparse 3 GiB file: room for 10**8 entries by size alone


def _sparse(path, header: bytes) -> str:
    with open(path, "wb") as f:
        f.write(header)
        f.truncate(HOLE)
    return str(path)


def _start(n_tensors: int, n_kv: int) -> bytes:
    return b"GGUF" + struct.pack("<IQQ", 3, n_tensors, n_kv)


def _key(name: bytes) -> bytes:
    return struct.pack("<Q", len(name)) + name


def _read_in_child(path: str) -> str:
    """The reader's one-line refusal, read in a child with 10 s to do it; the memory the
    read itself added (peak resident set) must stay under 200 MiB."""
    code = textwrap.dedent(f"""
        import resource
        from gpuadvisor.localmodels.gguf_file import GgufError, read_gguf_header
        before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        try:
            read_gguf_header({path!r})
        except GgufError as exc:
            print(exc)
        else:
            print("read")
        grown = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before
        print(grown)  # KiB on Linux
    """)
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            timeout=10)
    assert result.returncode == 0, result.stderr[-2000:]
    message, grown_kib = result.stdout.strip().rsplit("\n", 1)
    assert int(grown_kib) < 200 * 1024, f"the read took {int(grown_kib) // 1024} MiB"
    return message


HOSTILE = [
    ("10**8 metadata entries", _start(0, 10**8), "the metadata count is 100,000,000"),
    ("10**9 tensors", _start(10**9, 0), "the tensor count is 1,000,000,000"),
    ("a 2.5 GB key", _start(0, 1) + struct.pack("<Q", 2_500_000_000),
     "the length of metadata key 0"),
    ("an array of 10**8 strings",
     _start(0, 1) + _key(b"tokenizer.ggml.tokens") + struct.pack("<IIQ", 9, 8, 10**8),
     "the length of 'tokenizer.ggml.tokens' is 100,000,000"),
    ("a 1 GB string value",
     _start(0, 1) + _key(b"general.name") + struct.pack("<IQ", 8, 10**9),
     "the length of the value of 'general.name'"),
    ("a 2 GB tensor name", _start(1, 0) + struct.pack("<Q", 2 * 10**9),
     "the length of tensor name 0"),
]


@pytest.mark.parametrize(("label", "header", "named"), HOSTILE, ids=[h[0] for h in HOSTILE])
def test_a_header_declaring_more_than_any_real_file_is_refused_at_once(tmp_path, label,
                                                                       header, named):
    path = _sparse(tmp_path / "hostile.gguf", header)
    message = _read_in_child(path)
    assert named in message and "malformed GGUF header" in message, message
    assert "\n" not in message  # one line


def test_the_limits_are_far_above_real_files():
    # Gemma 3's vocabulary (262,144), Llama 3's merges (280,147), Llama 3.1 405B's 1,138
    # tensors and the GGUF specification's key limit (2**16 - 1) all pass.
    assert G.MAX_ARRAY_LENGTH >= 10 * 280_147
    assert G.MAX_TENSORS >= 100 * 1_138
    assert G.MAX_KEY_BYTES == 2**16 - 1
    assert G.MAX_HEADER_ITEMS >= 4 * (262_144 * 3 + 280_147)


# --------------------------------------------------------------------------- generated
_U64 = st.one_of(st.integers(0, 64), st.integers(0, 2**64 - 1),
                 st.sampled_from([10**8, 10**9, 2**32, 2**63, 2**64 - 1]))


@st.composite
def hostile_headers(draw) -> bytes:
    """A GGUF header of declared counts, types and lengths that real files never hold:
    huge counts, unknown types, nested arrays, strings longer than the file."""
    out = b"GGUF" + struct.pack("<IQQ", draw(st.sampled_from([2, 3, 1, 7, 0x03000000])),
                                draw(_U64), draw(_U64))
    for _ in range(draw(st.integers(0, 4))):
        key = draw(st.binary(max_size=12))
        out += struct.pack("<Q", draw(st.one_of(st.just(len(key)), _U64))) + key
        value_type = draw(st.integers(0, 14))
        out += struct.pack("<I", value_type)
        if value_type == 9:  # an array: element type and a count
            out += struct.pack("<IQ", draw(st.integers(0, 14)), draw(_U64))
        out += draw(st.binary(max_size=24))
    return out


@settings(max_examples=25, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(headers=st.lists(hostile_headers(), min_size=1, max_size=5))
def test_generated_hostile_headers_end_in_a_gguf_error_quickly(tmp_path, headers):
    """Every generated header, written as a sparse 3 GiB file, is read (or refused with a
    GgufError) by one child within its time budget; nothing else is raised."""
    paths = []
    for i, header in enumerate(headers):
        paths.append(_sparse(tmp_path / f"h{i}.gguf", header))
    code = textwrap.dedent(f"""
        from gpuadvisor.localmodels.gguf_file import GgufError, read_gguf_header
        for path in {paths!r}:
            try:
                read_gguf_header(path)
            except GgufError:
                pass
        print("ok")
    """)
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            timeout=30)
    assert result.returncode == 0 and result.stdout.strip() == "ok", result.stderr[-2000:]
