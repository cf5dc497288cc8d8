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
