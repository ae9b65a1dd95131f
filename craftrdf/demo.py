"""The demo: build the bundled CRAFT sample into a store and run a few library queries."""

from __future__ import annotations

from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from .builder import BuildReport, Progress, build_store
from .curie import CurieMap
from .querying import QueryResult, resolve_query, run_query
from .registry import load_registry
from .store import AnnotationStore, ReadableStore

__all__ = ["DemoReport", "run_demo", "sample_dir"]


@dataclass(frozen=True, slots=True)
class DemoReport:
    """What the demo built and the results of its queries."""

    build: BuildReport
    quads: int
    sets: QueryResult
    counts: QueryResult
    brain: QueryResult


def sample_dir() -> Path:
    """The bundled sample: a CRAFT-layout folder installed with the package."""
    return Path(str(resources.files("craftrdf.sample").joinpath("craft")))


def run_demo(store: ReadableStore | None = None, *, progress: Progress | None = None) -> DemoReport:
    """Build the sample into ``store`` (a new in-memory one by default) and query it."""
    store = store or AnnotationStore.memory()
    curies = CurieMap()
    report = build_store(sample_dir(), store, registry=load_registry(), curies=curies, progress=progress)
    sets = run_query(store, resolve_query("sets"), curies=curies)
    counts = run_query(store, resolve_query("annotation-counts"), curies=curies)
    brain = run_query(store, resolve_query("annotations-of-class"), {"cls": "UBERON:0000955"}, curies=curies)
    return DemoReport(report, len(store), sets, counts, brain)
