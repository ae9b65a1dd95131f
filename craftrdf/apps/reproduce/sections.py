"""The figures of each report section, computed from a store: counts, statistics, sweeps, similarity.

Each function takes the store (and what else it needs) and returns frozen records; the
report and the figures are written elsewhere (:mod:`.report`, :mod:`.figures`).
"""

from __future__ import annotations

import logging
from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from ...analysis.stats import ArticleStats, view_stats
from ...analysis.views import NestingFilter, ViewSpec, run_view
from ...core.context import RunContext
from ...core.iris import annotation_iri, ontology_name
from ...core.model import Annotation
from ...matching.matcher.annotate import MatchingSession
from ...matching.matcher.config import MatcherConfig
from ...matching.matcher.dictionary import load_terms
from ...matching.sweeps.entry import SweepOptions, SweepReport, sweep_store
from ...matching.sweeps.run import Progress
from ...querying.indexes import ensure_containment
from ...querying.library import run_query
from ...querying.sets import resolve_set
from ...querying.webanno import document_splits, document_texts, fetch_annotations
from ...store.local import ReadableStore

logger = logging.getLogger(__name__)

#: The Uberon paper's four distributed sets (Bada et al. 2017, Tables 3-4) and craftrdf's closest
#: analogue on the current release: (paper's set, craftrdf set key, nesting filter over that set alone).
#: The paper's nested annotations lie within another annotation of the same Uberon set, which is
#: what ``--nesting outermost`` drops when the view holds that one set.
PAPER_ROWS: tuple[tuple[str, str, NestingFilter], ...] = (
    ("UBERON_core", "UBERON", "outermost"),
    ("UBERON_core+extensions", "UBERON_EXT", "outermost"),
    ("UBERON_core+nested", "UBERON", "all"),
    ("UBERON_core+extensions+nested", "UBERON_EXT", "all"),
)

#: The prefix of the Knowtator mention ids minted in the Uberon nested-annotation project.
NESTED_PROJECT_PREFIX = "UBERON+extensions+nested_"

#: Up to this many differing count cells the report looks for their cause; more means a partial store.
EXPLAINED_CELLS = 8


@dataclass(frozen=True, slots=True)
class CountRow:
    """One set's annotation counts: (train+dev, train+dev discontinuous, test, test discontinuous)."""

    key: str
    ours: tuple[int, int, int, int]
    published: tuple[int, int, int, int] | None


@dataclass(frozen=True, slots=True)
class CellCause:
    """The annotations that account for a count cell differing from the published one.

    ``column`` indexes :attr:`CountRow.ours`; ``kind`` is ``"no span"`` (counted by craftrdf)
    or ``"repeated span"`` (several spans, all the same range: discontinuous to craftrdf).
    """

    key: str
    column: int
    kind: str
    annotations: tuple[Annotation, ...]


@dataclass(frozen=True, slots=True)
class StatsRow:
    """One of the Uberon paper's distributed sets, and the statistics of craftrdf's analogue of it."""

    paper_set: str
    key: str
    nesting: str
    stats: ArticleStats


@dataclass(frozen=True, slots=True)
class NestingCounts:
    """How many of a set's annotations lie within another annotation, read three ways, and their ids.

    ``same_set``: within another annotation of the same set (the paper's nesting);
    ``uberon_sets``: within an annotation of any of the sets asked about together;
    ``any_set``: within an annotation of any set in the store; ``nested_project``: annotations
    whose id starts with :data:`NESTED_PROJECT_PREFIX`, ``nested_project_within`` those of
    them within another annotation of the same set, ``nested_project_anywhere`` those within an
    annotation of any set, and ``nested_project_concepts`` the classes that no other annotation
    of the set uses (what the nested project's annotations alone bring to the set).
    """

    key: str
    annotations: int
    concepts: int
    same_set: int
    uberon_sets: int
    any_set: int
    nested_project: int
    nested_project_within: int
    nested_project_anywhere: int = 0
    nested_project_concepts: int = 0


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
    """The set keys whose ontology is loaded in the store (``querying/queries/sets.rq``)."""
    result = run_query(store, "sets")
    return {key for key, ontology in result.optional_strings("set", "ontology") if key and ontology}


def gold_only_sets(store: ReadableStore) -> set[str]:
    """The set keys whose ontology the store does not hold (trained from gold names alone)."""
    result = run_query(store, "sets")
    return {key for key, ontology in result.optional_strings("set", "ontology") if key and not ontology}


def count_rows(store: ReadableStore, published: Mapping[str, tuple[int, int, int, int]]) -> list[CountRow]:
    """Annotation counts per set, train+dev and test (``querying/queries/annotation-counts.rq``)."""
    acc: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0, 0])
    result = run_query(store, "annotation-counts")
    for key, split, n, d in result.strings("set", "split", "annotations", "discontinuous"):
        col = 2 if split == "test" else 0
        acc[key][col] += int(n)
        acc[key][col + 1] += int(d)
    published_upper = {k.upper(): v for k, v in published.items()}
    return [CountRow(k, (v[0], v[1], v[2], v[3]), published_upper.get(k.upper())) for k, v in sorted(acc.items())]


def read_annotations(store: ReadableStore, key: str, fetched: dict[str, list[Annotation]] | None) -> list[Annotation]:
    """A set's annotations, read once per ``fetched`` (the reads of one report, shared by its sections)."""
    if fetched is None:
        return fetch_annotations(store, key)
    if key not in fetched:
        fetched[key] = fetch_annotations(store, key)
    return fetched[key]


def count_causes(
    store: ReadableStore, rows: Sequence[CountRow], *, fetched: dict[str, list[Annotation]] | None = None
) -> list[CellCause]:
    """For each published count cell craftrdf does not reproduce, the annotations behind the difference.

    Two causes are looked for: annotations without any span (for an annotation count) and
    annotations whose spans are several copies of one range (for a discontinuous count).
    A cause is reported only when their number is exactly the difference; nothing is looked
    for when more than :data:`EXPLAINED_CELLS` cells differ (a store of part of the corpus).
    """
    differing = [(r, i) for r in rows if r.published for i in range(4) if r.ours[i] != r.published[i]]
    if len(differing) > EXPLAINED_CELLS:
        return []
    splits = document_splits(store)
    fetched = {} if fetched is None else fetched
    out = []
    for r, i in differing:
        anns = read_annotations(store, r.key, fetched)
        column = [a for a in anns if (splits.get(a.document) == "test") == (i >= 2)]
        if i % 2 == 0:
            kind, found = "no span", [a for a in column if not a.spans]
        else:
            kind, found = "repeated span", [a for a in column if len(a.spans) > 1 and len(set(a.spans)) == 1]
        if found and r.published is not None and r.ours[i] - r.published[i] == len(found):
            out.append(CellCause(r.key, i, kind, tuple(found)))
    return out


def uberon_stats(
    store: ReadableStore, documents: Sequence[str], rows: Sequence[tuple[str, str, NestingFilter]] = PAPER_ROWS
) -> list[StatsRow]:
    """Per-article statistics of each ``(paper's set, set key, nesting)`` row over ``documents``.

    Each row is the view ``craftrdf view --sets KEY --nesting NESTING``: nesting decided among
    that set's own annotations (:func:`craftrdf.analysis.views.run_view`), which needs a writable store
    the first time.
    """
    chosen = set(documents)
    out = []
    for paper, key, nesting in rows:
        kept = [r for r in run_view(store, ViewSpec((key,), nesting=nesting)) if r.annotation.document in chosen]
        out.append(StatsRow(paper, key, nesting, view_stats(kept, documents)))
    return out


def uberon_nesting(
    store: ReadableStore,
    keys: Sequence[str],
    documents: Sequence[str],
    *,
    fetched: dict[str, list[Annotation]] | None = None,
) -> list[NestingCounts]:
    """:class:`NestingCounts` of each set in ``keys`` over ``documents``, from the store's containment links.

    ``fetched``: annotations already read by the report's other sections (see :func:`read_annotations`).
    """
    ensure_containment(store)
    within: dict[str, set[str]] = defaultdict(set)
    for inner, outer in run_query(store, "containment-links").strings("inner", "outer"):
        within[inner].add(outer)
    chosen = set(documents)
    anns = {
        key: {
            annotation_iri(key, a.document, a.id): a
            for a in read_annotations(store, key, fetched)
            if a.document in chosen
        }
        for key in keys
    }
    together = set().union(*anns.values()) if anns else set()
    out = []
    for key, mine in anns.items():
        same = {i for i in mine if within.get(i, set()) & mine.keys()}
        project = [i for i, a in mine.items() if a.id.startswith(NESTED_PROJECT_PREFIX)]
        elsewhere = {a.class_id for i, a in mine.items() if not a.id.startswith(NESTED_PROJECT_PREFIX)}
        out.append(
            NestingCounts(
                key,
                len(mine),
                len({a.class_id for a in mine.values()}),
                len(same),
                sum(1 for i in mine if within.get(i, set()) & together),
                sum(1 for i in mine if within.get(i)),
                len(project),
                sum(1 for i in project if i in same),
                sum(1 for i in project if within.get(i)),
                len({mine[i].class_id for i in project} - elsewhere),
            )
        )
        logger.info(
            "%s: %d annotations on %d documents, %d within another of the set", key, len(mine), len(chosen), len(same)
        )
    return out


#: :func:`run_sweeps`'s default: CRAFT's post-processing rules applied and labels preferred (craftrdf's best).
BEST_SWEEP = SweepOptions(apply_craft_rules=True, prefer_labels=True)


def run_sweeps(
    store: ReadableStore,
    keys: Sequence[str],
    configs: Sequence[MatcherConfig],
    ctx: RunContext,
    *,
    out_dir: Path,
    options: SweepOptions = BEST_SWEEP,
    progress: Callable[[str], Progress | None] | None = None,
    fetched: dict[str, list[Annotation]] | None = None,
) -> dict[str, SweepReport]:
    """Sweep each set on train+dev and report its best configurations on test; ``out_dir/<KEY>/``.

    ``ctx.cache_dir`` keeps sentence splits and dictionaries between sets (the splitting of
    each document is most of a sweep's set-up); the sweeps run on ``ctx.executor``. ``options`` are
    :func:`craftrdf.matching.sweeps.entry.sweep_store`'s but for the splits (always train+dev, then test):
    both ``apply_craft_rules`` and ``prefer_labels`` off is ConceptMapper's behaviour; ``term_filter``
    also scores the best-F1 and lowest-SER configurations with that filter (the reports' ``filtered``);
    ``plot`` draws ``pr.png``. ``progress(key)`` is a set's progress callback. ``fetched``: see
    :func:`read_annotations`.
    """
    reports = {}
    options = replace(options, split="train,dev", report_on="test")
    for key in keys:
        reports[key] = sweep_store(
            store,
            key,
            configs,
            ctx.with_(progress=progress(key) if progress is not None else None),
            out_dir=out_dir / key,
            options=options,
            annotations=read_annotations(store, key, fetched) if fetched is not None else None,
        )
    return reports


def similarity_distribution(
    store: ReadableStore,
    key: str,
    documents: Sequence[str],
    ctx: RunContext,
    *,
    fetched: dict[str, list[Annotation]] | None = None,
    placements: Sequence[tuple[str, str]] | None = None,
) -> SimilarityDistribution:
    """Wang (is_a 0.8, part_of 0.6) between each gold class and the default matcher's class at the same spans.

    The matcher runs with the default configuration (the paper's best F1) on ``documents``;
    a gold annotation is paired with the first prediction that has exactly its spans.
    Computed over the set's ontology graph alone (``UBERON+extensions`` for UBERON_EXT), with the
    extension classes as shipped and placed by their definitions (``classify_extensions``).
    Classes outside that graph count as 0. ``placements``: that graph's structural placements
    computed beforehand (:func:`craftrdf.ontology.placement.reasoned_placements`), else computed here.
    """
    from ...analysis.similarity.graph import IndexSpec, wang_index

    texts = document_texts(store, documents)
    ref = resolve_set(store, key)
    terms, _ = load_terms(store, ref, ctx)  # the sweep's cache
    predicted = MatchingSession(texts, terms, cache_dir=ctx.cache_dir).annotate(MatcherConfig())
    at: dict[tuple[str, object], str] = {}
    for doc, anns in predicted.items():
        for a in anns:
            at.setdefault((doc, a.spans), a.class_id)
    gold = [a for a in read_annotations(store, key, fetched) if a.document in texts]
    pairs = [(a.class_id, at[(a.document, a.spans)]) for a in gold if (a.document, a.spans) in at]
    left, right = [p[0] for p in pairs], [p[1] for p in pairs]
    # the set's own ontology graph, not every graph of the store merged: the same values on CRAFT (docs/benchmarks.md,
    # "reproduce --quick under 160 s"), without reading and placing the extension classes of nine other ontologies
    ontology = ontology_name(ref.require_ontology())
    values = []
    for classify in (False, True):
        index = wang_index(store, IndexSpec(ontology=ontology, classify_extensions=classify), placements=placements)
        sims = index.pairs(left, right, missing="nan")
        values.append(tuple(0.0 if v != v else float(v) for v in sims))  # NaN: a class the graph lacks
    return SimilarityDistribution(
        key, len(texts), len(gold), len(pairs), values[0], values[1], tuple(a == b for a, b in pairs)
    )
