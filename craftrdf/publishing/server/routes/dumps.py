"""The dataset as a whole: ``/.well-known/void`` (the VoID description) and ``/dump/KEY.ext`` (a set's dump).

VoID's graph sizes are counted once in a worker and kept until the next update; a dump is exported
once into the app's dump folder (:func:`craftrdf.publishing.server.linked.dump_set`, in the pool's
``dumps`` lane: :meth:`~craftrdf.publishing.server.context.AppContext.dump`) and then sent from it
without any worker.
"""

from __future__ import annotations

import re

from starlette.requests import Request
from starlette.responses import FileResponse, HTMLResponse, Response
from starlette.routing import BaseRoute, Route

from ....core.vocab import BASE
from ..context import AppContext
from ..guard import RequestRefused
from ..linked import DUMP_FORMATS, graph_sizes, render_html, void_triples
from ..protocol import HTML
from .common import choose, rdf_response

_DUMP_NAME = re.compile(r"^[A-Za-z][A-Za-z0-9_+\-]*\.(?:" + "|".join(DUMP_FORMATS) + ")$")


class DatasetRoutes:
    """VoID and the dumps over one app's context."""

    def __init__(self, ctx: AppContext) -> None:
        self.ctx = ctx

    async def void(self, request: Request) -> Response:
        """The VoID description, in the negotiated format."""
        ctx = self.ctx
        mtype = choose(request)
        with ctx.lock:
            sizes = ctx.sizes
        if sizes is None:
            sizes = await ctx.call(graph_sizes, timeout=max(ctx.config.timeout, 120.0))
            with ctx.lock:
                ctx.sizes = sizes
        set_prefix = BASE + "set/"
        keys = [s.graph[len(set_prefix) :] for s in sizes.graphs if s.graph.startswith(set_prefix)]
        union = ctx.config.union_default_graph
        triples = void_triples(sizes, base_url=ctx.base, dump_keys=keys, union_default_graph=union)
        if mtype == HTML:
            iri = ctx.base + ".well-known/void#dataset"
            page = render_html(iri, triples, local_url=ctx.local_url, curies=ctx.curies)
            return HTMLResponse(page)
        return rdf_response(triples, mtype)

    async def dump(self, request: Request) -> Response:
        """A set's dump, exported on first request; 404 for a name that is not ``KEY.ext``."""
        name = request.path_params["name"]
        key, _, ext = name.rpartition(".")
        if not _DUMP_NAME.match(name):  # checked here too so a traversal attempt never reaches a worker
            raise RequestRefused(
                404, f"no dump named {name!r}: use /dump/KEY.ext with ext one of " + ", ".join(DUMP_FORMATS)
            )
        path = await self.ctx.dump(key, ext)
        return FileResponse(path, media_type=DUMP_FORMATS[ext][1], filename=name)


def routes(ctx: AppContext) -> list[BaseRoute]:
    """VoID's and the dumps' routes over ``ctx``."""
    r = DatasetRoutes(ctx)
    return [Route("/.well-known/void", r.void), Route("/dump/{name}", r.dump)]
