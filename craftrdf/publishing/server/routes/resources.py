"""Linked data: ``/doc/…``, ``/ann/…``, ``/set/…``, ``/ontology/…``, ``/mappings/…``, ``/class/CURIE``.

A resource is its concise bounded description (:func:`craftrdf.publishing.server.linked.describe`, run in a
worker) in the format negotiated; HTML for documents and classes is handed to the article viewer
when it is mounted.
"""

from __future__ import annotations

import pyoxigraph as ox
from starlette.requests import Request
from starlette.responses import HTMLResponse, Response
from starlette.routing import BaseRoute, Route, Router
from starlette.types import Receive, Scope, Send

from ..context import AppContext
from ..guard import RequestRefused
from ..linked import describe, render_html, resource_iri
from ..protocol import HTML, negotiate
from .common import OFFERED, choose, rdf_response, refusal

#: The first path segment of each kind of dereferenceable resource.
KINDS = ("doc", "ann", "set", "ontology", "mappings", "class")


class _Negotiated:
    """The dereferencing endpoint of one kind: HTML for documents and classes goes to the viewer."""

    def __init__(self, kind: str, ctx: AppContext, viewer: Router | None) -> None:
        self.kind = kind
        self.ctx = ctx
        self.viewer = viewer

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        scope["path_params"] = {**scope.get("path_params", {}), "kind": self.kind}
        request = Request(scope, receive)
        if any(ord(c) < 0x20 or c == "\x7f" for c in scope["path"]):
            # no IRI holds a control character; and Starlette's `$` matches before a final
            # newline, so `/class/X%0a` would otherwise describe X
            await refusal(RequestRefused(404, "no resource has control characters in its path"))(scope, receive, send)
            return
        forced = request.query_params.get("format")
        wants_html = forced == "html" or (forced is None and negotiate(request.headers.get("accept"), OFFERED) == HTML)
        if (
            wants_html
            and self.viewer is not None
            and self.kind in ("doc", "class")
            and "/" not in request.path_params["rest"]
        ):
            await self.viewer(scope, receive, send)
            return
        try:
            response = await self.resource(request)
        except RequestRefused as exc:
            response = refusal(exc)
        await response(scope, receive, send)

    async def resource(self, request: Request) -> Response:
        """The resource's description in the negotiated format; 404 when the store has nothing on it."""
        mtype = choose(request)
        iri = resource_iri(self.kind, request.path_params["rest"], self.ctx.curies)
        triples = list(ox.parse(await self.ctx.call(describe, iri), ox.RdfFormat.N_TRIPLES))
        if not triples:
            raise RequestRefused(404, f"the store has nothing about {iri}")
        if mtype == HTML:
            page = render_html(iri, triples, local_url=self.ctx.local_url, curies=self.ctx.curies)
            return HTMLResponse(page, headers={"Vary": "Accept"})
        return rdf_response(triples, mtype)


def routes(ctx: AppContext, viewer: Router | None) -> list[BaseRoute]:
    """One route per kind of resource; HTML for documents and classes goes to ``viewer`` when given."""
    return [Route(f"/{kind}/{{rest:path}}", _Negotiated(kind, ctx, viewer)) for kind in KINDS]
