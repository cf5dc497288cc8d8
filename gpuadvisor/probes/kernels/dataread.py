"""The ``dataread`` probe: sequential read throughput from a folder the user picks.

Options (``--options '{"dataread": {...}}'``):

- ``path`` (required): the folder holding the training data.
- ``max_bytes``: stop after this many bytes (default by suite: tiny 8 MiB, quick 1 GiB,
  full 8 GiB).
- ``block_bytes``: bytes per read call (default 8 MiB, between 4 KiB and 256 MiB).
- ``max_seconds``: stop after this long (default by suite: tiny 5 s, quick 30 s, full 120 s).

Walks the folder (sorted, symbolic links to folders not followed, hidden entries included)
and reads each regular, non-empty file from its start in blocks until ``max_bytes``, the time
limit or the files run out. The clock covers opening and reading, not walking the folder.
Figures: ``read_mb_s`` (MB/s, 10⁶ bytes per second), ``bytes_read`` (bytes) and
``files_read`` (files read from, the last one possibly in part).

The page cache makes re-reads fast: a file read a minute ago comes from RAM, not the disk.
Before reading each file the probe asks Linux to drop its cached pages
(``posix_fadvise(POSIX_FADV_DONTNEED)``). That is a hint, honoured only for clean pages:
pages still waiting to be written (a file written in the last half minute or so: the kernel's
``dirty_expire_centisecs`` defaults to 30 s) and pages another process has mapped stay in RAM.
So ``conditions.cache.likely_cached`` is ``true`` when any of these holds, each named in
``conditions.cache.why``: the OS offers no way to drop the cache (macOS, Windows) or the call
failed; a file read was modified less than :data:`RECENT_WRITE_S` ago; or the rate exceeds
:data:`PLAUSIBLE_DISK_MB_S`, above one fast NVMe SSD. ``false`` means none of these signs,
not a guarantee: a virtual machine's disk (the host's page cache), a RAID controller or a
network filesystem may still serve from caches of their own.

Errors (``bad-input``, the path in the message): no ``path`` option, a path that does not
exist or is not a folder, a bad option value, a folder with no readable file, or only empty
files. Runs in the worker (``kit`` is the worker module); needs no torch and imports neither
torch nor gpuadvisor.
"""

from __future__ import annotations

import os
import time

kit = None  # the worker module, set by kit.load_kernels before any probe runs

KiB = 1 << 10
MiB = 1 << 20
GiB = 1 << 30

#: Default ``max_bytes`` and ``max_seconds`` by suite name.
LIMITS = {
    "tiny": {"max_bytes": 8 * MiB, "max_seconds": 5.0},
    "quick": {"max_bytes": 1 * GiB, "max_seconds": 30.0},
    "full": {"max_bytes": 8 * GiB, "max_seconds": 120.0},
}
BLOCK_BYTES = 8 * MiB
MIN_BLOCK_BYTES = 4 * KiB
MAX_BLOCK_BYTES = 256 * MiB

#: MB/s above which a read most likely came from RAM: a PCIe 5.0 x4 NVMe SSD is rated at up
#: to about 14,000 MB/s sequential, and the link itself carries 4 x 3.94 = 15,750 MB/s.
PLAUSIBLE_DISK_MB_S = 14_000.0
#: A file modified this recently may still have dirty pages, which DONTNEED cannot drop
#: (Linux writes dirty pages back after ``dirty_expire_centisecs``, 30 s by default, checked
#: every ``dirty_writeback_centisecs``, 5 s): twice that, to be safe.
RECENT_WRITE_S = 70.0
#: Seconds between progress lines.
PROGRESS_EVERY_S = 0.25


def bad_input(message: str):
    return kit.ProbeFailed("bad-input", message)


def read_options(suite: dict, options: dict) -> dict:
    """The checked options, with the suite's defaults filled in; raises ``bad-input``."""
    path = options.get("path")
    if not isinstance(path, str) or not path.strip():
        raise bad_input('dataread needs the folder to read in its "path" option (worker: '
                        '--options \'{"dataread": {"path": "/your/data"}}\')')
    path = os.path.abspath(os.path.expanduser(path))
    if not os.path.exists(path):
        raise bad_input(f"dataread: {path} does not exist")
    if not os.path.isdir(path):
        raise bad_input(f"dataread: {path} is not a folder (pick the folder holding the data)")
    limits = LIMITS.get(suite.get("name"), LIMITS["quick"])
    checked = {"path": path}
    for name, default, low, high, whole in (
            ("max_bytes", limits["max_bytes"], 1, None, True),
            ("block_bytes", BLOCK_BYTES, MIN_BLOCK_BYTES, MAX_BLOCK_BYTES, True),
            ("max_seconds", limits["max_seconds"], 0.01, None, False)):
        value = options.get(name, default)
        ok = (isinstance(value, (int, float)) and not isinstance(value, bool)
              and value == value and value >= low and (high is None or value <= high)
              and (not whole or float(value).is_integer()))
        if not ok:
            bounds = f"at least {low}" + (f" and at most {high}" if high is not None else "")
            kind = "a whole number" if whole else "a number"
            raise bad_input(f"dataread: option {name} must be {kind} {bounds}, got {value!r}")
        checked[name] = int(value) if whole else float(value)
    return checked


def list_files(path: str) -> tuple:
    """``(files, problems)``: regular files under ``path`` in sorted walk order, and the
    folders that could not be listed."""
    problems = []
    files = []

    def note(error: OSError) -> None:
        problems.append(f"{getattr(error, 'filename', '?')}: {error.strerror or error}")

    for root, folders, names in os.walk(path, onerror=note):
        folders.sort()
        for name in sorted(names):
            full = os.path.join(root, name)
            if os.path.isfile(full):  # follows a link to a file; skips sockets, fifos
                files.append(full)
    return files, problems


def drop_cache(fd: int):
    """Ask the OS to drop ``fd``'s cached pages: ``(asked, problem or None)``."""
    fadvise = getattr(os, "posix_fadvise", None)
    if fadvise is None:
        return False, "this OS offers no posix_fadvise to drop cached pages"
    try:
        fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
        fadvise(fd, 0, 0, os.POSIX_FADV_SEQUENTIAL)
    except OSError as exc:
        return False, f"posix_fadvise failed: {exc.strerror or exc}"
    return True, None


def read_one(name: str, view, limit: int, seconds_left: float, on_block) -> tuple:
    """Read ``name`` from its start, at most ``limit`` bytes, into ``view`` block by block.

    Drops its cached pages first (:func:`drop_cache`, not timed). Stops early when the time
    spent (opening + reading) reaches ``seconds_left`` or the app asks the worker to stop.
    Calls ``on_block(bytes_so_far_in_this_file)`` after each block. Raises ``OSError``.

    Returns:
        ``(bytes_read, seconds, cache_dropped, cache_problem)``.
    """
    start = time.perf_counter()
    with open(name, "rb", buffering=0) as stream:
        open_s = time.perf_counter() - start
        dropped, problem = drop_cache(stream.fileno())
        reading = time.perf_counter()
        done = 0
        while done < limit and not kit.stop_requested():
            got = stream.readinto(view[:min(len(view), limit - done)])
            if not got:
                break
            done += got
            on_block(done)
            if open_s + time.perf_counter() - reading >= seconds_left:
                break
        seconds = open_s + time.perf_counter() - reading
    return done, seconds, dropped, problem


def probe_dataread(torch, device, suite: dict, channel, options: dict) -> dict:
    """Read the folder in ``options["path"]``; see the module docstring."""
    opts = read_options(suite, options)
    path, max_bytes, max_seconds = opts["path"], opts["max_bytes"], opts["max_seconds"]
    files, problems = list_files(path)
    if not files:
        detail = f" ({'; '.join(problems[:3])})" if problems else ""
        raise bad_input(f"dataread: no files to read under {path}{detail}")
    view = memoryview(bytearray(opts["block_bytes"]))
    total, elapsed = 0, 0.0
    files_read, files_empty, unreadable = 0, 0, []
    dropped, not_dropped, recent = 0, [], 0
    clock = {"last": time.perf_counter()}
    started_wall = time.time()

    for name in files:
        if total >= max_bytes or elapsed >= max_seconds or kit.stop_requested():
            break

        def on_block(in_file: int, before: int = total, count: int = files_read) -> None:
            tick = time.perf_counter()
            if tick - clock["last"] >= PROGRESS_EVERY_S:
                clock["last"] = tick
                channel.progress("dataread", min((before + in_file) / max_bytes, 1.0),
                                 f"{(before + in_file) / 1e6:.0f} MB from {count + 1} file(s)")

        try:
            got, seconds, asked, problem = read_one(name, view, max_bytes - total,
                                                    max_seconds - elapsed, on_block)
        except OSError as exc:
            unreadable.append(f"{name}: {exc.strerror or exc}")
            continue
        total += got
        elapsed += seconds
        if asked:
            dropped += 1
        elif problem not in not_dropped:
            not_dropped.append(problem)
        if not got:
            files_empty += 1
            continue
        files_read += 1
        try:
            if started_wall - os.stat(name).st_mtime < RECENT_WRITE_S:
                recent += 1
        except OSError:
            pass

    if not total:
        if kit.stop_requested():
            raise kit.ProbeFailed("cancelled", f"dataread: stopped before reading {path}")
        if unreadable:
            raise bad_input(f"dataread: no readable files under {path} ({unreadable[0]})")
        raise bad_input(f"dataread: the files under {path} are empty: nothing to read")
    if kit.stop_requested():
        stopped_by = "stop"
    elif total >= max_bytes:
        stopped_by = "max_bytes"
    elif elapsed >= max_seconds:
        stopped_by = "max_seconds"
    else:
        stopped_by = "files"
    read_mb_s = total / max(elapsed, 1e-9) / 1e6
    why = list(not_dropped)
    if recent:
        why.append(f"{recent} file(s) modified in the last {RECENT_WRITE_S:.0f} s may still "
                   "have pages in RAM that cannot be dropped")
    if read_mb_s > PLAUSIBLE_DISK_MB_S:
        why.append(f"{read_mb_s:.0f} MB/s is faster than one fast NVMe SSD "
                   f"({PLAUSIBLE_DISK_MB_S:.0f} MB/s): RAM, or a RAID array")
    channel.progress("dataread", 1.0, f"{read_mb_s:.4g} MB/s")
    conditions = {
        "path": path, "files_found": len(files), "files_empty": files_empty,
        "files_unreadable": len(unreadable), "unreadable": unreadable[:5],
        "folders_unlisted": problems[:5], "block_bytes": opts["block_bytes"],
        "max_bytes": max_bytes, "max_seconds": max_seconds, "seconds": kit.sig(elapsed, 6),
        "stopped_by": stopped_by,
        "timing": "open + sequential reads per file; walking the folder and dropping the "
                  "cache not counted",
        "cache": {"method": "posix_fadvise(POSIX_FADV_DONTNEED) before each file"
                            if dropped else None,
                  "files_dropped": dropped, "likely_cached": bool(why), "why": why,
                  "note": "only this OS's page cache is dropped: a virtual machine's host, a "
                          "RAID controller or a network filesystem may cache too"},
    }
    figures = {"read_mb_s": kit.sig(read_mb_s), "bytes_read": float(total),
               "files_read": float(files_read)}
    units = {"read_mb_s": "MB/s", "bytes_read": "bytes", "files_read": "files"}
    return {"figures": figures, "units": units, "conditions": conditions}


PROBES = {"dataread": probe_dataread}
