"""The store directory's lock: one writer, or any number of readers, never both (see :mod:`craftrdf.store.local`).

A writer takes an exclusive ``flock`` on ``craftrdf.lock``, readers a shared one. When the lock
is refused, the error names the processes that hold it *now*: on Linux the kernel's table of
locks (``/proc/locks``, proc(5)) lists the pid of every holder of the file's inode, and
``/proc/<pid>`` gives its command line and start time. A server's worker processes are folded
into the server that started them. Where that table is missing (another system), the writer's
own record is used: while it holds the lock a writer keeps its pid, host, start time, command
and store path in the lock file, and empties it when it lets go; the record is believed only
when that process is still running on this host, started when the record says, and the record
is about this directory (a copied store directory carries its source's last record).

Also the clean-up of the orphan files a killed bulk load leaves, done by a writer once it holds
the lock.
"""

from __future__ import annotations

import fcntl
import json
import logging
import os
import socket
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from ..core.errors import StoreLockedError

logger = logging.getLogger(__name__)

LOCK_FILE = "craftrdf.lock"
Mode = Literal["write", "read"]
_LOCKS_TABLE = Path("/proc/locks")
_PROC = Path("/proc")


@dataclass(frozen=True, slots=True)
class Holder:
    """A process holding a lock: its pid, command, start time (epoch seconds) and how many processes it stands for.

    ``processes`` > 1 when worker processes it started hold the lock too (a server's pool).
    """

    pid: int
    command: str
    started: float | None
    writing: bool
    processes: int = 1


class StoreLock:
    """An flock on the store's lock file; a writer also keeps its record there while it holds it."""

    def __init__(self, directory: Path, mode: Mode) -> None:
        self.path = directory / LOCK_FILE
        self._fd: int | None = _open_lock_file(self.path, mode)
        self._writer = mode == "write"
        if self._fd is None:  # a reader of a store on a read-only file system without a lock file
            return
        try:
            fcntl.flock(self._fd, (fcntl.LOCK_EX if self._writer else fcntl.LOCK_SH) | fcntl.LOCK_NB)
        except BlockingIOError:
            holders = lock_holders(self.path)
            if holders is None:  # no kernel lock table here: the writer's record, if it is still true
                holders = _recorded_holder(self.path, directory)
            os.close(self._fd)
            self._fd = None
            what = "write to" if self._writer else "read"
            raise StoreLockedError(
                f"cannot {what} store {directory}: it is in use by {describe_holders(holders)}; "
                "wait for it to finish or stop it (one writer at a time, no reader beside a writer)"
            ) from None
        if self._writer:
            record = {
                "pid": os.getpid(),
                "host": socket.gethostname(),
                "started": _process_start(os.getpid()),
                "store": os.path.realpath(directory),
                "command": _command(os.getpid()) or " ".join(sys.argv)[:300],
            }
            os.ftruncate(self._fd, 0)
            os.pwrite(self._fd, (json.dumps(record) + "\n").encode("utf-8"), 0)

    def release(self) -> None:
        """Let go of the lock (a writer first empties its record, so no one reads it as a holder)."""
        if self._fd is not None:
            if self._writer:
                os.ftruncate(self._fd, 0)
            fcntl.flock(self._fd, fcntl.LOCK_UN)
            os.close(self._fd)
            self._fd = None


def _open_lock_file(path: Path, mode: Mode) -> int | None:
    """The lock file's descriptor: created by a writer; a reader creates it only when absent, if it can."""
    if mode == "write":
        return os.open(path, os.O_RDWR | os.O_CREAT, 0o666)
    try:
        return os.open(path, os.O_RDONLY)
    except FileNotFoundError:
        pass
    try:  # a store made by another tool: the lock file is what keeps a later craftrdf writer out
        return os.open(path, os.O_RDONLY | os.O_CREAT, 0o666)
    except OSError as exc:
        logger.debug("reading %s without a lock: cannot create %s (%s)", path.parent, path, exc)
        return None


# -- who holds it ---------------------------------------------------------------------------


def lock_holders(path: Path, *, table: Path | None = None) -> list[Holder] | None:
    """The processes holding a lock on the file ``path`` now, from the kernel's lock ``table`` (``/proc/locks``).

    None when the table cannot be read (not Linux); an empty list when no entry names the
    file (the holder left in the meantime, or lives in a pid namespace this one cannot see).
    Worker processes (forked copies of their parent, or started by :mod:`multiprocessing`)
    are folded into the program that started them.
    """
    try:
        st = os.stat(path)
        lines = (table or _LOCKS_TABLE).read_text(encoding="ascii", errors="replace").splitlines()
    except OSError:
        return None
    dev = (os.major(st.st_dev), os.minor(st.st_dev))
    pids: dict[int, bool] = {}  # pid -> holds it for writing
    for line in lines:
        fields = line.split()
        # "1: FLOCK  ADVISORY  WRITE 1234 fe:00:2162978 0 EOF"; "1: -> FLOCK ..." is a waiter, not a holder
        if len(fields) < 6 or fields[1] == "->":
            continue
        try:
            pid = int(fields[4])
            major, minor, inode = fields[5].split(":")
            same = (int(major, 16), int(minor, 16)) == dev and int(inode) == st.st_ino
        except ValueError:
            continue
        if same and pid > 0:
            pids[pid] = pids.get(pid, False) or fields[3] == "WRITE"
    groups: dict[int, list[int]] = {}
    for pid in pids:
        groups.setdefault(_command_owner(pid), []).append(pid)
    return [
        Holder(
            owner,
            _command(owner),
            _process_start(owner),
            any(pids[p] for p in members),
            len(set(members) | {owner}),
        )
        for owner, members in sorted(groups.items())
    ]


def _recorded_holder(path: Path, directory: Path) -> list[Holder]:
    """The writer named by the lock file's record, if that record is still true; else none."""
    try:
        record = json.loads(path.read_text(encoding="utf-8") or "null")
        pid, host, started = int(record["pid"]), str(record["host"]), record["started"]
        store, command = str(record["store"]), str(record["command"])
    except (OSError, ValueError, TypeError, KeyError):
        return []
    if host != socket.gethostname() or store != os.path.realpath(directory) or not _alive(pid):
        return []
    now = _process_start(pid)
    if started is not None and now is not None and abs(float(started) - now) > 2:
        return []  # the pid was reused by a later process
    return [Holder(pid, command, now, True)]


def describe_holders(holders: Sequence[Holder]) -> str:
    """Holders in words: ``craftrdf serve --store s (pid 1234 and 2 worker processes, reading since 12:03)``."""
    if not holders:
        return "another process (it could not be identified: it may have just finished)"
    parts = []
    for h in holders:
        who = "this process" if h.pid == os.getpid() else f"`{h.command}`" if h.command else "a process"
        pid = f"pid {h.pid}"
        if h.processes > 1:
            others = h.processes - 1
            pid += f" and {others} worker process{'es' if others > 1 else ''}"
        doing = "writing" if h.writing else "reading"
        since = f" since {_clock(h.started)}" if h.started is not None else ""
        parts.append(f"{who} ({pid}, {doing}{since})")
    return "; ".join(parts)


def _clock(epoch: float) -> str:
    started = time.localtime(epoch)
    if time.strftime("%Y-%m-%d", started) == time.strftime("%Y-%m-%d"):
        return time.strftime("%H:%M", started)
    return time.strftime("%Y-%m-%d %H:%M", started)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # someone else's process: it exists
        return True
    return True


def _stat_fields(pid: int) -> list[str] | None:
    """Fields 3 onwards of ``/proc/<pid>/stat`` (after the command name, which may hold spaces)."""
    try:
        text = (_PROC / str(pid) / "stat").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    return text[text.rfind(")") + 2 :].split()


def _boot_time() -> float | None:
    try:
        for line in (_PROC / "stat").read_text(encoding="ascii", errors="replace").splitlines():
            if line.startswith("btime "):
                return float(line.split()[1])
    except (OSError, ValueError):
        pass
    return None


def _process_start(pid: int) -> float | None:
    """When process ``pid`` started (epoch seconds), from /proc; None where that cannot be read."""
    fields, boot = _stat_fields(pid), _boot_time()
    if fields is None or boot is None or len(fields) < 20:
        return None
    return boot + int(fields[19]) / os.sysconf("SC_CLK_TCK")  # field 22, starttime, in clock ticks


def _argv(pid: int) -> list[str]:
    try:
        raw = (_PROC / str(pid) / "cmdline").read_bytes()
    except OSError:
        return []
    return [a.decode("utf-8", "replace") for a in raw.split(b"\0") if a]


def _is_worker(argv: Sequence[str]) -> bool:
    """True for a child started by :mod:`multiprocessing` (spawn or forkserver): its parent is the program."""
    return "--multiprocessing-fork" in argv or any(a.startswith("from multiprocessing") for a in argv[1:3])


def _command_owner(pid: int) -> int:
    """The program ``pid`` works for: its ancestor through forked copies and multiprocessing workers, or ``pid``."""
    seen = {pid}
    while True:
        argv = _argv(pid)
        fields = _stat_fields(pid)
        parent = int(fields[1]) if fields and len(fields) > 1 else 0
        if parent <= 1 or parent in seen or not (_is_worker(argv) or _argv(parent) == argv):
            return pid
        pid = parent
        seen.add(pid)


def _command(pid: int) -> str:
    """The command of ``pid`` as its user typed it: ``craftrdf serve --store s`` rather than the interpreter's path."""
    argv = _argv(pid)
    for i, arg in enumerate(argv):
        if os.path.basename(arg) == "craftrdf":
            argv = ["craftrdf", *argv[i + 1 :]]
            break
        if arg == "-m" and i + 1 < len(argv) and argv[i + 1].split(".")[0] == "craftrdf":
            argv = ["craftrdf", *argv[i + 2 :]]
            break
        if arg == "-c" and i + 1 < len(argv):  # the script itself says little and can be long
            argv = [os.path.basename(argv[0]), *argv[1:i], "-c", "…", *argv[i + 2 :]]
            break
    else:
        if argv:
            argv = [os.path.basename(argv[0]), *argv[1:]]
    text = " ".join(" ".join(argv).split())  # a `python -c` script's newlines too
    return text if len(text) <= 120 else text[:119] + "…"


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
