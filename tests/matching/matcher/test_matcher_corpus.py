"""The default configuration on a real CRAFT article, against that article's gold UBERON annotations."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from craftrdf.core.context import RunContext
from craftrdf.core.registry import load_registry
from craftrdf.ingest.bionlp import read_bionlp
from craftrdf.matching.matcher.config import MatcherConfig
from craftrdf.matching.matcher.run import run_annotation
from craftrdf.store.local import AnnotationStore

PMID = "11319941"  # a test-split article about the striatum: 226 gold UBERON annotations

pytestmark = [pytest.mark.corpus, pytest.mark.slow]


def gold_from_knowtator(path: Path) -> set[tuple[str, tuple[tuple[int, int], ...]]]:
    """(class, sorted spans) of every annotation of a Knowtator file, read with ElementTree alone."""
    root = ET.parse(path).getroot()
    classes = {cm.get("id"): cm.find("mentionClass").get("id") for cm in root.iter("classMention")}
    out = set()
    for ann in root.iter("annotation"):
        spans = tuple(sorted((int(s.get("start")), int(s.get("end"))) for s in ann.iter("span")))
        out.add((classes[ann.find("mention").get("id")], spans))
    return out


def test_default_configuration_finds_half_of_an_articles_gold_uberon_annotations(craft_dir, corpus_store, tmp_path):
    """Share of gold annotations found with exactly the same class and spans.

    Bada et al. (2017) report recall 0.66 for this configuration (their best F1 on
    UBERON) over the 67 public articles; per article the share varies widely (from
    about 0.1 to 1.0 in our runs), and on this article craftrdf finds 130 of the 226
    (0.58). The threshold, 0.50, leaves room for small changes in tokenization or
    stemming while failing on any loss of more than about one in seven of the
    annotations found now.
    """
    gold = gold_from_knowtator(craft_dir / "concept-annotation/UBERON/UBERON/knowtator" / f"{PMID}.txt.knowtator.xml")
    assert len(gold) == 226
    text = (craft_dir / "articles/txt" / f"{PMID}.txt").read_text(encoding="utf-8")
    with AnnotationStore.open(corpus_store, mode="read") as store:
        report = run_annotation(
            store, "UBERON", MatcherConfig(), {PMID: text}, RunContext(load_registry()), out_dir=tmp_path
        )
    found = {
        (a.class_id, tuple((s.start, s.end) for s in a.spans))
        for a in read_bionlp(tmp_path / f"{PMID}.bionlp", document=PMID)
    }
    assert report.annotations == len(found)
    share = len(gold & found) / len(gold)
    assert share >= 0.50, f"found {len(gold & found)} of {len(gold)} gold annotations ({share:.2f})"
    precision = len(gold & found) / len(found)
    assert precision >= 0.65, f"precision {precision:.2f}"  # the paper's precision for this configuration
