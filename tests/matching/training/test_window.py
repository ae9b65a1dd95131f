"""Window features of the learned decision (the tokens around a find), and rows in an order no hash decides."""

from __future__ import annotations

import itertools
import math
import os
import subprocess
import sys
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from craftrdf.core.model import Annotation, Span
from craftrdf.matching.matcher.annotate import MatchingSession
from craftrdf.matching.matcher.config import MatcherConfig
from craftrdf.matching.training.data import Corpus
from craftrdf.matching.training.engine import Candidate, Decision
from craftrdf.matching.training.features import FEATURES, option_rows
from craftrdf.matching.training.folder import TermRow, read_model, write_model
from craftrdf.matching.training.learn import context_counts, totals_of
from craftrdf.matching.training.select import prepare
from craftrdf.matching.training.window import (
    BASE,
    Windows,
    count_name_windows,
    count_windows,
    lifts,
    name_window_features,
    name_window_term,
    window_features,
    window_term,
)
from tests.helpers.models import model_meta

CONFIG = MatcherConfig(stemmer="NONE", findAllMatches="YES")  # type: ignore[arg-type]
TEXT = "Sections were cut on a microtome. The plasmid was cut with NdeI."
FIRST, SECOND = (14, 17), (50, 53)  # the two "cut"s


CUTS = [
    Candidate("d", (Span(*FIRST),), ("cut",), frozenset({"M:1", "M:2"})),
    Candidate("d", (Span(*SECOND),), ("cut",), frozenset({"M:1"})),
]


def windows(span: int, *, names: bool = False) -> Windows:
    return Windows(MatchingSession({"d": TEXT}, {}), CONFIG.normalization, span, names=names)


def words(w: Windows, candidates: list[Candidate]) -> list[list[str]]:
    found = w.of("d", candidates)
    tokens = w.tokens()
    return [[tokens[i] for i in found.ids[o : o + n]] for o, n in zip(found.offsets, found.sizes)]


def test_a_window_is_the_tokens_each_side_of_the_find():
    assert TEXT[slice(*FIRST)] == TEXT[slice(*SECOND)] == "cut"
    # by hand: two words each side, across the sentence's end; stemmer NONE keeps "NdeI" as written
    assert words(windows(2), CUTS) == [["sections", "were", "on", "a"], ["plasmid", "was", "with", "NdeI"]]
    # at the text's start, the side after only; at its end, the side before only
    edges = [
        Candidate("d", (Span(0, 8),), ("sections",), frozenset({"M:1"})),
        Candidate("d", (Span(59, 63),), ("ndei",), frozenset({"M:1"})),
    ]
    assert words(windows(1), edges) == [["were"], ["with"]]


def test_every_find_counts_once_with_each_token_of_its_window():
    # the second "cut" is gold: each find counts once for the base rate, whatever its classes
    w = windows(1)
    counts = count_windows(w.of("d", CUTS), w.tokens(), np.asarray([False, True]))
    assert counts == Counter(
        {
            (BASE, True): 1,
            (BASE, False): 1,
            (window_term("were"), False): 1,
            (window_term("on"), False): 1,
            (window_term("was"), True): 1,
            (window_term("with"), True): 1,
        }
    )


def test_window_features_are_lifts_over_the_base_rate():
    # base: 1 right of 3 finds, smoothed (1 + 0.5) / (3 + 1) = 3/8; "was" 2 of 2, "with" 0 of 4, each
    # smoothed with 5 finds at the base rate: (2 + 15/8) / 7 = 31/56 and (15/8) / 9 = 5/24; the rest unseen
    stats = {BASE: (1, 3), window_term("was"): (2, 2), window_term("with"): (0, 4)}
    w = windows(1)
    found = w.of("d", CUTS)
    features = window_features(found, lifts(w.tokens(), lambda t: stats.get(t, (0, 0))))

    def lift(p: float) -> float:
        return math.log(p / (1 - p)) - math.log(3 / 5)

    assert features[0] == pytest.approx([0.0, 0.0, 0.0])  # "were", "on": never seen near a find
    # one lift each way: the sums are that lift
    assert features[1] == pytest.approx([(lift(31 / 56) + lift(5 / 24)) / 2, lift(5 / 24), lift(31 / 56)])
    # two words each side: "plasmid" 1 of 1, (1 + 15/8) / 6 = 23/48, and "sections" 0 of 1, (15/8) / 6 = 5/16,
    # join "was" and "with"; the sums add both of a sign (the highest alone would be lift(31/56))
    stats |= {window_term("plasmid"): (1, 1), window_term("sections"): (0, 1)}
    wide = windows(2)
    features = window_features(wide.of("d", CUTS), lifts(wide.tokens(), lambda t: stats.get(t, (0, 0))))
    assert lift(23 / 48) > 0 > lift(5 / 16)
    assert features[0] == pytest.approx([lift(5 / 16) / 4, lift(5 / 16), 0.0])  # sections, were, on, a
    pos, neg = lift(31 / 56) + lift(23 / 48), lift(5 / 24)
    assert features[1] == pytest.approx([(pos + neg) / 4, neg, pos])  # plasmid, was, with, NdeI
    none = windows(0)
    assert window_features(none.of("d", CUTS), lifts(none.tokens(), lambda t: (0, 0))).tolist() == [[0.0] * 3] * 2


CUT1, CUT2 = (("cut",), "M:1"), (("cut",), "M:2")


def test_each_name_counts_its_finds_once_with_each_distinct_token_near_them():
    # the first "cut" may be M:1 or M:2 and is neither; the second is M:1, right
    w = windows(1, names=True)
    named = [[(CUT1, False), (CUT2, False)], [(CUT1, True)]]
    counts = count_name_windows(w.of("d", CUTS), w.tokens(), named)
    by_hand = {
        (CUT1, False): ["", "were", "on"],
        (CUT2, False): ["", "were", "on"],
        (CUT1, True): ["", "was", "with"],
    }
    assert counts == Counter({(name_window_term(t, n), hit): 1 for (n, hit), ts in by_hand.items() for t in ts})
    # a word twice near one find counts once for the name (and twice for the set's window terms)
    twice = Windows(MatchingSession({"d": "a cut a"}, {}), CONFIG.normalization, 1, names=True)
    cut = [Candidate("d", (Span(2, 5),), ("cut",), frozenset({"M:1"}))]
    found = twice.of("d", cut)
    assert count_name_windows(found, twice.tokens(), [[(CUT1, True)]])[(name_window_term("a", CUT1), True)] == 1
    assert count_windows(found, twice.tokens(), np.asarray([True]))[(window_term("a"), True)] == 2


def test_a_find_inside_a_right_annotation_is_counted_for_its_name():
    # "cord" of a right "spinal cord" is a row the decision must reject: its name counts it, wrong
    # (the name's own record, count_terms, leaves it out)
    texts = {"a": "the spinal cord here", "b": "a cord"}
    gold = {"a": (Annotation("1", "a", "U:1", (Span(4, 15),)),), "b": (Annotation("2", "b", "U:2", (Span(2, 6),)),)}
    corpus = Corpus(texts, gold)
    prepared = prepare(MatchingSession(texts, {}), corpus, CONFIG, None)
    counts = context_counts(prepared, corpus, str, Windows(prepared.session, CONFIG.normalization, 1, names=True))
    assert counts["a"][(BASE, True)] == 1 and counts["a"][(BASE, False)] == 1
    # "spinal cord" is only ever right: no lifts to read, so its window is not counted at all
    assert not any(t[0][:1] == ("@",) and t[0][2:] == ("spinal", "cord") for t, _ in counts["a"])
    cord = (("cord",), "U:2")
    assert counts["a"][(name_window_term("", cord), False)] == 1
    assert counts["a"][(name_window_term("spinal", cord), False)] == 1
    assert counts["a"][(name_window_term("here", cord), False)] == 1
    assert counts["a"][(cord, False)] == 0  # the name's record: not counted
    assert counts["b"][(name_window_term("a", cord), True)] == 1


def test_a_names_window_features_are_its_own_lifts():
    # "cut" M:1 right 1 of 3: p = (1 + 0.5) / (3 + 1) = 3/8; "was" 1 of 1: (1 + 5 * 3/8) / 6 = 23/48;
    # "were" 0 of 2: (5 * 3/8) / 7 = 15/56; "on" and "with" never near it: they count for nothing
    stats = {
        name_window_term("", CUT1): (1, 3),
        name_window_term("was", CUT1): (1, 1),
        name_window_term("were", CUT1): (0, 2),
    }

    def read(t):
        return stats.get(t, (0, 0))

    def lift(p: float) -> float:
        return math.log(p / (1 - p)) - math.log(3 / 5)

    assert lift(23 / 48) > 0 > lift(15 / 56)
    assert name_window_features(lambda: ["were", "on"], CUT1, read) == pytest.approx(
        (lift(15 / 56), lift(15 / 56), 0.0)
    )

    def both():
        return ["was", "were", "with"]

    assert name_window_features(both, CUT1, read) == pytest.approx(
        ((lift(23 / 48) + lift(15 / 56)) / 2, lift(15 / 56), lift(23 / 48))
    )
    # a name only ever right (or never seen) has nothing to tell apart
    stats[name_window_term("", CUT1)] = (3, 3)

    def unread():
        raise AssertionError("a name without lifts lists no words")

    assert name_window_features(unread, CUT1, read) == (0.0, 0.0, 0.0)
    assert name_window_features(unread, CUT2, read) == (0.0, 0.0, 0.0)


def test_rows_read_the_names_passage_with_the_document_left_out():
    # "cut" is right in a, wrong in c; b's rows are made with b left out: the name's p is 1.5 / 3 = 1/2;
    # near it in a: "it", "was", "here"; in c: "we", "it". b's "cut" has "it" (1 of 2: (1 + 2.5) / 7, lift 0)
    # and "was" (1 of 1: (1 + 2.5) / 6 = 7/12, lift log(7/5))
    texts = {"a": "it was cut here", "b": "it was cut", "c": "we cut it"}
    gold = {"a": (Annotation("1", "a", "M:1", (Span(7, 10),)),), "b": (), "c": ()}
    corpus = Corpus(texts, gold)
    prepared = prepare(MatchingSession(texts, {}), corpus, CONFIG, None)
    name = [FEATURES.index(f) for f in ("name_window_mean", "name_window_against", "name_window_for")]
    w = Windows(prepared.session, CONFIG.normalization, 2, names=True)
    counts = context_counts(prepared, corpus, str, w)
    rows = option_rows(prepared, counts, totals_of(counts), ["b"], frozenset({"b"}), windows=w)
    assert list(rows.classes) == ["M:1"]
    assert list(rows.x[0, name]) == pytest.approx([math.log(7 / 5) / 2, 0.0, math.log(7 / 5)])
    # b's one "cut" is its name's whole discourse
    discourse = [
        FEATURES.index(f"discourse_{f}") for f in ("name_window_mean", "name_window_against", "name_window_for")
    ]
    assert list(rows.x[0, discourse]) == pytest.approx([math.log(7 / 5) / 2, 0.0, math.log(7 / 5)])
    # a window without the names': neither counted nor read
    plain = Windows(prepared.session, CONFIG.normalization, 2)
    counts = context_counts(prepared, corpus, str, plain)
    assert not any(t[1] != "*" and t[0][:1] == ("@",) for d in counts.values() for t, _ in d)
    rows = option_rows(prepared, counts, totals_of(counts), ["b"], frozenset({"b"}), windows=plain)
    assert list(rows.x[0, name]) == [0.0, 0.0, 0.0]


def _unsorted_classes() -> list[str]:
    """Classes whose set this process iterates in an order that is not the sorted one."""
    for n in itertools.count(4):
        classes = [f"M:{i}" for i in range(n)]
        if list(frozenset(classes)) != sorted(classes):
            return classes
    raise AssertionError  # pragma: no cover


def test_rows_take_a_candidates_classes_in_sorted_order_whatever_the_set_order():
    # the training rows' order must not follow string hashing (PYTHONHASHSEED): the fitted model would vary
    classes = _unsorted_classes()
    texts = {"a": "it was cut here", "b": "then cut it"}
    gold = {"a": tuple(Annotation(str(i), "a", c, (Span(7, 10),)) for i, c in enumerate(classes)), "b": ()}
    corpus = Corpus(texts, gold)
    prepared = prepare(MatchingSession(texts, {}), corpus, CONFIG, None)
    w = Windows(prepared.session, CONFIG.normalization, 2)
    counts = context_counts(prepared, corpus, str, w)
    rows = option_rows(prepared, counts, totals_of(counts), ["b"], frozenset({"b"}), windows=w)
    assert list(rows.classes) == sorted(classes)
    # b's "cut" has "then" and "it" around it; a's one find (right) had "it", "was", "here": with b left
    # out, the base rate is (1 + 0.5) / 2 = 3/4, "it" (1 of 1) smoothed (1 + 15/4) / 6 = 19/24, "then" unseen
    lift = math.log(19 / 5) - math.log(3)
    window = [FEATURES.index(f) for f in ("window_mean", "window_against", "window_for")]
    for row in rows.x[:, window]:
        assert list(row) == pytest.approx([lift / 2, 0.0, lift])
    assert len(FEATURES) == rows.x.shape[1]
    # a new document, as annotate --model sees it: windows made afresh (their vocabulary empty until now)
    fresh = option_rows(
        prepared,
        counts,
        totals_of(counts),
        ["b"],
        frozenset({"b"}),
        windows=Windows(prepared.session, CONFIG.normalization, 2),
    )
    assert (fresh.x == rows.x).all()


def test_window_terms_go_through_contexts_tsv(tmp_path):
    meta = model_meta(CONFIG)
    terms = [
        TermRow(BASE, 3, 7),
        TermRow(window_term("ndei"), 2, 2),
        TermRow(((("<", "the", "cut")), "M:1"), 0, 1),
        TermRow(name_window_term("ndei", (("cut", "with"), "M:1")), 1, 2),
    ]
    write_model(tmp_path / "m", meta, [], terms, Decision())
    lines = (tmp_path / "m" / "contexts.tsv").read_text(encoding="utf-8").splitlines()
    assert "@\t*\tndei\t\t2\t2" in lines and "@\t*\t\t\t3\t7" in lines
    assert "@\tM:1\tndei\tcut with\t1\t2" in lines
    assert sorted(read_model(tmp_path / "m", set_key="X").terms) == sorted(terms)


def _train(store: str, out: str, seed: str) -> bytes:
    env = {**os.environ, "PYTHONHASHSEED": seed}
    cmd = [sys.executable, "-m", "craftrdf", "-q", "train", "--store", store, "--set", "MOP_EXT", "--out", out]
    subprocess.run([*cmd, "--no-cache"], check=True, capture_output=True, env=env)
    return (Path(out) / "model.json").read_bytes()


@pytest.mark.corpus
@pytest.mark.long("trains MOP_EXT twice in subprocesses: 1-2.5 min; the ordering itself is checked cheaply above")
def test_a_model_is_byte_identical_whatever_the_hash_seed(corpus_store, tmp_path):
    one = _train(str(corpus_store), str(tmp_path / "one"), "1")
    two = _train(str(corpus_store), str(tmp_path / "two"), "2")
    assert b'"learned"' in one
    assert one == two


def test_a_names_discourse_is_its_passages_mean_over_the_document():
    # one sense per discourse: both "cut"s of b read the mean of their two passages. With b left out, a's
    # "cut" is right and c's wrong: base rate (1 + 0.5) / 3 = 1/2. Near them: "it" 1 of 2 (lift 0), "was"
    # and "here" 1 of 1 ((1 + 2.5) / 6 = 7/12: lift L = log(7/5)), "we" 0 of 1 (5/12: -L).
    # b's first "cut" has it, was | here, we: (L/4, -L, 2L); its second here, we | it: (0, -L, L)
    texts = {"a": "it was cut here", "b": "it was cut here. we cut it", "c": "we cut it"}
    gold = {"a": (Annotation("1", "a", "M:1", (Span(7, 10),)),), "b": (), "c": ()}
    corpus = Corpus(texts, gold)
    prepared = prepare(MatchingSession(texts, {}), corpus, CONFIG, None)
    w = Windows(prepared.session, CONFIG.normalization, 2)
    counts = context_counts(prepared, corpus, str, w)
    rows = option_rows(prepared, counts, totals_of(counts), ["b"], frozenset({"b"}), windows=w)
    assert [c.start for c in rows.candidates] == [7, 20]
    L = math.log(7 / 5)
    own = [FEATURES.index(f) for f in ("window_mean", "window_against", "window_for")]
    assert rows.x[0, own].tolist() == pytest.approx([L / 4, -L, 2 * L])
    assert rows.x[1, own].tolist() == pytest.approx([0.0, -L, L])
    discourse = [
        FEATURES.index(f) for f in ("discourse_window_mean", "discourse_window_against", "discourse_window_for")
    ]
    for row in rows.x[:, discourse]:
        assert row.tolist() == pytest.approx([L / 8, -L, 1.5 * L])
    # the names' passage is not read by this window: nor is its discourse
    names = [FEATURES.index(f) for f in FEATURES if f.startswith("discourse_name_")]
    assert rows.x[:, names].tolist() == [[0.0, 0.0, 0.0]] * 2
    # c alone (a's counts only): its one "cut" is its own discourse
    alone = option_rows(prepared, counts, totals_of(counts), ["c"], frozenset({"b", "c"}), windows=w)
    assert alone.x[0, discourse].tolist() == alone.x[0, own].tolist()
