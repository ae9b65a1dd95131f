"""reproduce's warm-up: sentence splits into the cache and structural placements, computed off this process."""

from __future__ import annotations

import warnings

import pytest

from craftrdf import similarity_index
from craftrdf.analysis.similarity.definition import SimilarityWarning
from craftrdf.apps.reproduce.warmup import WarmUpInputs, place_on_worker, split_on_worker, start_warm_up
from craftrdf.building.loader import load_files
from craftrdf.core.iris import DOCUMENTS_GRAPH, document_iri
from craftrdf.core.vocab import CRAFT, FABIO
from craftrdf.matching.matcher.annotate import MatchingSession
from craftrdf.ontology.owlread import read_ontology
from craftrdf.runtime.executors import InlineExecutor, LocalPool
from craftrdf.store.local import AnnotationStore
from tests.helpers.corpus import DATA as TESTS_DATA

TOY_OBO = TESTS_DATA / "similarity" / "toy_extensions.obo"


@pytest.fixture
def toy_store() -> AnnotationStore:
    store = AnnotationStore.memory()
    load_files(store, [TOY_OBO])
    return store


def test_split_on_worker_fills_the_cache_a_later_session_reads(tmp_path):
    texts = {"1": "Cells divide. They grow!", "2": "One sentence only"}
    inputs = WarmUpInputs("t", texts, tmp_path)
    assert split_on_worker(inputs, ["1", "2"]) == 2
    assert len(list(tmp_path.glob("sentences-*.json"))) == 2
    # by hand: "Cells divide." is 0-13, "They grow!" 14-24; the second text is one sentence
    later = MatchingSession(texts, {}, cache_dir=tmp_path)
    assert later.sentences("1") == [(0, 13), (14, 24)]
    assert later.sentences("2") == [(0, 17)]


def test_warm_up_placements_inline_are_the_reasoners(toy_store, tmp_path):
    warm = start_warm_up(toy_store, InlineExecutor(), ontology="toy_extensions", cache_dir=tmp_path)
    assert warm.splits == ()  # the store has no documents
    edges = warm.structural_placements()
    assert edges is not None
    # by hand from the definitions: bone = 'bone tissue' (6) or skeletal element (7), whose only common
    # ancestor is 1; tissues = 4 or 6 or 12, all tissues (2); restricted (nerve and part_of some nervous
    # system) is equivalent to nerve (8), so it sits under nerve's parents, organ (3) and any_case
    assert {("TOY_EXT:bone", "TOY:0000001"), ("TOY_EXT:tissues", "TOY:0000002")} <= set(edges)
    assert {("TOY_EXT:restricted", "TOY:0000003"), ("TOY_EXT:restricted", "TOY_EXT:any_case")} <= set(edges)
    assert place_on_worker(None, read_ontology(toy_store, "toy_extensions")) == edges
    # the similarity kernels' compilation is queued too (numba is a base dependency: it compiles or loads)
    assert [f.result() for f in InlineExecutor().as_completed([warm.compile_kernels()])] == [True]


def test_warm_up_on_a_process_pool(toy_store, tmp_path):
    g = f"<{DOCUMENTS_GRAPH}>"
    doc = f"<{document_iri('1')}>"
    lines = [f'{doc} <{FABIO.hasPubMedId}> "1" {g} .', f'{doc} <{CRAFT.text}> "Cells divide. They grow!" {g} .']
    toy_store.load_batch(DOCUMENTS_GRAPH, lines, digest="test")
    with LocalPool(2) as pool:
        warm = start_warm_up(toy_store, pool, ontology="toy_extensions", cache_dir=tmp_path)
        warm.wait_for_sentences()
        edges = warm.structural_placements()
    assert edges is not None and ("TOY_EXT:bone", "TOY:0000001") in edges
    assert MatchingSession({"1": "Cells divide. They grow!"}, {}, cache_dir=tmp_path).sentences("1") == [
        (0, 13),
        (14, 24),
    ]


def test_similarity_index_uses_placements_given(toy_store):
    # restricted is an intersection: only the structural reasoner places it
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SimilarityWarning)
        none = similarity_index(
            toy_store, ontology="toy_extensions", classify_extensions=True, placements=[], cache=None
        )
        assert none.similarity("TOY_EXT:restricted", "TOY:0000003") == 0.0
    given = similarity_index(
        toy_store,
        ontology="toy_extensions",
        classify_extensions=True,
        placements=[("TOY_EXT:restricted", "TOY:0000003")],
        cache=None,
    )
    # restricted: itself 1, organ 3 at 0.8, 1 at 0.64 -> 2.44; organ: 1 + 0.8 = 1.8 (no extension class
    # has organ as a member); common {3, 1}: (0.8 + 0.64) + 1.8 = 3.24  ->  3.24 / 4.24
    assert given.similarity("TOY_EXT:restricted", "TOY:0000003") == pytest.approx(3.24 / 4.24, abs=1e-12)
