"""Sweep inputs for several splits, read once, against the sample's split files and Knowtator files."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest

from craftrdf.apps.demo import sample_dir
from craftrdf.core.context import RunContext
from craftrdf.core.errors import ConfigError
from craftrdf.core.registry import load_registry
from craftrdf.matching.sweeps import inputs as inputs_module
from craftrdf.matching.sweeps.inputs import prepare_inputs, prepare_split_inputs
from craftrdf.querying.webanno import fetch_annotations


def _ids(split: str) -> list[str]:
    return sorted((sample_dir() / "articles" / "ids" / f"craft-ids-{split}.txt").read_text().split())


def _gold_count(pmids: list[str]) -> int:
    folder = sample_dir() / "concept-annotation" / "CL" / "CL" / "knowtator"
    return sum(len(ET.parse(folder / f"{p}.txt.knowtator.xml").getroot().findall("annotation")) for p in pmids)


def test_one_read_serves_both_splits_as_two_reads_would(sample_store, tmp_path):
    registry = load_registry()
    ctx = RunContext(registry, cache_dir=tmp_path)
    public, test = prepare_split_inputs(sample_store, "CL", ctx, splits=["train,dev", "test"], apply_craft_rules=True)
    assert sorted(public.texts) == sorted(_ids("train") + _ids("dev")) and sorted(test.texts) == _ids("test")
    assert sum(map(len, public.gold.values())) == _gold_count(sorted(public.texts))
    assert sum(map(len, test.gold.values())) == _gold_count(_ids("test"))
    for split, got in (("train,dev", public), ("test", test)):
        alone = prepare_inputs(sample_store, "CL", ctx, split=split, apply_craft_rules=True)
        # the token digests texts, gold, dictionary, rules and mappings
        assert got.token == alone.token and got.documents == alone.documents


def test_an_unknown_split_is_refused_by_name(sample_store):
    with pytest.raises(ConfigError, match="invalid --split 'nonexistent'"):
        prepare_split_inputs(sample_store, "CL", RunContext(load_registry()), splits=["test", "nonexistent"])


def test_the_term_filter_only_takes_predictions_away(sample_store, tmp_path):
    from craftrdf.matching.matcher.config import MatcherConfig
    from craftrdf.matching.sweeps.entry import SweepOptions, sweep_store
    from craftrdf.matching.sweeps.termfilter import TermFilter

    rep = sweep_store(
        sample_store,
        "SO_EXT",
        [MatcherConfig()],
        RunContext(load_registry()),
        out_dir=tmp_path / "s",
        options=SweepOptions(
            split="train,dev", report_on="test", apply_craft_rules=True, plot=False, term_filter=TermFilter(min_count=1)
        ),
    )
    plain, filtered = rep.report["ser"], rep.filtered["ser"]
    test_gold = sum(
        len(ET.parse(f).getroot().findall("annotation"))
        for f in (sample_dir() / "concept-annotation" / "SO" / "SO+extensions" / "knowtator").glob("*.xml")
        if f.name.split(".")[0] in _ids("test")
    )
    assert plain.tp + plain.fn == filtered.report.tp + filtered.report.fn == test_gold
    assert filtered.report.tp <= plain.tp and filtered.report.fp <= plain.fp
    assert filtered.dropped > 0 and filtered.report.fp < plain.fp  # SO_EXT's single letters go
    cv = filtered.selection
    assert cv.tp + cv.fn == rep.best["f1"].tp + rep.best["f1"].fn and cv.fp <= rep.best["f1"].fp


def test_annotations_read_beforehand_give_the_same_inputs_without_a_read(sample_store, tmp_path, monkeypatch):
    registry = load_registry()
    splits = ["train,dev", "test"]
    ctx = RunContext(registry, cache_dir=tmp_path)
    read = prepare_split_inputs(sample_store, "CL", ctx, splits=splits)
    annotations = fetch_annotations(sample_store, "CL")

    def no_read(*args: object, **kwargs: object) -> None:
        raise AssertionError("the set was read again")

    monkeypatch.setattr(inputs_module, "fetch_annotations", no_read)
    given = prepare_split_inputs(sample_store, "CL", ctx, splits=splits, annotations=annotations)
    assert [g.token for g in given] == [r.token for r in read]  # the token digests texts and gold among the rest
    assert sum(map(len, given[1].gold.values())) == _gold_count(_ids("test"))
