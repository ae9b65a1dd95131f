"""The sweep on the real corpus (dev split, one configuration) against gold read from the Knowtator XML."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest

from craftrdf.core.context import RunContext
from craftrdf.core.registry import load_registry
from craftrdf.matching.matcher.annotate import annotate_texts
from craftrdf.matching.matcher.config import MatcherConfig
from craftrdf.matching.matcher.dictionary import fetch_terms
from craftrdf.matching.sweeps.inputs import prepare_inputs
from craftrdf.matching.sweeps.run import run_sweep
from craftrdf.querying.sets import resolve_set

pytestmark = [pytest.mark.corpus, pytest.mark.slow]


def knowtator_gold(path) -> set[tuple[str, tuple[tuple[int, int], ...], str]]:
    """(document, sorted spans, class) of every annotation of a Knowtator file, with ElementTree alone."""
    doc = path.name.split(".")[0]
    root = ET.parse(path).getroot()
    classes = {cm.get("id"): cm.find("mentionClass").get("id") for cm in root.iter("classMention")}
    out = set()
    for ann in root.iter("annotation"):
        spans = tuple(sorted((int(s.get("start")), int(s.get("end"))) for s in ann.iter("span")))
        out.add((doc, spans, classes[ann.find("mention").get("id")]))
    return out


def test_dev_split_row_equals_an_independent_count(craft_dir, corpus_reader, tmp_path):
    dev = (craft_dir / "articles/ids/craft-ids-dev.txt").read_text().split()
    assert len(dev) == 7
    gold = set()
    for pmid in dev:
        gold |= knowtator_gold(craft_dir / "concept-annotation/UBERON/UBERON/knowtator" / f"{pmid}.txt.knowtator.xml")
    texts = {p: (craft_dir / "articles/txt" / f"{p}.txt").read_text(encoding="utf-8") for p in dev}
    config = MatcherConfig()
    store = corpus_reader  # shared: the evaluation's tests may have read its bossy index already
    registry = load_registry()
    inputs = prepare_inputs(store, "UBERON", RunContext(registry, cache_dir=tmp_path), split="dev")
    terms = fetch_terms(store, resolve_set(store, "UBERON"), RunContext(registry))
    assert sorted(inputs.texts) == sorted(dev) and inputs.texts == texts
    row = run_sweep(inputs, [config]).rows[0]
    out = annotate_texts(texts, terms, config)
    pred = {(d, tuple(sorted((s.start, s.end) for s in a.spans)), a.class_id) for d, anns in out.items() for a in anns}
    tp = len(pred & gold)
    assert (row.tp, row.fp, row.fn) == (tp, len(pred) - tp, len(gold) - tp)
    assert 0.0 < row.ser < 1.0


def test_uberon_ext_ser_equals_the_official_scorer_on_the_obo_file(craft_dir, corpus_reader, tmp_path):
    """The sweep's SER of one configuration is ``craftrdf evaluate --craft``'s: the scorer's graph read from the
    UBERON+extensions OBO file (not the store), over the same predictions made by the matcher directly."""
    from craftrdf.analysis.evaluation.official_graph import set_scorers
    from craftrdf.analysis.evaluation.run import evaluate_sets

    config = MatcherConfig(caseMatch="CASE_IGNORE", synonyms="ALL")
    registry = load_registry()
    inputs = prepare_inputs(corpus_reader, "UBERON_EXT", RunContext(registry, cache_dir=tmp_path), split="dev")
    terms = fetch_terms(corpus_reader, resolve_set(corpus_reader, "UBERON_EXT"), RunContext(registry))
    out = annotate_texts(dict(inputs.texts), terms, config)
    report = evaluate_sets(
        {"UBERON_EXT": dict(inputs.gold)},
        {"UBERON_EXT": out},
        official=set_scorers(None, craft_dir, registry),
        criteria=("exact",),
    )[0]
    assert run_sweep(inputs, [config]).rows[0].ser == report.total.ser
