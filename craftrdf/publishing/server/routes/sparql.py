"""The SPARQL 1.1 Protocol at ``/sparql``: queries, token-guarded updates, and the query page for browsers.

Every request passes :func:`craftrdf.publishing.server.guard.check_request` before a worker parses it;
updates need the server's bearer token and a request of its own origin (docs/server.md,
*Security model*).
"""

from __future__ import annotations

import hmac
from urllib.parse import urlsplit

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import HTMLResponse, PlainTextResponse, Response
from starlette.routing import BaseRoute, Route

from ..context import AppContext
from ..guard import RequestRefused, check_request, with_using
from ..jobs import QueryJob, run_sparql, run_update
from ..load import LoadRequest, fetch, plain_load, rdf_format, run_load
from ..pages import HEADERS as PAGE_HEADERS
from ..pages import index_page, query_page, results_html
from ..protocol import GRAPH_TYPES, HTML, RESULT_TYPES, SparqlRequest, negotiate, parse_sparql_request
from ..transport import read_body
from ..workers import ClientGone

#: What /sparql answers in: HTML last, so only a client preferring it (a browser) gets the query page.
_SPARQL_OFFERED = [*RESULT_TYPES, *GRAPH_TYPES, HTML]
_METHODS = ["GET", "POST", "PUT", "DELETE", "PATCH", "OPTIONS"]


def _origin(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}".lower()


class SparqlRoutes:
    """``/`` and ``/sparql``: the protocol's queries and updates over one app's context."""

    def __init__(self, ctx: AppContext) -> None:
        self.ctx = ctx
        self.config = ctx.config
        self.allowed_origins = {_origin(ctx.base)}

    def routes(self) -> list[BaseRoute]:
        """The index page and the endpoint (at ``/sparql`` and ``/sparql/``)."""
        return [
            Route("/", self.index),
            Route("/sparql", self.sparql, methods=_METHODS),
            Route("/sparql/", self.sparql, methods=_METHODS),
        ]

    async def index(self, request: Request) -> Response:
        """The index page: the links and where the data is."""
        return HTMLResponse(index_page(union=self.config.union_default_graph), headers=PAGE_HEADERS)

    def authorise_update(self, request: Request) -> None:
        """Refuse an update unless updates are on, it comes from this origin and carries the token (403/401)."""
        if not self.config.allow_update or self.config.token is None:
            raise RequestRefused(403, "this server is read-only: SPARQL Update is disabled")
        origin = request.headers.get("origin")
        own = _origin(f"{request.url.scheme}://{request.headers.get('host', '')}")
        if origin is not None and origin.lower() not in self.allowed_origins | {own}:
            raise RequestRefused(403, f"updates from another origin ({origin}) are refused")
        scheme, _, credential = request.headers.get("authorization", "").partition(" ")
        if scheme.lower() != "bearer" or not hmac.compare_digest(
            credential.strip().encode(), self.config.token.encode()
        ):
            raise RequestRefused(401, "updates need the server's token: send 'Authorization: Bearer <token>'")

    def query_job(self, req: SparqlRequest, results: str | None, graph: str | None) -> QueryJob:
        """The worker's job for a protocol query, in the negotiated formats."""
        return QueryJob(
            req.text,
            req.default_graphs,
            req.named_graphs,
            results,
            graph,
            self.config.max_results,
            self.ctx.endpoint,
            self.config.union_default_graph,
            self.config.max_result_bytes,
        )

    def page(
        self, request: Request, query: str, results: str = "", error: str | None = None, status: int = 200
    ) -> Response:
        """The query page with ``query`` in its form and its results or error below."""
        root = "" if request.url.path.endswith("/sparql") else "../"  # the page is at /sparql or /sparql/
        text = query_page(root=root, query=query, union=self.config.union_default_graph, results=results, error=error)
        return HTMLResponse(text, status_code=status, headers={**PAGE_HEADERS, "Vary": "Accept"})

    async def page_results(self, request: Request, req: SparqlRequest) -> Response:
        """A browser's query: the query page with the results as a table, or with the error."""
        try:
            check_request(req.text, self.config.limits)
            answer = await self.ctx.call(run_sparql, self.query_job(req, "JSON", "TURTLE"), request=request)
        except ClientGone:
            raise
        except RequestRefused as exc:
            return self.page(request, req.text, error=exc.message, status=exc.status)
        return self.page(request, req.text, results_html(answer, local_url=self.ctx.local_url, curies=self.ctx.curies))

    async def sparql(self, request: Request) -> Response:
        """The SPARQL 1.1 Protocol endpoint (GET, POST form, POST direct; OPTIONS)."""
        if request.method == "OPTIONS":
            return Response(status_code=204, headers={"Allow": "GET, POST, OPTIONS"})
        accept = request.headers.get("accept")
        browser = negotiate(accept, _SPARQL_OFFERED) == HTML
        if browser and request.method == "GET" and not {"query", "update"} & set(request.query_params):
            return self.page(request, "")
        body = b""
        if request.method == "POST":
            config = self.config
            body = await read_body(request, config.max_body, config.body_timeout, config.body_deadline)
        req = parse_sparql_request(request.method, request.url.query, request.headers.get("content-type"), body)
        if browser and req.kind == "query":
            return await self.page_results(request, req)
        if req.kind == "update":
            return await self.update(request, req)
        check_request(req.text, self.config.limits)
        results = negotiate(accept, list(RESULT_TYPES))
        graph = negotiate(accept, list(GRAPH_TYPES))
        if results is None and graph is None:
            raise RequestRefused(
                406, "no acceptable result format; offered: " + ", ".join(dict.fromkeys([*RESULT_TYPES, *GRAPH_TYPES]))
            )
        job = self.query_job(req, RESULT_TYPES[results] if results else None, GRAPH_TYPES[graph] if graph else None)
        answer = await self.ctx.call(run_sparql, job, request=request)
        return Response(answer.body, media_type=answer.media_type, headers={"Vary": "Accept"})

    async def update(self, request: Request, req: SparqlRequest) -> Response:
        """An authorised update, run by the writer; the derived caches are dropped after it."""
        self.authorise_update(request)
        check_request(req.text, self.config.limits)
        text = with_using(req.text, req.default_graphs, req.named_graphs)
        load = plain_load(text) if self.config.limits.allow_load else None
        if load is not None:
            return await self.load(request, load)
        # any other update runs in the writer, which has no network: a LOAD or SERVICE the guard
        # missed fails there instead of fetching
        answer = await self.ctx.call(run_update, text, self.ctx.endpoint, request=request)
        self.ctx.store_changed()
        return PlainTextResponse(answer.body.decode(), status_code=200)

    async def load(self, request: Request, load: LoadRequest) -> Response:
        """A plain LOAD: fetched by a process of its own from an allowed URL, stored by the writer."""
        config = self.config
        try:
            media, data = await run_in_threadpool(
                fetch, load.url, config.load_urls, max_bytes=config.max_load_bytes, timeout=config.timeout
            )
            fmt = rdf_format(media, load.url)
        except RequestRefused as exc:
            if not load.silent or exc.status == 403:  # SILENT hides failures, never the operator's policy
                raise
            return PlainTextResponse(f"LOAD SILENT: nothing loaded ({exc.message})\n")
        answer = await self.ctx.call(run_load, data, fmt.file_extension, load.url, load.graph, request=request)
        self.ctx.store_changed()
        return PlainTextResponse(answer.body.decode(), status_code=200)


def routes(ctx: AppContext) -> list[BaseRoute]:
    """The SPARQL protocol's routes over ``ctx``."""
    return SparqlRoutes(ctx).routes()
