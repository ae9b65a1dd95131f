"""The server's own HTML pages: the index, and the SPARQL query page with its results.

Both say where the data is: every triple sits in a named graph (one per annotation set, per
ontology file, ...), and the default graph is empty unless the server makes it the union of
the named graphs (``--union-default-graph``). The query page is what a browser gets for
``GET /sparql`` without a query: a form that submits to the endpoint itself, whose results come
back as HTML rendered here. No script runs (the pages' Content-Security-Policy allows none) and
nothing is fetched from elsewhere, so the pages work on a server without a network.
Everything taken from a request or the data is HTML-escaped.
"""

from __future__ import annotations

import html
from collections.abc import Callable
from urllib.parse import quote

import pyoxigraph as ox

from ...core.curie import CurieMap
from ...core.iris import DOCUMENTS_GRAPH, inferred_graph, mapping_graph, ontology_graph, relations_graph, set_iri
from .jobs import Answer
from .linked import default_graph_note, term_html

#: No script, no external resource; forms may only submit to this server.
HEADERS = {
    "Content-Security-Policy": (
        "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'"
    ),
    "Referrer-Policy": "no-referrer",
}

#: The query that lists the named graphs (fast: it reads the graph names, not their triples).
LIST_GRAPHS = "SELECT ?g WHERE { GRAPH ?g { } } ORDER BY ?g"

_STYLE = (
    "body{font-family:sans-serif;margin:2em;max-width:90em}textarea{width:100%;font-family:monospace}"
    "table{border-collapse:collapse}td,th{padding:2px 8px;vertical-align:top;text-align:left}"
    "tr:nth-child(even){background:#f4f4f4}.error{color:#a00}pre{white-space:pre-wrap}code{background:#f4f4f4}"
)
#: Rows of a SELECT result shown on the page; the rest is counted, not drawn.
MAX_ROWS_SHOWN = 1_000


def _plural(n: int, noun: str) -> str:
    return f"{n:,} {noun}" + ("" if n == 1 else "s")


def _page(title: str, body: str) -> str:
    return (
        f'<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>{html.escape(title)}</title>'
        f"<style>{_STYLE}</style></head><body>{body}</body></html>"
    )


def _data_location(root: str, *, union: bool) -> str:
    """Where the data is: the note on the default graph, the kinds of named graph, how to list them."""
    kinds = [
        ("each annotation set", set_iri("UBERON_EXT")),
        ("each ontology file, as OWL", ontology_graph("UBERON+extensions")),
        ("its direct is_a / part_of edges", relations_graph("UBERON+extensions")),
        ("each set's class mappings", mapping_graph("UBERON_EXT")),
        ("the articles (text, PubMed and PMC ids)", DOCUMENTS_GRAPH),
        ("placements written by craftrdf classify", inferred_graph("UBERON+extensions")),
    ]
    items = "".join(f"<li>{html.escape(what)}: <code>{html.escape(iri)}</code></li>" for what, iri in kinds)
    listing = f"{root}sparql?query={quote(LIST_GRAPHS)}"
    return (
        f'<section id="data"><h2>Where the data is</h2><p id="default-graph">{html.escape(default_graph_note(union))}'
        f"</p><p>One named graph for:</p><ul>{items}</ul>"
        f'<p><a href="{html.escape(listing, quote=True)}">List the named graphs</a> '
        f"(<code>{html.escape(LIST_GRAPHS)}</code>); the "
        f'<a href="{root}.well-known/void">VoID description</a> gives each with its size.</p></section>'
    )


def index_page(*, union: bool) -> str:
    """The page at ``/``: the endpoint, the VoID description, and where the data is."""
    return _page(
        "craftrdf",
        '<h1>craftrdf</h1><ul><li><a href="sparql">SPARQL endpoint</a> (SPARQL 1.1 Protocol; in a browser, a '
        'query page)</li><li><a href=".well-known/void">VoID description</a> (sets, ontologies, dumps)</li></ul>'
        + _data_location("", union=union),
    )


def query_page(*, root: str, query: str, union: bool, results: str = "", error: str | None = None) -> str:
    """The query page: a form (holding ``query``) that submits to the endpoint, then ``results`` or ``error``.

    ``root`` is the relative path from the page to the server's root (``""`` at ``/sparql``).
    """
    shown = query or "# every named graph of the store\n" + LIST_GRAPHS
    failure = f'<p class="error" id="error">{html.escape(error)}</p>' if error else ""
    return _page(
        "SPARQL · craftrdf",
        f'<h1>SPARQL query</h1><form method="get"><p><textarea name="query" rows="12" '
        f'aria-label="SPARQL query">{html.escape(shown)}</textarea></p><p><button type="submit">Run</button> '
        "Results appear below as a table. Programs get JSON, XML, CSV, TSV or an RDF format from the same "
        "URL by their <code>Accept</code> header.</p></form>"
        f'{failure}<section id="results">{results}</section>' + _data_location(root, union=union),
    )


def results_html(answer: Answer, *, local_url: Callable[[str], str | None], curies: CurieMap) -> str:
    """A query's answer as HTML: a table (SELECT), yes/no (ASK) or the Turtle text (CONSTRUCT, DESCRIBE).

    ``answer`` is SPARQL JSON for SELECT and ASK, Turtle otherwise
    (:func:`~craftrdf.publishing.server.jobs.run_sparql`'s); IRIs link to their page on this
    server where ``local_url`` gives one. At most :data:`MAX_ROWS_SHOWN` rows are drawn; the
    page says how many there are.
    """
    if not answer.media_type.startswith(ox.QueryResultsFormat.JSON.media_type):
        text = html.escape(answer.body.decode("utf-8"))
        return f'<p id="count">{_plural(answer.count, "triple")}</p><pre id="graph">{text}</pre>'
    parsed = ox.parse_query_results(answer.body, ox.QueryResultsFormat.JSON)
    if isinstance(parsed, ox.QueryBoolean):
        return f'<p id="boolean">{"yes (true)" if bool(parsed) else "no (false)"}</p>'
    names = [v.value for v in parsed.variables]
    head = "".join(f"<th>?{html.escape(n)}</th>" for n in names)
    rows = []
    for i, solution in enumerate(parsed):
        if i == MAX_ROWS_SHOWN:
            break
        cells = (
            "" if solution[n] is None else term_html(solution[n], local_url=local_url, curies=curies) for n in names
        )
        rows.append("<tr>" + "".join(f"<td>{c}</td>" for c in cells) + "</tr>")
    more = f" (the first {MAX_ROWS_SHOWN:,} shown; add LIMIT/OFFSET to page)" if answer.count > MAX_ROWS_SHOWN else ""
    return (
        f'<p id="count">{_plural(answer.count, "row")}{more}</p>'
        f'<table id="table"><thead><tr>{head}</tr></thead><tbody>{"".join(rows)}</tbody></table>'
    )
