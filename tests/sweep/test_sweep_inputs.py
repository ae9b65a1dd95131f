"""Sweep inputs for several splits, read once, against the sample's split files and Knowtator files."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest

from craftrdf.demo import sample_dir
from craftrdf.errors import ConfigError
from craftrdf.registry import load_registry
from craftrdf.sweep import prepare_inputs, prepare_split_inputs


def _ids(split: str) -> list[str]:
    return sorted((sample_dir() / "articles" / "ids" / f"craft-ids-{split}.txt").read_text().split())


def _gold_count(pmids: list[str]) -> int:
    folder = sample_dir() / "concept-annotation" / "CL" / "CL" / "knowtator"
    return sum(len(ET.parse(folder / f"{p}.txt.knowtator.xml").getroot().findall("annotation")) for p in pmids)


def test_one_read_serves_both_splits_as_two_reads_would(sample_store, tmp_path):
    registry = load_registry()
    public, test = prepare_split_inputs(sample_store, "CL", splits=["train,dev", "test"], registry=registry,
                                        apply_craft_rules=True, cache_dir=tmp_path)
    assert sorted(public.texts) == sorted(_ids("train") + _ids("dev")) and sorted(test.texts) == _ids("test")
    assert sum(map(len, public.gold.values())) == _gold_count(sorted(public.texts))
    assert sum(map(len, test.gold.values())) == _gold_count(_ids("test"))
    for split, got in (("train,dev", public), ("test", test)):
        alone = prepare_inputs(sample_store, "CL", split=split, registry=registry, apply_craft_rules=True,
                               cache_dir=tmp_path)
        # the token digests texts, gold, dictionary, rules and mappings
        assert got.token == alone.token and got.documents == alone.documents


def test_an_unknown_split_is_refused_by_name(sample_store):
    with pytest.raises(ConfigError, match="invalid --split 'nonexistent'"):
        prepare_split_inputs(sample_store, "CL", splits=["test", "nonexistent"], registry=load_registry())
