"""Files the user owns (plans, settings, probe history, catalogs): where they live, atomic
writes, and bad files set aside.

The user's data lives under :func:`data_dir`. Every such file is written through
:func:`write_atomic`, and a file that fails to load is renamed aside with :func:`set_aside` —
kept, never deleted or overwritten — so nothing the user saved is lost.

Files from outside are read with :func:`read_regular_file`: opened without blocking, refused
unless they are regular files (a FIFO or a device would block or never end), and capped in
size. :func:`write_atomic` replaces only a regular file (or nothing): a symlink, a FIFO or a
device at the target is refused, never replaced.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
import tempfile
import time
from pathlib import Path

#: Environment variable naming the user data folder (tests, portable installs).
DATA_DIR_ENV = "GPUADVISOR_DATA_DIR"


def data_dir() -> Path:
    """``$GPUADVISOR_DATA_DIR`` or the platform's user data folder for gpuadvisor.

    E.g. ``~/.local/share/gpuadvisor`` on Linux. It may not exist yet. It holds the probe
    history (``probes/``) and the user's catalog files (``catalog/``).
    """
    override = os.environ.get(DATA_DIR_ENV)
    if override:
        return Path(override)
    import platformdirs  # lazily: the estimate CLI runs with numpy alone

    return Path(platformdirs.user_data_dir("gpuadvisor", appauthor=False))


class NotARegularFileError(OSError):
    """A path that is not a regular file where one is read or replaced (a FIFO, a device, a
    folder, a symlink at a write target), or a file over the size limit.

    ``strerror`` says what it is (``"is a FIFO (named pipe), not a regular file"``) and
    ``filename`` names the path, so ``except OSError`` callers report it as they report any
    unreadable file.
    """

    def __init__(self, path: str | os.PathLike[str], what: str,
                 code: int = errno.EINVAL) -> None:
        super().__init__(code, what, os.fspath(path))


#: What a file type is called in messages, by ``stat.S_IFMT``.
_FILE_TYPES = {stat.S_IFIFO: "a FIFO (named pipe)", stat.S_IFCHR: "a character device",
               stat.S_IFBLK: "a block device", stat.S_IFSOCK: "a socket",
               stat.S_IFDIR: "a folder", stat.S_IFLNK: "a symbolic link"}


def file_type_name(mode: int) -> str:
    """``"a FIFO (named pipe)"``, ``"a folder"``, ... for a ``st_mode``."""
    return _FILE_TYPES.get(stat.S_IFMT(mode), "not a regular file")


def read_regular_file(path: str | os.PathLike[str], max_bytes: int) -> bytes:
    """Read a whole regular file of at most ``max_bytes``; never blocks on a special file.

    The file is opened with ``O_NONBLOCK`` (so opening a FIFO returns at once) and checked
    with ``fstat`` on the open descriptor (no race with a rename): anything but a regular
    file is refused unread. Symlinks to regular files are followed.

    Raises:
        FileNotFoundError: no such file.
        NotARegularFileError: a FIFO, device, socket or folder, or more than ``max_bytes``.
        OSError: any other reason it cannot be read (permissions, ...).
    """
    flags = (os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0)
             | getattr(os, "O_BINARY", 0) | getattr(os, "O_CLOEXEC", 0))
    try:
        fd = os.open(path, flags)
    except IsADirectoryError:
        raise NotARegularFileError(path, "is a folder, not a file", errno.EISDIR) from None
    except PermissionError:
        if os.path.isdir(path):  # Windows cannot open a folder as a file
            raise NotARegularFileError(path, "is a folder, not a file", errno.EISDIR) from None
        raise
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise NotARegularFileError(path, f"is {file_type_name(info.st_mode)}, not a "
                                             "regular file")
        if info.st_size > max_bytes:
            raise NotARegularFileError(path, f"is too large ({info.st_size:,} bytes; at most "
                                             f"{max_bytes:,})", errno.EFBIG)
        chunks = []
        left = max_bytes + 1
        while left > 0:
            chunk = os.read(fd, min(left, 1 << 20))
            if not chunk:
                break
            chunks.append(chunk)
            left -= len(chunk)
    finally:
        os.close(fd)
    data = b"".join(chunks)
    if len(data) > max_bytes:
        raise NotARegularFileError(path, f"is too large (over {max_bytes:,} bytes)",
                                   errno.EFBIG)
    return data


def check_replaceable(path: str | os.PathLike[str]) -> None:
    """Refuse to replace anything at ``path`` but a regular file (nothing there is fine).

    Raises:
        NotARegularFileError: a symlink (even to a regular file: replacing it would cut the
            link), a FIFO, a device, a socket or a folder is there.
    """
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        return
    if not stat.S_ISREG(info.st_mode):
        raise NotARegularFileError(path, f"is {file_type_name(info.st_mode)}; only a regular "
                                         "file is replaced")


def write_atomic(path: str | os.PathLike[str], data: str | bytes) -> Path:
    """Write ``data`` to ``path`` atomically: text as UTF-8 (newlines as given), bytes as is.

    The data goes to a temporary file in the same folder, is flushed and fsynced, and then
    replaces ``path`` with ``os.replace`` (atomic on POSIX and Windows). On any failure the
    temporary file is removed and ``path`` is untouched. An existing file's permission bits
    are kept; a new file gets ``0o644``. Only a regular file is replaced
    (:func:`check_replaceable`).

    Returns:
        The path written.

    Raises:
        NotARegularFileError: a symlink, FIFO, device or folder is at ``path``.
        OSError: the folder is missing or not writable, the disk is full, ...
    """
    raw = data.encode("utf-8") if isinstance(data, str) else bytes(data)
    target = Path(path)
    check_replaceable(target)
    try:
        mode = target.stat().st_mode & 0o777
    except OSError:
        mode = 0o644
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(raw)
            handle.flush()
            os.fsync(handle.fileno())
        with contextlib.suppress(OSError):
            os.chmod(tmp, mode)
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    _fsync_folder(target.parent)
    return target


def _fsync_folder(folder: Path) -> None:
    """Persist a rename on POSIX (a no-op where folders cannot be opened, e.g. Windows)."""
    with contextlib.suppress(OSError, AttributeError):
        fd = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def set_aside(file: Path) -> Path:
    """Rename a file that failed to load to ``<name>.bad-<timestamp>[-N]`` (a new name).

    Returns:
        The backup's path.

    Raises:
        OSError: the rename failed (the file is then left where it was).
    """
    stamp = time.strftime("%Y%m%d-%H%M%S")
    backup = file.with_name(f"{file.name}.bad-{stamp}")
    n = 1
    while backup.exists():
        n += 1
        backup = file.with_name(f"{file.name}.bad-{stamp}-{n}")
    os.rename(file, backup)
    return backup
