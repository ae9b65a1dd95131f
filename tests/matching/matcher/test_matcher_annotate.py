"""The annotate command and API on the bundled sample: BioNLP files, the stored run, inputs, shared work."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pyoxigraph as ox
import pytest

from craftrdf.apps.cli import main
from craftrdf.apps.demo import sample_dir
from craftrdf.core.context import RunContext
from craftrdf.core.errors import ConfigError, InputError
from craftrdf.core.iris import set_iri
from craftrdf.core.registry import load_registry
from craftrdf.core.vocab import CM
from craftrdf.ingest.bionlp import read_bionlp
from craftrdf.matching.matcher.annotate import Matcher, MatchingSession
from craftrdf.matching.matcher.config import MatcherConfig
from craftrdf.matching.matcher.run import read_inputs
from craftrdf.querying.library import resolve_query, run_query
from craftrdf.querying.webanno import fetch_annotations
from craftrdf.store.local import AnnotationStore
from tests.helpers.sample import SAMPLE_PMIDS


@pytest.fixture(scope="module")
def sample_store(sample_store_copy, tmp_path_factory) -> Path:
    """The sample's Uberon sets on disk (this module's commands open the store by path)."""
    return sample_store_copy(tmp_path_factory.mktemp("store") / "sample.store", sets=["UBERON", "UBERON_EXT"])


def test_cli_writes_bionlp_and_a_run_graph_that_reads_back(sample_store, tmp_path, capsys):
    out = tmp_path / "out"
    argv = [
        "-q",
        "annotate",
        "--store",
        str(sample_store),
        "--set",
        "UBERON_EXT",
        str(sample_dir()),
        "--param",
        "caseMatch=CASE_IGNORE",
        "--param",
        "searchStrategy=SKIP_ANY_MATCH",
        "--out",
        str(out),
        "--into-store",
        "CM_RUN",
        "--cache-dir",
        str(tmp_path / "cache"),
    ]
    assert main(argv) == 0
    assert "annotated 3 documents" in capsys.readouterr().out
    assert sorted(p.name for p in out.iterdir()) == [f"{p}.bionlp" for p in SAMPLE_PMIDS]
    written = {
        (a.document, a.class_id, a.spans) for p in SAMPLE_PMIDS for a in read_bionlp(out / f"{p}.bionlp", document=p)
    }
    assert written
    with AnnotationStore.open(sample_store, mode="read") as store:
        stored = fetch_annotations(store, "CM_RUN")
        assert {(a.document, a.class_id, a.spans) for a in stored} == written
        sets = run_query(store, resolve_query("sets"), {"set": "CM_RUN"})
        [(_, module, variant, ontology, n)] = [tuple(t.value for t in row) for row in sets.rows]
        assert (module, variant, ontology) == (
            "UBERON",
            "extensions",
            "https://w3id.org/craftrdf/ontology/UBERON+extensions",
        )
        assert int(n) == len(written)
        g = ox.NamedNode(set_iri("CM_RUN"))

        def value(prop: str) -> str:
            return next(store.raw.quads_for_pattern(g, ox.NamedNode(prop), None, g)).object.value

        assert value(CM.caseMatch) == "CASE_IGNORE"
        assert value(CM.orderIndependentLookup) == "OFF"  # as given ...
        assert "orderIndependentLookup=ON" in value(CM.effectiveConfiguration)  # ... and as it behaved
        assert value(CM.dictionarySet) == set_iri("UBERON_EXT")
    # the same run again: nothing rewritten
    assert main(argv) == 0
    assert "unchanged" in capsys.readouterr().out


def test_cli_refuses_to_overwrite_a_gold_set(sample_store, tmp_path, capsys):
    argv = [
        "-q",
        "annotate",
        "--store",
        str(sample_store),
        "--set",
        "UBERON",
        str(sample_dir()),
        "--out",
        str(tmp_path / "o"),
        "--into-store",
        "uberon_ext",
        "--no-cache",
    ]
    assert main(argv) == 1
    assert "gold annotation set" in capsys.readouterr().err


def test_cli_reports_a_bad_parameter_in_one_line(sample_store, tmp_path, capsys):
    argv = [
        "annotate",
        "--store",
        str(sample_store),
        "--set",
        "UBERON",
        str(sample_dir()),
        "--out",
        str(tmp_path),
        "--param",
        "stemmer=SNOWBALL",
    ]
    assert main(argv) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "NONE | PORTER | BIOLEMMATIZER" in err


def test_split_selects_documents_of_a_craft_directory(tmp_path):
    assert sorted(read_inputs([sample_dir()], split="train,dev")) == ["11597317", "17244351"]
    assert sorted(read_inputs([sample_dir()], split="test")) == ["11319941"]
    assert sorted(read_inputs([sample_dir()])) == list(SAMPLE_PMIDS)
    with pytest.raises(ConfigError, match="invalid --split"):
        read_inputs([sample_dir()], split="training")


def test_text_file_inputs(tmp_path):
    (tmp_path / "a.txt").write_text("brain", encoding="utf-8")
    (tmp_path / "b.txt").write_text("lens", encoding="utf-8")
    assert read_inputs([tmp_path / "a.txt"]) == {"a": "brain"}
    assert read_inputs([tmp_path]) == {"a": "brain", "b": "lens"}
    with pytest.raises(ConfigError, match="given twice"):
        read_inputs([tmp_path, tmp_path / "a.txt"])
    with pytest.raises(ConfigError, match="CRAFT directory"):
        read_inputs([tmp_path], split="test")
    with pytest.raises(InputError, match="no such file"):
        read_inputs([tmp_path / "nope.txt"])


def test_session_shares_work_and_agrees_with_the_single_text_matcher(tmp_path):
    texts = {"d1": "The Striatum and the brain. Neocortex!", "d2": "Brains of mice; the cortex of the brain."}
    names = {"U:str": "striatum", "U:brain": "brain", "U:cx": ["neocortex", "cortex"], "U:cb": "cortex brain"}
    session = MatchingSession(texts, names, cache_dir=tmp_path)
    with ThreadPoolExecutor(2) as ex:
        assert session.split_in(ex) == 2
    configs = [
        MatcherConfig(),
        MatcherConfig(searchStrategy="SKIP_ANY_MATCH"),
        MatcherConfig(stopWords="PUBMED"),
        MatcherConfig(caseMatch="CASE_SENSITIVE", synonyms="ALL"),
    ]
    for c in configs:
        got = session.annotate(c)
        for d, text in texts.items():
            assert got[d] == Matcher(names, c).annotate(text, document=d)
    # one tokenization per document, one normalization per (document, normalization), one dictionary per key
    assert len(session._tokenized) == 2
    assert len(session._normalized) == 2 * len({c.normalization for c in configs})
    assert len(session._dictionaries) == len({c.dictionary_key for c in configs})
    assert len(list(tmp_path.glob("sentences-*.json"))) == 2
    session.release(MatcherConfig().normalization)
    assert len(session._normalized) == 2 * (len({c.normalization for c in configs}) - 1)


def test_sentences_come_from_the_disk_cache_the_second_time(tmp_path, monkeypatch):
    import craftrdf.matching.matcher.annotate as annotate_module

    texts = {"d": "The brain. The lens."}
    first = MatchingSession(texts, {"U:1": "brain"}, cache_dir=tmp_path).sentences("d")

    def no_split(text):
        raise AssertionError("sentences were split again despite the cache")

    monkeypatch.setattr(annotate_module, "split_sentences", no_split)
    again = MatchingSession(texts, {"U:1": "brain"}, cache_dir=tmp_path)
    assert again.sentences("d") == first == [(0, 10), (11, 20)]


def test_cli_splits_sentences_in_worker_processes_for_many_documents(sample_store, tmp_path, capsys):
    inputs = tmp_path / "texts"
    inputs.mkdir()
    for i in range(8):
        (inputs / f"doc{i}.txt").write_text(f"The striatum of mouse {i}. The brain.", encoding="utf-8")
    out = tmp_path / "out"
    argv = [
        "-q",
        "annotate",
        "--store",
        str(sample_store),
        "--set",
        "UBERON",
        str(inputs),
        "--out",
        str(out),
        "--jobs",
        "2",
        "--cache-dir",
        str(tmp_path / "cache"),
    ]
    assert main(argv) == 0
    assert "annotated 8 documents" in capsys.readouterr().out
    for i in range(8):
        found = {(a.class_id, a.text) for a in read_bionlp(out / f"doc{i}.bionlp", document=f"doc{i}")}
        assert found == {("UBERON:0002435", "striatum"), ("UBERON:0000955", "brain")}
    assert len(list((tmp_path / "cache").glob("sentences-*.json"))) == 8


def _tiny_store() -> AnnotationStore:
    from craftrdf.core.curie import CurieMap
    from craftrdf.core.iris import ontology_graph
    from craftrdf.ingest.obo import iter_obo
    from craftrdf.ingest.ontology import ontology_nquads
    from craftrdf.querying.webanno import set_nquads

    store = AnnotationStore.memory()
    graph = ontology_graph("tiny-uberon")
    obo = Path(__file__).parent / "data" / "tiny-uberon.obo"
    store.load_batch(graph, ontology_nquads(iter_obo(obo), graph=graph, curies=CurieMap()), digest="1")
    store.load_batch(
        set_iri("UBERON_EXT"),
        set_nquads("UBERON_EXT", module="UBERON", variant="extensions", ontology=graph, mappings=None),
        digest="s",
    )
    return store


def test_a_new_configuration_replaces_the_stored_run_and_other_sets_are_protected(tmp_path):
    from craftrdf.matching.matcher.run import run_annotation
    from craftrdf.querying.webanno import set_nquads

    store = _tiny_store()
    registry = load_registry()
    texts = {"d": "The Brain, the brain and the encephalon."}
    first = run_annotation(
        store, "UBERON_EXT", MatcherConfig(caseMatch="CASE_SENSITIVE"), texts, RunContext(registry), into_store="RUN1"
    )
    assert first.quads > 0 and first.annotations == 2  # brain, encephalon: "Brain" is not folded
    second = run_annotation(
        store, "UBERON_EXT", MatcherConfig(caseMatch="CASE_IGNORE"), texts, RunContext(registry), into_store="RUN1"
    )
    assert second.quads > 0 and second.annotations == 3
    assert len(fetch_annotations(store, "RUN1")) == 3
    g = ox.NamedNode(set_iri("RUN1"))
    values = {q.object.value for q in store.raw.quads_for_pattern(g, ox.NamedNode(CM.caseMatch), None, g)}
    assert values == {"CASE_IGNORE"}
    store.load_batch(
        set_iri("MINE"), set_nquads("MINE", module=None, variant=None, ontology=None, mappings=None), digest="m"
    )
    with pytest.raises(ConfigError, match="not matcher output"):
        run_annotation(store, "UBERON_EXT", MatcherConfig(), texts, RunContext(registry), into_store="MINE")
