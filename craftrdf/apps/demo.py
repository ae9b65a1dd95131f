"""The demo: build the bundled CRAFT sample into a store, query it, compare classes, match, score, export.

It shows in a few seconds what craftrdf is for: library queries over the store, Wang
similarity over an ontology graph, the dictionary matcher scored against gold as the
CRAFT Shared Task 2019 scored its participants, and a set written as W3C Web Annotation
JSON-LD. :func:`next_steps` gives the commands that go on from there.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING

from ..analysis.evaluation.run import SetReport, evaluate_store
from ..analysis.similarity.graph import IndexSpec, wang_index
from ..building.builder import BuildReport, build_store
from ..core.context import RunContext
from ..matching.matcher.config import MatcherConfig
from ..matching.matcher.run import RunReport, run_annotation
from ..publishing.exports.sets import export_set
from ..querying.indexes import Progress
from ..querying.library import QueryResult, resolve_query, run_query
from ..querying.webanno import document_texts
from ..store.local import AnnotationStore, WritableStore

if TYPE_CHECKING:
    from ..publishing.exports._base import ExportReport

#: The class the demo asks about: brain.
DEMO_CLASS = "UBERON:0000955"
#: The gold set whose ontology gives the matcher its dictionary and whose annotations score it.
DEMO_SET = "UBERON_EXT"
#: The set the matcher's annotations are stored as.
DEMO_MATCHER_SET = "MATCHER_UBERON_EXT"
#: An article of the sample (and of the corpus) to open in the viewer.
DEMO_DOCUMENT = "11319941"


@dataclass(frozen=True, slots=True)
class DemoReport:
    """What the demo built and the results of its steps.

    ``similar``: the classes of the UBERON ontology most similar to :data:`DEMO_CLASS`
    (class, label, Wang similarity with is_a 0.8 and part_of 0.6), best first.
    ``matcher``: the default matcher configuration's run with :data:`DEMO_SET`'s
    ontology over every sample article; ``scores``: that run scored against the gold
    :data:`DEMO_SET` annotations (``craftrdf evaluate``'s scores). ``export``: the gold
    :data:`DEMO_SET` written as Web Annotation JSON-LD, when an output folder was given.
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
    export: ExportReport | None = None


def sample_dir() -> Path:
    """The bundled sample: a CRAFT-layout folder installed with the package."""
    return Path(str(resources.files("craftrdf.sample").joinpath("craft")))


def next_steps() -> list[str]:
    """The commands that go on from the demo: build the corpus, serve it, open the viewer (lines to print).

    >>> next_steps()[2].strip()
    'git clone https://github.com/UCDenver-ccp/CRAFT.git'
    """
    return [
        "Next steps:",
        "  1. Build the whole corpus (97 articles, 22 annotation sets; several minutes) into a store on disk:",
        "       git clone https://github.com/UCDenver-ccp/CRAFT.git",
        "       craftrdf build --craft CRAFT --store craft.store",
        "     or the sample alone:",
        f"       craftrdf build --craft {sample_dir()} --store craft.store",
        "  2. Serve it: SPARQL endpoint, linked data, the article viewer (needs pip install 'craftrdf[server]'):",
        "       craftrdf serve --store craft.store",
        f"  3. Open an article in the viewer: http://127.0.0.1:8080/doc/{DEMO_DOCUMENT}",
    ]


def run_demo(
    store: WritableStore | None = None,
    *,
    progress: Progress | None = None,
    out_dir: str | os.PathLike[str] | None = None,
) -> DemoReport:
    """Build the sample into ``store`` (a new in-memory one by default), query, compare, match and score.

    The store must be writable: the matcher's annotations are stored in it as set
    :data:`DEMO_MATCHER_SET`. With ``out_dir`` (an existing folder), the gold set
    :data:`DEMO_SET` is also exported there as ``<DEMO_SET>.jsonld`` (W3C Web Annotation).
    """
    store = AnnotationStore.memory() if store is None else store
    ctx = RunContext.create()
    registry, curies = ctx.registry, ctx.curies
    report = build_store(sample_dir(), store, ctx, progress=progress)
    quads = len(store)
    sets = run_query(store, resolve_query("sets"), curies=curies)
    counts = run_query(store, resolve_query("annotation-counts"), curies=curies)
    brain = run_query(store, resolve_query("annotations-of-class"), {"cls": DEMO_CLASS}, curies=curies)
    # the sample's graph is small: numpy answers at once where compiling the kernels would take seconds
    index = wang_index(store, IndexSpec(ontology="UBERON", engine="numpy"))
    similar = tuple((t, index.labels.get(t, ""), s) for t, s in index.top_k(DEMO_CLASS, 5))
    config = MatcherConfig()
    run = run_annotation(store, DEMO_SET, config, document_texts(store), ctx, into_store=DEMO_MATCHER_SET)
    (scores,) = evaluate_store(store, DEMO_SET, DEMO_MATCHER_SET, registry)
    export = None
    if out_dir is not None:
        export = export_set(store, DEMO_SET, Path(out_dir) / f"{DEMO_SET}.jsonld", format="jsonld", curies=curies)
    return DemoReport(report, quads, sets, counts, brain, similar, run, config, scores, export)
