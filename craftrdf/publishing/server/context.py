"""What the server's routes share: the worker pool, the config, the CURIE map and the derived caches.

:class:`AppContext` is built once per app by :func:`craftrdf.publishing.server.app.create_app` and handed to
each resource's routes (:mod:`craftrdf.publishing.server.routes`). Its :meth:`~AppContext.call` runs a
function in the pool off the event loop, and stops it (killing its worker) when the client goes;
with a request, the call is charged to its client's budget (:mod:`craftrdf.publishing.server.budget`).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import functools
import shutil
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from starlette.requests import Request

from ...core.curie import CurieMap
from ...core.vocab import BASE, OBO
from .budget import ClientBudgets, client_of
from .config import ServerConfig
from .linked import DatasetSizes, dump_set
from .pooled import LANE_NICENESS
from .transport import disconnected
from .workers import Usage, WorkerPool


@dataclass
class AppContext:
    """One app's pool, config and dump folder, and the caches derived from the store (dropped after an update)."""

    pool: WorkerPool
    config: ServerConfig
    dumps: Path
    curies: CurieMap = field(default_factory=CurieMap)
    sizes: DatasetSizes | None = None
    lock: threading.Lock = field(default_factory=threading.Lock)
    budgets: ClientBudgets | None = None
    exports: dict[str, concurrent.futures.Future[str]] = field(default_factory=dict)  # dumps being made, by name
    # the threads that wait on the pool for the routes, apart from Starlette's thread pool: the
    # viewer's pages block its threads on their lane, and must not hold up the protocol's queries
    calls: concurrent.futures.ThreadPoolExecutor = field(
        default_factory=lambda: concurrent.futures.ThreadPoolExecutor(64, thread_name_prefix="craftrdf-call")
    )

    def __post_init__(self) -> None:
        if self.budgets is None and self.config.client_budget:
            self.budgets = ClientBudgets(self.config.client_budget, heavy_after=self.pool.heavy_after)

    @property
    def base(self) -> str:
        """The public URL of the server's root (ends with ``/``)."""
        return self.config.base_iri

    @property
    def endpoint(self) -> str:
        """The SPARQL endpoint's URL, the base IRI of queries and updates."""
        return self.config.base_iri + "sparql"

    async def call(
        self, fn: Callable[..., Any], *args: Any, timeout: float | None = None, request: Request | None = None
    ) -> Any:
        """Run ``fn(store, *args)`` in the pool off the event loop (the config's time limit unless ``timeout``).

        With ``request``, the call is stopped (its worker killed) when that client disconnects, and
        the time it held a worker is charged to the client: RequestRefused 429 before any work
        when the client's budget is spent; a client whose last call was long runs in the heavy lane.
        """
        limit = timeout or self.config.timeout
        loop = asyncio.get_running_loop()
        if request is None:
            return await loop.run_in_executor(self.calls, functools.partial(self.pool.call, fn, *args, timeout=limit))
        client = client_of(request, self.config.token) if self.budgets is not None else ""
        heavy = self.budgets.admit(client) if self.budgets is not None else False
        cancel = threading.Event()
        usage = Usage()
        call = functools.partial(self.pool.call, fn, *args, timeout=limit, cancel=cancel, heavy=heavy, usage=usage)
        job = loop.run_in_executor(self.calls, call)
        gone = asyncio.ensure_future(disconnected(request.receive))
        try:
            await asyncio.wait({job, gone}, return_when=asyncio.FIRST_COMPLETED)
            if not job.done():
                cancel.set()
            gone.cancel()
            return await job
        finally:
            if self.budgets is not None:
                self.budgets.charge(client, usage.seconds)

    async def dump(self, key: str, ext: str) -> Path:
        """The dump of set ``key`` as ``ext``: from the cache folder, else exported once in the ``dumps`` lane.

        Requests for a dump being exported wait for that one export, which runs on a thread of its
        own (no client's departure cancels it) in a worker of its own (:meth:`WorkerPool.lane`), so
        downloads never hold the query workers; a cached dump is sent without any worker.
        """
        path = self.dumps / f"{key}.{ext}"
        if path.is_file():
            return path
        with self.lock:
            export = self.exports.get(path.name)
            if export is None:
                export = self.exports[path.name] = concurrent.futures.Future()
                threading.Thread(
                    target=self._export, args=(export, key, ext), name="craftrdf-dump", daemon=True
                ).start()
        made: str = await asyncio.wrap_future(export)
        return Path(made)

    def _export(self, export: concurrent.futures.Future[str], key: str, ext: str) -> None:
        """Export one dump in the ``dumps`` lane into ``export`` (its path, or what the worker raised)."""
        try:
            limit = self.config.dump_timeout
            export.set_result(
                self.pool.lane("dumps", niceness=LANE_NICENESS).call(
                    dump_set, key, ext, str(self.dumps), timeout=limit, wait=limit
                )
            )
        except BaseException as exc:  # handed to every waiting request
            export.set_exception(exc)
        finally:
            with self.lock:
                self.exports.pop(f"{key}.{ext}", None)

    def local_url(self, iri: str) -> str | None:
        """This server's URL for a store IRI (documents, annotations, OBO classes), or None."""
        if iri.startswith(BASE):
            return self.base + iri[len(BASE) :]
        if iri.startswith(OBO.NS):
            curie = self.curies.compress(iri)
            return self.base + "class/" + curie if curie != iri else None
        return None

    def store_changed(self) -> None:
        """Drop what was derived from the store (VoID counts, cached dumps): an update changed it."""
        with self.lock:
            self.sizes = None
        shutil.rmtree(self.dumps, ignore_errors=True)
        self.dumps.mkdir(parents=True, exist_ok=True)
