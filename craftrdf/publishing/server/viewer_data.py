"""What the article viewer shows, read from a store: a document with its annotations, a class.

Pure data, no HTML: :func:`document_view` and :func:`~craftrdf.publishing.server.viewer_classes.class_view`
(in :mod:`.viewer_classes`, with the state the viewer keeps) return frozen records
that :mod:`craftrdf.publishing.server.viewer` renders as pages and serves as JSON (``to_json``).
Every query is a library query (``querying/queries/viewer-*.rq``) with its values bound, so a
PMID or CURIE from a URL never becomes query text.

Decisions:

- Nesting is computed per document, in Python, with :func:`craftrdf.querying.indexes.containment_pairs`
  (the same character arithmetic as the store's views) over the annotations of *every*
  set in the document; each annotation lists the annotations that contain it
  (``within``). Which of those count depends on the sets a reader has switched on, so
  the page decides "nested" from the sets shown, as :func:`craftrdf.analysis.views.run_view`
  decides it from the sets chosen. No derived graph is needed, so a read-only or
  remote store works.
- One colour per module (ontology): the core and +extensions sets of a module annotate
  the same mentions, so they share it. Sets without a module (materialized views)
  take a colour derived from their key.
- By default one set per module is shown: its +extensions set when there is one, else
  the first by key; sets without a module start hidden.
- Similar classes come from a Wang index (:func:`craftrdf.analysis.similarity.graph.wang_index`)
  over the largest ontology graph that declares the class (the +extensions file when
  there is one), built once per graph and kept in a :class:`ViewerState`.
"""

from __future__ import annotations

import hashlib
import logging
import re
from collections import Counter, defaultdict
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import pyoxigraph as ox

from ...core.curie import CurieMap, is_extension_curie
from ...core.errors import InputError
from ...core.iris import document_iri
from ...core.model import Span
from ...querying.indexes import containment_pairs
from ...querying.library import QueryResult, resolve_query, run_query
from ...querying.webanno import rows_to_annotations
from ...store.local import ReadableStore

logger = logging.getLogger(__name__)

_PMID = re.compile(r"^[0-9]{1,12}$")
ONTOLOGY_GRAPH_PREFIX = "https://w3id.org/craftrdf/ontology/"

#: One colour per CRAFT module; readable under black text at the alpha the stylesheet uses.
MODULE_COLOURS: Mapping[str, str] = {
    "UBERON": "#1f77b4",
    "CL": "#ff7f0e",
    "SO": "#2ca02c",
    "CHEBI": "#d62728",
    "GO_BP": "#9467bd",
    "GO_CC": "#8c564b",
    "GO_MF": "#e377c2",
    "MOP": "#7f7f7f",
    "NCBITaxon": "#bcbd22",
    "PR": "#17becf",
    "MONDO": "#393b79",
}


def bound_value(term: object) -> str:
    """The value of a bound IRI or literal (the queries bind these columns on every row)."""
    assert isinstance(term, (ox.NamedNode, ox.Literal)), term
    return term.value


def optional_value(term: object) -> str | None:
    return term.value if isinstance(term, (ox.NamedNode, ox.Literal)) else None


def check_pmid(pmid: str) -> str:
    """Return ``pmid`` when it is a PubMed id (digits only); InputError otherwise."""
    if not _PMID.match(pmid):
        raise InputError(f"{pmid!r} is not a PubMed id: use digits only, e.g. 11319941", source="URL")
    return pmid


def check_curie(curie: str, curies: CurieMap) -> str:
    """The IRI of an OBO CURIE (``UBERON:0000955``); InputError for anything else (IRIs included)."""
    # CurieMap.expand passes IRIs through; a class page is named by CURIE only
    if not curies.is_curie(curie) or curie.startswith(("http://", "https://")):
        raise InputError(f"{curie!r} is not a class CURIE: use PREFIX:ID, e.g. UBERON:0000955", source="URL")
    iri = curies.expand(curie, source="URL")
    try:  # a control character (%00, %0a) expands to no IRI: a 404 like any bad id, not an engine error
        ox.NamedNode(iri)
    except ValueError:
        raise InputError(f"{curie!r} is not a class CURIE: it holds characters no IRI may", source="URL") from None
    return iri


def module_colour(module: str | None, key: str) -> str:
    """The highlight colour of a set: its module's, or one derived from the key for other sets.

    >>> module_colour("UBERON", "UBERON_EXT")
    '#1f77b4'
    >>> module_colour(None, "CORE") == module_colour(None, "CORE")
    True
    """
    if module is not None and module in MODULE_COLOURS:
        return MODULE_COLOURS[module]
    # a fixed hue per name, so a view keeps its colour between page loads
    hue = int(hashlib.sha256((module or key).encode()).hexdigest()[:4], 16) % 360
    return _hsl_hex(hue, 0.55, 0.42)


def _hsl_hex(h: int, s: float, lum: float) -> str:
    import colorsys

    r, g, b = colorsys.hls_to_rgb(h / 360, lum, s)
    return "#" + "".join(f"{round(c * 255):02x}" for c in (r, g, b))


# -- documents -----------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class SetInfo:
    """An annotation set as the legend shows it: key, module, variant, colour, shown by default, count here."""

    key: str
    module: str | None
    variant: str | None
    colour: str
    default: bool
    count: int


@dataclass(frozen=True, slots=True)
class DocAnnotation:
    """One annotation of a document, ready to highlight.

    ``within`` lists the positions (in :attr:`DocumentView.annotations`) of the
    annotations, of any set, that cover every character of this one and at least one more.
    """

    set: str
    id: str
    class_id: str
    label: str | None
    extension: bool
    spans: tuple[Span, ...]
    text: str | None
    within: tuple[int, ...] = ()


@dataclass(frozen=True, slots=True)
class DocumentView:
    """A document, its annotations in every set (sorted by position) and the sets of the store.

    ``title`` is the first line of the text (a CRAFT article's title); ``pmcid`` its PubMed
    Central id when the corpus maps one (``articles/ids/craft-idmappings.txt``).
    """

    pmid: str
    iri: str
    text: str
    sets: tuple[SetInfo, ...]
    annotations: tuple[DocAnnotation, ...]
    title: str | None = None
    pmcid: str | None = None

    def to_json(self) -> dict[str, Any]:
        """The JSON the page's script renders (documented in docs/viewer.md)."""
        return {
            "pmid": self.pmid,
            "pmcid": self.pmcid,
            "title": self.title,
            "iri": self.iri,
            "text": self.text,
            "sets": [
                {
                    "key": s.key,
                    "module": s.module,
                    "variant": s.variant,
                    "colour": s.colour,
                    "default": s.default,
                    "count": s.count,
                }
                for s in self.sets
            ],
            "annotations": [
                {
                    "set": a.set,
                    "id": a.id,
                    "class": a.class_id,
                    "label": a.label,
                    "extension": a.extension,
                    "spans": [[s.start, s.end] for s in a.spans],
                    "text": a.text,
                    "within": list(a.within),
                }
                for a in self.annotations
            ],
        }


def _sets(store: ReadableStore, counts: Mapping[str, int]) -> tuple[SetInfo, ...]:
    rows = run_query(store, resolve_query("viewer-sets")).rows
    raw = [(bound_value(r[0]), optional_value(r[1]), optional_value(r[2])) for r in rows]
    # a graph with a set key but no craft:AnnotationSet type still gets a legend entry
    raw += sorted((key, None, None) for key in counts if key not in {k for k, _, _ in raw})
    best: dict[str, tuple[bool, str]] = {}
    for key, module, variant in raw:
        if module is None:
            continue
        rank = (variant != "extensions", key)  # the +extensions set first, then by key
        if module not in best or rank < best[module]:
            best[module] = rank
    defaults = {key for _, key in best.values()}
    return tuple(
        SetInfo(key, module, variant, module_colour(module, key), key in defaults, counts.get(key, 0))
        for key, module, variant in raw
    )


def first_labels(
    result: QueryResult, key_cols: tuple[str, ...]
) -> tuple[list[tuple[Any, ...]], dict[tuple[str, ...], str]]:
    """Rows once per key (the query repeats a row per label), and the smallest label per key."""
    idx = [result.columns.index(c) for c in key_cols]
    li = result.columns.index("label")
    seen: dict[tuple[str, ...], tuple[Any, ...]] = {}
    labels: dict[tuple[str, ...], str] = {}
    for row in result.rows:
        key = tuple(bound_value(row[i]) for i in idx)
        seen.setdefault(key, row)
        lab = row[li]
        # several graphs may label a class; the smallest keeps the choice stable
        if isinstance(lab, ox.Literal) and (key not in labels or lab.value < labels[key]):
            labels[key] = lab.value
    return list(seen.values()), labels


def document_view(
    store: ReadableStore, pmid: str, *, base_iri: str, curies: CurieMap | None = None
) -> DocumentView | None:
    """The document ``pmid`` with every annotation of every set; None when the store has no such document.

    ``base_iri`` is where the store is published (the document's IRI is
    ``<base_iri>doc/<pmid>``). Raises InputError when ``pmid`` is not all digits.
    """
    check_pmid(pmid)
    curies = curies or CurieMap()
    meta = run_query(store, resolve_query("viewer-document-meta"), {"doc": document_iri(pmid)}).rows
    if not meta:
        return None
    text, pmcid = bound_value(meta[0][3]), optional_value(meta[0][2])
    result = run_query(store, resolve_query("viewer-document"), {"doc": document_iri(pmid)}, curies=curies)
    rows, labels = first_labels(result, ("set", "annotation"))
    si, ai = result.columns.index("set"), result.columns.index("annotation")
    records = rows_to_annotations(result.columns, rows, curies)
    items = sorted(
        ((bound_value(r[si]), a, labels.get((bound_value(r[si]), bound_value(r[ai])))) for r, a in zip(rows, records)),
        key=lambda t: (t[1].begin if t[1].begin is not None else -1, -(t[1].end or 0), t[0], t[1].id),
    )
    spans = ((str(i), pmid, s.start, s.end) for i, (_, a, _) in enumerate(items) for s in a.spans)
    within: dict[int, list[int]] = defaultdict(list)
    for inner, outer in containment_pairs(spans):
        within[int(inner)].append(int(outer))
    anns = tuple(
        DocAnnotation(
            key,
            a.id,
            a.class_id,
            label,
            is_extension_curie(a.class_id),
            a.spans,
            a.text,
            tuple(sorted(within.get(i, ()))),
        )
        for i, (key, a, label) in enumerate(items)
    )
    counts = Counter(a.set for a in anns)
    iri = normalize_base(base_iri) + "doc/" + pmid
    return DocumentView(pmid, iri, text, _sets(store, counts), anns, title=_title(text), pmcid=pmcid)


def _title(text: str) -> str | None:
    """The first non-blank line of an article, cut at 300 characters (a CRAFT article's title)."""
    line = next((t.strip() for t in text.splitlines() if t.strip()), "")
    return (line if len(line) <= 300 else line[:299] + "…") or None


def normalize_base(base_iri: str) -> str:
    return base_iri if base_iri.endswith("/") else base_iri + "/"
