"""Dictionaries from the store: the registry's filters, the synonym policy, the disk cache."""

from __future__ import annotations

from pathlib import Path

import pytest

from craftrdf.core.context import RunContext
from craftrdf.core.curie import CurieMap
from craftrdf.core.errors import ConfigError
from craftrdf.core.iris import ontology_graph, relations_graph, set_iri
from craftrdf.core.registry import load_registry
from craftrdf.ingest.obo import iter_obo
from craftrdf.ingest.ontology import ontology_nquads
from craftrdf.matching.matcher.config import MatcherConfig
from craftrdf.matching.matcher.dictionary import (
    DictionaryTerm,
    fetch_terms,
    load_dictionary,
    load_terms,
)
from craftrdf.querying.sets import resolve_set
from craftrdf.querying.webanno import set_nquads
from craftrdf.store.local import AnnotationStore

DATA = Path(__file__).parent / "data"
REGISTRY = load_registry()


def add_set(store: AnnotationStore, key: str, module: str, obo: str, *, digest: str = "1") -> None:
    graph = ontology_graph(Path(obo).stem)
    relations = relations_graph(graph)  # as the build writes it: the OWL graph and its relations graph
    lines = ontology_nquads(iter_obo(DATA / obo), graph=graph, curies=CurieMap(), relations=relations)
    store.load_batch(graph, lines, digest=digest, companions=[relations])
    store.load_batch(
        set_iri(key), set_nquads(key, module=module, variant="extensions", ontology=graph, mappings=None), digest="set"
    )


@pytest.fixture
def store() -> AnnotationStore:
    s = AnnotationStore.memory()
    add_set(s, "UBERON_EXT", "UBERON", "tiny-uberon.obo")
    return s


def test_terms_keep_module_classes_and_extension_classes_only(store):
    assert fetch_terms(store, resolve_set(store, "uberon_ext"), RunContext(REGISTRY)) == sorted(
        [
            DictionaryTerm("CL_UBERON_EXT:lens_fiber", "lens fiber", "LABEL"),  # extension classes always kept
            DictionaryTerm("UBERON:0000955", "Gehirn", "RELATED"),
            DictionaryTerm("UBERON:0000955", "brain", "LABEL"),
            DictionaryTerm("UBERON:0000955", "brain tissue", "NARROW"),
            DictionaryTerm("UBERON:0000955", "cerebrum", "BROAD"),
            DictionaryTerm("UBERON:0000955", "encephalon", "EXACT"),
            DictionaryTerm("UBERON:0002435", "striatum", "LABEL"),
            DictionaryTerm("UBERON_EXT:bone_element_or_tissue", "bone", "LABEL"),
            # left out: the obsolete UBERON:0000999, CL:0000000 (prefix not kept), the part_of relation
        ]
    )


def test_a_class_obsolete_in_one_ontology_graph_is_kept_where_another_has_it_current(store):
    # the deprecation is read from the set's own ontology graph, not from any graph of the store
    add_set(store, "UBERON", "UBERON", "tiny-uberon-current.obo")
    current = fetch_terms(store, resolve_set(store, "UBERON"), RunContext(REGISTRY))
    assert current == [DictionaryTerm("UBERON:0000999", "old brain part", "LABEL")]
    assert "UBERON:0000999" not in {
        t.class_id for t in fetch_terms(store, resolve_set(store, "UBERON_EXT"), RunContext(REGISTRY))
    }


def test_go_terms_keep_the_modules_namespace_and_extension_classes():
    s = AnnotationStore.memory()
    add_set(s, "GO_BP_EXT", "GO_BP", "tiny-go.obo")
    assert {t.class_id for t in fetch_terms(s, resolve_set(s, "GO_BP_EXT"), RunContext(REGISTRY))} == {
        "GO:0008150",
        "GO_EXT:biological_movement_or_translocation_process",
    }


def test_excluded_subtrees_are_left_out():
    s = AnnotationStore.memory()
    add_set(s, "NCBITaxon_EXT", "NCBITaxon", "tiny-ncbitaxon.obo")
    assert {t.class_id for t in fetch_terms(s, resolve_set(s, "NCBITaxon_EXT"), RunContext(REGISTRY))} == {
        "NCBITaxon:1",
        "NCBITaxon:10090",
    }


@pytest.mark.parametrize(
    ("synonyms", "expected"),
    [
        ("EXACT_ONLY", {("brain",), ("encephalon",), ("striatum",), ("bone",), ("lens", "fiber")}),
        (
            "ALL",
            {
                ("brain",),
                ("encephalon",),
                ("striatum",),
                ("bone",),
                ("lens", "fiber"),
                ("gehirn",),
                ("cerebrum",),
                ("brain", "tissue"),
            },
        ),
    ],
)
def test_synonym_policy_chooses_the_scopes(store, synonyms, expected):
    c = MatcherConfig(caseMatch="CASE_IGNORE", stemmer="NONE", synonyms=synonyms)
    d = load_dictionary(store, resolve_set(store, "UBERON_EXT"), c.normalization, c.synonyms, RunContext(REGISTRY))
    assert set(d.entries) == expected
    assert d.entries[("brain",)] == {"UBERON:0000955"}


def test_unknown_set_or_set_without_ontology_is_a_config_error(store):
    with pytest.raises(ConfigError, match="no annotation set 'CL_EXT' in the store; sets: UBERON_EXT"):
        fetch_terms(store, resolve_set(store, "CL_EXT"), RunContext(REGISTRY))
    store.load_batch(
        set_iri("MINE"), set_nquads("MINE", module=None, variant=None, ontology=None, mappings=None), digest="x"
    )
    with pytest.raises(ConfigError, match="no ontology"):
        fetch_terms(store, resolve_set(store, "MINE"), RunContext(REGISTRY))


def test_the_cache_answers_without_the_store_and_follows_the_ontology_digest(store, tmp_path, monkeypatch):
    c = MatcherConfig()
    first = load_dictionary(
        store, resolve_set(store, "UBERON_EXT"), c.normalization, c.synonyms, RunContext(REGISTRY, cache_dir=tmp_path)
    )
    assert sorted(p.name.split("-")[0] for p in tmp_path.iterdir()) == ["dictionary", "terms"]

    def no_query(*args, **kwargs):
        raise AssertionError("the store was queried although the cache holds the dictionary")

    monkeypatch.setattr(store, "query", no_query)
    again = load_dictionary(
        store, resolve_set(store, "UBERON_EXT"), c.normalization, c.synonyms, RunContext(REGISTRY, cache_dir=tmp_path)
    )
    assert dict(again.entries) == dict(first.entries)
    other = MatcherConfig(stemmer="NONE")  # another normalization: rebuilt from the cached terms, still no query
    load_dictionary(
        store,
        resolve_set(store, "UBERON_EXT"),
        other.normalization,
        other.synonyms,
        RunContext(REGISTRY, cache_dir=tmp_path),
    )
    monkeypatch.undo()

    # the ontology batch is replaced (new digest): the cached dictionary is not used
    graph = ontology_graph("tiny-uberon")
    lines = [
        q.replace('"striatum"', '"corpus striatum"')
        for q in ontology_nquads(iter_obo(DATA / "tiny-uberon.obo"), graph=graph, curies=CurieMap())
    ]
    store.load_batch(graph, lines, digest="2")
    changed = load_dictionary(
        store, resolve_set(store, "UBERON_EXT"), c.normalization, c.synonyms, RunContext(REGISTRY, cache_dir=tmp_path)
    )
    assert ("corpu", "striatum") in changed.entries and ("striatum",) not in changed.entries


def test_a_damaged_cache_file_is_rebuilt(store, tmp_path):
    terms, digest = load_terms(store, resolve_set(store, "UBERON_EXT"), RunContext(REGISTRY, cache_dir=tmp_path))
    (tmp_path / f"terms-{digest}.json").write_text("{not json", encoding="utf-8")
    again, _ = load_terms(store, resolve_set(store, "UBERON_EXT"), RunContext(REGISTRY, cache_dir=tmp_path))
    assert again == terms


class _CountingStore:
    """A store that counts the queries it is asked, by text; everything else is the wrapped store's."""

    def __init__(self, store: AnnotationStore) -> None:
        self._store = store
        self.asked: list[str] = []

    def query(self, sparql: str, **kwargs: object) -> object:
        self.asked.append(sparql)
        return self._store.query(sparql, **kwargs)  # type: ignore[arg-type]

    def __getattr__(self, name: str) -> object:
        return getattr(self._store, name)


def test_the_terms_and_the_model_s_synonyms_are_one_read_of_the_ontology_s_names():
    from craftrdf.building.loader import load_files
    from craftrdf.ontology.store_model import read_store_model
    from craftrdf.querying.library import library
    from craftrdf.querying.sets import SetRef
    from tests.helpers.corpus import DATA

    inner = AnnotationStore.memory()
    load_files(inner, [DATA / "obo" / "valid.obo"])
    store = _CountingStore(inner)
    ref = SetRef("FIX", set_iri("FIX"), ontology=ontology_graph("valid"))  # no module: no registry filter
    terms = fetch_terms(store, ref, RunContext.create())  # type: ignore[arg-type]
    synonyms = read_store_model(store, "valid").synonyms  # type: ignore[arg-type]
    # one query read synonyms for both (before, the matcher's own query and the model's each did)
    assert [q for q in store.asked if "hasExactSynonym" in q] == [library()["ontology-names"].text]
    # valid.obo by hand: the names of its classes but the obsolete FIX:0000009
    labels = {
        ("FIX:0000001", "anatomical thing"),
        ("FIX:0000002", "organ"),
        ("FIX:0000003", "body"),
        ("FIX:0000004", "tissue"),
        ("FIX_EXT:organ_or_tissue", "organ or tissue"),
        ("FIX_EXT:double_quoted", "doubly quoted definition"),
        ("FIX_EXT:inner_quote", "unescaped inner quote"),
    }
    thing = {
        ("exact thing", "EXACT"),
        ("broad thing", "BROAD"),
        ("narrow thing", "NARROW"),
        ("related thing", "RELATED"),
        ("old style exact", "EXACT"),
    }
    assert {(t.class_id, t.name, t.scope) for t in terms} == (
        {(c, n, "LABEL") for c, n in labels}
        | {("FIX:0000001", n, s) for n, s in thing}
        | {("FIX:0000004", "tissue-like", "RELATED")}
    )
    assert {(s.text, s.scope) for s in synonyms["FIX:0000001"]} == thing
