"""``gpuadvisor catalog update``: download (or read) a catalog file, check it whole, swap it in.

This is the only module of the package that may download anything, and only when
:func:`update_catalog` is called: over HTTPS, with a size cap and a wall-clock deadline over
the whole transfer (:func:`fetch_catalog_bytes`: the download runs on a thread the caller
stops waiting for at the deadline, so a server that drips one byte at a time, or a name that
never resolves, cannot hold it past ``timeout_s``). A local file is read only when it is a
regular file (a FIFO or a device is refused unopened). The new file is validated whole
before anything changes, then installed atomically (:func:`gpuadvisor.userfiles.write_atomic`)
with the file it replaces kept as ``<name>.previous``. :func:`diff_catalogs` says what changed.
"""

from __future__ import annotations

import contextlib
import http.client
import os
import socket
import ssl
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Mapping
from dataclasses import dataclass, fields, is_dataclass
from pathlib import Path, PurePosixPath
from typing import Any

from gpuadvisor.core.limits import MAX_CATALOG_FILE_BYTES
from gpuadvisor.userfiles import check_replaceable, read_regular_file, write_atomic

from .files import check_bytes, check_offer_gpus, kind_of, load_checked
from .overrides import (
    PREVIOUS_SUFFIX,
    in_effect,
    in_effect_gpu_ids,
    in_effect_model_ids,
    override_path,
    updated_path,
)
from .schema import KINDS

#: Largest catalog file ``catalog update`` accepts, in bytes.
MAX_UPDATE_BYTES = MAX_CATALOG_FILE_BYTES
#: Seconds ``catalog update`` gives a download: the connection and each read wait at most this
#: long, and the download is abandoned once this much time has passed in all (however
#: slowly the bytes come).
UPDATE_TIMEOUT_S = 20.0
#: Largest piece read from the network at a time (the deadline is checked between pieces).
_CHUNK_BYTES = 16384
#: TEST-ONLY hook: when this environment variable is ``1``, ``http://`` URLs to the loopback
#: host (127.0.0.1, ::1, localhost) are accepted, so tests can serve files from a local
#: ``http.server`` in a thread. Every other ``http://`` URL is refused whatever its value.
ALLOW_HTTP_LOOPBACK_ENV = "GPUADVISOR_TEST_ALLOW_HTTP_LOOPBACK"
_LOOPBACK_HOSTS = ("127.0.0.1", "::1", "localhost")


class UpdateError(Exception):
    """``catalog update`` changed nothing; the message (one line) says why."""


@dataclass(frozen=True)
class CatalogChanges:
    """What an update changes, by entry id.

    Attributes:
        added: ids only in the new catalog.
        removed: ids only in the old one.
        changed: id -> the fields whose values differ, as ``(field, old, new)``.
    """

    added: tuple[str, ...]
    removed: tuple[str, ...]
    changed: Mapping[str, tuple[tuple[str, Any, Any], ...]]

    @property
    def unchanged(self) -> bool:
        return not (self.added or self.removed or self.changed)

    def lines(self) -> list[str]:
        """One line per change (``+ id``, ``- id``, ``~ id: price_usd 2.69 -> 2.49``)."""
        out = [f"+ {entry_id}" for entry_id in self.added]
        out += [f"- {entry_id}" for entry_id in self.removed]
        for entry_id, diffs in self.changed.items():
            shown = ", ".join(f"{f} {old!r} -> {new!r}" for f, old, new in diffs[:4])
            more = f", and {len(diffs) - 4} more" if len(diffs) > 4 else ""
            out.append(f"~ {entry_id}: {shown}{more}")
        return out

    def summary(self) -> str:
        return (f"{len(self.added)} added, {len(self.removed)} removed, "
                f"{len(self.changed)} changed")


@dataclass(frozen=True)
class UpdateResult:
    """What ``catalog update`` did.

    Attributes:
        kind: ``gpus``, ``models`` or ``offers``.
        source: the path or URL read.
        path: the installed file (:func:`updated_path`).
        backup: the previous installed file, kept as ``<name>.previous``, or None (first one).
        changes: entries added, removed and changed against the catalog in effect before.
        size_bytes: the size of the new file.
    """

    kind: str
    source: str
    path: Path
    backup: Path | None
    changes: CatalogChanges
    size_bytes: int


def diff_catalogs(old: Mapping[str, Any], new: Mapping[str, Any]) -> CatalogChanges:
    """Compare two catalogs of records (dataclasses) by id and field."""
    added = tuple(k for k in new if k not in old)
    removed = tuple(k for k in old if k not in new)
    changed: dict[str, tuple[tuple[str, Any, Any], ...]] = {}
    for key in new:
        if key in old and old[key] != new[key]:
            a, b = _fields_of(old[key]), _fields_of(new[key])
            diffs = tuple((f, a.get(f), b.get(f)) for f in dict.fromkeys([*a, *b])
                          if a.get(f) != b.get(f))
            changed[key] = diffs or (("record", "...", "..."),)
    return CatalogChanges(added, removed, changed)


def _fields_of(record: Any) -> dict[str, Any]:
    if is_dataclass(record):
        return {f.name: getattr(record, f.name) for f in fields(record)}
    return dict(vars(record)) if hasattr(record, "__dict__") else {"value": record}


def update_catalog(source: str | os.PathLike[str], kind: str | None = None, *,
                   timeout_s: float = UPDATE_TIMEOUT_S, max_bytes: int = MAX_UPDATE_BYTES,
                   ssl_context: ssl.SSLContext | None = None) -> UpdateResult:
    """Install a new catalog file from a local path or an HTTPS URL (``catalog update``).

    Steps, in order; any failure raises :class:`UpdateError` and changes nothing:

    1. Read the file: a local path, or an ``https://`` URL (``http://`` and other schemes are
       refused, redirects too unless they stay on HTTPS; certificates are verified), at most
       ``max_bytes``, abandoned after ``timeout_s`` (see :data:`UPDATE_TIMEOUT_S`); a download
       shorter than its ``Content-Length`` is refused. Tests only: see
       :data:`ALLOW_HTTP_LOOPBACK_ENV`.
    2. Validate the WHOLE file: TOML, schema, every entry, and the cross checks (offers:
       every ``gpu_id`` names a GPU in effect; gpus: every offer in effect still finds its
       GPU). A file with no entries is refused.
    3. Swap it in atomically as :func:`updated_path` (temp file in the same folder, fsync,
       rename), after copying the file it replaces to ``<name>.previous``.

    Nothing is fetched unless this is called (the CLI's ``catalog update`` is the only caller).

    Args:
        source: a file path, or an ``https://`` URL.
        kind: ``gpus``, ``models`` or ``offers``; None: told from the file name.
        timeout_s: seconds allowed for the whole download.
        max_bytes: largest file accepted.
        ssl_context: TLS settings (e.g. a private CA); None: the system's trusted CAs.

    Returns:
        What was installed and what changed.

    Raises:
        UpdateError: nothing was changed; the message says why.
    """
    text = os.fspath(source)
    if not text.strip():
        raise UpdateError("--from: the path or URL is empty")
    if _is_url(text):
        _check_url(text)
    name = _source_name(text)
    if kind is None:
        kind = kind_of(name)
        if kind is None:
            raise UpdateError(f"cannot tell the catalog kind from {name!r}; "
                              "say --kind gpus, --kind models, --kind offers or --kind apis")
    if kind not in KINDS:
        raise UpdateError(f"unknown catalog kind {kind!r}; use gpus, models, offers or "
                          "apis")
    raw = fetch_catalog_bytes(text, timeout_s=timeout_s, max_bytes=max_bytes,
                              ssl_context=ssl_context)
    display = f"{kind}.toml (from {name})"
    _validate_update(raw, display, kind)
    before = in_effect(kind, None)
    target = updated_path(kind)
    backup = _install(target, raw)
    after = in_effect(kind, None)
    return UpdateResult(kind, text, target, backup, diff_catalogs(before, after), len(raw))


def _validate_update(raw: bytes, display: str, kind: str) -> None:
    records, problems = check_bytes(raw, display, kind, in_effect_gpu_ids, in_effect_model_ids)
    if not problems and not records:
        problems = [f"{display}: has no entries; refusing to replace the catalog with nothing"]
    if not problems and kind == "gpus":
        offers = dict(in_effect("offers", None))
        problems = [p.replace("field 'gpu_id': unknown GPU",
                              "field 'gpu_id': its GPU is missing from the new gpus.toml:")
                    for p in check_offer_gpus(offers, _gpu_ids_with(records), "offers")]
    if problems:
        shown = "; ".join(problems[:5])
        more = f" (and {len(problems) - 5} more)" if len(problems) > 5 else ""
        raise UpdateError(f"the new file was not installed: {shown}{more}")


def _gpu_ids_with(new_gpus: Mapping[str, Any]) -> list[str]:
    """GPU ids in effect once ``new_gpus`` replaces the base (the user's own GPUs stay)."""
    ids = dict.fromkeys(new_gpus)
    override = override_path("gpus")
    if override.is_file():
        loaded, problems = load_checked(override, "gpus", in_effect_gpu_ids)
        if not problems:
            ids.update(dict.fromkeys(loaded))
    return list(ids)


def _install(target: Path, raw: bytes) -> Path | None:
    """Copy the current file to ``.previous``, then swap ``raw`` in atomically."""
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        backup = None
        check_replaceable(target)  # a symlink or FIFO there is refused, not followed
        if target.exists():
            backup = target.with_name(target.name + PREVIOUS_SUFFIX)
            write_atomic(backup, read_regular_file(target, 4 * MAX_UPDATE_BYTES))
        write_atomic(target, raw)
    except OSError as exc:
        raise UpdateError(f"could not write {target}: {exc.strerror or exc}; "
                          "the catalog in use is unchanged") from None
    return backup


def _source_name(source: str) -> str:
    if _is_url(source):
        return PurePosixPath(urllib.parse.urlsplit(source).path).name or source
    return Path(source).name


def _is_url(source: str) -> bool:
    scheme = urllib.parse.urlsplit(source).scheme
    return len(scheme) > 1  # "C:\\..." is a Windows path, not a URL


def fetch_catalog_bytes(source: str, *, timeout_s: float = UPDATE_TIMEOUT_S,
                        max_bytes: int = MAX_UPDATE_BYTES,
                        ssl_context: ssl.SSLContext | None = None) -> bytes:
    """Read a catalog file from a local path or an HTTPS URL, with a size cap and a timeout.

    A download gets ``timeout_s`` in all, from the name look-up to the last byte: it runs on
    a daemon thread and is abandoned (its socket shut) when the deadline passes.

    Raises:
        UpdateError: refused scheme, unreachable, HTTP error, timeout, too large, truncated.
    """
    if not _is_url(source):
        return _read_local(Path(source), max_bytes)
    _check_url(source)
    deadline = time.monotonic() + timeout_s
    outcome: dict[str, Any] = {}
    holder: dict[str, Any] = {}

    def download() -> None:
        try:
            outcome["data"] = _download(source, timeout_s, max_bytes, ssl_context, deadline,
                                        holder)
        except BaseException as exc:  # handed to the waiting thread
            outcome["error"] = exc

    thread = threading.Thread(target=download, name="catalog-download", daemon=True)
    thread.start()
    thread.join(max(deadline - time.monotonic(), 0.0))
    if thread.is_alive():
        _abandon(holder.get("response"))
        raise UpdateError(f"{source}: the download took longer than {timeout_s:g} s")
    if "error" in outcome:
        raise outcome["error"]
    return outcome["data"]


def _abandon(response: Any) -> None:
    """Unblock a download thread stuck in a read: shut its socket (it then ends)."""
    if response is None:
        return
    raw = getattr(getattr(response, "fp", None), "raw", None)
    sock = getattr(raw, "_sock", None)
    if isinstance(sock, socket.socket):
        with contextlib.suppress(OSError):
            sock.shutdown(socket.SHUT_RDWR)


def _download(source: str, timeout_s: float, max_bytes: int,
              ssl_context: ssl.SSLContext | None, deadline: float,
              holder: dict[str, Any]) -> bytes:
    """The download itself (on the download thread); ``holder["response"]`` lets the
    waiting thread abandon it."""
    opener = urllib.request.build_opener(_SafeRedirects(),
                                         urllib.request.HTTPSHandler(context=ssl_context))
    request = urllib.request.Request(source, headers={"User-Agent": "gpuadvisor-catalog-update",
                                                      "Accept-Encoding": "identity"})
    try:
        with opener.open(request, timeout=timeout_s) as response:
            holder["response"] = response
            return _read_response(response, source, max_bytes, deadline, timeout_s)
    except UpdateError:
        raise
    except urllib.error.HTTPError as exc:
        raise UpdateError(f"{source}: the server answered HTTP {exc.code} "
                          f"{exc.reason or ''}".rstrip()) from None
    except urllib.error.URLError as exc:
        reason = exc.reason
        if isinstance(reason, TimeoutError):
            raise UpdateError(f"{source}: no answer within {timeout_s:g} s") from None
        raise UpdateError(f"{source}: could not download: {reason}") from None
    except TimeoutError:
        raise UpdateError(f"{source}: the download took longer than {timeout_s:g} s") from None
    except http.client.IncompleteRead as exc:
        raise UpdateError(f"{source}: the download was cut short ({len(exc.partial)} bytes "
                          "received)") from None
    except (http.client.HTTPException, OSError, ValueError) as exc:
        raise UpdateError(f"{source}: could not download: {exc}") from None


def _check_url(url: str) -> None:
    parts = urllib.parse.urlsplit(url)
    scheme = parts.scheme.lower()
    if scheme == "https":
        return
    if (scheme == "http" and os.environ.get(ALLOW_HTTP_LOOPBACK_ENV) == "1"
            and (parts.hostname or "") in _LOOPBACK_HOSTS):
        return
    if scheme == "http":
        raise UpdateError(f"{url}: refused: plain http:// can be altered in transit; "
                          "use an https:// URL (or download the file and give its path)")
    raise UpdateError(f"{url}: refused: only https:// URLs and local file paths are read")


class _SafeRedirects(urllib.request.HTTPRedirectHandler):
    """Follow a redirect only to a URL that :func:`_check_url` accepts (no HTTPS -> HTTP)."""

    def redirect_request(self, req, fp, code, msg, headers, newurl):  # urllib's API
        _check_url(newurl)
        return super().redirect_request(req, fp, code, msg, headers, newurl)


def _read_response(response, source: str, max_bytes: int, deadline: float,
                   timeout_s: float) -> bytes:
    status = getattr(response, "status", 200)
    if status != 200:
        raise UpdateError(f"{source}: the server answered HTTP {status}")
    declared = response.headers.get("Content-Length")
    length = None
    if declared is not None:
        try:
            length = int(declared)
        except ValueError:
            raise UpdateError(f"{source}: bad Content-Length {declared!r}") from None
        if length > max_bytes:
            raise UpdateError(f"{source}: refused: {length} bytes is over the "
                              f"{max_bytes} byte limit")
    chunks: list[bytes] = []
    received = 0
    while True:
        if time.monotonic() > deadline:
            raise UpdateError(f"{source}: the download took longer than {timeout_s:g} s")
        want = min(_CHUNK_BYTES, max_bytes + 1 - received)
        # read1: what has arrived (one socket read), not a wait for the whole piece.
        chunk = response.read1(want) if hasattr(response, "read1") else response.read(want)
        if not chunk:
            break
        chunks.append(chunk)
        received += len(chunk)
        if received > max_bytes:
            raise UpdateError(f"{source}: refused: more than the {max_bytes} byte limit")
    if length is not None and received < length:
        raise UpdateError(f"{source}: the download was cut short ({received} of {length} "
                          "bytes)")
    return b"".join(chunks)


def _read_local(path: Path, max_bytes: int) -> bytes:
    try:
        size = path.stat().st_size
        if size > max_bytes and path.is_file():
            raise UpdateError(f"{path}: refused: {size} bytes is over the {max_bytes} byte "
                              "limit")
        data = read_regular_file(path, max_bytes)
    except (OSError, ValueError) as exc:  # ValueError: a NUL in the path
        raise UpdateError(f"{path}: cannot read the file: "
                          f"{getattr(exc, 'strerror', None) or exc}") from None
    return data
