"""The figures of each report section, computed from a store: counts, statistics, sweeps, similarity.

Each function takes the store (and what else it needs) and returns frozen records; the
report and the figures are written elsewhere (:mod:`.report`, :mod:`.figures`).
"""

from __future__ import annotations

import logging
from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from ..curie import is_extension_curie
from ..iris import annotation_iri
from ..matcher import MatcherConfig, MatchingSession
from ..matcher.dictionary import load_terms
from ..querying import run_query
from ..registry import Registry
from ..sets import resolve_set
from ..stats import ArticleStats, summarize
from ..store import ReadableStore
from ..sweeps import Progress, SweepExecutor, SweepReport, TermFilter, sweep_store
from ..sweeps.inputs import document_splits
from ..views import nested_annotations
from ..webanno import document_texts, fetch_annotations

__all__ = [
    "UBERON_VIEWS",
    "CountRow",
    "SimilarityDistribution",
    "StatsRow",
    "count_rows",
    "documents_of",
    "run_sweeps",
    "sets_with_ontology",
    "similarity_distribution",
    "uberon_stats",
]

logger = logging.getLogger(__name__)

#: The four annotation sets of the Uberon paper as views: (name, class filter, nesting filter).
UBERON_VIEWS: tuple[tuple[str, str, str], ...] = (
    ("core", "proper", "outermost"),
    ("core+extensions", "all", "outermost"),
    ("core+nested", "proper", "all"),
    ("core+extensions+nested", "all", "all"),
)


@dataclass(frozen=True, slots=True)
class CountRow:
    """One set's annotation counts: (train+dev, train+dev discontinuous, test, test discontinuous)."""

    key: str
    ours: tuple[int, int, int, int]
    published: tuple[int, int, int, int] | None


@dataclass(frozen=True, slots=True)
class StatsRow:
    """Per-article statistics of one set under one of the Uberon paper's views."""

    key: str
    view: str
    stats: ArticleStats


@dataclass(frozen=True, slots=True)
class SimilarityDistribution:
    """Wang similarity of gold classes and the matcher's classes at the same spans, two ways."""

    key: str
    documents: int
    gold: int
    paired: int
    plain: tuple[float, ...]
    classified: tuple[float, ...]
    same: tuple[bool, ...]

    @property
    def identical(self) -> int:
        """Pairs where the matcher found the gold class itself."""
        return sum(self.same)


def documents_of(store: ReadableStore, splits: Iterable[str]) -> list[str]:
    """The store's documents of the given splits, sorted."""
    wanted = set(splits)
    return sorted(d for d, s in document_splits(store).items() if s in wanted)


def sets_with_ontology(store: ReadableStore) -> set[str]:
    """The set keys whose ontology is loaded in the store (``queries/sets.rq``)."""
    rows = run_query(store, "sets").optional_strings("set", "ontology")
    return {key for key, ontology in rows if key is not None and ontology is not None}


def count_rows(store: ReadableStore, published: Mapping[str, tuple[int, int, int, int]]) -> list[CountRow]:
    """Annotation counts per set, train+dev and test (``queries/annotation-counts.rq``)."""
    acc: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0, 0])
    result = run_query(store, "annotation-counts")
    for key, split, n, d in result.strings("set", "split", "annotations", "discontinuous"):
        col = 2 if split == "test" else 0
        acc[key][col] += int(n)
        acc[key][col + 1] += int(d)
    published_upper = {k.upper(): v for k, v in published.items()}
    return [CountRow(k, (v[0], v[1], v[2], v[3]), published_upper.get(k.upper())) for k, v in sorted(acc.items())]


def uberon_stats(store: ReadableStore, keys: Sequence[str], documents: Sequence[str]) -> list[StatsRow]:
    """Statistics of ``keys`` under :data:`UBERON_VIEWS`, nesting counted across every set loaded.

    The nested annotations of all sets are read once from the containment links
    (:func:`craftrdf.views.nested_annotations`, the ``nested`` view over every set);
    each set's annotations are then filtered by class and nesting.
    """
    nested = nested_annotations(store)
    chosen = set(documents)
    out = []
    for key in keys:
        anns = [a for a in fetch_annotations(store, key) if a.document in chosen]
        concepts_all = len({a.class_id for a in anns})
        for name, classes, nesting in UBERON_VIEWS:
            kept = [
                a
                for a in anns
                if (classes == "all" or not is_extension_curie(a.class_id))
                and (nesting == "all" or annotation_iri(key, a.document, a.id) not in nested)
            ]
            counts: dict[str, int] = defaultdict(int)
            concepts: dict[str, set[str]] = defaultdict(set)
            for a in kept:
                counts[a.document] += 1
                concepts[a.document].add(a.class_id)
            per_doc = {d: (counts[d], len(concepts[d])) for d in counts}
            out.append(StatsRow(key, name, summarize(per_doc, len({a.class_id for a in kept}), documents)))
        logger.info("%s: %d annotations, %d concepts on %d documents", key, len(anns), concepts_all, len(chosen))
    return out


def run_sweeps(
    store: ReadableStore,
    keys: Sequence[str],
    configs: Sequence[MatcherConfig],
    *,
    registry: Registry,
    out_dir: Path,
    executor: SweepExecutor | None = None,
    cache_dir: Path | None = None,
    apply_craft_rules: bool = True,
    prefer_labels: bool = True,
    plot: bool = True,
    term_filter: TermFilter | None = None,
    progress: Callable[[str], Progress | None] | None = None,
) -> dict[str, SweepReport]:
    """Sweep each set on train+dev and report its best configurations on test; ``out_dir/<KEY>/``.

    ``cache_dir`` keeps sentence splits and dictionaries between sets (the splitting of
    each document is most of a sweep's set-up). ``apply_craft_rules`` and ``prefer_labels``
    are :func:`craftrdf.sweeps.sweep_store`'s; both off is ConceptMapper's behaviour.
    ``term_filter`` also scores the best-F1 and lowest-SER configurations with that
    filter (the reports' ``filtered``); ``plot`` draws ``pr.png``.
    """
    reports = {}
    for key in keys:
        reports[key] = sweep_store(
            store,
            key,
            configs,
            registry=registry,
            out_dir=out_dir / key,
            split="train,dev",
            report_on="test",
            executor=executor,
            cache_dir=cache_dir,
            plot=plot,
            apply_craft_rules=apply_craft_rules,
            prefer_labels=prefer_labels,
            term_filter=term_filter,
            progress=progress(key) if progress is not None else None,
        )
    return reports


def similarity_distribution(
    store: ReadableStore, key: str, documents: Sequence[str], *, registry: Registry, cache_dir: Path | None = None
) -> SimilarityDistribution:
    """Wang (is_a 0.8, part_of 0.6) between each gold class and the default matcher's class at the same spans.

    The matcher runs with the default configuration (the paper's best F1) on ``documents``;
    a gold annotation is paired with the first prediction that has exactly its spans.
    Computed with the extension classes as shipped and placed by their definitions
    (``classify_extensions``). Classes outside the ontology graph count as 0.
    """
    from ..similarity import similarity_index

    texts = document_texts(store, documents)
    terms, _ = load_terms(store, resolve_set(store, key), registry=registry, cache_dir=cache_dir)  # the sweep's cache
    predicted = MatchingSession(texts, terms, cache_dir=cache_dir).annotate(MatcherConfig())
    at: dict[tuple[str, object], str] = {}
    for doc, anns in predicted.items():
        for a in anns:
            at.setdefault((doc, a.spans), a.class_id)
    gold = [a for a in fetch_annotations(store, key) if a.document in texts]
    pairs = [(a.class_id, at[(a.document, a.spans)]) for a in gold if (a.document, a.spans) in at]
    left, right = [p[0] for p in pairs], [p[1] for p in pairs]
    values = []
    for classify in (False, True):
        index = similarity_index(store, method="wang", classify_extensions=classify)
        sims = index.pairs(left, right, missing="nan")
        values.append(tuple(0.0 if v != v else float(v) for v in sims))  # NaN: a class the graph lacks
    return SimilarityDistribution(
        key, len(texts), len(gold), len(pairs), values[0], values[1], tuple(a == b for a, b in pairs)
    )
