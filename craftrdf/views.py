"""Annotation-set views: a choice of sets x a class filter x a nesting filter, run as SPARQL.

Nesting is about characters: annotation A is nested when another annotation B of the
same document, among the chosen sets, covers every character A covers and at least one
more (two annotations on identical text are not nested in each other). Which pairs
stand in that relation does not depend on the chosen sets, so it is computed once for
the whole store (:func:`ensure_containment`, exact character-set arithmetic in numpy)
and stored as ``<A> craft:within <B>`` links in a derived graph, the *nested-annotation
index*; a view is then a plain SPARQL query (``queries/view.rq``) over the chosen set graphs
and those links. For speed, :func:`run_view` reads a second derived copy, the *view index*:
one literal per annotation per set (:func:`ensure_view_rows`), and applies the same three
tests to it.

Both indexes are made by the commands that write sets, never by a reader: ``build`` writes
a set's view rows in the set's own batch (:func:`view_row_lines`) and every writer ends with
:func:`update_indexes` (``craftrdf index`` runs it alone). Each index carries a digest of the
set batches it was made from, so a reader can tell when it is stale: a read-only store whose
nested-annotation index is missing or stale refuses a nesting filter with one line naming the
command that makes it; one whose view rows are stale answers from ``queries/view.rq``, the same
rows more slowly, and says so.

Annotations without characters (no span, or only zero-length spans) are neither nested
nor containers.

The four annotation sets of the Uberon paper (Bada et al. 2017) are then:
core = proper+outermost, core+extensions = all+outermost, core+nested = proper+all,
core+extensions+nested = all+all.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import logging
import time
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Literal
from urllib.parse import unquote

import numpy as np

from .curie import CurieMap
from .errors import ConfigError, StoreError
from .iris import (
    CONTAINMENT_GRAPH,
    DOCUMENTS_GRAPH,
    annotation_document,
    annotation_iri,
    check_set_key,
    document_iri,
    set_iri,
)
from .model import Annotation
from .querying import QueryResult, resolve_query, run_query
from .rdf import iri, literal, quad
from .store import ReadableStore, WritableStore
from .vocab import BASE, CRAFT
from .webanno import annotation_nquads, parse_spans_text, rows_to_annotations, set_nquads, set_rows, spans_text

__all__ = [
    "ClassFilter",
    "NestingFilter",
    "Progress",
    "ViewRow",
    "ViewSpec",
    "containment_pairs",
    "containment_spans",
    "ensure_containment",
    "ensure_view_rows",
    "materialize_view",
    "nested_annotations",
    "nested_pairs",
    "resolve_sets",
    "run_view",
    "stale_index_message",
    "update_indexes",
    "view_row_lines",
    "view_rows_graph",
    "write_set_batch",
]

logger = logging.getLogger(__name__)

ClassFilter = Literal["all", "proper", "extension"]
NestingFilter = Literal["all", "outermost", "nested"]
#: A progress callback ``(done, total, label)``, as the builder's.
Progress = Callable[[int, int, str], None]
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


def _store_sets(store: ReadableStore) -> dict[str, str]:
    """Every set key in the store -> its graph IRI."""
    return {key: set_iri(key) for (key,) in run_query(store, resolve_query("sets")).strings("set")}


def resolve_sets(store: ReadableStore, patterns: Iterable[str]) -> tuple[str, ...]:
    """Store set keys for user patterns: exact keys (any case) or ``*`` wildcards (``*_EXT``).

    ConfigError names a pattern that matches nothing.
    """
    import fnmatch

    keys = sorted(_store_sets(store))
    chosen: list[str] = []
    for pattern in patterns:
        hits = [k for k in keys if fnmatch.fnmatchcase(k.lower(), pattern.lower())]
        if not hits:
            raise ConfigError(f"no annotation set in the store matches {pattern!r}; sets: {', '.join(keys)}")
        chosen.extend(h for h in hits if h not in chosen)
    return tuple(chosen)


# -- containment ---------------------------------------------------------------------


def _char_intervals(spans: Sequence[tuple[int, int]]) -> tuple[tuple[int, int], ...]:
    """The character set of some spans as sorted, merged, non-empty intervals."""
    out: list[list[int]] = []
    for s, e in sorted(spans):
        if e <= s:
            continue
        if out and s <= out[-1][1]:
            out[-1][1] = max(out[-1][1], e)
        else:
            out.append([s, e])
    return tuple((s, e) for s, e in out)


def _within(inner: tuple[tuple[int, int], ...], outer: tuple[tuple[int, int], ...]) -> bool:
    """True when every character of ``inner`` is in ``outer`` (both merged interval lists)."""
    j = 0
    for s, e in inner:
        while j < len(outer) and outer[j][1] <= s:
            j += 1
        if j == len(outer) or not (outer[j][0] <= s and e <= outer[j][1]):
            return False
    return True


def _size(intervals: tuple[tuple[int, int], ...]) -> int:
    return sum(e - s for s, e in intervals)


def containment_pairs(spans: Iterable[tuple[str, str, int, int]]) -> Iterator[tuple[str, str]]:
    """``(inner, outer)`` pairs from ``(annotation, document, start, end)`` rows (one per span).

    Exact over character sets: outer covers every character of inner and at least one
    more. Candidates are found per document by numpy bounding-box tests; pairs where
    either side is discontinuous are then checked interval by interval.
    """
    by_doc: dict[str, dict[str, list[tuple[int, int]]]] = defaultdict(lambda: defaultdict(list))
    for ann, doc, start, end in spans:
        by_doc[doc][ann].append((start, end))
    for doc in sorted(by_doc):
        items = [(a, _char_intervals(s)) for a, s in by_doc[doc].items()]
        items = [(a, iv) for a, iv in items if iv]
        if len(items) < 2:
            continue
        names = [a for a, _ in items]
        ivs = [iv for _, iv in items]
        first = np.array([iv[0][0] for iv in ivs])
        last = np.array([iv[-1][1] for iv in ivs])
        size = np.array([_size(iv) for iv in ivs])
        single = np.array([len(iv) == 1 for iv in ivs])
        # blocks of inner annotations keep the n x n comparison within ~16 M cells
        step = max(1, (1 << 24) // len(items))
        for lo in range(0, len(items), step):
            sl = slice(lo, lo + step)
            # outer's box contains inner's box and outer has more characters
            inner, outer = np.nonzero(
                (first[None, :] <= first[sl, None])
                & (last[None, :] >= last[sl, None])
                & (size[None, :] > size[sl, None])
            )
            for i, j in zip((inner + lo).tolist(), outer.tolist()):
                if single[j] or _within(ivs[i], ivs[j]):
                    yield names[i], names[j]


def _containment_digest(store: ReadableStore, graphs: Iterable[str]) -> str:
    batches = store.batches()
    h = hashlib.sha256(b"containment-1")
    for g in sorted(graphs):
        h.update(g.encode() + b"\0" + (batches[g].digest if g in batches else "").encode() + b"\n")
    return h.hexdigest()


def containment_spans(store: ReadableStore) -> list[tuple[str, str, int, int]]:
    """``(annotation, document, start, end)`` per span of every annotation in the store's sets.

    The input of :func:`containment_pairs`. The document is read from the annotation IRI
    (``queries/containment-spans.rq``, one triple pattern per annotation); when any IRI is
    not one craftrdf minted, every row is asked for its document instead (``queries/spans.rq``).
    """
    result = run_query(store, "containment-spans")
    rows = result.strings("annotation", "spans")
    docs = [annotation_document(ann) for ann, _ in rows]
    if any(d is None for d in docs):  # an annotation IRI craftrdf did not mint: ask for the documents
        full = run_query(store, "spans")
        return [
            (ann, doc, s.start, s.end)
            for _, ann, doc, spans in full.strings("set", "annotation", "doc", "spans")
            for s in parse_spans_text(spans)
        ]
    return [
        (ann, d, s.start, s.end)
        for (ann, spans), d in zip(rows, docs)
        if d is not None
        for s in parse_spans_text(spans)
    ]


def ensure_containment(store: ReadableStore) -> int:
    """Bring the nested-annotation index (the containment links) up to date; returns links written (0 if current).

    A store open for reading whose index is missing or stale raises StoreError naming the
    command that makes it (:func:`stale_index_message`).
    """
    graphs = _store_sets(store).values()
    digest = _containment_digest(store, graphs)
    if store.has_batch(CONTAINMENT_GRAPH, digest):
        return 0
    if not (store.writable and isinstance(store, WritableStore)):
        raise StoreError(stale_index_message(store, "nested-annotation index"))
    t = time.perf_counter()
    spans = containment_spans(store)
    g = iri(CONTAINMENT_GRAPH)
    within = iri(CRAFT.within)
    lines = (f"<{inner}> {within} <{outer}> {g} ." for inner, outer in containment_pairs(spans))
    n = store.load_batch(CONTAINMENT_GRAPH, lines, digest=digest)
    logger.info(
        "nested-annotation index: %d links between %d annotations in %.1f s",
        n - 1,
        len({a for a, *_ in spans}),
        time.perf_counter() - t,
    )
    return n


def stale_index_message(store: ReadableStore, what: str) -> str:
    """One line saying that the store's ``what`` (an index's name, as a user knows it) is missing or stale, and
    which command (and which Python function) makes it."""
    path = getattr(store, "path", None)
    endpoint = getattr(store, "endpoint", None)
    if path is not None:
        where, options = str(path), f"--store {path}"
    elif endpoint:
        where, options = str(endpoint), f"--endpoint {endpoint} --graph-store URL"
    else:
        where, options = "this store", "--store DIR"
    return (
        f"{where}: the {what} is missing or out of date (sets were added or changed since it was made, "
        f"or an older craftrdf built the store); make it with `craftrdf index {options}` "
        '(in Python: craftrdf.index(store), the store opened with mode="write")'
    )


# -- views ---------------------------------------------------------------------------


def _graphs(store: ReadableStore, sets: Sequence[str]) -> list[str]:
    known = _store_sets(store)
    missing = [s for s in sets if s not in known]
    if missing:
        raise ConfigError(f"no annotation set {', '.join(missing)} in the store; sets: {', '.join(sorted(known))}")
    return [known[s] for s in sets] + [CONTAINMENT_GRAPH, DOCUMENTS_GRAPH]


def _view_result(store: ReadableStore, spec: ViewSpec, curies: CurieMap) -> QueryResult:
    if spec.nesting != "all":
        ensure_containment(store)
    params: dict[str, str] = {"classes": spec.classes, "nesting": spec.nesting}
    if spec.split:
        params["split"] = spec.split
    return run_query(store, resolve_query("view"), params, curies=curies, named_graphs=_graphs(store, spec.sets))


# -- view rows: a derived copy of each set's annotations, one literal per annotation ----------
#
# Reading a view straight from the set graphs costs about 8 s of CPU over all *_EXT sets, almost
# all of it in Oxigraph joining five patterns per annotation and decoding their terms (4-10 us
# each on disk). The same answer read from one literal per annotation is a plain scan. The rows
# are derived data, like the containment links: one graph per set, carrying a digest of the set
# batch, rewritten whenever that batch changes; a store opened for reading whose rows are stale
# is answered by queries/view.rq instead.

_ROW = CRAFT.viewRow
_ROWS_VERSION = b"view-rows-1"


def view_rows_graph(key: str) -> str:
    """The derived graph holding the view rows of set ``key``."""
    return BASE + "derived/view-rows/" + key


def _rows_digest(set_digest: str) -> str:
    return hashlib.sha256(_ROWS_VERSION + b"\0" + set_digest.encode()).hexdigest()


def _stale_rows(store: ReadableStore, sets: Sequence[str]) -> list[str]:
    batches = store.batches()
    stale = []
    for key in sets:
        set_batch = batches.get(set_iri(key))
        rows_batch = batches.get(view_rows_graph(key))
        if set_batch is None or rows_batch is None or rows_batch.digest != _rows_digest(set_batch.digest):
            stale.append(key)
    return stale


# the cells of craftrdf.webanno.set_rows' rows
_SET_COLUMNS = ("annotation", "document", "class", "spans", "text")


def ensure_view_rows(store: ReadableStore, sets: Sequence[str]) -> int:
    """Bring the view rows (the view index) of ``sets`` up to date; returns how many sets were rewritten.

    StoreError naming the command that makes them when one is stale and the store is open
    for reading; :func:`run_view` does not call this on such a store, it reads ``queries/view.rq``.
    """
    stale = _stale_rows(store, sets)
    if not stale:
        return 0
    if not (store.writable and isinstance(store, WritableStore)):
        raise StoreError(stale_index_message(store, f"view index of {', '.join(stale)}"))
    batches = store.batches()
    for key in stale:
        if set_iri(key) not in batches:
            raise ConfigError(f"no annotation set {key} in the store")
        g = iri(view_rows_graph(key))
        row = iri(_ROW)
        lines = []
        # the whole set in one pass of set-annotations.rq (the `annotations` query's rows, by
        # hash joins rather than per-annotation lookups: docs/scale.md)
        result = QueryResult(_SET_COLUMNS, tuple(set_rows(store, key)))
        for ann, document, cls, spans, text in result.optional_strings(*_SET_COLUMNS):
            lines.append(f"<{ann}> {row} {literal(_row_value(document, cls, spans, text))} {g} .")
        store.load_batch(view_rows_graph(key), lines, digest=_rows_digest(batches[set_iri(key)].digest))
        logger.info("view rows of %s written: %d", key, len(lines))
    return len(stale)


def _row_value(document: str | None, cls: str | None, spans: str | None, text: str | None) -> str:
    return json.dumps([document, cls, spans, text], ensure_ascii=False)


_DOC_PREFIX = BASE + "doc/"


def view_row_lines(key: str, set_digest: str, annotations: Iterable[Annotation], *, curies: CurieMap) -> Iterator[str]:
    """N-Quads of set ``key``'s view rows, made from its annotations as they are written.

    A writer that has the annotations at hand adds these lines to the set's own batch, with
    :func:`view_rows_graph` ``(key)`` as a companion graph, and ``set_digest`` the batch's
    digest: the rows are then written, replaced and removed with the set, at the cost of one
    JSON literal per annotation, instead of being read back from the store. The rows are
    those :func:`ensure_view_rows` reads from the store for the same set (tests compare).
    """
    graph = view_rows_graph(key)
    g = iri(graph)
    row = iri(_ROW)
    yield quad(g, iri(CRAFT.digest), literal(_rows_digest(set_digest)), g)
    for a in annotations:
        ann = annotation_iri(key, a.document, a.id)
        value = _row_value(
            document_iri(a.document)[len(_DOC_PREFIX) :],
            curies.expand(a.class_id),
            spans_text(a.spans) if a.spans else None,
            a.text,
        )
        yield f"<{ann}> {row} {literal(value)} {g} ."


def write_set_batch(
    store: WritableStore,
    key: str,
    lines: Iterable[str],
    annotations: Sequence[Annotation],
    *,
    digest: str,
    curies: CurieMap,
    progress: Progress | None = None,
) -> int:
    """Write set ``key`` as one batch (``lines``: the N-Quads of its description and ``annotations``) with its
    view rows, then bring the view indexes up to date (:func:`update_indexes`).

    Returns the quads written, view rows included (0 when the batch with ``digest`` was there).
    """
    rows = view_row_lines(key, digest, annotations, curies=curies)
    n = store.load_batch(set_iri(key), itertools.chain(lines, rows), digest=digest, companions=[view_rows_graph(key)])
    update_indexes(store, progress=progress)
    return n


def update_indexes(store: ReadableStore, *, changed: Sequence[str] = (), progress: Progress | None = None) -> int:
    """Bring the store's view indexes up to date: every set's view rows and the nested-annotation index.

    What the commands that write sets run at their end (``craftrdf index`` runs it alone);
    returns the index batches written, 0 when everything was current (a check of about half a
    second on a full store). View rows of sets no longer in the store are removed. ``changed``
    names sets whose content changed while their batch digest did not (a streamed run appends
    to its set), whose indexes are made again. StoreError (naming the command) when something
    is stale and the store is open for reading.
    """
    keys = sorted(_store_sets(store))
    if changed and store.writable and isinstance(store, WritableStore):
        for key in changed:
            store.remove_batch(view_rows_graph(key))
        store.remove_batch(CONTAINMENT_GRAPH)
    stale = _stale_rows(store, keys)
    nesting = not store.has_batch(CONTAINMENT_GRAPH, _containment_digest(store, (set_iri(k) for k in keys)))
    orphans = [
        g for g in store.batches() if g.startswith(view_rows_graph("")) and g[len(view_rows_graph("")) :] not in keys
    ]
    total = len(stale) + nesting
    if total == 0 and not orphans:
        return 0
    if not (store.writable and isinstance(store, WritableStore)):
        raise StoreError(stale_index_message(store, "view index" if not nesting else "nested-annotation index"))
    for graph in orphans:
        store.remove_batch(graph)
    t = time.perf_counter()
    for i, key in enumerate(stale):
        if progress is not None:
            progress(i, total, f"view index {key}")
        ensure_view_rows(store, [key])
    if nesting:
        if progress is not None:
            progress(len(stale), total, "nested-annotation index")
        ensure_containment(store)
    if progress is not None:
        progress(total, total, "done")
    logger.info("view indexes: %d made in %.1f s", total, time.perf_counter() - t)
    return total


def _fast_view(store: ReadableStore, spec: ViewSpec, curies: CurieMap) -> list[ViewRow] | None:
    """The view from the derived rows (filters applied here), or None when they are stale and read-only."""
    batches = store.batches()
    if any(set_iri(k) not in batches for k in spec.sets):
        _graphs(store, spec.sets)  # ConfigError naming the unknown sets (the sets query costs 0.4 s)
    if spec.nesting != "all":
        ensure_containment(store)
    stale = _stale_rows(store, spec.sets)
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
        # the same tests as queries/view.rq
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
    ``queries/view.rq`` (the same answer, several times slower), with a warning.
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
    """Which annotation sits inside which, among the chosen sets (``queries/nested-pairs.rq``)."""
    ensure_containment(store)
    params = {"document": document} if document else {}
    return run_query(store, resolve_query("nested-pairs"), params, named_graphs=_graphs(store, sets))


def materialize_view(store: WritableStore, spec: ViewSpec, key: str, *, curies: CurieMap | None = None) -> int:
    """Store a view as a new annotation set ``key`` (a named graph like any set); returns annotations.

    Annotation ids become ``<source set>/<source id>``, so sets that reuse ids (UBERON and
    UBERON_EXT share Knowtator mention ids) stay distinct. The set records the view's
    sources and filters. Re-running with the same view and store content writes nothing.
    The view indexes are brought up to date afterwards (:func:`write_set_batch`).
    """
    check_set_key(key)
    if key in spec.sets:
        raise ConfigError(f"a view cannot replace one of its own sets ({key})")
    curies = curies or CurieMap()
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
    write_set_batch(store, key, lines, anns, digest=h.hexdigest(), curies=curies)
    return len(anns)
