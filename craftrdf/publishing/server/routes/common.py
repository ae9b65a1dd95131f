"""What several resources' routes answer with: refusals, the RDF formats a resource is offered in.

:func:`refusal` turns a :class:`~craftrdf.publishing.server.guard.RequestRefused` into its response;
:func:`choose` picks a resource's format from ``?format=`` or the Accept header, and
:func:`rdf_response` writes triples in it.
"""

from __future__ import annotations

from collections.abc import Sequence

import pyoxigraph as ox
from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response

from ..guard import RequestRefused
from ..linked import rdf_prefixes
from ..protocol import GRAPH_TYPES, HTML, negotiate

FORMAT_PARAM = {
    "ttl": "text/turtle",
    "nt": "application/n-triples",
    "jsonld": "application/ld+json",
    "rdf": "application/rdf+xml",
    "html": HTML,
}
#: What a resource is offered as, in order of preference when the client does not mind.
OFFERED = ["text/turtle", "application/ld+json", "application/n-triples", "application/rdf+xml", HTML]


def refusal(exc: RequestRefused) -> Response:
    """The plain-text response of a refused request, with the headers its status calls for."""
    headers = {"WWW-Authenticate": 'Bearer realm="craftrdf"'} if exc.status == 401 else {}
    if exc.retry_after is not None:
        headers["Retry-After"] = str(exc.retry_after)
    if exc.status in (408, 413):  # the rest of the body is not read: the connection cannot be reused
        headers["Connection"] = "close"
    return PlainTextResponse(exc.message + "\n", status_code=exc.status, headers=headers)


def choose(request: Request) -> str:
    """The media type to describe a resource in: ``?format=`` if given, else by Accept (406 if none fits)."""
    forced = request.query_params.get("format")
    if forced is not None:
        if forced not in FORMAT_PARAM:
            raise RequestRefused(406, f"unknown format {forced!r}: use {', '.join(FORMAT_PARAM)}")
        return FORMAT_PARAM[forced]
    mtype = negotiate(request.headers.get("accept"), OFFERED)
    if mtype is None:
        raise RequestRefused(406, "no acceptable format; offered: " + ", ".join(OFFERED))
    return mtype


def rdf_response(triples: Sequence[ox.Triple], mtype: str) -> Response:
    """``triples`` serialized by pyoxigraph as ``mtype`` (an RDF media type of GRAPH_TYPES)."""
    fmt = getattr(ox.RdfFormat, GRAPH_TYPES[mtype])
    body = ox.serialize(
        triples, format=fmt, prefixes=rdf_prefixes() if fmt in (ox.RdfFormat.TURTLE, ox.RdfFormat.RDF_XML) else None
    )
    return Response(body, media_type=fmt.media_type, headers={"Vary": "Accept"})
