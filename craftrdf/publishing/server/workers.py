"""Worker processes that run queries and can be killed: the server's time limit and crash barrier.

pyoxigraph 0.5.13 cannot cancel a running query and a pathological query can crash the
process. So the server never runs the engine itself: a :class:`WorkerPool` keeps a few
processes, each with the store open (read-only, so they share it; or one writer when updates
are enabled), and sends them work over a pipe. A call that overruns its time limit gets its
worker killed (SIGKILL) and replaced, and the caller a 503; a worker that dies mid-call (a
segfault) is replaced too, and the caller gets a 500. The pool never returns a partial answer.

Work is a module-level function ``fn(store, *args)`` (pickled by name) run in the worker
with the worker's :class:`~craftrdf.store.local.AnnotationStore`; :func:`run_sparql` and
:func:`run_update` are the SPARQL ones. :class:`~craftrdf.publishing.server.pooled.PooledStore` gives code
written for an ``AnnotationStore`` (the article viewer) the same ``query`` interface, run in the pool.
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import multiprocessing as mp
import os
import queue
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from multiprocessing.connection import Connection
from typing import Any, Literal

from ...core.errors import StoreError
from ...store.local import AnnotationStore
from .engine import worker_main
from .guard import RequestRefused

logger = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class StoreOpener:
    """How a worker opens the store: a path and a mode ("read" for a pool, "write" for the one writer)."""

    path: str
    mode: Literal["read", "write"] = "read"

    def __call__(self) -> AnnotationStore:
        return AnnotationStore.open(self.path, mode=self.mode)


@dataclass(slots=True)
class _Worker:
    process: mp.process.BaseProcess
    conn: Connection


def _renice(w: _Worker, niceness: int) -> bool:
    """Set ``w``'s CPU niceness; False where not allowed (raising priority needs privileges)."""
    try:
        os.setpriority(os.PRIO_PROCESS, w.process.pid or 0, niceness)
    except OSError:
        return False
    return True


_PAGE = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096


def _resident(w: _Worker) -> int:
    """``w``'s resident set in bytes, from ``/proc`` (0 where there is none: not Linux, or the process is gone)."""
    try:
        with open(f"/proc/{w.process.pid}/statm", "rb") as f:
            return int(f.read().split()[1]) * _PAGE
    except (OSError, IndexError, ValueError):
        return 0


@dataclass(slots=True)
class Usage:
    """What a call cost: the seconds it held a worker (filled in by :meth:`WorkerPool.call`, whatever its end)."""

    seconds: float = 0.0


class ClientGone(RequestRefused):
    """The client of a call went away (its ``cancel`` event was set); the call was stopped."""

    def __init__(self) -> None:
        super().__init__(499, "the client closed the connection; its query was cancelled")


class WorkerPool:
    """Processes holding the store open, each running one call at a time, killed when they overrun.

    ``size`` workers are started at once and the constructor waits until each has opened the
    store (StoreError naming the reason if one cannot, e.g. the store is locked by a writer).
    A writer pool (``opener.mode == "write"``) must have size 1. Use as a context manager or
    call :meth:`close`; :meth:`call` is thread-safe and blocking (run it off the event loop).

    Fairness: with ``heavy`` > 0, ``heavy`` more workers are started, and a call still running
    after ``heavy_after`` seconds counts as heavy. At most ``heavy`` calls may be heavy at once;
    one more is stopped at that moment with 503 and ``Retry-After``, so heavy calls never hold
    more than ``heavy`` workers and ``size`` workers remain for simple queries. The pool
    remembers calls that turned heavy (the last 1,024, by a hash of the function and its
    arguments): the same call again is counted heavy from the start, and refused at once with
    503 and ``Retry-After`` (no worker touched) when the lane is full or fewer than ``size``
    ready workers would remain beside it. A heavy
    call's worker is lowered in CPU priority (nice +10) and, when its priority cannot be raised
    again afterwards (not root), replaced by a fresh one. With ``no_network`` (the default; the
    server never turns it off) each worker denies itself network sockets before opening the store
    (:func:`craftrdf.publishing.server.sandbox.deny_network`). With ``max_memory`` (bytes), a worker whose
    resident size passes it during a call is killed and replaced, and the caller gets 503.
    """

    def __init__(
        self,
        opener: Callable[[], AnnotationStore],
        *,
        size: int = 2,
        heavy: int = 0,
        heavy_after: float = 1.0,
        no_network: bool = True,
        max_memory: int | None = None,
        start_timeout: float = 120.0,
        niceness: int = 0,
    ) -> None:
        if size < 1 or heavy < 0:
            raise StoreError("a worker pool needs at least one worker")
        if getattr(opener, "mode", "read") == "write" and size + heavy != 1:
            raise StoreError("updates need a single writer: use one worker with --allow-update")
        self.size = size + heavy
        self.fast = size
        self.heavy = heavy
        self.heavy_after = heavy_after
        self.no_network = no_network
        self.max_memory = max_memory
        self._opener = opener
        self._ctx = mp.get_context("spawn")
        self._idle: queue.Queue[_Worker] = queue.Queue()
        self._lock = threading.Lock()
        self._closed = False
        self._heavy_running = 0
        self._known_heavy: OrderedDict[str, None] = OrderedDict()  # calls that turned heavy before
        self._ready: set[int] = set()  # ids of workers that opened the store and are not killed
        self._all: dict[int, _Worker] = {}
        self._start_timeout = start_timeout
        self.niceness = niceness
        self._lanes: dict[str, WorkerPool] = {}
        self._lanes_lock = threading.Lock()
        self.restarts = 0
        started = [self._spawn() for _ in range(self.size)]
        try:
            for w in started:
                self._await_ready(w)
        except BaseException:
            for w in started:
                self._kill(w)
            raise
        for w in started:
            self._ready.add(id(w))
            self._idle.put(w)

    # -- lifecycle -------------------------------------------------------------------

    def _spawn(self) -> _Worker:
        parent, child = self._ctx.Pipe()
        p = self._ctx.Process(
            target=worker_main,
            args=(child, self._opener, self.no_network, self.niceness),
            daemon=True,
            name="craftrdf-query-worker",
        )
        p.start()
        child.close()
        w = _Worker(p, parent)
        with self._lock:
            self._all[id(w)] = w
        return w

    def _await_ready(self, w: _Worker) -> None:
        if not w.conn.poll(self._start_timeout):
            raise StoreError(f"a query worker did not open the store within {self._start_timeout:g} s")
        try:
            msg = w.conn.recv()
        except EOFError:
            raise StoreError(f"a query worker died while opening the store (exit code {w.process.exitcode})") from None
        if msg[0] != "ready":
            raise StoreError(f"a query worker cannot open the store: {msg[1]}")

    def _kill(self, w: _Worker) -> None:
        # Whoever takes the worker out of _all stops it: close() and a request's replacement can
        # reach the same worker at once, and a second close of its pipe would close a reused fd.
        with self._lock:
            owned = self._all.pop(id(w), None) is not None
            self._ready.discard(id(w))
        if not owned:
            return
        if w.process.is_alive():
            w.process.kill()
        w.process.join(5)
        w.conn.close()

    def _replace(self, w: _Worker, why: str, *, quiet: bool = False) -> None:
        """Kill ``w`` and start its successor in the background (the pool is short one until then)."""
        self._kill(w)
        self.restarts += 1
        (logger.debug if quiet else logger.warning)("query worker %s %s; starting a new one", w.process.pid, why)
        threading.Thread(target=self._start_successor, name="craftrdf-worker-restart", daemon=True).start()

    def _start_successor(self) -> None:
        # a writer's successor can only open the store once the old one's lock is gone,
        # which _kill ensured by joining the killed process
        for attempt in range(3):
            if self._closed:
                return
            try:
                new = self._spawn()
            except OSError as exc:  # e.g. the interpreter is shutting down
                logger.error("cannot start a query worker: %s", exc)
                return
            try:
                self._await_ready(new)
            except (StoreError, OSError) as exc:
                self._kill(new)
                if self.closed():  # the pool was closed under the starting successor
                    return
                logger.error("replacing a query worker failed (attempt %d): %s", attempt + 1, exc)
                time.sleep(1.0)
                continue
            if self.closed():  # closed while the successor was starting
                self._kill(new)
            else:
                with self._lock:
                    self._ready.add(id(new))
                self._idle.put(new)
            return

    def lane(self, name: str, *, niceness: int = 0) -> WorkerPool:
        """A pool of one worker of its own for one kind of work (``"pages"``, ``"dumps"``), started on first use.

        Its worker opens the store as this pool's do, with the same sandbox and memory limit, at
        ``niceness``; it is closed with this pool. So work sent to a lane never takes this pool's
        workers. A writer pool has no lanes (nothing else may open the store): it returns itself.
        """
        if getattr(self._opener, "mode", "read") == "write":
            return self
        with self._lanes_lock:
            if self._closed:
                raise RequestRefused(503, "the server is shutting down")
            pool = self._lanes.get(name)
            if pool is None:
                pool = self._lanes[name] = WorkerPool(
                    self._opener,
                    size=1,
                    no_network=self.no_network,
                    max_memory=self.max_memory,
                    start_timeout=self._start_timeout,
                    niceness=niceness,
                )
        return pool

    def close(self) -> None:
        """Stop every worker (idle ones cleanly, busy ones killed), and the lanes'."""
        with self._lanes_lock:
            self._closed = True
            lanes = list(self._lanes.values())
        for lane in lanes:
            lane.close()
        with self._lock:
            workers = list(self._all.values())
        for w in workers:
            with contextlib.suppress(OSError):
                w.conn.send(None)
        deadline = time.monotonic() + 5
        for w in workers:
            w.process.join(max(deadline - time.monotonic(), 0.1))
            self._kill(w)

    def __enter__(self) -> WorkerPool:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def closed(self) -> bool:
        """True once :meth:`close` has been called."""
        return self._closed

    def pids(self) -> list[int]:
        """Process ids of the live workers (for tests and diagnostics)."""
        with self._lock:
            return [w.process.pid for w in self._all.values() if w.process.pid is not None]

    def idle(self) -> int:
        """How many workers are ready and waiting for a call (for tests and diagnostics)."""
        return self._idle.qsize()

    def heavy_running(self) -> int:
        """How many calls are heavy now (for tests and diagnostics)."""
        with self._lock:
            return self._heavy_running

    # -- calls -----------------------------------------------------------------------

    def _take(self, wait: float) -> _Worker:
        deadline = time.monotonic() + wait
        while True:
            try:
                w = self._idle.get(timeout=max(deadline - time.monotonic(), 0.001))
            except queue.Empty:
                raise RequestRefused(
                    503, f"all {self.size} query workers stayed busy for {wait:g} s; try again later", retry_after=5
                ) from None
            if w.process.is_alive():
                return w
            self._replace(w, f"had died while idle (exit code {w.process.exitcode})")

    def _admit_heavy(self, *, at_dispatch: bool) -> bool:
        """Count one more heavy call if the lane has room; False if not.

        At dispatch (a call known to be heavy), also only while ``fast`` ready workers would
        remain for other calls: after a heavy call is killed its successor takes seconds to
        start, and the next heavy call must not take the simple queries' last worker meanwhile.
        """
        with self._lock:
            if self._heavy_running >= self.heavy:
                return False
            if at_dispatch and len(self._ready) - self._heavy_running - 1 < self.fast:
                return False
            self._heavy_running += 1
            return True

    def _lane_full(self, timeout: float) -> RequestRefused:
        return RequestRefused(
            503,
            f"{self.heavy} long queries are running already, the most this server runs at once; try again later",
            retry_after=max(int(timeout / 2), 1),
        )

    def _remember_heavy(self, key: str) -> None:
        with self._lock:
            self._known_heavy[key] = None
            self._known_heavy.move_to_end(key)
            while len(self._known_heavy) > 1024:
                self._known_heavy.popitem(last=False)

    def _drop_heavy(self) -> None:
        with self._lock:
            self._heavy_running -= 1

    def _end_heavy(self, w: _Worker) -> None:
        """The heavy call on ``w`` is over: restore its priority, or replace it when that is not allowed."""
        self._drop_heavy()
        if not _renice(w, self.niceness):
            self._replace(w, "ran a heavy call at low priority", quiet=True)
            return
        self._idle.put(w)

    def _stopped(self, w: _Worker, heavy: bool, why: str, what: str) -> RequestRefused:
        """Kill and replace ``w``, whose query passed a limit; the 503 its client gets."""
        if heavy:
            self._drop_heavy()
        self._replace(w, f"{why} and was killed")
        return RequestRefused(503, f"the query {what} and was stopped; make it more selective or add LIMIT")

    def _wait(self, w: _Worker, timeout: float, cancel: threading.Event | None, key: str, heavy: bool) -> bool:
        """Wait for ``w``'s answer; True if heavy. Raises (after replacing ``w``) on overrun, cancel, full lane."""
        started = time.monotonic()
        while True:
            elapsed = time.monotonic() - started
            if w.conn.poll(max(min(0.02 if self.max_memory else 0.05, timeout - elapsed), 0)):
                return heavy
            elapsed = time.monotonic() - started
            if cancel is not None and cancel.is_set():
                if heavy:
                    self._drop_heavy()
                self._replace(w, "was running a query whose client went away", quiet=True)
                raise ClientGone()
            if self.max_memory is not None and _resident(w) > self.max_memory:
                limit = f"memory limit of {self.max_memory >> 20} MB per query worker"
                raise self._stopped(w, heavy, f"passed the {limit}", f"used more than the server's {limit}")
            if elapsed >= timeout:
                limit = f"time limit of {timeout:g} s"
                raise self._stopped(w, heavy, f"overran the {limit}", f"ran past the server's {limit}")
            if self.heavy and not heavy and elapsed >= self.heavy_after:
                self._remember_heavy(key)
                heavy = self._admit_heavy(at_dispatch=False)
                if not heavy:
                    self._replace(w, "ran a heavy query while the heavy lane was full", quiet=True)
                    raise self._lane_full(timeout)
                _renice(w, 10)

    def call(
        self,
        fn: Callable[..., Any],
        *args: Any,
        timeout: float,
        wait: float | None = None,
        cancel: threading.Event | None = None,
        heavy: bool = False,
        usage: Usage | None = None,
    ) -> Any:
        """Run ``fn(store, *args)`` in a worker and return its result; at most ``timeout`` seconds.

        With ``heavy`` the call is counted heavy from the start, as a call that turned heavy
        before is (its client's last call was long: :mod:`craftrdf.publishing.server.budget`).
        ``usage``, when given, receives the seconds the call held a worker, however it ended.
        Raises RequestRefused: 503 when the call overran (its worker is killed and replaced),
        no worker became free within ``wait`` seconds (default: ``timeout``), or the call turned
        heavy while the heavy lane was full (with ``retry_after``); :class:`ClientGone` when
        ``cancel`` was set during the call (its worker is killed); 500 when the worker died during
        the call; the worker's own status for errors it reported (400 bad query, 406, 422...).
        """
        if self._closed:
            raise RequestRefused(503, "the server is shutting down")
        key = hashlib.sha256(repr((fn.__module__, fn.__qualname__, args)).encode()).hexdigest()
        with self._lock:
            known = heavy or key in self._known_heavy
        if self.heavy and known and not self._admit_heavy(at_dispatch=True):
            raise self._lane_full(timeout)
        try:
            w = self._take(timeout if wait is None else wait)
        except RequestRefused:
            if self.heavy and known:
                self._drop_heavy()
            raise
        if self.heavy and known:
            _renice(w, 10)
        heavy = bool(self.heavy and known)
        started = time.monotonic()
        try:
            return self._run(w, (fn, args), timeout, cancel, key, heavy)
        finally:
            if usage is not None:
                usage.seconds = time.monotonic() - started

    def _run(
        self, w: _Worker, msg: tuple[Any, ...], timeout: float, cancel: threading.Event | None, key: str, heavy: bool
    ) -> Any:
        """Send ``msg`` to ``w`` and wait for its answer (see :meth:`call`); ``w`` goes back idle or is replaced."""
        try:
            w.conn.send(msg)
            heavy = self._wait(w, timeout, cancel, key, heavy)
        except (OSError, EOFError):
            self._replace(w, "was gone when given work")
            raise RequestRefused(500, "the query worker failed; it has been replaced, try again") from None
        except RequestRefused:
            raise
        except BaseException:
            self._replace(w, "was interrupted")
            raise
        try:
            reply = w.conn.recv()
        except (EOFError, OSError):
            w.process.join(1)
            code = w.process.exitcode
            if heavy:
                self._drop_heavy()
            self._replace(w, f"died during a call (exit code {code})")
            raise RequestRefused(
                500,
                f"the query crashed its worker process (exit code {code}); the server replaced it and keeps serving",
            ) from None
        if heavy:
            self._end_heavy(w)
        else:
            self._idle.put(w)
        if reply[0] == "ok":
            return reply[1]
        raise RequestRefused(reply[1], reply[2])
