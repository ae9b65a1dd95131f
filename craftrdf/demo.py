"""The demo: build the bundled CRAFT sample into a store, query it, compare classes, match and score.

It shows in a few seconds what craftrdf is for: library queries over the store, Wang
similarity over an ontology graph, and the dictionary matcher scored against gold as the
CRAFT Shared Task 2019 scored its participants.
"""

from __future__ import annotations

from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from .builder import BuildReport, Progress, build_store
from .curie import CurieMap
from .evaluation.run import SetReport, evaluate_store
from .matcher import MatcherConfig, RunReport, run_annotation
from .querying import QueryResult, resolve_query, run_query
from .registry import load_registry
from .similarity import similarity_index
from .store import AnnotationStore, WritableStore
from .webanno import document_texts

__all__ = ["DEMO_CLASS", "DEMO_MATCHER_SET", "DEMO_SET", "DemoReport", "run_demo", "sample_dir"]

#: The class the demo asks about: brain.
DEMO_CLASS = "UBERON:0000955"
#: The gold set whose ontology gives the matcher its dictionary and whose annotations score it.
DEMO_SET = "UBERON_EXT"
#: The set the matcher's annotations are stored as.
DEMO_MATCHER_SET = "MATCHER_UBERON_EXT"


@dataclass(frozen=True, slots=True)
class DemoReport:
    """What the demo built and the results of its steps.

    ``similar``: the classes of the UBERON ontology most similar to :data:`DEMO_CLASS`
    (class, label, Wang similarity with is_a 0.8 and part_of 0.6), best first.
    ``matcher``: the default matcher configuration's run with :data:`DEMO_SET`'s
    ontology over every sample article; ``scores``: that run scored against the gold
    :data:`DEMO_SET` annotations (``craftrdf evaluate``'s scores).
    """

    build: BuildReport
    quads: int
    sets: QueryResult
    counts: QueryResult
    brain: QueryResult
    similar: tuple[tuple[str, str, float], ...]
    matcher: RunReport
    config: MatcherConfig
    scores: SetReport


def sample_dir() -> Path:
    """The bundled sample: a CRAFT-layout folder installed with the package."""
    return Path(str(resources.files("craftrdf.sample").joinpath("craft")))


def run_demo(store: WritableStore | None = None, *, progress: Progress | None = None) -> DemoReport:
    """Build the sample into ``store`` (a new in-memory one by default), query, compare, match and score.

    The store must be writable: the matcher's annotations are stored in it as set
    :data:`DEMO_MATCHER_SET`.
    """
    store = AnnotationStore.memory() if store is None else store
    curies = CurieMap()
    registry = load_registry()
    report = build_store(sample_dir(), store, registry=registry, curies=curies, progress=progress)
    quads = len(store)
    sets = run_query(store, resolve_query("sets"), curies=curies)
    counts = run_query(store, resolve_query("annotation-counts"), curies=curies)
    brain = run_query(store, resolve_query("annotations-of-class"), {"cls": DEMO_CLASS}, curies=curies)
    # the sample's graph is small: numpy answers at once where compiling the kernels would take seconds
    index = similarity_index(store, method="wang", ontology="UBERON", engine="numpy")
    similar = tuple((t, index.labels.get(t, ""), s) for t, s in index.top_k(DEMO_CLASS, 5))
    config = MatcherConfig()
    run = run_annotation(
        store, DEMO_SET, config, document_texts(store), registry=registry, into_store=DEMO_MATCHER_SET, curies=curies
    )
    (scores,) = evaluate_store(store, DEMO_SET, DEMO_MATCHER_SET)
    return DemoReport(report, quads, sets, counts, brain, similar, run, config, scores)
