"""The data of the viewer's class page: a class's description, ancestors, annotations and similar classes.

:class:`ViewerState` keeps, between requests, the Wang index of each ontology graph (built
once, off the request thread) and, for extension classes, the placements
``similarity --classify-extensions`` makes (:func:`extension_placements`); :func:`class_view`
reads one class. The document page's data is in :mod:`.viewer_data`.
"""

from __future__ import annotations

import logging
import threading
from collections import Counter, defaultdict
from collections.abc import Callable
from concurrent.futures import Executor, Future, ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from dataclasses import dataclass, field
from typing import Any, TypeVar

from ...analysis.similarity.definition import CycleError, UnknownTermError
from ...analysis.similarity.graph import IndexSpec
from ...analysis.similarity.graph import wang_index as build_wang_index
from ...analysis.similarity.wang import WangIndex
from ...core.curie import CurieMap, is_extension_curie
from ...core.model import SYNONYM_SCOPES
from ...core.vocab import CRAFT, OBO, OWL, RDF, RDFS
from ...querying.library import QueryResult, resolve_query, run_query
from ...store.local import ReadableStore
from .viewer_data import (
    ONTOLOGY_GRAPH_PREFIX,
    bound_value,
    check_curie,
    first_labels,
    normalize_base,
    optional_value,
)
from .viewer_placements import Placements, extension_placements

logger = logging.getLogger(__name__)

_PARENT_RELATIONS = {RDFS.subClassOf: "is_a", OBO.part_of: "part_of"}


@dataclass(frozen=True, slots=True)
class ClassRef:
    """A class named by CURIE, with its label when a loaded graph has one."""

    curie: str
    label: str | None


@dataclass(frozen=True, slots=True)
class DocumentUse:
    """The annotations of one class in one document: how many, in which sets, the covered texts.

    ``count`` adds every set's annotations, ``per_set`` gives them set by set; ``texts``
    counts mentions (distinct spans), so a mention that two sets annotate counts once.
    """

    pmid: str
    count: int
    sets: tuple[str, ...]
    texts: tuple[tuple[str, int], ...]
    per_set: tuple[tuple[str, int], ...] = ()


@dataclass(frozen=True, slots=True)
class ClassView:
    """What the class page shows.

    ``described`` is False for a class that only annotations mention (its ontology is
    not loaded). ``similar`` holds the most similar classes by Wang with their scores,
    computed in ``similarity_ontology`` (None when no loaded ontology declares the class);
    ``similar_pending`` says that graph's index was still being built (try again later);
    ``similar_unavailable`` says why they cannot be computed at all (an ``is_a`` cycle).
    ``per_set`` is (set, annotations, documents) for each set that uses the class. For an
    extension class, ``placed_under`` are the parents ``similarity --classify-extensions``
    places it under (beyond its told ``parents``), and ``placement_note`` says why it has none.
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
    similar_unavailable: str | None = None
    graphs: tuple[str, ...] = field(default=())
    per_set: tuple[tuple[str, int, int], ...] = ()
    placed_under: tuple[ClassRef, ...] = ()
    placement_note: str | None = None

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
            "per_set": [{"set": k, "annotations": n, "documents": d} for k, n, d in self.per_set],
            "documents": [
                {
                    "pmid": d.pmid,
                    "count": d.count,
                    "sets": list(d.sets),
                    "per_set": dict(d.per_set),
                    "texts": [{"text": t, "count": n} for t, n in d.texts],
                }
                for d in self.documents
            ],
            "placed_under": [ref(r) for r in self.placed_under],
            "placement_note": self.placement_note,
            "similar": [{"curie": r.curie, "label": r.label, "similarity": round(v, 6)} for r, v in self.similar],
            "similarity_ontology": self.similarity_ontology,
            "similar_pending": self.similar_pending,
            "similar_unavailable": self.similar_unavailable,
        }


IndexBuilder = Callable[[ReadableStore, str], WangIndex]
_T = TypeVar("_T")


def wang_index(store: ReadableStore, ontology: str) -> WangIndex:
    """The Wang index of one ontology graph with the paper's weights (is_a 0.8, part_of 0.6)."""
    return build_wang_index(store, IndexSpec(ontology=ontology), cache=None)


class ViewerState:
    """What the viewer keeps between requests: Wang indexes per ontology graph, built on first use.

    One per app (made by :func:`craftrdf.publishing.server.viewer.viewer_routes`); safe to share
    between the server's threads. The store must not change while the state lives
    (the server serves a store read-only).

    An index is built once per graph, in ``executor`` (by default a one-thread pool the
    state makes when first needed); a class page waits at most ``similar_wait`` seconds
    (None: as long as it takes) for it and otherwise says the similar classes are being computed, so a slow first
    build (seconds on the full corpus, more on a busy machine) never holds a page.
    The placements of extension classes (:func:`extension_placements`) are built the same way,
    on the first page of an extension class of that graph.
    ``build_index`` and ``build_placements`` replace how they are made (tests use them).
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
        build_placements: Callable[[ReadableStore, str], Placements] = extension_placements,
    ) -> None:
        self.store = store
        self.base_iri = normalize_base(base_iri)
        self.similar_k = similar_k
        self.similar_wait = similar_wait
        self._executor = executor
        self._build_index = build_index
        self._lock = threading.Lock()
        self._builds: dict[str, Future[WangIndex]] = {}
        self._placements: dict[str, Future[Placements]] = {}
        self._build_placements = build_placements
        self._sizes: dict[str, int] | None = None

    def ontology_sizes(self) -> dict[str, int]:
        """Ontology graph name (``UBERON+extensions``) -> classes it declares; read once."""
        with self._lock:
            if self._sizes is None:
                rows = run_query(self.store, resolve_query("viewer-ontologies")).rows
                self._sizes = {bound_value(r[0])[len(ONTOLOGY_GRAPH_PREFIX) :]: int(bound_value(r[1])) for r in rows}
            return self._sizes

    def _build(
        self, builds: dict[str, Future[_T]], ontology: str, make: Callable[[ReadableStore, str], _T]
    ) -> Future[_T]:
        with self._lock:
            future = builds.get(ontology)
            if future is None:
                if self._executor is None:
                    self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="craftrdf-viewer-index")
                logger.info("building %s of %s for the viewer", getattr(make, "__name__", "an index"), ontology)
                future = builds[ontology] = self._executor.submit(make, self.store, ontology)
            return future

    def _wait(
        self,
        builds: dict[str, Future[_T]],
        ontology: str,
        make: Callable[[ReadableStore, str], _T],
        timeout: float | None,
    ) -> _T | None:
        future = self._build(builds, ontology, make)
        try:
            return future.result(timeout=timeout)
        except FutureTimeout:
            return None
        except CycleError:
            raise  # the store does not change: building again would find the same cycle
        except Exception:
            with self._lock:
                if builds.get(ontology) is future:
                    del builds[ontology]
            raise

    def index(self, ontology: str, *, timeout: float | None = None) -> WangIndex | None:
        """The Wang index of one ontology graph, built once; None if not ready within ``timeout`` seconds.

        ``timeout=None`` waits for it. A failed build raises its error here and is
        tried again on the next call.
        """
        return self._wait(self._builds, ontology, self._build_index, timeout)

    def placements(self, ontology: str, *, timeout: float | None = None) -> Placements | None:
        """The extension classes of one ontology graph placed (:func:`extension_placements`), as :meth:`index`."""
        return self._wait(self._placements, ontology, self._build_placements, timeout)

    def built_indexes(self) -> tuple[str, ...]:
        """The ontology graphs whose index has been built so far."""
        with self._lock:
            return tuple(sorted(g for g, f in self._builds.items() if f.done() and f.exception() is None))


@dataclass(frozen=True, slots=True)
class _Similar:
    """The class page's similarity part: graph used, still building, similar classes, why none, placement."""

    ontology: str | None = None
    pending: bool = False
    similar: tuple[tuple[ClassRef, float], ...] = ()
    unavailable: str | None = None
    placed_under: tuple[ClassRef, ...] = ()
    placement_note: str | None = None


def _similar(state: ViewerState, curie: str, graphs: list[str], *, extension: bool, told: set[str]) -> _Similar:
    """Similar classes in the largest graph declaring the class; an extension class's from its placements."""
    sizes = state.ontology_sizes()
    candidates = [g for g in graphs if g in sizes]
    if not candidates:
        return _Similar()
    ontology = max(candidates, key=lambda g: (sizes[g], g))
    placed: Placements | None = None
    try:
        if extension:
            placed = state.placements(ontology, timeout=state.similar_wait)
            index = placed.index if placed is not None else None
        else:
            index = state.index(ontology, timeout=state.similar_wait)
    except CycleError as exc:  # the page still answers, saying what it cannot compute
        return _Similar(ontology, unavailable=f"the is_a relations of {ontology} form a cycle ({exc.message})")
    if index is None:
        return _Similar(ontology, pending=True)
    try:
        top = index.top_k(curie, state.similar_k)
    except UnknownTermError:  # declared, but left out of the weighted graph
        top = []
    except CycleError as exc:
        return _Similar(ontology, unavailable=f"the is_a relations above {curie} form a cycle ({exc.message})")
    # a score of 0 means no common ancestor: not similar at all, so not listed
    similar = tuple((ClassRef(t, index.labels.get(t)), v) for t, v in top if v > 0)
    if placed is None:
        return _Similar(ontology, similar=similar)
    under = tuple(ClassRef(p, index.labels.get(p)) for p in placed.parents.get(curie, ()) if p not in told)
    note = None
    if not under and not told:
        note = placed.unplaced.get(curie, "it has no logical definition to place it by")
    return _Similar(ontology, similar=similar, placed_under=under, placement_note=note)


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
        by_pred[bound_value(p)].append(bound_value(value))
        if (
            bound_value(p) == RDF.type
            and bound_value(value) == OWL.Class
            and bound_value(graph).startswith(ONTOLOGY_GRAPH_PREFIX)
        ):
            graphs.add(bound_value(graph)[len(ONTOLOGY_GRAPH_PREFIX) :])

    def first(pred: str) -> str | None:
        values = sorted(set(by_pred.get(pred, ())))
        return values[0] if values else None

    anc_rows = run_query(store, resolve_query("viewer-class-ancestors"), {"cls": cls_iri}, curies=curies)
    anc, anc_labels = first_labels(anc_rows, ("ancestor",))
    label_of = {curies.compress(k[0]): v for k, v in anc_labels.items()}
    anc_curies = [curies.compress(bound_value(r[1])) for r in anc]
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
    synonyms = sorted({(scope, v) for pred, scope in SYNONYM_SCOPES.items() for v in by_pred.get(pred, ())})
    parallel, sim_graphs = _parallel(store, first(CRAFT.parallelOf), sorted(graphs), curies)
    extension = is_extension_curie(curie) and parallel is None  # a parallel class is its base for similarity
    sim = _similar(state, curie, sim_graphs, extension=extension, told={c for _, c in parents})
    documents = _documents(uses)
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
        similar=sim.similar,
        similarity_ontology=sim.ontology,
        similar_pending=sim.pending,
        graphs=tuple(sorted(graphs)),
        similar_unavailable=sim.unavailable,
        per_set=_per_set(uses),
        placed_under=sim.placed_under,
        placement_note=sim.placement_note,
    )


def _parallel(
    store: ReadableStore, base: str | None, graphs: list[str], curies: CurieMap
) -> tuple[ClassRef | None, list[str]]:
    """The class a parallel extension class stands for, and the graphs to find similar classes in.

    Those are the class's own ontology graphs, or when it has none, its base class's.
    """
    if base is None:
        return None, graphs
    base_facts = run_query(store, resolve_query("viewer-class"), {"cls": base}, curies=curies)
    label = min((bound_value(r[3]) for r in base_facts.rows if bound_value(r[2]) == RDFS.label), default=None)
    if not graphs:
        graphs = sorted(
            {
                bound_value(r[1])[len(ONTOLOGY_GRAPH_PREFIX) :]
                for r in base_facts.rows
                if bound_value(r[1]).startswith(ONTOLOGY_GRAPH_PREFIX)
            }
        )
    return ClassRef(curies.compress(base), label), graphs


def _documents(uses: QueryResult) -> tuple[DocumentUse, ...]:
    """A class's annotations per document: most annotated first, set by set; covered texts by mention."""
    per_doc: dict[str, list[tuple[str, str | None, str | None]]] = defaultdict(list)
    for _cls, key, _ann, doc, spans, text in uses.rows:
        per_doc[bound_value(doc)].append((bound_value(key), optional_value(spans), optional_value(text)))
    out = []
    for pmid, items in sorted(per_doc.items(), key=lambda kv: (-len(kv[1]), kv[0])):
        # a mention is its spans: the core and +extensions sets annotate the same mention twice
        mentions = {(spans, text) for _, spans, text in items if text is not None}
        texts = Counter(text for _, text in mentions)
        out.append(
            DocumentUse(
                pmid,
                len(items),
                tuple(sorted({k for k, _, _ in items})),
                tuple(sorted(texts.items(), key=lambda x: (-x[1], x[0]))),
                tuple(sorted(Counter(k for k, _, _ in items).items())),
            )
        )
    return tuple(out)


def _per_set(uses: QueryResult) -> tuple[tuple[str, int, int], ...]:
    """(set, annotations, documents) for each set that uses the class."""
    annotations = Counter(bound_value(row[1]) for row in uses.rows)
    documents = Counter(key for key, _ in {(bound_value(row[1]), bound_value(row[3])) for row in uses.rows})
    return tuple((key, annotations[key], documents[key]) for key in sorted(annotations))
