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

Everything that touches the store runs in a worker process, under the time limit, and is
cancelled (its worker killed) when the client disconnects. Bodies are counted as they stream
(:func:`~craftrdf.publishing.server.transport.read_body`); every response says ``X-Content-Type-Options: nosniff``; with
``cors_origin`` pages of that origin may query (never update).
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import hmac
import logging
import os
import re
import shutil
import tempfile
import threading
from collections.abc import AsyncIterator, Callable, Sequence
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pyoxigraph as ox
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.middleware import Middleware
from starlette.middleware.cors import CORSMiddleware
from starlette.requests import ClientDisconnect, Request
from starlette.responses import FileResponse, HTMLResponse, PlainTextResponse, Response
from starlette.routing import BaseRoute, Route, Router
from starlette.types import Receive, Scope, Send

from ...core.curie import CurieMap
from ...core.vocab import BASE, OBO
from .config import ServerConfig
from .guard import RequestRefused, check_request, with_using
from .jobs import QueryJob, run_sparql, run_update
from .linked import (
    DUMP_FORMATS,
    DatasetSizes,
    describe,
    dump_set,
    graph_sizes,
    rdf_prefixes,
    render_html,
    resource_iri,
    void_triples,
)
from .pages import HEADERS as PAGE_HEADERS
from .pages import index_page, query_page, results_html
from .protocol import GRAPH_TYPES, HTML, RESULT_TYPES, SparqlRequest, negotiate, parse_sparql_request
from .transport import AccessLog, Nosniff, disconnected, read_body
from .workers import ClientGone, PooledStore, StoreOpener, WorkerPool

logger = logging.getLogger(__name__)

_KINDS = ("doc", "ann", "set", "ontology", "mappings", "class")
_FORMAT_PARAM = {
    "ttl": "text/turtle",
    "nt": "application/n-triples",
    "jsonld": "application/ld+json",
    "rdf": "application/rdf+xml",
    "html": HTML,
}
_DUMP_NAME = re.compile(r"^[A-Za-z][A-Za-z0-9_+\-]*\.(?:" + "|".join(DUMP_FORMATS) + ")$")
#: What a resource is offered as, in order of preference when the client does not mind.
_OFFERED = ["text/turtle", "application/ld+json", "application/n-triples", "application/rdf+xml", HTML]
#: What /sparql answers in: HTML last, so only a client preferring it (a browser) gets the query page.
_SPARQL_OFFERED = [*RESULT_TYPES, *GRAPH_TYPES, HTML]


class _State:
    """The app's caches: graph sizes for VoID (recomputed after an update)."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.sizes: DatasetSizes | None = None


def _refuse(exc: RequestRefused) -> Response:
    headers = {"WWW-Authenticate": 'Bearer realm="craftrdf"'} if exc.status == 401 else {}
    if exc.retry_after is not None:
        headers["Retry-After"] = str(exc.retry_after)
    if exc.status in (408, 413):  # the rest of the body is not read: the connection cannot be reused
        headers["Connection"] = "close"
    return PlainTextResponse(exc.message + "\n", status_code=exc.status, headers=headers)


def _origin(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}".lower()


async def _call(
    pool: WorkerPool, fn: Callable[..., Any], args: tuple[Any, ...], timeout: float, request: Request | None
) -> Any:
    """Run ``fn`` in the pool off the event loop; with ``request``, stop it (killing its worker) if the client goes."""
    if request is None:
        return await run_in_threadpool(pool.call, fn, *args, timeout=timeout)
    cancel = threading.Event()
    job = asyncio.ensure_future(
        run_in_threadpool(functools.partial(pool.call, fn, *args, timeout=timeout, cancel=cancel))
    )
    gone = asyncio.ensure_future(disconnected(request.receive))
    await asyncio.wait({job, gone}, return_when=asyncio.FIRST_COMPLETED)
    if not job.done():
        cancel.set()
    gone.cancel()
    return await job


# over 80 lines: the routes are closures over one app's pool and limits (tests/test_layout.py)
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
    state = _State()
    curies = CurieMap()
    base = config.base_iri
    endpoint = base + "sparql"
    allowed_origins = {_origin(base)}
    dumps = Path(dump_dir)
    dumps.mkdir(parents=True, exist_ok=True)

    async def call(
        fn: Callable[..., Any], *args: Any, timeout: float | None = None, request: Request | None = None
    ) -> Any:
        return await _call(pool, fn, args, timeout or config.timeout, request)

    # -- SPARQL ------------------------------------------------------------------------

    def authorise_update(request: Request) -> None:
        if not config.allow_update or config.token is None:
            raise RequestRefused(403, "this server is read-only: SPARQL Update is disabled")
        origin = request.headers.get("origin")
        own = _origin(f"{request.url.scheme}://{request.headers.get('host', '')}")
        if origin is not None and origin.lower() not in allowed_origins | {own}:
            raise RequestRefused(403, f"updates from another origin ({origin}) are refused")
        scheme, _, credential = request.headers.get("authorization", "").partition(" ")
        if scheme.lower() != "bearer" or not hmac.compare_digest(credential.strip().encode(), config.token.encode()):
            raise RequestRefused(401, "updates need the server's token: send 'Authorization: Bearer <token>'")

    def query_job(req: SparqlRequest, results: str | None, graph: str | None) -> QueryJob:
        return QueryJob(
            req.text,
            req.default_graphs,
            req.named_graphs,
            results,
            graph,
            config.max_results,
            endpoint,
            config.union_default_graph,
        )

    def page(request: Request, query: str, results: str = "", error: str | None = None, status: int = 200) -> Response:
        root = "" if request.url.path.endswith("/sparql") else "../"  # the page is at /sparql or /sparql/
        text = query_page(root=root, query=query, union=config.union_default_graph, results=results, error=error)
        return HTMLResponse(text, status_code=status, headers={**PAGE_HEADERS, "Vary": "Accept"})

    async def page_results(request: Request, req: SparqlRequest) -> Response:
        """A browser's query: the query page with the results as a table, or with the error."""
        try:
            check_request(req.text, config.limits)
            answer = await call(run_sparql, query_job(req, "JSON", "TURTLE"), request=request)
        except ClientGone:
            raise
        except RequestRefused as exc:
            return page(request, req.text, error=exc.message, status=exc.status)
        return page(request, req.text, results_html(answer, local_url=local_url, curies=curies))

    async def sparql(request: Request) -> Response:
        if request.method == "OPTIONS":
            return Response(status_code=204, headers={"Allow": "GET, POST, OPTIONS"})
        accept = request.headers.get("accept")
        browser = negotiate(accept, _SPARQL_OFFERED) == HTML
        if browser and request.method == "GET" and not {"query", "update"} & set(request.query_params):
            return page(request, "")
        body = await read_body(request, config.max_body, config.body_timeout) if request.method == "POST" else b""
        req = parse_sparql_request(request.method, request.url.query, request.headers.get("content-type"), body)
        if browser and req.kind == "query":
            return await page_results(request, req)
        if req.kind == "update":
            authorise_update(request)
        check_request(req.text, config.limits)
        if req.kind == "update":
            text = with_using(req.text, req.default_graphs, req.named_graphs)
            answer = await call(run_update, text, endpoint, request=request)
            with state.lock:
                state.sizes = None
            shutil.rmtree(dumps, ignore_errors=True)
            dumps.mkdir(parents=True, exist_ok=True)
            return PlainTextResponse(answer.body.decode(), status_code=200)
        results = negotiate(accept, list(RESULT_TYPES))
        graph = negotiate(accept, list(GRAPH_TYPES))
        if results is None and graph is None:
            raise RequestRefused(
                406, "no acceptable result format; offered: " + ", ".join(dict.fromkeys([*RESULT_TYPES, *GRAPH_TYPES]))
            )
        job = query_job(req, RESULT_TYPES[results] if results else None, GRAPH_TYPES[graph] if graph else None)
        answer = await call(run_sparql, job, request=request)
        return Response(answer.body, media_type=answer.media_type, headers={"Vary": "Accept"})

    # -- linked data -------------------------------------------------------------------

    def local_url(iri: str) -> str | None:
        if iri.startswith(BASE):
            return base + iri[len(BASE) :]
        if iri.startswith(OBO.NS):
            curie = curies.compress(iri)
            return base + "class/" + curie if curie != iri else None
        return None

    def rdf_response(triples: Sequence[ox.Triple], mtype: str) -> Response:
        fmt = getattr(ox.RdfFormat, GRAPH_TYPES[mtype])
        body = ox.serialize(
            triples, format=fmt, prefixes=rdf_prefixes() if fmt in (ox.RdfFormat.TURTLE, ox.RdfFormat.RDF_XML) else None
        )
        return Response(body, media_type=fmt.media_type, headers={"Vary": "Accept"})

    def choose(request: Request) -> str:
        forced = request.query_params.get("format")
        if forced is not None:
            if forced not in _FORMAT_PARAM:
                raise RequestRefused(406, f"unknown format {forced!r}: use {', '.join(_FORMAT_PARAM)}")
            return _FORMAT_PARAM[forced]
        mtype = negotiate(request.headers.get("accept"), _OFFERED)
        if mtype is None:
            raise RequestRefused(406, "no acceptable format; offered: " + ", ".join(_OFFERED))
        return mtype

    async def resource(request: Request) -> Response:
        kind, rest = request.path_params["kind"], request.path_params["rest"]
        mtype = choose(request)
        iri = resource_iri(kind, rest, curies)
        triples = list(ox.parse(await call(describe, iri), ox.RdfFormat.N_TRIPLES))
        if not triples:
            raise RequestRefused(404, f"the store has nothing about {iri}")
        if mtype == HTML:
            return HTMLResponse(
                render_html(iri, triples, local_url=local_url, curies=curies), headers={"Vary": "Accept"}
            )
        return rdf_response(triples, mtype)

    async def void(request: Request) -> Response:
        mtype = choose(request)
        with state.lock:
            sizes = state.sizes
        if sizes is None:
            sizes = await call(graph_sizes, timeout=max(config.timeout, 120.0))
            with state.lock:
                state.sizes = sizes
        set_prefix = BASE + "set/"
        keys = [s.graph[len(set_prefix) :] for s in sizes.graphs if s.graph.startswith(set_prefix)]
        triples = void_triples(sizes, base_url=base, dump_keys=keys, union_default_graph=config.union_default_graph)
        if mtype == HTML:
            return HTMLResponse(
                render_html(base + ".well-known/void#dataset", triples, local_url=local_url, curies=curies)
            )
        return rdf_response(triples, mtype)

    async def dump(request: Request) -> Response:
        name = request.path_params["name"]
        key, _, ext = name.rpartition(".")
        if not _DUMP_NAME.match(name):  # checked here too so a traversal attempt never reaches a worker
            raise RequestRefused(
                404, f"no dump named {name!r}: use /dump/KEY.ext with ext one of " + ", ".join(DUMP_FORMATS)
            )
        path = await call(dump_set, key, ext, os.fspath(dumps), timeout=config.dump_timeout)
        return FileResponse(path, media_type=DUMP_FORMATS[ext][1], filename=name)

    async def index(request: Request) -> Response:
        return HTMLResponse(index_page(union=config.union_default_graph), headers=PAGE_HEADERS)

    routes: list[BaseRoute] = [
        Route("/", index),
        Route("/sparql", sparql, methods=["GET", "POST", "PUT", "DELETE", "PATCH", "OPTIONS"]),
        Route("/sparql/", sparql, methods=["GET", "POST", "PUT", "DELETE", "PATCH", "OPTIONS"]),
        Route("/.well-known/void", void),
        Route("/dump/{name}", dump),
    ]
    viewer_app = _viewer_router(PooledStore(pool, timeout=config.timeout), base) if viewer else None
    # the store's resources first: their HTML for documents and classes is handed to the viewer
    routes += [Route(f"/{kind}/{{rest:path}}", _Negotiated(kind, resource, viewer_app)) for kind in _KINDS]
    if viewer_app is not None:
        routes.extend(viewer_app.routes)

    async def refused(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, RequestRefused)
        if isinstance(exc, ClientGone):
            logger.info("client went away during %s %s; its query was cancelled", request.method, request.url.path)
        return _refuse(exc)

    async def failed(request: Request, exc: Exception) -> Response:
        if isinstance(exc, ClientDisconnect | ClientGone):  # routine: one line, no traceback
            logger.info("client went away during %s %s", request.method, request.url.path)
            return Response(status_code=499)
        logger.exception("unexpected error serving %s", request.url.path)
        return PlainTextResponse("internal error; the server log has the details\n", status_code=500)

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        yield
        if on_shutdown is not None:
            on_shutdown()

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
    return Starlette(
        routes=routes,
        middleware=middleware,
        exception_handlers={RequestRefused: refused, ClientDisconnect: failed, Exception: failed},
        lifespan=lifespan,
    )


class _Negotiated:
    """The dereferencing endpoint of one kind: HTML for documents and classes goes to the viewer."""

    def __init__(self, kind: str, endpoint: Callable[[Request], Any], viewer: Router | None) -> None:
        self.kind = kind
        self.endpoint = endpoint
        self.viewer = viewer

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        scope["path_params"] = {**scope.get("path_params", {}), "kind": self.kind}
        request = Request(scope, receive)
        forced = request.query_params.get("format")
        wants_html = forced == "html" or (forced is None and negotiate(request.headers.get("accept"), _OFFERED) == HTML)
        if (
            wants_html
            and self.viewer is not None
            and self.kind in ("doc", "class")
            and "/" not in request.path_params["rest"]
        ):
            await self.viewer(scope, receive, send)
            return
        try:
            response = await self.endpoint(request)
        except RequestRefused as exc:
            response = _refuse(exc)
        await response(scope, receive, send)


def _viewer_router(store: PooledStore, base_iri: str) -> Router | None:
    """The article viewer's routes as a router, or None (with a warning) when it is unavailable."""
    try:
        from .viewer import viewer_routes

        return Router(routes=list(viewer_routes(store, base_iri=base_iri)))
    except Exception as exc:  # any failure of an optional part must not stop the endpoint
        logger.warning("article viewer unavailable (%s: %s); serving plain HTML pages instead", type(exc).__name__, exc)
        return None


def serve(
    store: str | os.PathLike[str],
    config: ServerConfig,
    *,
    host: str = "127.0.0.1",
    port: int = 8080,
    workers: int = 2,
    heavy_workers: int = 2,
    header_timeout: float = 10.0,
) -> None:
    """Run the server on ``store`` until interrupted: a worker pool, the app, uvicorn.

    Read-only: ``workers`` processes open the store read-only (shared lock) for queries, and
    ``heavy_workers`` more take the queries that run past a second (at most that many at
    once; see :class:`~craftrdf.publishing.server.workers.WorkerPool`). With updates enabled, one writer
    process owns the store and runs every query and update in turn (a reader may not open the
    store beside a live writer). Unless the limits allow LOAD or SERVICE, workers run without
    network access (:mod:`craftrdf.publishing.server.sandbox`). Connections must send their request head
    within ``header_timeout`` seconds (:mod:`craftrdf.publishing.server.transport`). StoreError if the
    store cannot be opened (missing, or locked by another writer).
    """
    import uvicorn

    from .transport import uvicorn_config

    opener = StoreOpener(os.fspath(store), "write" if config.allow_update else "read")
    size, heavy = (1, 0) if config.allow_update else (workers, heavy_workers)
    no_network = not (config.limits.allow_load or config.limits.allow_service)
    dump_dir = tempfile.mkdtemp(prefix="craftrdf-dumps-")
    pool = WorkerPool(opener, size=size, heavy=heavy, no_network=no_network)

    def close() -> None:
        # also reached through the lifespan: uvicorn re-raises SIGTERM after shutting down,
        # which ends the process before a `finally` here would run
        pool.close()
        shutil.rmtree(dump_dir, ignore_errors=True)

    try:
        app = create_app(pool, config=config, dump_dir=dump_dir, on_shutdown=close)
        listening = f"http://{host}:{port}/"
        logger.info(
            "serving %s at %s (%s%s, %d+%d worker(s)%s%s)",
            store,
            config.base_iri,
            "" if config.base_iri == listening else f"listening on {host}:{port}, ",
            "updates enabled" if config.allow_update else "read-only",
            size,
            heavy,
            ", no network" if no_network else "",
            ", union default graph" if config.union_default_graph else "",
        )
        uvicorn.Server(uvicorn_config(app, host=host, port=port, header_timeout=header_timeout)).run()
    finally:
        close()
