"""The trained matcher on the real corpus: trained on the 67 train+dev articles, scored on the 30 test ones.

The targets are the best published test-set slot error rates (issue 26's table), typed here from
the papers, independently of craftrdf's own copy in reproduce/published.toml.
"""

from __future__ import annotations

import statistics
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from craftrdf.analysis.evaluation.run import evaluate_store
from craftrdf.core.context import RunContext
from craftrdf.core.registry import load_registry
from craftrdf.matching.training.evaluate import SplitPlan, train_and_test
from craftrdf.matching.training.folder import read_model
from craftrdf.runtime.executors import LocalPool
from craftrdf.store.local import AnnotationStore

pytestmark = [pytest.mark.corpus, pytest.mark.slow, pytest.mark.long]

#: The best published test-set slot error rates per set: the lower of the CRAFT Shared Task 2019's best
#: (its overview's Table 5) and the result files of Boguslav et al. 2021 scored with the official scorer
#: (../shared/published/best-published-ser.csv, issue 26's table), typed here from those sources.
BEST_PUBLISHED = {
    "CL": 0.4309,
    "CL_EXT": 0.3281,
    "GO_MF": 0.04,
    "GO_MF_EXT": 0.39,
    "MOP": 0.2477,
    "MOP_EXT": 0.2401,
    "SO": 0.1405,
    "SO_EXT": 0.13,
    "UBERON": 0.3052,
    "UBERON_EXT": 0.2960,
}


def ids(craft: Path, *splits: str) -> list[str]:
    return sorted(p for s in splits for p in (craft / "articles/ids" / f"craft-ids-{s}.txt").read_text().split())


@pytest.fixture(scope="module")
def trained(corpus_store, tmp_path_factory):
    out = tmp_path_factory.mktemp("trained")
    # the sets side by side on the two cores, as craftrdf reproduce trains them (the same models as in one process)
    with AnnotationStore.open(corpus_store, mode="read") as store, LocalPool(2) as pool:
        ctx = RunContext.create(cache_dir=out / "cache", executor=pool)
        scores = train_and_test(store, list(BEST_PUBLISHED), ctx, SplitPlan(out_dir=out / "models"))
    return out, scores


def test_cross_validated_scores_beat_the_best_published_on_at_least_9_of_10_sets(trained):
    # blind: what is asserted is the cross-validation on train+dev, by which everything was chosen;
    # the test split's scores are printed (pytest -s: the numbers docs/training.md quotes), never asserted
    _, scores = trained
    cv = {k: scores[k].train.cv_ser for k in BEST_PUBLISHED}
    for k, t in scores.items():
        sel, learned = t.train.selection, t.train.learned
        used = "learned" if learned is not None and learned.chosen else "threshold"
        print(
            f"{k}: cv SER {cv[k]:.4f} ({used}; threshold decision {sel.cv_ser:.4f}, learned "
            f"{learned.cv_ser if learned else float('nan'):.4f}), test SER {t.ser:.4f} (best published "
            f"{BEST_PUBLISHED[k]}), {sel.config.label()}, {sel.decision}, {sel.rules.label()}, trained in "
            f"{t.train.seconds:.0f} s; FP {t.false_positives}; FN {t.false_negatives}"
        )
    wins = [k for k in BEST_PUBLISHED if cv[k] < BEST_PUBLISHED[k]]
    assert len(wins) >= 9, cv  # the issue asks for 9 of 10; all 10 since the eighth round (docs/training.md, Results)
    assert statistics.fmean(cv.values()) < statistics.fmean(BEST_PUBLISHED.values()), cv
    for k, t in scores.items():  # the learned decision is used only where its cross-validation is lower
        learned = t.train.learned
        assert cv[k] <= t.train.selection.cv_ser
        if learned is not None:
            assert learned.chosen == (learned.cv_ser < t.train.selection.cv_ser)
            # the window kept is the one of lowest cross-validated SER (none, 25 tokens, with the names' lifts,
            # and their discourse: docs/training.md)
            assert sorted(learned.spans) == ["0", "25", "25+names", "25+names+discourse"]
            kept = learned.learned.window.label
            assert learned.spans[kept] == min(learned.spans.values())
            assert learned.cv_ser == pytest.approx(learned.spans[kept], abs=5e-5)


def test_no_test_document_is_in_any_model(trained, craft_dir):
    out, _ = trained
    public, test = ids(craft_dir, "train", "dev"), set(ids(craft_dir, "test"))
    assert len(public) == 67 and len(test) == 30
    for key in BEST_PUBLISHED:
        model = read_model(out / "models" / key, set_key=key)
        assert list(model.documents) == public
        assert not test & set(model.documents)


def test_coordination_counts_the_gold_discontinuous_annotations_of_train_and_dev(trained, craft_dir):
    _, scores = trained
    public = ids(craft_dir, "train", "dev")
    n = 0
    for pmid in public:
        root = ET.parse(craft_dir / "concept-annotation/CL/CL/knowtator" / f"{pmid}.txt.knowtator.xml").getroot()
        n += sum(1 for a in root.iter("annotation") if len(a.findall("span")) > 1)
    report = scores["CL"].train
    assert report.discontinuous_gold == n
    assert 0 < report.discontinuous_recovered <= report.discontinuous_predicted


def test_the_score_is_craftrdf_evaluates(trained, corpus_store, craft_dir, tmp_path):
    # the GO_MF model's BioNLP files on the test articles, scored by `craftrdf evaluate`'s library function
    from craftrdf.matching.training.train import annotate_with_model

    out, scores = trained
    texts = {p: (craft_dir / "articles/txt" / f"{p}.txt").read_text(encoding="utf-8") for p in ids(craft_dir, "test")}
    with AnnotationStore.open(corpus_store, mode="read") as store:
        model = out / "models" / "GO_MF"
        run = tmp_path / "run"
        annotate_with_model(store, "GO_MF", model, texts, RunContext.create(), out_dir=run / "GO_MF")
        (report,) = evaluate_store(store, "GO_MF", str(run), load_registry())
    assert len(report.documents) == 30
    assert report.total.ser == pytest.approx(scores["GO_MF"].ser, abs=1e-9)
