"""SPARQL ``LOAD`` without giving the engine a network: fetched by a process of its own, from allowed URLs only.

Every process that runs the engine (the query workers and the writer) has no network
(:mod:`craftrdf.publishing.server.sandbox`), whatever the server's flags, so a ``LOAD`` or ``SERVICE``
that slips past the guard cannot fetch anything: the engine's request fails. ``LOAD`` is
offered to token holders of a server started with ``--allow-load URL-PREFIX`` another way:

1. :func:`plain_load` recognises an update that is one ``LOAD [SILENT] <url> [INTO GRAPH <g>]``
   and nothing else, on the lexer's tokens (any other shape goes to the sandboxed writer as is,
   where a fetch cannot happen);
2. :func:`fetch` runs :func:`_fetch_main` in a new process, the only one that opens a network
   connection; it fetches the URL when it starts with one of the operator's prefixes, follows
   redirects only to allowed URLs, and stops past a size limit or a time limit (the process is
   killed);
3. the writer parses the bytes and stores them in the graph in one transaction (:func:`run_load`).
"""

from __future__ import annotations

import logging
import multiprocessing as mp
import urllib.error
import urllib.request
from collections.abc import Sequence
from dataclasses import dataclass
from multiprocessing.connection import Connection
from typing import Any

import pyoxigraph as ox

from ...store.local import AnnotationStore
from .guard import RequestRefused, request_tokens
from .jobs import Answer

logger = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class LoadRequest:
    """One ``LOAD``: the URL, the target graph (None: the default graph) and whether it is ``SILENT``."""

    url: str
    graph: str | None
    silent: bool


def plain_load(update: str) -> LoadRequest | None:
    """The update as a :class:`LoadRequest` when it is exactly one plain ``LOAD``, else None.

    Plain: ``LOAD [SILENT] <absolute-url> [INTO GRAPH <iri>]`` with an optional final ``;`` and
    comments, no prologue. The IRIs are read by ``pyoxigraph.NamedNode``.
    """
    toks = [t for t in request_tokens(update) if t.kind != "comment"]
    if toks and toks[-1].kind == "punct" and toks[-1].text == ";":
        toks.pop()
    if not toks or not toks[0].kw("LOAD"):
        return None
    i = 1
    silent = len(toks) > 1 and toks[1].kw("SILENT")
    i += silent
    rest = toks[i:]
    if not rest or rest[0].kind != "iri":
        return None
    graph = None
    if len(rest) == 4 and rest[1].kw("INTO") and rest[2].kw("GRAPH") and rest[3].kind == "iri":
        graph = rest[3].text[1:-1]
    elif len(rest) != 1:
        return None
    try:
        url = ox.NamedNode(rest[0].text[1:-1]).value
        graph = None if graph is None else ox.NamedNode(graph).value
    except ValueError as exc:
        raise RequestRefused(400, f"LOAD: not an IRI: {exc}") from None
    return LoadRequest(url, graph, bool(silent))


def allowed(url: str, prefixes: Sequence[str]) -> bool:
    """True when ``url`` is http(s) and starts with one of the operator's ``prefixes``."""
    return url.startswith(("http://", "https://")) and any(url.startswith(p) for p in prefixes)


class _Redirects(urllib.request.HTTPRedirectHandler):
    def __init__(self, prefixes: Sequence[str]) -> None:
        self.prefixes = prefixes

    def redirect_request(self, req: Any, fp: Any, code: int, msg: str, headers: Any, newurl: str) -> Any:
        if not allowed(newurl, self.prefixes):
            raise urllib.error.HTTPError(newurl, code, f"redirected to {newurl}, which is not allowed", headers, fp)
        return super().redirect_request(req, fp, code, msg, headers, newurl)


def _fetch_main(conn: Connection, url: str, prefixes: Sequence[str], max_bytes: int, timeout: float) -> None:
    """The fetch process: GET ``url`` (redirects only to allowed URLs), send back (media type, bytes) or an error."""
    opener = urllib.request.build_opener(_Redirects(prefixes))
    try:
        with opener.open(urllib.request.Request(url, headers={"Accept": _ACCEPT}), timeout=timeout) as resp:
            data = resp.read(max_bytes + 1)
            media = resp.headers.get_content_type()
    except (OSError, ValueError) as exc:  # URLError and HTTPError are OSErrors
        conn.send(("err", f"cannot fetch {url}: {exc}"))
        return
    if len(data) > max_bytes:
        conn.send(("err", f"{url} is larger than the server's LOAD limit of {max_bytes:,} bytes"))
        return
    conn.send(("ok", media, data))


_ACCEPT = "text/turtle, application/n-triples, application/n-quads, application/trig, application/rdf+xml;q=0.9"


def fetch(url: str, prefixes: Sequence[str], *, max_bytes: int, timeout: float) -> tuple[str, bytes]:
    """Fetch ``url`` in a process of its own; (media type, body). RequestRefused 403/502/504 on failure."""
    if not allowed(url, prefixes):
        raise RequestRefused(403, f"LOAD of {url} is not allowed on this server (see --allow-load)")
    ctx = mp.get_context("spawn")
    parent, child = ctx.Pipe()
    proc = ctx.Process(target=_fetch_main, args=(child, url, list(prefixes), max_bytes, timeout), daemon=True)
    proc.start()
    child.close()
    try:
        if not parent.poll(timeout + 5):
            raise RequestRefused(504, f"fetching {url} took longer than {timeout:g} s")
        try:
            msg = parent.recv()
        except EOFError:
            raise RequestRefused(502, f"the fetch process for {url} died") from None
    finally:
        if proc.is_alive():
            proc.kill()
        proc.join(5)
        parent.close()
    if msg[0] != "ok":
        raise RequestRefused(502, msg[1])
    return msg[1], msg[2]


def rdf_format(media_type: str, url: str) -> ox.RdfFormat:
    """The RDF format of a fetched document: by its media type, else by the URL's extension; 415 if neither."""
    fmt = ox.RdfFormat.from_media_type(media_type)
    if fmt is None:
        fmt = ox.RdfFormat.from_extension(url.rsplit("/", 1)[-1].rpartition(".")[2] or "-")
    if fmt is None:
        raise RequestRefused(415, f"LOAD: {url} is {media_type}, not an RDF format pyoxigraph reads")
    return fmt


def run_load(store: AnnotationStore, data: bytes, extension: str, url: str, graph: str | None) -> Answer:
    """Parse a fetched document and add it to ``graph`` in one transaction (in the writer); its triple count."""
    if not store.writable:
        raise RequestRefused(403, "this server is read-only: start it with --allow-update to accept updates")
    fmt = ox.RdfFormat.from_extension(extension)
    assert fmt is not None  # chosen by rdf_format in the server
    target: ox.NamedNode | ox.DefaultGraph = ox.DefaultGraph() if graph is None else ox.NamedNode(graph)
    try:
        quads = [ox.Quad(t.subject, t.predicate, t.object, target) for t in ox.parse(data, fmt, base_iri=url)]
    except SyntaxError as exc:
        raise RequestRefused(400, f"LOAD: {url} is not valid {fmt.name}: {exc}") from None
    store.raw.extend(quads)
    return Answer("text/plain; charset=utf-8", f"loaded {len(quads):,} triples from {url}\n".encode(), len(quads))
