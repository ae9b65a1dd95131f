"""The user's cache directory (``$XDG_CACHE_HOME``, else ``~/.cache``), which the suite must leave as it found it.

tests/conftest.py snapshots it when the session starts and points ``XDG_CACHE_HOME`` at a
temporary directory (the library's caches, matplotlib's and numba's follow it; child processes
inherit it); tests/test_user_cache.py, the session's last test, compares.
"""

from __future__ import annotations

import os
from pathlib import Path

#: Folders of the user's cache not compared: pip's own, written by any pip the user runs
#: meanwhile (the suite runs none), and never by craftrdf.
NOT_OURS = frozenset({"pip"})


def user_cache_dir() -> Path:
    """The cache directory of the user running the tests, as the XDG base directory spec places it."""
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")


def snapshot(root: Path) -> dict[str, tuple[int, int]]:
    """Every file and folder under ``root`` (but :data:`NOT_OURS`) -> (mtime in ns, size); empty if absent."""
    out: dict[str, tuple[int, int]] = {}
    for top, dirs, files in os.walk(root):
        if Path(top) == root:
            dirs[:] = [d for d in dirs if d not in NOT_OURS]
        for name in [*dirs, *files]:
            path = Path(top) / name
            try:
                st = path.lstat()
            except FileNotFoundError:  # removed while walking: it shows as gone
                continue
            out[str(path.relative_to(root))] = (st.st_mtime_ns, st.st_size)
    return out


def changes(before: dict[str, tuple[int, int]], after: dict[str, tuple[int, int]]) -> list[str]:
    """What differs between two snapshots, one line per path: added, removed or modified."""
    lines = [f"added {p}" for p in sorted(after.keys() - before.keys())]
    lines += [f"removed {p}" for p in sorted(before.keys() - after.keys())]
    lines += [f"modified {p}" for p in sorted(before.keys() & after.keys()) if before[p] != after[p]]
    return lines
