"""The store directory's lock: one writer, or any number of readers, never both (see :mod:`craftrdf.store`).

A writer takes an exclusive ``flock`` on ``craftrdf.lock`` and records its pid there, so a
second writer fails at once naming it; readers take a shared lock. Also the clean-up of the
orphan files a killed bulk load leaves, done by a writer once it holds the lock.
"""

from __future__ import annotations

import fcntl
import logging
import os
import sys
from pathlib import Path
from typing import IO, Literal

from .errors import StoreLockedError

__all__ = ["LOCK_FILE", "Mode", "StoreLock", "remove_orphans"]

logger = logging.getLogger(__name__)

LOCK_FILE = "craftrdf.lock"
Mode = Literal["write", "read"]


class StoreLock:
    """An flock on the store's lock file, holding our pid while we hold the lock."""

    def __init__(self, directory: Path, mode: Mode) -> None:
        self.path = directory / LOCK_FILE
        self._fh: IO[str] | None = open(self.path, "a+", encoding="utf-8")  # noqa: SIM115  # held until release()
        op = fcntl.LOCK_EX if mode == "write" else fcntl.LOCK_SH
        try:
            fcntl.flock(self._fh.fileno(), op | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = self._holder()
            self._fh.close()
            self._fh = None
            what = "write to" if mode == "write" else "read"
            raise StoreLockedError(
                f"cannot {what} store {directory}: it is open for writing by {holder}; "
                "wait for it to finish (one writer at a time, no reader beside a writer)"
            ) from None
        if mode == "write":
            self._fh.seek(0)
            self._fh.truncate()
            self._fh.write(f"{os.getpid()} {' '.join(sys.argv)[:200]}\n")
            self._fh.flush()

    def _holder(self) -> str:
        try:
            content = self.path.read_text(encoding="utf-8").strip()
        except OSError:
            content = ""
        if not content:
            return "another process (readers hold it; pid unknown)"
        pid, _, cmd = content.partition(" ")
        return f"process {pid} ({cmd})" if cmd else f"process {pid}"

    def release(self) -> None:
        if self._fh is not None:
            fcntl.flock(self._fh.fileno(), fcntl.LOCK_UN)
            self._fh.close()
            self._fh = None


def remove_orphans(directory: Path) -> int:
    """Delete ``bulk-*.sst`` files left by a killed bulk load; returns bytes freed."""
    freed = 0
    for p in directory.glob("bulk-*.sst"):
        try:
            freed += p.stat().st_size
            p.unlink()
        except FileNotFoundError:
            pass
    if freed:
        logger.warning(
            "removed %.1f MB of orphan bulk-load files left by an interrupted load in %s", freed / 1e6, directory
        )
    return freed
