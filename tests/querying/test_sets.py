"""Resolving a set key the user typed (craftrdf.querying.sets), on the sample and on sets added by hand."""

from __future__ import annotations

import warnings

import pytest

from craftrdf.building.loader import load_files
from craftrdf.core.errors import ConfigError
from craftrdf.querying.sets import list_sets, ontology_names, resolve_ontology, resolve_set
from craftrdf.store.local import AnnotationStore


def test_set_keys_match_case_insensitively(sample_store):
    ref = resolve_set(sample_store, "uberon_ext")
    assert (ref.key, ref.graph) == ("UBERON_EXT", "https://w3id.org/craftrdf/set/UBERON_EXT")
    with pytest.raises(ConfigError, match=r"no annotation set 'NOPE'.*UBERON_EXT"):
        resolve_set(sample_store, "NOPE")


def test_keys_differing_only_in_case_need_the_exact_key(tmp_path):
    store = AnnotationStore.memory()
    (tmp_path / "d1.bionlp").write_text("T1\tCL:0000540 0 6\tneuron\n")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        load_files(store, [tmp_path / "d1.bionlp"], set_key="Mine")
        load_files(store, [tmp_path / "d1.bionlp"], set_key="MINE")
    assert resolve_set(store, "MINE").key == "MINE"
    with pytest.raises(ConfigError, match="ambiguous"):
        resolve_set(store, "mine")


def test_the_description_names_the_ontology_and_mappings(sample_store):
    # the registry (core/modules.toml) gives UBERON_EXT module UBERON, variant extensions,
    # and the ontology file UBERON+extensions.obo.zip, whose graph is /ontology/UBERON+extensions
    ref = resolve_set(sample_store, "UBERON_EXT")
    assert (ref.module, ref.variant) == ("UBERON", "extensions")
    assert ref.ontology == "https://w3id.org/craftrdf/ontology/UBERON+extensions"
    assert ref.mappings is not None and ref.extensions
    assert not resolve_set(sample_store, "UBERON").extensions


def test_list_sets_has_every_knowtator_folder_of_the_sample(sample_store):
    from craftrdf.apps.demo import sample_dir

    folders = [
        p
        for p in (sample_dir() / "concept-annotation").glob("*/*")
        if (p / "knowtator").is_dir() or (p / "knowtator-2").is_dir()
    ]
    assert len(list_sets(sample_store)) == len(folders) == 22


def test_a_set_without_ontology_says_how_to_get_one(tmp_path):
    store = AnnotationStore.memory()
    (tmp_path / "d1.bionlp").write_text("T1\tCL:0000540 0 6\tneuron\n")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        load_files(store, [tmp_path / "d1.bionlp"], set_key="MINE")
    with pytest.raises(ConfigError, match="no ontology"):
        resolve_set(store, "MINE").require_ontology()


def test_an_unknown_ontology_name_lists_the_graphs_the_store_has(sample_store):
    from craftrdf.apps.demo import sample_dir

    # the sample's ontology files, named as the build names their graphs: the file name up to ".obo"
    files = sorted(p.name.split(".obo")[0] for p in (sample_dir() / "concept-annotation").rglob("*.obo*"))
    assert ontology_names(sample_store) == files
    assert resolve_ontology(sample_store, "UBERON+extensions") == "https://w3id.org/craftrdf/ontology/UBERON+extensions"
    with pytest.raises(ConfigError) as info:
        resolve_ontology(sample_store, "UBERON+extension")
    message = str(info.value)
    assert "'UBERON+extension'" in message and "\n" not in message
    assert message.endswith("ontology graphs: " + ", ".join(files))


def test_patterns_resolve_to_the_sample_folders_keys_and_graphs(sample_store):
    from craftrdf.core.iris import set_iri
    from craftrdf.querying.sets import resolve_sets, set_graphs

    # the sample's concept-annotation folders: CL, CL_EXT, GO_BP, ... (one proper and one _EXT set each)
    assert resolve_sets(sample_store, ["go_*_ext", "CL"]) == ("GO_BP_EXT", "GO_CC_EXT", "GO_MF_EXT", "CL")
    assert set_graphs(sample_store, ["CL", "SO_EXT"]) == [set_iri("CL"), set_iri("SO_EXT")]
    with pytest.raises(ConfigError, match="matches 'NOPE\\*'"):
        resolve_sets(sample_store, ["NOPE*"])
    with pytest.raises(ConfigError, match="no annotation set cl in the store"):
        set_graphs(sample_store, ["cl"])  # exact keys only: resolve_sets gives them
