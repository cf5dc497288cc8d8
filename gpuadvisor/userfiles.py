"""Files the user owns (plans, settings, probe history, catalogs): where they live, atomic
writes, and bad files set aside.

The user's data lives under :func:`data_dir`. Every such file is written through
:func:`write_atomic`, and a file that fails to load is renamed aside with :func:`set_aside` —
kept, never deleted or overwritten — so nothing the user saved is lost.
"""

from __future__ import annotations

import contextlib
import os
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


def write_atomic(path: str | os.PathLike[str], data: str | bytes) -> Path:
    """Write ``data`` to ``path`` atomically: text as UTF-8 (newlines as given), bytes as is.

    The data goes to a temporary file in the same folder, is flushed and fsynced, and then
    replaces ``path`` with ``os.replace`` (atomic on POSIX and Windows). On any failure the
    temporary file is removed and ``path`` is untouched. An existing file's permission bits
    are kept; a new file gets ``0o644``.

    Returns:
        The path written.

    Raises:
        OSError: the folder is missing or not writable, the disk is full, ...
    """
    raw = data.encode("utf-8") if isinstance(data, str) else bytes(data)
    target = Path(path)
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
