"""The learned decision's windows: what each reads, the fit that leaves the rest out, the counts a model keeps."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from craftrdf.matching.training.features import FEATURES, NO_WINDOW, Window
from craftrdf.matching.training.learn import SPAN, STRONGER, WINDOWS, Learned, fit, read_counts, widen
from craftrdf.matching.training.window import BASE, name_window_term, window_term

PASSAGE = ["window_mean", "window_against", "window_for"]
NAMES = ["name_window_mean", "name_window_against", "name_window_for"]


def discourse(names: list[str]) -> list[str]:
    return [f"discourse_{n}" for n in names]


@pytest.mark.parametrize(
    ("window", "label", "unread"),
    [
        (NO_WINDOW, "0", PASSAGE + NAMES + discourse(PASSAGE) + discourse(NAMES)),
        (Window(25), "25", NAMES + discourse(PASSAGE) + discourse(NAMES)),
        (Window(25, names=True), "25+names", discourse(PASSAGE) + discourse(NAMES)),
        (Window(25, discourse=True), "25+discourse", NAMES + discourse(NAMES)),
        (Window(25, names=True, discourse=True), "25+names+discourse", []),
    ],
)
def test_a_window_reads_its_own_columns(window, label, unread):
    assert window.label == label
    assert sorted(FEATURES[i] for i in window.unread()) == sorted(unread)


def test_the_grid_is_four_windows_of_one_span_each_reading_more():
    assert [w.label for w in WINDOWS] == ["0", "25", "25+names", "25+names+discourse"]
    # one span: the rows made once with the widest window serve every window (learn._nested_rows)
    assert {w.span for w in WINDOWS} == {0, SPAN}


def test_a_fit_leaves_out_the_columns_its_window_does_not_read():
    rng = np.random.default_rng(7)
    x = rng.normal(size=(300, len(FEATURES)))
    y = x[:, 0] + 0.5 * x[:, FEATURES.index("discourse_window_mean")] + rng.normal(size=300) > 0
    window = Window(25)
    learned = fit(x, y, 0.1, 0.4, window)
    unread = list(window.unread())
    assert [learned.coef[i] for i in unread] == [0.0] * len(unread)
    assert [learned.mean[i] for i in unread] == [0.0] * len(unread)
    assert [learned.scale[i] for i in unread] == [1.0] * len(unread)
    # the oracle: scikit-learn's own pipeline on the columns read, the others never shown to it
    read = [i for i in range(len(FEATURES)) if i not in unread]
    oracle = make_pipeline(StandardScaler(), LogisticRegression(C=0.1, max_iter=2000)).fit(x[:, read], y)
    expected = oracle.predict_proba(x[:, read])[:, 1]
    assert learned.probabilities(x) == pytest.approx(expected, abs=1e-6)
    # whatever the unread columns hold when the model is applied
    noisy = x.copy()
    noisy[:, unread] = 1e6
    assert learned.probabilities(noisy) == pytest.approx(expected, abs=1e-6)
    assert (learned.window, learned.threshold, learned.strength) == (window, 0.4, 0.1)


def test_model_json_keeps_the_window():
    n = len(FEATURES)
    window = Window(25, names=False, discourse=True)
    learned = Learned((0.0,) * n, (1.0,) * n, (0.5,) * n, -1.0, 0.3, 0.01, window)
    data = learned.to_json()
    assert (data["window_span"], data["window_names"], data["window_discourse"]) == (25, False, True)
    assert Learned.from_json(data) == learned


def test_a_model_keeps_the_counts_its_window_reads():
    key = (("cut",), "M:1")
    word = window_term("ndei")
    name = name_window_term("ndei", key)
    totals = {key: [1, 2], BASE: [3, 7], word: [2, 2], name: [1, 1]}
    assert read_counts(totals, NO_WINDOW) == {key: [1, 2]}
    assert read_counts(totals, Window(25)) == {key: [1, 2], BASE: [3, 7], word: [2, 2]}
    assert read_counts(totals, Window(25, discourse=True)) == {key: [1, 2], BASE: [3, 7], word: [2, 2]}
    assert read_counts(totals, Window(25, names=True)) == totals


@pytest.mark.parametrize(
    ("tried", "best", "next_"),
    [
        ((0.01, 0.1, 1.0), 0.01, 0.003),  # the smallest won: one step stronger
        ((0.01, 0.1, 1.0), 0.1, None),  # bracketed by 0.01 and 1.0
        ((0.01, 0.1, 1.0), 1.0, None),
        ((0.01, 0.1, 1.0, 0.003), 0.003, 0.001),
        ((0.01, 0.1, 1.0, 0.003), 0.01, None),
        ((0.01, 0.1, 1.0, 0.003, 0.001), 0.001, None),  # the grid is spent
    ],
)
def test_the_strengths_widen_only_while_the_strongest_tried_wins(tried, best, next_):
    assert STRONGER == (0.003, 0.001)
    assert widen(tried, best) == next_


def test_deciding_the_folds_with_the_memo_changes_no_annotation(sample_store):
    # the oracle: the same folds decided afresh at each threshold (choose_learned, then the rules)
    from craftrdf.core.context import RunContext
    from craftrdf.ingest.corpus import SPLITS
    from craftrdf.matching.matcher.annotate import MatchingSession
    from craftrdf.matching.matcher.dictionary import load_dictionary
    from craftrdf.matching.training.data import read_corpus, read_set, split_documents
    from craftrdf.matching.training.decide import best_options, decide_folds
    from craftrdf.matching.training.learn import THRESHOLDS, _nested_rows
    from craftrdf.matching.training.select import Grid, select

    ctx = RunContext.create()
    data = read_set(sample_store, "CL", ctx)
    corpus = read_corpus(sample_store, data.key, split_documents(sample_store, SPLITS))
    session = MatchingSession(corpus.texts, {})

    def source(normalization, synonyms):
        return load_dictionary(sample_store, data.ref, normalization, synonyms, ctx)

    selection, prepared = select(session, corpus, data, source, Grid.of(True, 3))
    nested = _nested_rows(prepared, corpus, data, selection, 3)
    assert nested is not None
    views = prepared.fold_views(3)
    rng = np.random.default_rng(3)
    memo = {}
    for probs in ([rng.random(len(r)) for r in nested.outer], [rng.random(len(r)) ** 3 for r in nested.outer]):
        tops = [best_options(r, p) for r, p in zip(nested.outer, probs)]
        decided = 0
        for t in rng.permutation(THRESHOLDS).tolist():  # any order: a memo entry names its kept candidates
            expected = decide_folds(views, nested.outer, probs, t, selection)
            assert decide_folds(views, nested.outer, probs, t, selection, tops, memo) == expected
            decided += sum(len(v) for v in expected.values())
        assert decided > 0
    assert len(memo) < 2 * len(THRESHOLDS) * len(corpus.texts)  # neighbouring thresholds shared documents
