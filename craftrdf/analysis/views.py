"""Annotation-set views: a choice of sets x a class filter x a nesting filter, run as SPARQL.

Nesting is about characters: annotation A is nested when another annotation B of the
same document, among the chosen sets, covers every character A covers and at least one
more (two annotations on identical text are not nested in each other). Which pairs nest
does not depend on the chosen sets, so a view reads the store's *nested-annotation index*
(``<A> craft:within <B>`` links over every set) and keeps the links whose two ends are
among its sets; it reads the annotations from each set's *view index* (one literal per
annotation). Both are made by the commands that write sets, never here on a store open
for reading (:mod:`craftrdf.querying.indexes`). The view is also stated in SPARQL
(``querying/queries/view.rq``), which answers a read-only store whose view index is stale.

The four annotation sets of the Uberon paper (Bada et al. 2017) are then:
core = proper+outermost, core+extensions = all+outermost, core+nested = proper+all,
core+extensions+nested = all+all.
"""

from __future__ import annotations

import hashlib
import json
import logging
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Literal
from urllib.parse import unquote

from ..core.curie import CurieMap
from ..core.errors import ConfigError
from ..core.iris import CONTAINMENT_GRAPH, DOCUMENTS_GRAPH, check_set_key, set_iri
from ..core.model import Annotation
from ..core.rdf import iri, literal, quad
from ..core.vocab import CRAFT
from ..querying.indexes import (
    Progress,
    ensure_containment,
    ensure_view_rows,
    stale_index_message,
    stale_view_rows,
    view_rows_graph,
    write_set_batch,
)
from ..querying.library import QueryResult, resolve_query, run_query
from ..querying.sets import resolve_sets as resolve_set_patterns
from ..querying.sets import set_graphs
from ..querying.webanno import annotation_nquads, parse_spans_text, rows_to_annotations, set_nquads
from ..store.local import ReadableStore, WritableStore

logger = logging.getLogger(__name__)

ClassFilter = Literal["all", "proper", "extension"]
NestingFilter = Literal["all", "outermost", "nested"]
_CLASS_FILTERS = ("all", "proper", "extension")
_NESTING_FILTERS = ("all", "outermost", "nested")


@dataclass(frozen=True, slots=True)
class ViewSpec:
    """A view: set keys (exact store keys), a class filter, a nesting filter, an optional split."""

    sets: tuple[str, ...]
    classes: ClassFilter = "all"
    nesting: NestingFilter = "all"
    split: str | None = None

    def __post_init__(self) -> None:
        if not self.sets:
            raise ConfigError("a view needs at least one annotation set")
        if self.classes not in _CLASS_FILTERS:
            raise ConfigError(f"class filter {self.classes!r}: use one of {', '.join(_CLASS_FILTERS)}")
        if self.nesting not in _NESTING_FILTERS:
            raise ConfigError(f"nesting filter {self.nesting!r}: use one of {', '.join(_NESTING_FILTERS)}")


@dataclass(frozen=True, slots=True)
class ViewRow:
    """One annotation of a view: the set it comes from and the annotation record."""

    set: str
    annotation: Annotation


def resolve_sets(store: ReadableStore, patterns: Iterable[str]) -> tuple[str, ...]:
    """Store set keys for user patterns: exact keys (any case) or ``*`` wildcards (``*_EXT``).

    ConfigError names a pattern that matches nothing. The resolver is
    :func:`craftrdf.querying.sets.resolve_sets`; this name stays for analysis/evaluation/inputs.py until it
    imports that one.
    """
    return resolve_set_patterns(store, patterns)


# -- views ---------------------------------------------------------------------------


def _graphs(store: ReadableStore, sets: Sequence[str]) -> list[str]:
    return [*set_graphs(store, sets), CONTAINMENT_GRAPH, DOCUMENTS_GRAPH]


def _view_result(store: ReadableStore, spec: ViewSpec, curies: CurieMap) -> QueryResult:
    if spec.nesting != "all":
        ensure_containment(store)
    params: dict[str, str] = {"classes": spec.classes, "nesting": spec.nesting}
    if spec.split:
        params["split"] = spec.split
    return run_query(store, resolve_query("view"), params, curies=curies, named_graphs=_graphs(store, spec.sets))


def _fast_view(store: ReadableStore, spec: ViewSpec, curies: CurieMap) -> list[ViewRow] | None:
    """The view from the derived rows (filters applied here), or None when they are stale and read-only."""
    batches = store.batches()
    if any(set_iri(k) not in batches for k in spec.sets):
        _graphs(store, spec.sets)  # ConfigError naming the unknown sets (the sets query costs 0.4 s)
    if spec.nesting != "all":
        ensure_containment(store)
    stale = stale_view_rows(store, spec.sets)
    if stale:
        if not (store.writable and isinstance(store, WritableStore)):
            logger.warning(
                "%s; until then this view is read from the set graphs, several times slower",
                stale_index_message(store, f"view index of {', '.join(stale)}"),
            )
            return None
        ensure_view_rows(store, spec.sets)
    rows = []
    for key in dict.fromkeys(spec.sets):
        result = run_query(store, "view-rows", named_graphs=[view_rows_graph(key)])
        for ann, value in result.strings("annotation", "row"):
            document, cls, spans, text = json.loads(value)
            rows.append((key, ann, document, cls, spans, text))
    nested: set[str] = set()
    if spec.nesting != "all":
        chosen = {r[1] for r in rows}
        links = run_query(store, "containment-links")
        nested = {inner for inner, outer in links.strings("inner", "outer") if inner in chosen and outer in chosen}
    splits: dict[str, str] = {}
    if spec.split:
        split_rows = run_query(store, "document-splits")
        splits = {row[0]: row[1] for row in split_rows.strings("document", "split")}
    out = []
    for key, ann, document, cls, spans, text in rows:
        # the same tests as querying/queries/view.rq
        if spec.classes != "all" and ("_EXT_" in cls) != (spec.classes == "extension"):
            continue
        if spec.nesting != "all" and (ann in nested) != (spec.nesting == "nested"):
            continue
        if spec.split and splits.get(document, "none") != spec.split:
            continue
        out.append(
            ViewRow(
                key,
                Annotation(
                    id=unquote(ann.rsplit("/", 1)[1]),
                    document=document,
                    class_id=curies.compress(cls),
                    spans=parse_spans_text(spans) if spans is not None else (),
                    text=text,
                ),
            )
        )
    return out


def run_view(store: ReadableStore, spec: ViewSpec, *, curies: CurieMap | None = None) -> list[ViewRow]:
    """The annotations of a view, each with its set, sorted by set, document and id.

    A nesting filter needs the store's nested-annotation index: made here when it is
    missing or stale and the store is writable, StoreError naming the command that makes
    it when the store is open for reading. Reads the view index (:func:`ensure_view_rows`,
    likewise made on a writable store); a read-only store without it is answered by
    ``querying/queries/view.rq`` (the same answer, several times slower), with a warning.
    """
    curies = curies or CurieMap()
    rows = _fast_view(store, spec, curies)
    if rows is None:
        result = _view_result(store, spec, curies)
        anns = rows_to_annotations(result.columns, result.rows, curies)
        rows = [ViewRow(key, a) for (key,), a in zip(result.strings("set"), anns)]
    rows.sort(key=lambda v: (v.set, v.annotation.document, v.annotation.id))
    return rows


def nested_annotations(store: ReadableStore) -> set[str]:
    """The IRIs of the annotations that lie within an annotation of any set in the store.

    The nesting of the ``nested`` view taken over every set, read from the containment
    links alone (no view rows are needed). Brings the links up to date first on a writable
    store; on one open for reading they must be current (StoreError naming the command).
    """
    ensure_containment(store)
    links = run_query(store, "containment-links")
    return {inner for (inner,) in links.strings("inner")}


def nested_pairs(store: ReadableStore, sets: Sequence[str], *, document: str | None = None) -> QueryResult:
    """Which annotation sits inside which, among the chosen sets (``querying/queries/nested-pairs.rq``)."""
    ensure_containment(store)
    params = {"document": document} if document else {}
    return run_query(store, resolve_query("nested-pairs"), params, named_graphs=_graphs(store, sets))


def materialize_view(
    store: WritableStore,
    spec: ViewSpec,
    key: str,
    *,
    curies: CurieMap,
    progress: Progress | None = None,
) -> int:
    """Store a view as a new annotation set ``key`` (a named graph like any set); returns annotations.

    Annotation ids become ``<source set>/<source id>``, so sets that reuse ids (UBERON and
    UBERON_EXT share Knowtator mention ids) stay distinct. The set records the view's
    sources and filters. Re-running with the same view and store content writes nothing.
    The view indexes are brought up to date afterwards (:func:`~craftrdf.querying.indexes.write_set_batch`,
    reporting to ``progress``).
    """
    check_set_key(key)
    if key in spec.sets:
        raise ConfigError(f"a view cannot replace one of its own sets ({key})")
    rows = run_view(store, spec, curies=curies)
    anns = [
        Annotation(
            f"{r.set}/{r.annotation.id}",
            r.annotation.document,
            r.annotation.class_id,
            r.annotation.spans,
            r.annotation.text,
        )
        for r in rows
    ]
    s = iri(set_iri(key))
    desc = list(set_nquads(key, module=None, variant=None, ontology=None, mappings=None))
    desc += [quad(s, iri(CRAFT.derivedFrom), iri(set_iri(src)), s) for src in spec.sets]
    desc += [
        quad(s, iri(CRAFT.viewClasses), literal(spec.classes), s),
        quad(s, iri(CRAFT.viewNesting), literal(spec.nesting), s),
    ]
    if spec.split:
        desc.append(quad(s, iri(CRAFT.viewSplit), literal(spec.split), s))
    batches = store.batches()
    h = hashlib.sha256(repr(spec).encode())
    for g in sorted(set_iri(x) for x in spec.sets):
        h.update(batches[g].digest.encode() if g in batches else b"")
    lines = [*desc, *annotation_nquads(anns, set_key=key, curies=curies)]
    write_set_batch(store, key, lines, anns, digest=h.hexdigest(), curies=curies, progress=progress)
    return len(anns)
