"""Threads sharing one matching session or annotator (a Dask worker's): the results of one thread, built once."""

from __future__ import annotations

import threading
import time
from concurrent.futures import ThreadPoolExecutor

import pytest

from craftrdf.apps.demo import sample_dir
from craftrdf.core.context import RunContext
from craftrdf.core.registry import load_registry
from craftrdf.matching.matcher.annotate import MatchingSession
from craftrdf.matching.matcher.config import MatcherConfig, Synonyms, TextNormalization
from craftrdf.matching.matcher.dictionary import Dictionary, fetch_terms
from craftrdf.matching.matcher.normalize import Normalizer
from craftrdf.matching.matcher.stream import Batch, MatcherAnnotator, StreamPayload, annotate_batch
from craftrdf.querying.sets import resolve_set
from tests.helpers.sample import SAMPLE_PMIDS

#: Configurations that build different structures: a trie, sorted entries, the skip buckets; two stemmers.
CONFIGS = (
    MatcherConfig(),
    MatcherConfig(caseMatch="CASE_IGNORE", stemmer="PORTER", orderIndependentLookup="ON"),
    MatcherConfig(stemmer="BIOLEMMATIZER", searchStrategy="SKIP_ANY_MATCH", synonyms="ALL"),
)


@pytest.fixture(scope="module")
def texts() -> dict[str, str]:
    return {p: (sample_dir() / "articles" / "txt" / f"{p}.txt").read_text(encoding="utf-8") for p in SAMPLE_PMIDS}


@pytest.fixture(scope="module")
def terms(sample_store):
    return fetch_terms(sample_store, resolve_set(sample_store, "UBERON_EXT"), RunContext(load_registry()))


def test_threads_sharing_a_session_build_each_dictionary_once_and_agree(texts, terms):
    builds: list[tuple[TextNormalization, Synonyms]] = []
    gate = threading.Barrier(4)

    def slow_source(normalization: TextNormalization, synonyms: Synonyms, normalizer: Normalizer) -> Dictionary:
        builds.append((normalization, synonyms))
        time.sleep(0.05)  # a window for every other thread to ask for the same dictionary meanwhile
        return Dictionary.build(terms, normalization, synonyms, normalizer=normalizer)

    shared = MatchingSession(texts, slow_source)

    def work(config: MatcherConfig):
        gate.wait()  # the four threads start together, all missing every cache
        return shared.annotate(config)

    for config in CONFIGS:
        with ThreadPoolExecutor(4) as pool:
            results = list(pool.map(work, [config] * 4))
        alone = MatchingSession(texts, terms).annotate(config)
        assert all(r == alone for r in results), config.label()
        assert any(alone.values())
    assert len(builds) == len(set(builds)) == len(CONFIGS)  # one build per dictionary, not one per thread


def test_a_shared_annotator_on_four_threads_equals_one(texts, terms):
    """annotate_batch as a 1-worker, 4-thread Dask worker runs it: one annotator, batches side by side."""
    config = CONFIGS[1]
    c = config
    annotator = MatcherAnnotator(Dictionary.build(terms, c.normalization, c.synonyms), config)
    payload = StreamPayload(annotator, "RUN", "stream-test")
    batches = [Batch(i, tuple((f"{i}-{d}", f"{d}.txt", t) for d, t in texts.items())) for i in range(8)]
    with ThreadPoolExecutor(4) as pool:
        threaded = list(pool.map(lambda b: annotate_batch(payload, b), batches))
    fresh = StreamPayload(MatcherAnnotator(Dictionary.build(terms, c.normalization, c.synonyms), config), "RUN", "x")
    for got, batch in zip(threaded, batches, strict=True):
        assert got == annotate_batch(fresh, batch)
        assert not got.failures and sum(o.annotations for o in got.outputs) > 0
