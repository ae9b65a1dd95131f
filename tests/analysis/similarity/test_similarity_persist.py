"""The similarity index kept on disk: read back instead of the graph, never stale, never trusted when damaged."""

from __future__ import annotations

import logging
import pickle

import pytest

from craftrdf import similarity_index
from craftrdf.analysis.similarity import graph as graph_module
from craftrdf.analysis.similarity.graph import IndexSpec, wang_index
from craftrdf.analysis.similarity.persist import default_cache_dir, graph_fingerprint
from craftrdf.apps.cli import main
from craftrdf.building.loader import load_files
from craftrdf.core.context import RunContext
from craftrdf.core.curie import CurieMap
from craftrdf.core.registry import load_registry
from craftrdf.ontology.cache import SimilarityCache
from craftrdf.store.local import AnnotationStore
from tests.helpers.corpus import DATA as TESTS_DATA

FIG1_OBO = TESTS_DATA / "similarity" / "wang2007_fig1.obo"
FIG1 = 6.12 / 7.92  # Sim(GO:0043229, GO:0043231), the paper's Figure 1 (worked out in test_wang.py)


def _no_graph_reads(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("the graph was read from the store")

    monkeypatch.setattr(graph_module, "read_store_model", refuse)


def test_a_saved_index_is_read_back_instead_of_the_graph(tmp_path, monkeypatch):
    store = AnnotationStore.memory()
    load_files(store, [FIG1_OBO])
    first = similarity_index(store, cache=None, cache_dir=tmp_path)
    assert len(list(tmp_path.glob("wang-*.pickle"))) == 1
    _no_graph_reads(monkeypatch)
    again = similarity_index(store, cache=SimilarityCache(), cache_dir=tmp_path)
    assert again is not first and again.similarity("GO:0043229", "GO:0043231") == pytest.approx(FIG1, abs=1e-12)
    # other options are another index: built, not read
    with pytest.raises(AssertionError, match="read from the store"):
        similarity_index(store, cache=None, cache_dir=tmp_path, weights={"is_a": 0.8})


def test_the_library_keeps_the_index_in_the_run_context_cache_dir(tmp_path, monkeypatch):
    store = AnnotationStore.memory()
    load_files(store, [FIG1_OBO])
    ctx = RunContext(load_registry(), cache_dir=tmp_path)
    wang_index(store, IndexSpec(ontology="wang2007_fig1"), ctx, cache=None)
    assert len(list(tmp_path.glob("wang-*.pickle"))) == 1
    _no_graph_reads(monkeypatch)
    again = wang_index(store, IndexSpec(ontology="wang2007_fig1"), ctx, cache=None)
    assert again.similarity("GO:0043229", "GO:0043231") == pytest.approx(FIG1, abs=1e-12)


def test_the_public_function_with_curies_keeps_nothing_on_disk(tmp_path):
    # an index of a caller's CURIE map is not the index of the default CURIEs that the disk holds
    store = AnnotationStore.memory()
    load_files(store, [FIG1_OBO])
    idx = similarity_index(store, cache=None, cache_dir=tmp_path, curies=CurieMap())
    assert idx.similarity("GO:0043229", "GO:0043231") == pytest.approx(FIG1, abs=1e-12)
    assert not list(tmp_path.glob("wang-*.pickle"))


def test_a_changed_ontology_is_never_served_from_the_old_entry(tmp_path):
    store = AnnotationStore.memory()
    load_files(store, [FIG1_OBO])
    before = graph_fingerprint(store)
    assert similarity_index(store, cache=None, cache_dir=tmp_path).similarity(
        "GO:0043229", "GO:0043231"
    ) == pytest.approx(FIG1)
    # the same graph name, other content: GO:0043231 loses its is_a GO:0043229 (S-values by hand:
    # GO:0043231 {itself 1, GO:0043227 .8, GO:0043226 .64, GO:0005575 .512}, SV 2.952; GO:0043229 as
    # before, SV 3.4: common GO:0043226 (.64 + .8) and GO:0005575 (.512 + .64))
    changed = tmp_path / "src" / "wang2007_fig1.obo"
    changed.parent.mkdir()
    changed.write_text(FIG1_OBO.read_text().replace("is_a: GO:0043229", "comment: no longer is_a GO:0043229"))
    load_files(store, [changed])
    assert graph_fingerprint(store) != before
    got = similarity_index(store, cache=None, cache_dir=tmp_path).similarity("GO:0043229", "GO:0043231")
    assert got == pytest.approx((0.64 + 0.8 + 0.512 + 0.64) / (2.952 + 3.4), abs=1e-12)
    assert len(list(tmp_path.glob("wang-*.pickle"))) == 2


def test_a_damaged_or_foreign_entry_is_rebuilt(tmp_path, caplog):
    store = AnnotationStore.memory()
    load_files(store, [FIG1_OBO])
    similarity_index(store, cache=None, cache_dir=tmp_path)
    (entry,) = tmp_path.glob("wang-*.pickle")
    entry.write_bytes(b"not a pickle")
    with caplog.at_level(logging.WARNING, logger="craftrdf.analysis.similarity.persist"):
        idx = similarity_index(store, cache=None, cache_dir=tmp_path)
    assert "ignoring unreadable similarity index" in caplog.text
    assert idx.similarity("GO:0043229", "GO:0043231") == pytest.approx(FIG1)
    entry.write_bytes(pickle.dumps({"key": "another", "index": idx}))
    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="craftrdf.analysis.similarity.persist"):
        similarity_index(store, cache=None, cache_dir=tmp_path)
    assert "not the index of its key" in caplog.text


def test_the_cli_keeps_the_index_unless_told_not_to(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    path = tmp_path / "store"
    with AnnotationStore.open(path) as store:
        load_files(store, [FIG1_OBO])
    args = ["-q", "similarity", "GO:0043229", "GO:0043231", "--store", str(path)]
    assert main([*args, "--no-cache"]) == 0
    assert not default_cache_dir().exists()
    assert main(args) == 0
    assert len(list(default_cache_dir().glob("wang-*.pickle"))) == 1
    _no_graph_reads(monkeypatch)
    graph_module.DEFAULT_CACHE.clear()
    assert main(args) == 0
    assert capsys.readouterr().out == f"{FIG1:.6f}\n" * 3


def test_an_ic_index_is_kept_beside_its_wang_index(tmp_path, monkeypatch, sample_store):
    from craftrdf.analysis.similarity import corpus as corpus_module
    from craftrdf.analysis.similarity.corpus import ic_index
    from craftrdf.analysis.similarity.ic import ICIndex
    from craftrdf.core.context import RunContext

    ctx = RunContext.create(cache_dir=tmp_path)
    pairs = (
        ["UBERON:0000955", "UBERON:0002435", "UBERON:0000062"],
        ["UBERON:0002435", "UBERON:0001017", "UBERON:0000955"],
    )
    built = {ic: ic_index(sample_store, ic=ic, set_key="UBERON", cache=None, ctx=ctx) for ic in ("corpus", "intrinsic")}
    assert len(list(tmp_path.glob("ic-*.pickle"))) == 2 and len(list(tmp_path.glob("wang-*.pickle"))) == 1

    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("the IC was computed again")

    _no_graph_reads(monkeypatch)
    monkeypatch.setattr(corpus_module, "annotation_counts", refuse)
    monkeypatch.setattr(ICIndex, "from_counts", refuse)
    monkeypatch.setattr(ICIndex, "intrinsic", refuse)
    for ic, first in built.items():
        again = ic_index(sample_store, ic=ic, set_key="UBERON", cache=None, ctx=ctx)
        assert again is not first and again.ancestry is not first.ancestry
        for measure in ("resnik", "lin", "jiang", "rel"):
            assert list(again.pairs(*pairs, measure)) == list(first.pairs(*pairs, measure)), (ic, measure)
    # other splits are other counts: computed, not read
    with pytest.raises(AssertionError, match="computed again"):
        ic_index(sample_store, set_key="UBERON", splits=["test"], cache=None, ctx=ctx)


def test_an_ic_key_follows_the_set_and_documents_batches():
    from types import SimpleNamespace

    from craftrdf.analysis.similarity.persist import ic_key

    class Batches:
        def __init__(self, **digests: str) -> None:
            self.digests = digests

        def batches(self) -> dict[str, SimpleNamespace]:
            return {g: SimpleNamespace(graph=g, digest=d) for g, d in self.digests.items()}

    source = {"ic": "corpus", "set": "S", "splits": None}
    one = ic_key(Batches(s="1", d="1"), index="w", source=source, graphs=["s"])  # type: ignore[arg-type]
    assert one == ic_key(Batches(s="1", d="2"), index="w", source=source, graphs=["s"])  # type: ignore[arg-type]
    assert one != ic_key(Batches(s="2", d="1"), index="w", source=source, graphs=["s"])  # type: ignore[arg-type]
    assert one != ic_key(Batches(s="1", d="1"), index="w2", source=source, graphs=["s"])  # type: ignore[arg-type]
    # a graph that is no batch has no digest to vouch for it: no key, nothing kept
    assert ic_key(Batches(s="1"), index="w", source=source, graphs=["s", "d"]) is None  # type: ignore[arg-type]
