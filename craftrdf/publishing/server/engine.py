"""Inside a query worker process: no network, a large stack for the engine, one call at a time.

:func:`worker_main` is the entry point :class:`~craftrdf.publishing.server.workers.WorkerPool` starts each
worker with; it reports what a call raised as an HTTP status the pool hands back to the client.
"""

from __future__ import annotations

import os
import signal
import threading
from collections.abc import Callable
from multiprocessing.connection import Connection
from typing import Any

from ...core.errors import CraftrdfError
from ...store.local import AnnotationStore
from .guard import RequestRefused
from .sandbox import deny_network

#: Stack of the thread that runs the engine in a worker. pyoxigraph's parser and evaluator recurse
#: on the query's structure (nested groups, collections, sibling groups, operator chains), and on
#: the default 8 MiB main-thread stack a query of 5,000-20,000 such items segfaults the worker.
#: Measured on 0.5.13 (docs/server.md, *No crash from any query text*): 49,000 nested groups
#: (98,000 characters, near the length limit) peak at about 200 MB; the stack is reserved address
#: space, only the pages a query touches become memory.
ENGINE_STACK = 1 << 30


def worker_main(
    conn: Connection, opener: Callable[[], AnnotationStore], no_network: bool = True, niceness: int = 0
) -> None:
    """A worker's entry point: deny itself the network, then run :func:`_worker_loop` on a thread with a large stack.

    ``niceness`` > 0 lowers the worker's CPU priority for its whole life (a lane of lesser work).
    """
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent decides when workers stop
    if niceness > 0:
        os.nice(niceness)
    if no_network:
        deny_network()  # before the store is opened and any request is seen; inherited by threads
    threading.stack_size(ENGINE_STACK)
    engine = threading.Thread(target=_worker_loop, args=(conn, opener), name="craftrdf-engine")
    engine.start()
    engine.join()


def _worker_loop(conn: Connection, opener: Callable[[], AnnotationStore]) -> None:
    """Open the store, then run ``(fn, args)`` messages until told to stop."""
    try:
        store = opener()
    except Exception as exc:  # reported to the parent, which says it in one line
        conn.send(("fail", f"{type(exc).__name__}: {exc}"))
        return
    conn.send(("ready", os.getpid()))
    try:
        while True:
            try:
                msg = conn.recv()
            except EOFError:
                break
            if msg is None:
                break
            fn, args = msg
            try:
                reply: tuple[Any, ...] = ("ok", fn(store, *args))
            except RequestRefused as exc:
                reply = ("err", exc.status, exc.message)
            except SyntaxError as exc:
                reply = ("err", 400, f"SPARQL syntax error: {exc}")
            except CraftrdfError as exc:
                reply = ("err", 404 if "no annotation set" in str(exc) else 400, str(exc))
            except ValueError as exc:
                reply = ("err", 400, str(exc))
            except Exception as exc:  # the engine's own failures; the client needs the message
                reply = ("err", 500, f"query failed: {type(exc).__name__}: {exc}")
            conn.send(reply)
    finally:
        store.close()
