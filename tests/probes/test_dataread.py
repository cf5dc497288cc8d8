"""The dataread probe (kernels/dataread.py): sequential reads from a folder of known files.

Two REAL worker runs on CPU torch (a folder, a missing folder), started side by side; the
rest loads the kernel the way the worker does (by path, ``kit`` = the worker module) and
calls it in this process: it needs no torch, so torch still never enters this process.
"""

from __future__ import annotations

import importlib.util
import os
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from gpuadvisor.probes import worker
from gpuadvisor.probes.runner import run_probes

KERNEL = Path(worker.KERNEL_DIR) / "dataread.py"
HAS_TORCH = importlib.util.find_spec("torch") is not None
needs_torch = pytest.mark.skipif(not HAS_TORCH, reason="torch is not installed")
MiB = 1 << 20

#: The data folder: path -> size. Sorted walk order: files of a folder, then its subfolders.
FILES = {
    "a.bin": MiB + 7,
    "b.bin": 3 * MiB,
    "empty.txt": 0,
    "sub/c.bin": 123_457,
    "sub/deeper/d.bin": 10,
}
TOTAL = MiB + 7 + 3 * MiB + 123_457 + 10  # 4,317,778 bytes, under tiny's 8 MiB


def make_folder(root: Path) -> Path:
    for name, size in FILES.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(os.urandom(size))
    return root


def load_kernel():
    """The kernel module as the worker loads it (by path, ``kit`` = the worker module)."""
    spec = importlib.util.spec_from_file_location("_test_dataread_kernel", KERNEL)
    module = importlib.util.module_from_spec(spec)
    module.kit = worker
    spec.loader.exec_module(module)
    module.kit = worker
    return module


class Channel:
    def __init__(self):
        self.progress_lines = []

    def progress(self, probe, fraction, message):
        self.progress_lines.append((probe, fraction, message))


def read(path, suite="tiny", **options):
    kernel = load_kernel()
    return kernel.probe_dataread(None, None, {"name": suite}, Channel(),
                                 {"path": str(path), **options})


def failure(path, suite="tiny", **options) -> worker.ProbeFailed:
    with pytest.raises(worker.ProbeFailed) as caught:
        read(path, suite, **options)
    return caught.value


# --------------------------------------------------------------------------- the real worker
@pytest.fixture(scope="module")
def worker_runs(tmp_path_factory):
    folder = make_folder(tmp_path_factory.mktemp("data"))
    missing = folder.parent / "no-such-folder"
    with ThreadPoolExecutor(2) as pool:
        good, bad = (pool.submit(run_probes, ["dataread"], device="cpu", timeout_s=60,
                                 extra_args=["--tiny"], options={"dataread": {"path": str(p)}})
                     for p in (folder, missing))
        return folder, good.result(), missing, bad.result()


@needs_torch
def test_the_worker_reads_every_byte_of_every_file_once(worker_runs):
    folder, run, _, _ = worker_runs
    assert run.status == "ok", run.errors
    result = run.result("dataread")
    assert result.figures["bytes_read"] == TOTAL
    assert result.figures["files_read"] == 4  # the empty file is found but not read from
    assert result.figures["read_mb_s"] > 0
    assert result.units == {"read_mb_s": "MB/s", "bytes_read": "bytes", "files_read": "files"}
    conditions = result.conditions
    assert conditions["path"] == str(folder)
    assert conditions["files_found"] == 5 and conditions["files_empty"] == 1
    assert conditions["stopped_by"] == "files"
    assert conditions["max_bytes"] == 8 * MiB and conditions["block_bytes"] == 8 * MiB
    # rate = bytes / timed seconds (kit.sig: 4 significant digits)
    assert result.figures["read_mb_s"] == pytest.approx(
        TOTAL / conditions["seconds"] / 1e6, rel=2e-3)


@needs_torch
def test_files_written_just_now_are_flagged_as_likely_cached(worker_runs):
    _, run, _, _ = worker_runs
    cache = run.result("dataread").conditions["cache"]
    assert cache["likely_cached"] is True
    assert any("modified in the last" in why for why in cache["why"])
    if hasattr(os, "posix_fadvise"):
        assert cache["files_dropped"] == 5
        assert cache["method"] == "posix_fadvise(POSIX_FADV_DONTNEED) before each file"


@needs_torch
def test_a_missing_folder_is_a_bad_input_error_naming_it(worker_runs):
    _, _, missing, run = worker_runs
    [error] = run.errors
    assert (error.probe, error.kind) == ("dataread", "bad-input")
    assert error.message == f"dataread: {missing} does not exist"
    assert run.returncode == 0


# --------------------------------------------------------------------------- in this process
def test_max_bytes_stops_part_way_through_a_file(tmp_path):
    folder = make_folder(tmp_path)
    # a.bin whole (1 MiB + 7), then b.bin up to 1.5 MiB in all, in 256 KiB blocks
    result = read(folder, max_bytes=3 * MiB // 2, block_bytes=256 * 1024)
    assert result["figures"]["bytes_read"] == 3 * MiB // 2
    assert result["figures"]["files_read"] == 2
    assert result["conditions"]["stopped_by"] == "max_bytes"


def test_small_blocks_read_the_same_bytes(tmp_path):
    result = read(make_folder(tmp_path), block_bytes=4096)
    assert result["figures"]["bytes_read"] == TOTAL
    assert result["figures"]["files_read"] == 4


def test_the_suite_sets_the_default_limits(tmp_path):
    folder = make_folder(tmp_path)
    assert read(folder, suite="quick")["conditions"]["max_bytes"] == 1 << 30
    full = read(folder, suite="full")["conditions"]
    assert (full["max_bytes"], full["max_seconds"]) == (8 << 30, 120.0)


def test_the_time_limit_stops_the_read_and_the_rate_uses_the_timed_seconds(tmp_path,
                                                                          monkeypatch):
    folder = make_folder(tmp_path)
    kernel = load_kernel()

    class OneSecondPerLook:  # every perf_counter() call is a second later
        def __init__(self):
            self.now = 0.0

        def perf_counter(self):
            self.now += 1.0
            return self.now

        def time(self):
            return time.time()

    monkeypatch.setattr(kernel, "time", OneSecondPerLook())
    result = kernel.probe_dataread(None, None, {"name": "tiny"}, Channel(),
                                   {"path": str(folder), "max_seconds": 3,
                                    "block_bytes": 65536})
    conditions, figures = result["conditions"], result["figures"]
    assert conditions["stopped_by"] == "max_seconds"
    assert 0 < figures["bytes_read"] < TOTAL
    assert conditions["seconds"] >= 3
    assert figures["read_mb_s"] == pytest.approx(
        figures["bytes_read"] / conditions["seconds"] / 1e6, rel=1e-3)


def test_an_old_file_is_not_suspected_of_dirty_pages(tmp_path):
    folder = make_folder(tmp_path)
    an_hour_ago = time.time() - 3600
    for name in FILES:
        os.utime(folder / name, (an_hour_ago, an_hour_ago))
    why = read(folder)["conditions"]["cache"]["why"]
    assert not any("modified in the last" in reason for reason in why)


def test_progress_ends_at_one(tmp_path):
    kernel = load_kernel()
    channel = Channel()
    kernel.probe_dataread(None, None, {"name": "tiny"}, channel,
                          {"path": str(make_folder(tmp_path))})
    assert channel.progress_lines[-1][:2] == ("dataread", 1.0)


def test_a_stop_request_before_any_read_is_cancelled_not_empty(tmp_path):
    folder = make_folder(tmp_path)
    worker.STOP.set()
    try:
        error = failure(folder)
    finally:
        worker.STOP.clear()
    assert error.kind == "cancelled"


def test_a_file_instead_of_a_folder_is_bad_input_naming_it(tmp_path):
    path = tmp_path / "train.bin"
    path.write_bytes(b"x" * 100)
    error = failure(path)
    assert error.kind == "bad-input"
    assert str(error) == (f"dataread: {path} is not a folder (pick the folder holding the "
                          "data)")


def test_an_empty_folder_is_bad_input_naming_it(tmp_path):
    error = failure(tmp_path)
    assert error.kind == "bad-input"
    assert str(error) == f"dataread: no files to read under {tmp_path}"


def test_a_folder_of_empty_files_is_bad_input_naming_it(tmp_path):
    (tmp_path / "a").touch()
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "b").touch()
    error = failure(tmp_path)
    assert error.kind == "bad-input"
    assert str(error) == f"dataread: the files under {tmp_path} are empty: nothing to read"


def test_unreadable_files_are_skipped_and_counted(tmp_path):
    # A file that vanishes between listing and reading fails to open like an unreadable
    # one does (permissions cannot make a file unreadable to root, which CI may be).
    folder = make_folder(tmp_path)
    kernel = load_kernel()
    real_list_files = kernel.list_files

    def list_with_a_vanished_file(path):
        files, problems = real_list_files(path)
        return [str(folder / "vanished.bin"), *files], problems

    kernel.list_files = list_with_a_vanished_file
    result = kernel.probe_dataread(None, None, {"name": "tiny"}, Channel(),
                                   {"path": str(folder)})
    assert result["figures"]["bytes_read"] == TOTAL
    assert result["conditions"]["files_unreadable"] == 1
    assert "vanished.bin" in result["conditions"]["unreadable"][0]


def test_no_path_option_says_how_to_give_one():
    kernel = load_kernel()
    with pytest.raises(worker.ProbeFailed) as caught:
        kernel.probe_dataread(None, None, {"name": "tiny"}, Channel(), {})
    assert caught.value.kind == "bad-input"
    assert '"dataread": {"path":' in str(caught.value)


@pytest.mark.parametrize(("option", "value"), [
    ("max_bytes", 0), ("max_bytes", -1), ("max_bytes", "1GB"), ("max_bytes", True),
    ("max_bytes", 1.5), ("block_bytes", 1024), ("block_bytes", 512 * MiB),
    ("max_seconds", 0), ("max_seconds", float("nan")),
])
def test_a_bad_option_value_is_bad_input_naming_the_option(tmp_path, option, value):
    (tmp_path / "a").write_bytes(b"x")
    error = failure(tmp_path, **{option: value})
    assert error.kind == "bad-input"
    assert str(error).startswith(f"dataread: option {option} must be ")
    assert repr(value) in str(error)


def test_a_whole_float_is_accepted_as_a_byte_count(tmp_path):
    (tmp_path / "a").write_bytes(b"x" * 5000)
    assert read(tmp_path, max_bytes=4096.0)["figures"]["bytes_read"] == 4096
