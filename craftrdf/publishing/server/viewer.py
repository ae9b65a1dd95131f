"""The article viewer and class pages, as Starlette routes the server mounts.

``GET /doc/{pmid}`` is an HTML page whose script (``static/viewer.js``) highlights the
annotations; the page carries its data inline (the JSON of ``/api/doc/{pmid}``), so it
takes one request and works offline. ``GET /class/{curie}`` is rendered here, on the
server, and needs no script. ``/api/doc/{pmid}`` and ``/api/class/{curie}`` serve the
same data as JSON. Links between pages are relative, so the routes work under any
mount point.

Everything taken from data is escaped: pages with :func:`html.escape`, the inline JSON
with ``<``, ``>`` and ``&`` as ``\\u`` escapes (so no string can close its ``<script>``),
and the script writes text with ``textContent`` only. A Content-Security-Policy allows
scripts and styles from the server itself only, so even a missed escape cannot run.

>>> from starlette.routing import Route
>>> [r.path for r in viewer_routes(object(), base_iri="https://example.org/") if isinstance(r, Route)]
['/doc/{pmid}', '/class/{curie}', '/api/doc/{pmid}', '/api/class/{curie}']
"""

from __future__ import annotations

import html
import json
import logging
from typing import Any
from urllib.parse import quote

from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.routing import BaseRoute, Mount, Route
from starlette.staticfiles import StaticFiles

from ...core.errors import InputError
from ...store.local import ReadableStore
from .viewer_classes import ClassRef, ClassView, ViewerState, class_view
from .viewer_data import DocumentView, document_view

logger = logging.getLogger(__name__)

#: Sent with every page: scripts, styles and fetches from this server only; no plugins, frames or forms.
CONTENT_SECURITY_POLICY = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; "
    "connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
)
#: Where an article is on PubMed and on PubMed Central, by PMID and by PMCID.
PUBMED_URL = "https://pubmed.ncbi.nlm.nih.gov/{}/"
PMC_URL = "https://pmc.ncbi.nlm.nih.gov/articles/{}/"
_HEADERS = {
    "Content-Security-Policy": CONTENT_SECURITY_POLICY,
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
}


def _e(value: object) -> str:
    return html.escape(str(value), quote=True)


def _class_href(curie: str) -> str:
    return "../class/" + quote(curie, safe=":")


def _doc_href(pmid: str, sets: tuple[str, ...], curie: str) -> str:
    """The article page with the sets that use the class shown and the class outlined."""
    return f"../doc/{quote(pmid)}?sets={quote(','.join(sets), safe=',')}#class={quote(curie, safe=':')}"


def _script_json(data: Any) -> str:
    """JSON safe inside ``<script type="application/json">``: no ``</script>``, no ``<!--``."""
    return (
        json.dumps(data, ensure_ascii=False, separators=(",", ":"))
        .replace("&", "\\u0026")
        .replace("<", "\\u003c")
        .replace(">", "\\u003e")
    )


def _page(title: str, body: str, *, body_class: str) -> str:
    return (
        '<!doctype html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"<title>{_e(title)} · craftrdf</title>\n"
        '<link rel="stylesheet" href="../static/viewer.css">\n</head>\n'
        f'<body class="{body_class}">\n{body}\n</body>\n</html>\n'
    )


def render_document_page(view: DocumentView) -> str:
    """The HTML of ``/doc/{pmid}``: a shell with the document's data inline; viewer.js draws the rest."""
    pmid = _e(view.pmid)
    shown = sum(1 for a in view.annotations if a.spans)
    pmc = f'PMC <a id="pmc" href="{_e(PMC_URL.format(view.pmcid))}">{_e(view.pmcid)}</a> · ' if view.pmcid else ""
    body = (
        '<header class="top">\n'
        f'<h1 id="doc-title">{_e(view.title or "PubMed " + view.pmid)}</h1>\n'
        f'<p class="meta">PubMed <a id="pubmed" href="{_e(PUBMED_URL.format(view.pmid))}">{pmid}</a> · {pmc}'
        f'<a href="{_e(view.iri)}">{_e(view.iri)}</a> · '
        f'<a href="../api/doc/{pmid}">JSON</a> · {len(view.annotations)} annotations '
        f"({shown} with text) in {sum(1 for s in view.sets if s.count)} sets</p>\n"
        "</header>\n"
        '<div class="layout">\n'
        '<aside id="legend" class="legend" aria-label="Annotation sets and views"></aside>\n'
        '<main>\n<p id="status" class="status" aria-live="polite">This page needs JavaScript to highlight '
        f'annotations; its data is at <a href="../api/doc/{pmid}">JSON</a>.</p>\n'
        '<article id="text" class="text"></article>\n</main>\n</div>\n'
        '<div id="tip" class="tip" role="tooltip" hidden></div>\n'
        f'<script type="application/json" id="viewer-data">{_script_json(view.to_json())}</script>\n'
        '<script src="../static/viewer.js"></script>'
    )
    return _page(view.title or f"PubMed {view.pmid}", body, body_class="doc-page")


def _ref(r: ClassRef) -> str:
    label = f' <span class="label">{_e(r.label)}</span>' if r.label else ""
    return f'<a class="class-link" href="{_e(_class_href(r.curie))}"><code>{_e(r.curie)}</code></a>{label}'


def render_class_page(view: ClassView) -> str:
    """The HTML of ``/class/{curie}``, rendered on the server (no script needed)."""
    parts = [
        '<header class="top">',
        (
            f'<h1><span id="class-label">{_e(view.label or view.curie)}</span> '
            f'<code id="class-id">{_e(view.curie)}</code></h1>'
        ),
        f'<p class="meta">{_iri(view)} · '
        f'<a href="../api/class/{_e(quote(view.curie, safe=":"))}">JSON</a>'
        + (" · extension class" if view.extension else "")
        + (" · <strong>deprecated</strong>" if view.deprecated else "")
        + "</p>",
        "</header>",
        '<main class="class-page">',
    ]
    if not view.described:
        parts.append('<p class="note">No loaded ontology describes this class; annotations use it.</p>')
    if view.graphs:
        parts.append(f'<p class="graphs">Declared in: {_e(", ".join(view.graphs))}</p>')
    if view.definition:
        parts.append(f'<section><h2>Definition</h2><p id="definition">{_e(view.definition)}</p></section>')
    if view.logical_definition:
        parts.append(
            "<section><h2>Logical definition</h2>"
            f'<p><code id="logical-definition">{_e(view.logical_definition)}</code></p></section>'
        )
    if view.parallel_of:
        parts.append(f"<section><h2>Parallel extension class of</h2><p>{_ref(view.parallel_of)}</p></section>")
    if view.comment:
        parts.append(f"<section><h2>Comment</h2><p>{_e(view.comment)}</p></section>")
    if view.synonyms:
        items = "".join(f'<li>{_e(t)} <span class="scope">{_e(s)}</span></li>' for s, t in view.synonyms)
        parts.append(f'<section><h2>Synonyms</h2><ul id="synonyms">{items}</ul></section>')
    if view.parents:
        items = "".join(f'<li><span class="rel">{_e(rel)}</span> {_ref(p)}</li>' for rel, p in view.parents)
        parts.append(f'<section><h2>Parents</h2><ul id="parents">{items}</ul></section>')
    parts.extend(_placement_section(view))
    if view.ancestors:
        items = "".join(f"<li>{_ref(a)}</li>" for a in view.ancestors)
        parts.append(
            f'<section><h2>Ancestors <span class="count">({len(view.ancestors)}, over is_a and part_of)'
            f'</span></h2><ul id="ancestors" class="columns">{items}</ul></section>'
        )
    parts.extend(_similar_section(view))
    rows = "".join(
        f'<tr><td><a class="doc-link" href="{_e(_doc_href(d.pmid, d.sets, view.curie))}">{_e(d.pmid)}</a></td>'
        f'<td class="sets">{_counts(d.per_set)}</td><td>'
        + "; ".join(f"<q>{_e(t)}</q>" + (f" ×{n}" if n > 1 else "") for t, n in d.texts)
        + "</td></tr>"
        for d in view.documents
    )
    per_set = " · ".join(f"{_e(k)} {n} in {_plural(d, 'document')}" for k, n, d in view.per_set)
    parts.append(
        f'<section><h2>Annotations <span class="count" id="per-set">({per_set})</span></h2>'
        + (
            '<table id="uses"><thead><tr><th>document</th><th>annotations per set</th>'
            f"<th>covered text (per mention)</th></tr></thead><tbody>{rows}</tbody></table>"
            if view.documents
            else "<p>No annotation uses this class.</p>"
        )
        + "</section>"
    )
    parts.append("</main>")
    return _page(f"{view.label or view.curie} ({view.curie})", "\n".join(parts), body_class="class-page")


def _plural(n: int, noun: str) -> str:
    return f"{n} {noun}" + ("" if n == 1 else "s")


def _counts(per_set: tuple[tuple[str, int], ...]) -> str:
    return " · ".join(f'{_e(k)} <span class="num">{n}</span>' for k, n in per_set)


def _iri(view: ClassView) -> str:
    """The class IRI, linked where it resolves: CRAFT's extension classes have no OBO PURL."""
    if view.extension:
        return f'<code id="class-iri" title="CRAFT extension class: this IRI does not resolve">{_e(view.iri)}</code>'
    return f'<a href="{_e(view.iri)}">{_e(view.iri)}</a>'


def _placement_section(view: ClassView) -> list[str]:
    """Where ``similarity --classify-extensions`` places an extension class, or why it places it nowhere."""
    if view.placed_under:
        items = "".join(f"<li>{_ref(p)}</li>" for p in view.placed_under)
        return [
            '<section><h2>Placed under <span class="count">(by its logical definition, as '
            f'<code>similarity --classify-extensions</code> places it)</span></h2><ul id="placed-under">{items}</ul>'
            "</section>"
        ]
    if view.placement_note:
        return [
            f'<section><h2>Parents</h2><p id="placement-note">None, even placed by its logical definition: '
            f"{_e(view.placement_note)}.</p></section>"
        ]
    return []


def _similar_section(view: ClassView) -> list[str]:
    """The class page's most-similar section: the table, or why it is missing or pending."""
    out: list[str] = []
    if view.similar:
        rows = "".join(f'<tr><td>{_ref(r)}</td><td class="num">{v:.3f}</td></tr>' for r, v in view.similar)
        out.append(
            f'<section><h2>Most similar classes <span class="count">(Wang, in '
            f'{_e(view.similarity_ontology)})</span></h2><table id="similar"><thead><tr><th>class</th>'
            f"<th>similarity</th></tr></thead><tbody>{rows}</tbody></table></section>"
        )
    elif view.similar_unavailable:
        out.append(
            '<section><h2>Most similar classes</h2><p id="similar-unavailable">Cannot be computed: '
            f"{_e(view.similar_unavailable)}.</p></section>"
        )
    elif view.similar_pending:
        out.append(
            f'<section><h2>Most similar classes</h2><p id="similar-pending">Being computed (the first '
            f"page of a class of {_e(view.similarity_ontology)} builds its similarity index"
            + (" and places its extension classes" if view.extension else "")
            + "); reload in a few seconds.</p></section>"
        )
    elif view.similarity_ontology:
        out.append(
            '<section><h2>Most similar classes</h2><p id="similar-none">None: no other class of '
            f"{_e(view.similarity_ontology)} shares an ancestor with it.</p></section>"
        )
    return out


def _not_found(message: str, *, api: bool) -> Response:
    if api:
        return JSONResponse({"error": message}, status_code=404, headers=_HEADERS)
    body = f'<header class="top"><h1>Not found</h1></header><main><p>{_e(message)}</p></main>'
    return HTMLResponse(_page("Not found", body, body_class="error-page"), status_code=404, headers=_HEADERS)


def viewer_routes(store: ReadableStore, *, base_iri: str, state: ViewerState | None = None) -> list[BaseRoute]:
    """The viewer's routes: ``/doc/{pmid}``, ``/class/{curie}``, their ``/api/...`` JSON twins, ``/static``.

    ``store`` needs only ``query(sparql, *, substitutions=..., named_graphs=...)``
    (an :class:`~craftrdf.store.local.AnnotationStore` or a remote store). ``base_iri`` is
    where the store is published; document IRIs shown are ``<base_iri>doc/<pmid>``.
    ``state`` (made here by default) keeps the Wang indexes between requests; pass one
    to share or inspect it. An unknown or malformed PMID or CURIE answers 404.
    Endpoints are plain functions: Starlette runs them in its thread pool, as store
    queries block.
    """
    st = state or ViewerState(store, base_iri=base_iri)

    def _doc(request: Request, *, api: bool) -> Response:
        pmid = request.path_params["pmid"]
        try:
            view = document_view(st.store, pmid, base_iri=st.base_iri)
        except InputError as exc:
            return _not_found(exc.message, api=api)
        if view is None:
            return _not_found(f"no document {pmid} in this store", api=api)
        if api:
            return JSONResponse(view.to_json(), headers=_HEADERS)
        return HTMLResponse(render_document_page(view), headers=_HEADERS)

    def _class(request: Request, *, api: bool) -> Response:
        curie = request.path_params["curie"]
        try:
            view = class_view(st, curie)
        except InputError as exc:
            return _not_found(exc.message, api=api)
        if view is None:
            return _not_found(
                f"no class {curie} in this store: no loaded ontology describes it and no annotation uses it", api=api
            )
        if api:
            return JSONResponse(view.to_json(), headers=_HEADERS)
        return HTMLResponse(render_class_page(view), headers=_HEADERS)

    def doc_page(request: Request) -> Response:
        return _doc(request, api=False)

    def doc_api(request: Request) -> Response:
        return _doc(request, api=True)

    def class_page(request: Request) -> Response:
        return _class(request, api=False)

    def class_api(request: Request) -> Response:
        return _class(request, api=True)

    return [
        Route("/doc/{pmid}", doc_page, methods=["GET", "HEAD"], name="viewer-doc"),
        Route("/class/{curie}", class_page, methods=["GET", "HEAD"], name="viewer-class"),
        Route("/api/doc/{pmid}", doc_api, methods=["GET", "HEAD"], name="viewer-doc-api"),
        Route("/api/class/{curie}", class_api, methods=["GET", "HEAD"], name="viewer-class-api"),
        Mount("/static", app=StaticFiles(packages=[("craftrdf.publishing.server", "static")]), name="viewer-static"),
    ]
