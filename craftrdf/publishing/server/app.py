"""The SPARQL 1.1 endpoint and linked-data server: a Starlette app over a pool of query workers.

:func:`create_app` builds the app from its dependencies (a
:class:`~craftrdf.publishing.server.workers.WorkerPool`, a :class:`ServerConfig`, a dump folder);
:func:`serve` opens the pool on a store and runs the app under uvicorn. docs/server.md
describes the routes, the limits and the security model. In short:

- ``/sparql``: the SPARQL 1.1 Protocol (GET, POST form, POST direct); updates only when the
  server was started with updates enabled *and* the request carries the bearer token, never
  from another origin; every request passes :func:`craftrdf.publishing.server.guard.check_request`
  (length, nesting, no LOAD/SERVICE) before a worker parses it.
- ``/doc/…``, ``/ann/…``, ``/set/…``, ``/ontology/…``, ``/mappings/…``, ``/class/CURIE``: the
  store's resources, by content negotiation; HTML for documents and classes comes from the
  article viewer (``craftrdf.publishing.server.viewer``) when it is installed.
- ``/.well-known/void``: the VoID description; ``/dump/KEY.ext``: a set's dump.

The routes live by resource in :mod:`craftrdf.publishing.server.routes` (``sparql``, ``resources``,
``dumps``, ``viewer``) over one :class:`~craftrdf.publishing.server.context.AppContext`; this module puts
them together with the error handlers, the middleware and the lifespan.

Everything that touches the store runs in a worker process, under the time limit, and is
cancelled (its worker killed) when the client disconnects. Bodies are counted as they stream
(:func:`~craftrdf.publishing.server.transport.read_body`); every response says ``X-Content-Type-Options: nosniff``; with
``cors_origin`` pages of that origin may query (never update).
"""

from __future__ import annotations

import contextlib
import logging
import os
import shutil
import tempfile
from collections.abc import AsyncIterator, Callable
from pathlib import Path

from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.middleware.cors import CORSMiddleware
from starlette.requests import ClientDisconnect, Request
from starlette.responses import PlainTextResponse, Response
from starlette.routing import BaseRoute

from ...core.errors import StoreError
from ...store.local import is_store, no_store_message
from .config import ServerConfig
from .context import AppContext
from .guard import RequestRefused
from .routes import dumps, resources, sparql
from .routes.common import refusal
from .routes.viewer import viewer_router
from .transport import AccessLog, Nosniff, uvicorn_config
from .workers import ClientGone, StoreOpener, WorkerPool

logger = logging.getLogger(__name__)


async def _refused(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, RequestRefused)
    if isinstance(exc, ClientGone):
        logger.info("client went away during %s %s; its query was cancelled", request.method, request.url.path)
    return refusal(exc)


async def _failed(request: Request, exc: Exception) -> Response:
    if isinstance(exc, ClientDisconnect | ClientGone):  # routine: one line, no traceback
        logger.info("client went away during %s %s", request.method, request.url.path)
        return Response(status_code=499)
    logger.exception("unexpected error serving %s", request.url.path)
    return PlainTextResponse("internal error; the server log has the details\n", status_code=500)


def _middleware(config: ServerConfig) -> list[Middleware]:
    """The access log (when on), ``nosniff`` on every response, and CORS for ``cors_origin``."""
    middleware = [Middleware(AccessLog)] if config.access_log else []
    middleware.append(Middleware(Nosniff))
    if config.cors_origin:
        # no Authorization among the allowed headers: a page of another origin cannot send the token
        middleware.append(
            Middleware(
                CORSMiddleware,
                allow_origins=[config.cors_origin],
                allow_methods=["GET", "POST"],
                allow_headers=["Accept", "Content-Type"],
                max_age=600,
            )
        )
    return middleware


def create_app(
    pool: WorkerPool,
    *,
    config: ServerConfig,
    dump_dir: str | os.PathLike[str],
    viewer: bool = True,
    on_shutdown: Callable[[], None] | None = None,
) -> Starlette:
    """The Starlette app serving the store behind ``pool`` (which the caller opens and closes).

    ``dump_dir`` caches the set dumps (emptied after each update). With ``viewer`` the
    article viewer's routes are mounted when ``craftrdf.publishing.server.viewer`` imports; if it does
    not, a warning is logged and documents and classes get the plain HTML page.
    ``on_shutdown`` runs when the ASGI server shuts the app down (lifespan), e.g. to close the pool.
    """
    ctx = AppContext(pool, config, Path(dump_dir))
    ctx.dumps.mkdir(parents=True, exist_ok=True)
    viewer_app = viewer_router(ctx) if viewer else None
    routes: list[BaseRoute] = [*sparql.routes(ctx), *dumps.routes(ctx)]
    # the store's resources first: their HTML for documents and classes is handed to the viewer
    routes += resources.routes(ctx, viewer_app)
    if viewer_app is not None:
        routes.extend(viewer_app.routes)

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        yield
        if on_shutdown is not None:
            on_shutdown()

    return Starlette(
        routes=routes,
        middleware=_middleware(config),
        exception_handlers={RequestRefused: _refused, ClientDisconnect: _failed, Exception: _failed},
        lifespan=lifespan,
    )


def serve(
    store: str | os.PathLike[str],
    config: ServerConfig,
    *,
    host: str = "127.0.0.1",
    port: int = 8080,
    workers: int = 2,
    heavy_workers: int = 2,
    header_timeout: float = 10.0,
    create: bool = False,
) -> None:
    """Run the server on ``store`` until interrupted: a worker pool, the app, uvicorn.

    Read-only: ``workers`` processes open the store read-only (shared lock) for queries, and
    ``heavy_workers`` more take the queries that run past a second (at most that many at
    once; see :class:`~craftrdf.publishing.server.workers.WorkerPool`). With updates enabled, one writer
    process owns the store and runs every query and update in turn (a reader may not open the
    store beside a live writer). Workers always run without network access, whatever the
    flags (:mod:`craftrdf.publishing.server.sandbox`). Connections must send their request head
    within ``header_timeout`` seconds (:mod:`craftrdf.publishing.server.transport`). StoreError if the
    store cannot be opened (missing, or locked by another writer).
    """
    import uvicorn

    if not (create and config.allow_update) and not is_store(Path(store)):
        hint = " (or --create, with --allow-update, for a new empty one)" if config.allow_update else ""
        raise StoreError(no_store_message(store) + hint)
    opener = StoreOpener(os.fspath(store), "write" if config.allow_update else "read")
    size, heavy = (1, 0) if config.allow_update else (workers, heavy_workers)
    dump_dir = tempfile.mkdtemp(prefix="craftrdf-dumps-")
    # the engine never gets a network, whatever the flags: LOAD is fetched by craftrdf.publishing.server.load
    pool = WorkerPool(opener, size=size, heavy=heavy, no_network=True, max_memory=config.max_memory)

    def close() -> None:
        # also reached through the lifespan: uvicorn re-raises SIGTERM after shutting down,
        # which ends the process before a `finally` here would run
        pool.close()
        shutil.rmtree(dump_dir, ignore_errors=True)

    try:
        app = create_app(pool, config=config, dump_dir=dump_dir, on_shutdown=close)
        listening = f"http://{host}:{port}/"
        logger.info(
            "serving %s at %s (%s%s, %d+%d worker(s), no network%s%s)",
            store,
            config.base_iri,
            "" if config.base_iri == listening else f"listening on {host}:{port}, ",
            "updates enabled" if config.allow_update else "read-only",
            size,
            heavy,
            f", LOAD from {', '.join(config.load_urls)}" if config.limits.allow_load else "",
            ", union default graph" if config.union_default_graph else "",
        )
        uvicorn.Server(uvicorn_config(app, host=host, port=port, header_timeout=header_timeout)).run()
    finally:
        close()
