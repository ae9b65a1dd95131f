"""Work the report needs later, started on the executor's idle workers while this process counts.

``craftrdf reproduce`` first counts and computes statistics in this process (reads of the
store), while the executor's workers have nothing to do until the sweeps. Three pieces of later
work need no store once their inputs are read, so they run there meanwhile:

- splitting every document into sentences (what the first sweep would do in this process),
  written to the matcher's disk cache, where every later reader finds it;
- the structural reasoner's placements of the similarity section's ontology
  (:func:`craftrdf.ontology.placement.reasoned_placements`), handed to the section;
- compiling the similarity kernels for that ontology's size (numba, about 6 s of CPU on a
  first run, when its on-disk cache is empty: a fresh install or a fresh ``NUMBA_CACHE_DIR``),
  which the section's index then loads from the cache instead of compiling them itself; started
  later (:meth:`WarmUp.compile_kernels`), when the workers idle during the one-configuration sweeps.

The results are the same as when computed in this process: same functions, same inputs.
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Mapping, Sequence
from concurrent.futures import CancelledError
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ...matching.matcher.annotate import MatchingSession
from ...ontology.owlread import OntologyAxioms, read_ontology
from ...querying.webanno import document_texts
from ...runtime.executors import SweepExecutor, installed
from ...store.local import ReadableStore

logger = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True, eq=False)
class WarmUpInputs:
    """The executor's payload: the texts to split and where their sentence spans are cached."""

    token: str
    texts: Mapping[str, str]
    cache_dir: Path


def split_on_worker(shared: WarmUpInputs | str, documents: Sequence[str]) -> int:
    """(A task) split ``documents`` into sentences, into the disk cache; returns how many."""
    inputs: WarmUpInputs = installed(shared) if isinstance(shared, str) else shared
    session = MatchingSession({d: inputs.texts[d] for d in documents}, {}, cache_dir=inputs.cache_dir)
    for d in documents:
        session.sentences(d)
    return len(documents)


def place_on_worker(_shared: object, onto: OntologyAxioms) -> list[tuple[str, str]]:
    """(A task) :func:`~craftrdf.ontology.placement.reasoned_placements` of ``onto``."""
    from ...ontology.placement import reasoned_placements

    return reasoned_placements(onto)


def compile_on_worker(_shared: object, terms: int) -> bool:
    """(A task) compile the similarity kernels for an index of ``terms`` terms into numba's disk cache."""
    from ...analysis.similarity._svalues import compile_kernels

    return compile_kernels(terms)


@dataclass(frozen=True, slots=True, eq=False)
class WarmUp:
    """The tasks started by :func:`start_warm_up`."""

    executor: SweepExecutor
    splits: tuple[Any, ...]
    placements: Any
    #: what the tasks receive for the shared inputs, and the similarity index's size (the ontology's classes)
    shared: object = None
    terms: int = 0

    def compile_kernels(self) -> Any:
        """Start compiling the similarity kernels on a worker; the task (True: compiled or loaded, False: no numba).

        Nothing needs to wait for it: a task not started when the pool restarts is cancelled, and
        the similarity section then compiles the kernels itself. Start it when a worker is idle.
        """
        return self.executor.submit(compile_on_worker, self.shared, self.terms)

    def wait_for_sentences(self) -> None:
        """Block until every document is split (and cached)."""
        for _ in self.executor.as_completed(list(self.splits)):
            pass

    def structural_placements(self) -> list[tuple[str, str]] | None:
        """The similarity section's placements (blocks until computed); None if the task was cancelled."""
        try:
            for _ in self.executor.as_completed([self.placements]):
                pass
            result: list[tuple[str, str]] = self.placements.result()
        except CancelledError:  # the executor was closed before the task started: compute them in process
            logger.info("warm-up: the placements task was cancelled")
            return None
        return result


def start_warm_up(
    store: ReadableStore,
    executor: SweepExecutor,
    *,
    ontology: str,
    cache_dir: Path,
    chunks: int = 4,
) -> WarmUp:
    """Read the texts and ``ontology``'s axioms, then split and place on ``executor``'s workers.

    The placements go first (the longest task); the documents are split in ``chunks``
    tasks (:meth:`WarmUp.compile_kernels` is left for when a worker is idle). The executor's next
    :meth:`~craftrdf.runtime.executors.SweepExecutor.share` may wait for these tasks (a
    :class:`~craftrdf.runtime.executors.LocalPool` restarts its workers on new inputs).
    """
    texts = document_texts(store)
    digest = hashlib.sha256(repr(sorted(texts)).encode()).hexdigest()[:16]
    shared = executor.share(WarmUpInputs(f"warm-up-{digest}", texts, cache_dir))
    axioms = read_ontology(store, ontology)
    placements = executor.submit(place_on_worker, shared, axioms)
    ids = sorted(texts)
    splits = tuple(executor.submit(split_on_worker, shared, ids[i::chunks]) for i in range(chunks) if ids[i::chunks])
    logger.info("warm-up: %d documents to split, the placements of %s, on the workers", len(ids), ontology)
    # the index's terms are the graph's classes (their number picks the kernels' integer types)
    return WarmUp(executor, splits, placements, shared, len(axioms.classes))
