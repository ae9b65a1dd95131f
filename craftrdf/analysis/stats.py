"""Per-article annotation statistics (the Uberon paper's Tables 3-4): totals, mean, median, maximum."""

from __future__ import annotations

import statistics
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from ..querying.library import resolve_query, run_query
from ..store.local import ReadableStore
from .views import ViewRow


@dataclass(frozen=True, slots=True)
class ArticleStats:
    """Annotations and unique concepts: in total and per article (mean, median, maximum).

    Per-article figures are over the documents given (articles without annotations count
    as 0 when listed in ``documents``).
    """

    documents: int
    annotations: int
    concepts: int
    annotations_mean: float
    annotations_median: float
    annotations_max: int
    concepts_mean: float
    concepts_median: float
    concepts_max: int


def summarize(
    per_document: dict[str, tuple[int, int]], concepts: int, documents: Iterable[str] | None = None
) -> ArticleStats:
    """Stats from ``document -> (annotations, unique concepts)`` and the set's total unique concepts."""
    docs = sorted(set(documents) if documents is not None else per_document)
    anns = [per_document.get(d, (0, 0))[0] for d in docs]
    cons = [per_document.get(d, (0, 0))[1] for d in docs]
    if not docs:
        return ArticleStats(0, 0, concepts, 0.0, 0.0, 0, 0.0, 0.0, 0)
    return ArticleStats(
        len(docs),
        sum(anns),
        concepts,
        statistics.fmean(anns),
        statistics.median(anns),
        max(anns),
        statistics.fmean(cons),
        statistics.median(cons),
        max(cons),
    )


def set_stats(store: ReadableStore, key: str, documents: Iterable[str] | None = None) -> ArticleStats:
    """Stats of one annotation set from the query library (per-document-stats, unique-concepts)."""
    per_doc = {
        d: (int(a), int(c))
        for d, a, c in run_query(store, resolve_query("per-document-stats"), {"set": key}).strings(
            "document", "annotations", "concepts"
        )
    }
    rows = run_query(store, resolve_query("unique-concepts"), {"set": key}).strings("concepts")
    concepts = int(rows[0][0]) if rows else 0
    return summarize(per_doc, concepts, documents)


def view_stats(rows: Sequence[ViewRow], documents: Iterable[str] | None = None) -> ArticleStats:
    """Stats of a view's annotations (all chosen sets together)."""
    counts: dict[str, int] = defaultdict(int)
    classes: dict[str, set[str]] = defaultdict(set)
    for r in rows:
        counts[r.annotation.document] += 1
        classes[r.annotation.document].add(r.annotation.class_id)
    per_doc = {d: (counts[d], len(classes[d])) for d in counts}
    return summarize(per_doc, len({r.annotation.class_id for r in rows}), documents)
