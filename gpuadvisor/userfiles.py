"""Files the user owns (plans, settings, probe history): atomic writes and bad files set aside.

Every such file is written through :func:`write_atomic`, and a file that fails to load is
renamed aside with :func:`set_aside` — kept, never deleted or overwritten — so nothing the
user saved is lost.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
import time
from pathlib import Path


def write_atomic(path: str | os.PathLike[str], text: str) -> Path:
    """Write ``text`` (UTF-8) to ``path`` atomically.

    The text goes to a temporary file in the same folder, is flushed and fsynced, and then
    replaces ``path`` with ``os.replace`` (atomic on POSIX and Windows). On any failure the
    temporary file is removed and ``path`` is untouched. An existing file's permission bits
    are kept; a new file gets ``0o644``.

    Returns:
        The path written.

    Raises:
        OSError: the folder is missing or not writable, the disk is full, ...
    """
    target = Path(path)
    try:
        mode = target.stat().st_mode & 0o777
    except OSError:
        mode = 0o644
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as handle:
            handle.write(text)
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
