"""The module registry against the corpus README and layout."""

from __future__ import annotations

from pathlib import Path

import pytest

from craftrdf.core.errors import ConfigError
from craftrdf.core.registry import load_registry, parse_registry


def test_set_keys_follow_the_shared_task():
    keys = list(load_registry().sets)
    modules = ["CHEBI", "CL", "GO_BP", "GO_CC", "GO_MF", "MOP", "NCBITaxon", "PR", "SO", "UBERON"]
    assert keys == [k for m in modules for k in (m, m + "_EXT")] + [
        "MONDO_WITH_GENOTYPE_ANNOTATIONS",
        "MONDO_WITHOUT_GENOTYPE_ANNOTATIONS",
    ]


def test_corpus_readme_filters():
    reg = load_registry()
    assert reg.module("go_bp").namespace == "biological_process"
    assert reg.module("GO_CC").namespace == "cellular_component"
    assert reg.module("NCBITaxon").exclude_subtrees == ("NCBITaxon:28384", "NCBITaxon:12908")
    assert "RELATED" in reg.module("PR").synonym_scopes and reg.module("UBERON").synonym_scopes == ("EXACT",)
    assert reg.module("MOP").keep_prefixes == ("MOP",)


def test_unknown_key_is_a_config_error():
    with pytest.raises(ConfigError, match="unknown annotation set 'UBERONX'"):
        load_registry().set("UBERONX")
    with pytest.raises(ConfigError, match="incomplete"):
        parse_registry({"modules": {"X": {"proper": "x.obo"}}})


@pytest.mark.corpus
def test_every_registered_path_exists_or_is_a_known_absence(craft_dir: Path):
    reg = load_registry()
    ca = craft_dir / "concept-annotation"
    absent_ontologies = {
        "CHEBI",
        "CHEBI_EXT",
        "GO_BP",
        "GO_BP_EXT",
        "GO_CC",
        "GO_CC_EXT",
        "NCBITaxon",
        "NCBITaxon_EXT",
        "PR",
        "PR_EXT",
        "MONDO_WITH_GENOTYPE_ANNOTATIONS",
        "MONDO_WITHOUT_GENOTYPE_ANNOTATIONS",
    }  # ../shared/README.md: too large for this copy
    for key, spec in reg.sets.items():
        assert (ca / spec.annotations).is_dir(), key
        found = reg.locate_ontology(craft_dir, spec.ontology) if spec.ontology else None
        assert (found is None) == (key in absent_ontologies), key
        # the corpus README: GO_MF has no unused-classes file; ../shared/README.md: the two PR
        # mapping files are absent from this copy; MONDO has no mapping files
        known_absent = {("GO_MF", "unused"), ("PR_EXT", "related"), ("PR_EXT", "substitute")}
        if key.startswith("MONDO"):
            continue
        for kind, rel in spec.mapping_files().items():
            assert (ca / rel).is_file() == ((key, kind) not in known_absent), (key, rel)
