"""What the article viewer shows, read from a store: a document with its annotations, a class.

Pure data, no HTML: :func:`document_view` and :func:`class_view` return frozen records
that :mod:`craftrdf.server.viewer` renders as pages and serves as JSON (``to_json``).
Every query is a library query (``queries/viewer-*.rq``) with its values bound, so a
PMID or CURIE from a URL never becomes query text.

Decisions:

- Nesting is computed per document, in Python, with :func:`craftrdf.views.containment_pairs`
  (the same character arithmetic as the store's views) over the annotations of *every*
  set in the document; each annotation lists the annotations that contain it
  (``within``). Which of those count depends on the sets a reader has switched on, so
  the page decides "nested" from the sets shown, as :func:`craftrdf.views.run_view`
  decides it from the sets chosen. No derived graph is needed, so a read-only or
  remote store works.
- One colour per module (ontology): the core and +extensions sets of a module annotate
  the same mentions, so they share it. Sets without a module (materialized views)
  take a colour derived from their key.
- By default one set per module is shown: its +extensions set when there is one, else
  the first by key; sets without a module start hidden.
- Similar classes come from a Wang index (:func:`craftrdf.similarity.similarity_index`)
  over the largest ontology graph that declares the class (the +extensions file when
  there is one), built once per graph and kept in a :class:`ViewerState`.
"""

from __future__ import annotations

import hashlib
import logging
import re
import threading
from collections import Counter, defaultdict
from collections.abc import Callable, Mapping
from concurrent.futures import Executor, Future, ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from dataclasses import dataclass, field
from typing import Any

import pyoxigraph as ox

from ..curie import CurieMap, is_extension_curie
from ..errors import InputError
from ..iris import document_iri
from ..model import Span
from ..querying import QueryResult, resolve_query, run_query
from ..similarity import CycleError, UnknownTermError, WangIndex, similarity_index
from ..store import ReadableStore
from ..views import containment_pairs
from ..vocab import CRAFT, OBO, OBOINOWL, OWL, RDF, RDFS
from ..webanno import document_texts, rows_to_annotations

__all__ = [
    "ClassRef",
    "ClassView",
    "DocAnnotation",
    "DocumentUse",
    "DocumentView",
    "SetInfo",
    "ViewerState",
    "check_curie",
    "check_pmid",
    "class_view",
    "document_view",
    "module_colour",
    "wang_index",
]

logger = logging.getLogger(__name__)

_PMID = re.compile(r"^[0-9]{1,12}$")
_ONTOLOGY_GRAPH = "https://w3id.org/craftrdf/ontology/"
_SYNONYM_SCOPES = {
    OBOINOWL.hasExactSynonym: "EXACT",
    OBOINOWL.hasBroadSynonym: "BROAD",
    OBOINOWL.hasNarrowSynonym: "NARROW",
    OBOINOWL.hasRelatedSynonym: "RELATED",
}
_PARENT_RELATIONS = {RDFS.subClassOf: "is_a", OBO.part_of: "part_of"}

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


def _v(term: object) -> str:
    """The value of a bound IRI or literal (the queries bind these columns on every row)."""
    assert isinstance(term, (ox.NamedNode, ox.Literal)), term
    return term.value


def _opt(term: object) -> str | None:
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
    return curies.expand(curie, source="URL")


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
    """A document, its annotations in every set (sorted by position) and the sets of the store."""

    pmid: str
    iri: str
    text: str
    sets: tuple[SetInfo, ...]
    annotations: tuple[DocAnnotation, ...]

    def to_json(self) -> dict[str, Any]:
        """The JSON the page's script renders (documented in docs/viewer.md)."""
        return {
            "pmid": self.pmid,
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
    raw = [(_v(r[0]), _opt(r[1]), _opt(r[2])) for r in rows]
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


def _first_labels(
    result: QueryResult, key_cols: tuple[str, ...]
) -> tuple[list[tuple[Any, ...]], dict[tuple[str, ...], str]]:
    """Rows once per key (the query repeats a row per label), and the smallest label per key."""
    idx = [result.columns.index(c) for c in key_cols]
    li = result.columns.index("label")
    seen: dict[tuple[str, ...], tuple[Any, ...]] = {}
    labels: dict[tuple[str, ...], str] = {}
    for row in result.rows:
        key = tuple(_v(row[i]) for i in idx)
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
    texts = document_texts(store, [pmid])
    if pmid not in texts:
        return None
    result = run_query(store, resolve_query("viewer-document"), {"doc": document_iri(pmid)}, curies=curies)
    rows, labels = _first_labels(result, ("set", "annotation"))
    si, ai = result.columns.index("set"), result.columns.index("annotation")
    records = rows_to_annotations(result.columns, rows, curies)
    items = sorted(
        ((_v(r[si]), a, labels.get((_v(r[si]), _v(r[ai])))) for r, a in zip(rows, records)),
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
    return DocumentView(pmid, _base(base_iri) + "doc/" + pmid, texts[pmid], _sets(store, counts), anns)


def _base(base_iri: str) -> str:
    return base_iri if base_iri.endswith("/") else base_iri + "/"


# -- classes -------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ClassRef:
    """A class named by CURIE, with its label when a loaded graph has one."""

    curie: str
    label: str | None


@dataclass(frozen=True, slots=True)
class DocumentUse:
    """The annotations of one class in one document: how many, in which sets, the covered texts (with counts)."""

    pmid: str
    count: int
    sets: tuple[str, ...]
    texts: tuple[tuple[str, int], ...]


@dataclass(frozen=True, slots=True)
class ClassView:
    """What the class page shows.

    ``described`` is False for a class that only annotations mention (its ontology is
    not loaded). ``similar`` holds the most similar classes by Wang with their scores,
    computed in ``similarity_ontology`` (None when no loaded ontology declares the class);
    ``similar_pending`` says that graph's index was still being built (try again later);
    ``similar_unavailable`` says why they cannot be computed at all (an ``is_a`` cycle).
    """

    curie: str
    iri: str
    described: bool
    label: str | None
    definition: str | None
    comment: str | None
    logical_definition: str | None
    extension: bool
    deprecated: bool
    parallel_of: ClassRef | None
    synonyms: tuple[tuple[str, str], ...]
    parents: tuple[tuple[str, ClassRef], ...]
    ancestors: tuple[ClassRef, ...]
    annotation_count: int
    documents: tuple[DocumentUse, ...]
    similar: tuple[tuple[ClassRef, float], ...]
    similarity_ontology: str | None
    similar_pending: bool = False
    graphs: tuple[str, ...] = field(default=())
    similar_unavailable: str | None = None

    def to_json(self) -> dict[str, Any]:
        """The class page's data as JSON (documented in docs/viewer.md)."""

        def ref(r: ClassRef | None) -> dict[str, Any] | None:
            return None if r is None else {"curie": r.curie, "label": r.label}

        return {
            "curie": self.curie,
            "iri": self.iri,
            "described": self.described,
            "label": self.label,
            "definition": self.definition,
            "comment": self.comment,
            "logical_definition": self.logical_definition,
            "extension": self.extension,
            "deprecated": self.deprecated,
            "parallel_of": ref(self.parallel_of),
            "graphs": list(self.graphs),
            "synonyms": [{"scope": s, "text": t} for s, t in self.synonyms],
            "parents": [{"relation": rel, "curie": p.curie, "label": p.label} for rel, p in self.parents],
            "ancestors": [ref(a) for a in self.ancestors],
            "annotation_count": self.annotation_count,
            "documents": [
                {
                    "pmid": d.pmid,
                    "count": d.count,
                    "sets": list(d.sets),
                    "texts": [{"text": t, "count": n} for t, n in d.texts],
                }
                for d in self.documents
            ],
            "similar": [{"curie": r.curie, "label": r.label, "similarity": round(v, 6)} for r, v in self.similar],
            "similarity_ontology": self.similarity_ontology,
            "similar_pending": self.similar_pending,
            "similar_unavailable": self.similar_unavailable,
        }


IndexBuilder = Callable[[ReadableStore, str], WangIndex]


def wang_index(store: ReadableStore, ontology: str) -> WangIndex:
    """The Wang index of one ontology graph with the paper's weights (is_a 0.8, part_of 0.6)."""
    return similarity_index(store, method="wang", ontology=ontology, cache=None)


class ViewerState:
    """What the viewer keeps between requests: Wang indexes per ontology graph, built on first use.

    One per app (made by :func:`craftrdf.server.viewer.viewer_routes`); safe to share
    between the server's threads. The store must not change while the state lives
    (the server serves a store read-only).

    An index is built once per graph, in ``executor`` (by default a one-thread pool the
    state makes when first needed); a class page waits at most ``similar_wait`` seconds
    (None: as long as it takes) for it and otherwise says the similar classes are being computed, so a slow first
    build (seconds on the full corpus, more on a busy machine) never holds a page.
    ``build_index`` replaces how an index is made (tests use it).
    """

    def __init__(
        self,
        store: ReadableStore,
        *,
        base_iri: str,
        similar_k: int = 10,
        similar_wait: float | None = 5.0,
        executor: Executor | None = None,
        build_index: IndexBuilder = wang_index,
    ) -> None:
        self.store = store
        self.base_iri = _base(base_iri)
        self.similar_k = similar_k
        self.similar_wait = similar_wait
        self._executor = executor
        self._build_index = build_index
        self._lock = threading.Lock()
        self._builds: dict[str, Future[WangIndex]] = {}
        self._sizes: dict[str, int] | None = None

    def ontology_sizes(self) -> dict[str, int]:
        """Ontology graph name (``UBERON+extensions``) -> classes it declares; read once."""
        with self._lock:
            if self._sizes is None:
                rows = run_query(self.store, resolve_query("viewer-ontologies")).rows
                self._sizes = {_v(r[0])[len(_ONTOLOGY_GRAPH) :]: int(_v(r[1])) for r in rows}
            return self._sizes

    def _build(self, ontology: str) -> Future[WangIndex]:
        with self._lock:
            future = self._builds.get(ontology)
            if future is None:
                if self._executor is None:
                    self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="craftrdf-viewer-index")
                logger.info("building the Wang index of %s for the viewer", ontology)
                future = self._builds[ontology] = self._executor.submit(self._build_index, self.store, ontology)
            return future

    def index(self, ontology: str, *, timeout: float | None = None) -> WangIndex | None:
        """The Wang index of one ontology graph, built once; None if not ready within ``timeout`` seconds.

        ``timeout=None`` waits for it. A failed build raises its error here and is
        tried again on the next call.
        """
        future = self._build(ontology)
        try:
            return future.result(timeout=timeout)
        except FutureTimeout:
            return None
        except CycleError:
            raise  # the store does not change: building again would find the same cycle
        except Exception:
            with self._lock:
                if self._builds.get(ontology) is future:
                    del self._builds[ontology]
            raise

    def built_indexes(self) -> tuple[str, ...]:
        """The ontology graphs whose index has been built so far."""
        with self._lock:
            return tuple(sorted(g for g, f in self._builds.items() if f.done() and f.exception() is None))


def _similar(
    state: ViewerState, curie: str, graphs: list[str]
) -> tuple[str | None, bool, tuple[tuple[ClassRef, float], ...], str | None]:
    """(ontology used, still being computed, similar classes, why they cannot be computed)."""
    sizes = state.ontology_sizes()
    candidates = [g for g in graphs if g in sizes]
    if not candidates:
        return None, False, (), None
    ontology = max(candidates, key=lambda g: (sizes[g], g))
    try:
        index = state.index(ontology, timeout=state.similar_wait)
    except CycleError as exc:  # the page still answers, saying what it cannot compute
        return ontology, False, (), f"the is_a relations of {ontology} form a cycle ({exc.message})"
    if index is None:
        return ontology, True, (), None
    try:
        top = index.top_k(curie, state.similar_k)
    except UnknownTermError:  # declared, but left out of the weighted graph
        return ontology, False, (), None
    except CycleError as exc:
        return ontology, False, (), f"the is_a relations above {curie} form a cycle ({exc.message})"
    # a score of 0 means no common ancestor: not similar at all, so not listed
    return ontology, False, tuple((ClassRef(t, index.labels.get(t)), v) for t, v in top if v > 0), None


def class_view(state: ViewerState, curie: str, *, curies: CurieMap | None = None) -> ClassView | None:
    """The class ``curie``: its description, ancestors, annotations and most similar classes.

    None when no loaded graph describes it and no annotation uses it. Raises InputError
    when ``curie`` is not an OBO CURIE.
    """
    curies = curies or CurieMap()
    cls_iri = check_curie(curie, curies)
    curie = curies.compress(cls_iri)
    store = state.store
    facts = run_query(store, resolve_query("viewer-class"), {"cls": cls_iri}, curies=curies)
    uses = run_query(store, resolve_query("viewer-class-annotations"), {"cls": cls_iri}, curies=curies)
    if not facts.rows and not uses.rows:
        return None
    by_pred: dict[str, list[str]] = defaultdict(list)
    graphs: set[str] = set()
    for _cls, graph, p, value in facts.rows:
        by_pred[_v(p)].append(_v(value))
        if _v(p) == RDF.type and _v(value) == OWL.Class and _v(graph).startswith(_ONTOLOGY_GRAPH):
            graphs.add(_v(graph)[len(_ONTOLOGY_GRAPH) :])

    def first(pred: str) -> str | None:
        values = sorted(set(by_pred.get(pred, ())))
        return values[0] if values else None

    anc_rows = run_query(store, resolve_query("viewer-class-ancestors"), {"cls": cls_iri}, curies=curies)
    anc, anc_labels = _first_labels(anc_rows, ("ancestor",))
    label_of = {curies.compress(k[0]): v for k, v in anc_labels.items()}
    anc_curies = [curies.compress(_v(r[1])) for r in anc]
    ancestors = sorted(
        (ClassRef(c, label_of.get(c)) for c in anc_curies), key=lambda c: ((c.label or c.curie).casefold(), c.curie)
    )
    parents = sorted(
        {
            (rel, curies.compress(v))
            for pred, rel in _PARENT_RELATIONS.items()
            for v in by_pred.get(pred, ())
            if v.startswith(("http://", "https://"))
        }
    )
    synonyms = sorted({(scope, v) for pred, scope in _SYNONYM_SCOPES.items() for v in by_pred.get(pred, ())})
    base = first(CRAFT.parallelOf)
    parallel = None
    sim_graphs = sorted(graphs)
    if base is not None:
        base_curie = curies.compress(base)
        base_facts = run_query(store, resolve_query("viewer-class"), {"cls": base}, curies=curies)
        base_label = min((_v(r[3]) for r in base_facts.rows if _v(r[2]) == RDFS.label), default=None)
        parallel = ClassRef(base_curie, base_label)
        if not sim_graphs:
            sim_graphs = sorted(
                {_v(r[1])[len(_ONTOLOGY_GRAPH) :] for r in base_facts.rows if _v(r[1]).startswith(_ONTOLOGY_GRAPH)}
            )
    ontology, pending, similar, unavailable = _similar(state, curie, sim_graphs)

    per_doc: dict[str, list[tuple[str, str | None]]] = defaultdict(list)
    for _cls, key, _ann, doc, _spans, text in uses.rows:
        per_doc[_v(doc)].append((_v(key), _opt(text)))
    documents = tuple(
        DocumentUse(
            pmid,
            len(items),
            tuple(sorted({k for k, _ in items})),
            tuple(sorted(Counter(t for _, t in items if t is not None).items(), key=lambda x: (-x[1], x[0]))),
        )
        for pmid, items in sorted(per_doc.items(), key=lambda kv: (-len(kv[1]), kv[0]))
    )
    return ClassView(
        curie=curie,
        iri=cls_iri,
        described=bool(facts.rows),
        label=first(RDFS.label),
        definition=first(OBO.definition),
        comment=first(RDFS.comment),
        logical_definition=first(CRAFT.logicalDefinition),
        extension=is_extension_curie(curie),
        deprecated="true" in by_pred.get(OWL.deprecated, ()),
        parallel_of=parallel,
        synonyms=tuple(synonyms),
        parents=tuple((rel, ClassRef(c, label_of.get(c))) for rel, c in parents),
        ancestors=tuple(ancestors),
        annotation_count=len(uses.rows),
        documents=documents,
        similar=similar,
        similarity_ontology=ontology,
        similar_pending=pending,
        graphs=tuple(sorted(graphs)),
        similar_unavailable=unavailable,
    )
