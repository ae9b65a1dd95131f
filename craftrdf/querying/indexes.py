"""The store's view indexes: derived data that views read, made by the commands that write sets.

Two kinds, each a batch of its own under ``https://w3id.org/craftrdf/derived/`` whose digest is
made of the digests of the set batches it was computed from, so a reader can tell when it is
stale (docs/rdf-model.md, "Derived graphs"):

- the *nested-annotation index* (:func:`ensure_containment`): ``<A> craft:within <B>`` for
  every annotation A whose characters annotation B of the same document covers, and at least
  one more (exact character-set arithmetic in numpy, :func:`containment_pairs`), over every
  set of the store, since which pairs nest does not depend on the sets a view chooses;
- the *view index* of each set (:func:`ensure_view_rows`): one JSON literal per annotation
  with what a view row needs, a plain scan where the set graphs need a five-pattern join.

Readers never make them. ``build`` writes a set's view rows in the set's own batch
(:func:`view_row_lines`), every writer of sets ends with :func:`update_indexes`
(:func:`write_set_batch` does both), and ``craftrdf index`` / ``craftrdf.index`` run it
alone. A store open for reading whose index is missing or stale gets one line saying which
command makes it (:func:`stale_index_message`).

Annotations without characters (no span, or only zero-length spans) are neither nested
nor containers.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import logging
import time
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence

import numpy as np

from ..core.curie import CurieMap
from ..core.errors import ConfigError, QueryError, StoreError
from ..core.iris import CONTAINMENT_GRAPH, annotation_document, annotation_iri, document_iri, set_iri
from ..core.model import Annotation
from ..core.rdf import iri, literal, quad
from ..core.vocab import BASE, CRAFT
from ..store.local import ReadableStore, WritableStore, solutions
from .library import QueryResult, resolve_query, run_query
from .webanno import parse_spans_text, set_rows, spans_text

logger = logging.getLogger(__name__)

#: A progress callback ``(done, total, label)``, as the builder's.
Progress = Callable[[int, int, str], None]


def store_sets(store: ReadableStore) -> dict[str, str]:
    """Every set key in the store -> its graph IRI."""
    return {key: set_iri(key) for (key,) in run_query(store, resolve_query("sets")).strings("set")}


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


#: Outer annotations whose bounding box is at most this many characters are found by a window over
#: the starts sorted; the few longer ones (discontinuous annotations across a sentence) by a full
#: comparison. Any value gives the same pairs; this one keeps both parts small on CRAFT.
_WINDOW = 128


def _box_candidates(first: np.ndarray, last: np.ndarray, size: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(inner, outer)`` index pairs where outer's box contains inner's and outer has more characters.

    An outer box of at most :data:`_WINDOW` characters that contains inner's starts within
    ``[last_inner - _WINDOW, first_inner]``: a window of the outers sorted by start, found by
    binary search, so the work grows with the annotations and their neighbours, not with the
    square of a document's annotations. Longer outers are compared with every annotation.
    """
    n = len(first)
    short = np.flatnonzero(last - first <= _WINDOW)
    short = short[np.argsort(first[short], kind="stable")]
    starts = first[short]
    lo = np.searchsorted(starts, last - _WINDOW, side="left")
    hi = np.searchsorted(starts, first, side="right")
    counts = np.maximum(hi - lo, 0)
    inner = np.repeat(np.arange(n), counts)
    offsets = np.arange(int(counts.sum())) - np.repeat(np.cumsum(counts) - counts, counts)
    outer = short[np.repeat(lo, counts) + offsets]
    keep = (last[outer] >= last[inner]) & (size[outer] > size[inner])
    inner, outer = inner[keep], outer[keep]
    long_ = np.flatnonzero(last - first > _WINDOW)
    if len(long_):
        li, lj = np.nonzero(
            (first[long_][None, :] <= first[:, None])
            & (last[long_][None, :] >= last[:, None])
            & (size[long_][None, :] > size[:, None])
        )
        inner, outer = np.concatenate([inner, li]), np.concatenate([outer, long_[lj]])
    return inner, outer


def containment_pairs(spans: Iterable[tuple[str, str, int, int]]) -> Iterator[tuple[str, str]]:
    """``(inner, outer)`` pairs from ``(annotation, document, start, end)`` rows (one per span).

    Exact over character sets: outer covers every character of inner and at least one
    more. Candidates are found per document by numpy bounding-box tests
    (:func:`_box_candidates`); pairs where the outer is discontinuous are then checked
    interval by interval.
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
        first = np.array([iv[0][0] for iv in ivs], dtype=np.int64)
        last = np.array([iv[-1][1] for iv in ivs], dtype=np.int64)
        size = np.array([_size(iv) for iv in ivs], dtype=np.int64)
        single = [len(iv) == 1 for iv in ivs]
        inner, outer = _box_candidates(first, last, size)
        for i, j in zip(inner.tolist(), outer.tolist()):
            if single[j] or _within(ivs[i], ivs[j]):
                yield names[i], names[j]


def _containment_digest(store: ReadableStore, graphs: Iterable[str]) -> str:
    batches = store.batches()
    h = hashlib.sha256(b"containment-1")
    for g in sorted(graphs):
        h.update(g.encode() + b"\0" + (batches[g].digest if g in batches else "").encode() + b"\n")
    return h.hexdigest()


def _string_rows(store: ReadableStore, name: str, graphs: Sequence[str] | None) -> list[tuple[str, ...]]:
    """The rows of library query ``name`` over ``graphs`` (None: all) as the lexical values of its columns.

    Read straight from the solutions: a :class:`~craftrdf.querying.library.QueryResult` first costs
    twice as much over the 262,000 rows of a full store's spans. QueryError for an unbound cell.
    """
    query = resolve_query(name)
    try:
        answer = solutions(store.query(query.text, named_graphs=graphs))
    except RuntimeError as exc:  # an embedded store's failure, as run_query reports it
        raise QueryError(f"query {query.name} failed: {exc}") from None
    width = len(answer.variables)
    rows = []
    for sol in answer:
        cells = tuple(sol[i] for i in range(width))
        if any(c is None for c in cells):
            raise QueryError(f"query {query.name} answered a row with an unbound column")
        rows.append(tuple(c.value for c in cells if c is not None))
    return rows


def containment_spans(store: ReadableStore, graphs: Sequence[str] | None = None) -> list[tuple[str, str, int, int]]:
    """``(annotation, document, start, end)`` per span of every annotation in the store's sets (or those
    whose graphs are ``graphs``).

    The input of :func:`containment_pairs`. The document is read from the annotation IRI
    (``querying/queries/containment-spans.rq``, one triple pattern per annotation); when any IRI is
    not one craftrdf minted, every row is asked for its document instead (``querying/queries/spans.rq``).
    """
    rows = _string_rows(store, "containment-spans", graphs)
    docs = [annotation_document(ann) for ann, _ in rows]
    if any(d is None for d in docs):  # an annotation IRI craftrdf did not mint: ask for the documents
        full = run_query(store, "spans", named_graphs=graphs)
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


def ensure_containment(store: ReadableStore, *, known: Mapping[str, Sequence[Annotation]] | None = None) -> int:
    """Bring the nested-annotation index (the containment links) up to date; returns links written (0 if current).

    ``known``: the annotations of sets the caller has just written (exactly what the store
    holds for them), whose spans are then taken from there rather than read back: a store
    that a build has just written is several times slower to scan than one compacted since
    (9.7 s against 3.0 s over the full corpus). A store open for reading whose index is
    missing or stale raises StoreError naming the command that makes it (:func:`stale_index_message`).
    """
    sets = store_sets(store)
    digest = _containment_digest(store, sets.values())
    if store.has_batch(CONTAINMENT_GRAPH, digest):
        return 0
    if not (store.writable and isinstance(store, WritableStore)):
        raise StoreError(stale_index_message(store, "nested-annotation index"))
    t = time.perf_counter()
    in_hand = {k: anns for k, anns in (known or {}).items() if k in sets}
    spans = [
        (annotation_iri(k, a.document, a.id), a.document, s.start, s.end)
        for k, anns in in_hand.items()
        for a in anns
        for s in a.spans
    ]
    others = [g for k, g in sets.items() if k not in in_hand]
    if others:
        spans += containment_spans(store, others)
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


# -- view rows: a derived copy of each set's annotations, one literal per annotation ----------
#
# Reading a view straight from the set graphs costs about 8 s of CPU over all *_EXT sets, almost
# all of it in Oxigraph joining five patterns per annotation and decoding their terms (4-10 us
# each on disk). The same answer read from one literal per annotation is a plain scan. The rows
# are derived data, like the containment links: one graph per set, carrying a digest of the set
# batch, rewritten whenever that batch changes; a store opened for reading whose rows are stale
# is answered by querying/queries/view.rq instead.

_ROW = CRAFT.viewRow
_ROWS_VERSION = b"view-rows-1"


def view_rows_graph(key: str) -> str:
    """The derived graph holding the view rows of set ``key``."""
    return BASE + "derived/view-rows/" + key


def _rows_digest(set_digest: str) -> str:
    return hashlib.sha256(_ROWS_VERSION + b"\0" + set_digest.encode()).hexdigest()


def stale_view_rows(store: ReadableStore, sets: Sequence[str]) -> list[str]:
    batches = store.batches()
    stale = []
    for key in sets:
        set_batch = batches.get(set_iri(key))
        rows_batch = batches.get(view_rows_graph(key))
        if set_batch is None or rows_batch is None or rows_batch.digest != _rows_digest(set_batch.digest):
            stale.append(key)
    return stale


# the cells of craftrdf.querying.webanno.set_rows' rows
_SET_COLUMNS = ("annotation", "document", "class", "spans", "text")


def ensure_view_rows(store: ReadableStore, sets: Sequence[str]) -> int:
    """Bring the view rows (the view index) of ``sets`` up to date; returns how many sets were rewritten.

    StoreError naming the command that makes them when one is stale and the store is open
    for reading; :func:`run_view` does not call this on such a store, it reads ``querying/queries/view.rq``.
    """
    stale = stale_view_rows(store, sets)
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
    update_indexes(store, known={key: annotations}, progress=progress)
    return n


def update_indexes(
    store: ReadableStore,
    *,
    changed: Sequence[str] = (),
    known: Mapping[str, Sequence[Annotation]] | None = None,
    progress: Progress | None = None,
) -> int:
    """Bring the store's view indexes up to date: every set's view rows and the nested-annotation index.

    What the commands that write sets run at their end (``craftrdf index`` runs it alone);
    returns the index batches written, 0 when everything was current (a check of about half a
    second on a full store). View rows of sets no longer in the store are removed. ``changed``
    names sets whose content changed while their batch digest did not (a streamed run appends
    to its set), whose indexes are made again; ``known`` the annotations of sets just written,
    as :func:`ensure_containment` takes them. StoreError (naming the command) when something
    is stale and the store is open for reading.
    """
    keys = sorted(store_sets(store))
    if changed and store.writable and isinstance(store, WritableStore):
        for key in changed:
            store.remove_batch(view_rows_graph(key))
        store.remove_batch(CONTAINMENT_GRAPH)
    stale = stale_view_rows(store, keys)
    nesting = not store.has_batch(CONTAINMENT_GRAPH, _containment_digest(store, (set_iri(k) for k in keys)))
    orphans = [
        g for g in store.batches() if g.startswith(view_rows_graph("")) and g[len(view_rows_graph("")) :] not in keys
    ]
    total = len(stale) + nesting
    if not (store.writable and isinstance(store, WritableStore)):
        if total:
            raise StoreError(stale_index_message(store, "nested-annotation index" if nesting else "view index"))
        return 0  # rows of a removed set, if any, are harmless: no view reads them
    for graph in orphans:
        store.remove_batch(graph)
    if total == 0:
        return 0
    t = time.perf_counter()
    for i, key in enumerate(stale):
        if progress is not None:
            progress(i, total, f"view index {key}")
        ensure_view_rows(store, [key])
    if nesting:
        if progress is not None:
            progress(len(stale), total, "nested-annotation index")
        ensure_containment(store, known=known)
    if progress is not None:
        progress(total, total, "done")
    logger.info("view indexes: %d made in %.1f s", total, time.perf_counter() - t)
    return total
