"""Term counts, decisions and overlap resolution of the trained matcher, on hand-made candidates."""

from __future__ import annotations

import itertools

from hypothesis import given
from hypothesis import strategies as st

from craftrdf.core.model import Span
from craftrdf.matching.training.engine import Candidate, Decision, _better, choose, count_terms, resolve


def cand(s: int, e: int, key: tuple[str, ...], *classes: str) -> Candidate:
    return Candidate("d", (Span(s, e),), key, frozenset(classes))


def test_counts_true_positives_and_finds_per_term():
    # "reduction" found 3 times, annotated MOP:1 once; "cell" found once, right
    cands = [
        cand(0, 9, ("reduct",), "MOP:1"),
        cand(20, 29, ("reduct",), "MOP:1"),
        cand(40, 49, ("reduct",), "MOP:1"),
        cand(60, 64, ("cell",), "CL:1"),
    ]
    gold = [((Span(20, 29),), "MOP:1"), ((Span(60, 64),), "CL:1")]
    counts = count_terms(cands, gold)
    assert counts[((("reduct",), "MOP:1"), True)] == 1
    assert counts[((("reduct",), "MOP:1"), False)] == 2
    assert counts[((("cell",), "CL:1"), True)] == 1


def test_find_inside_a_longer_gold_hit_is_not_counted():
    # "ganglion" inside "retinal ganglion cell", which is gold and found: the inner find is not a miss
    cands = [cand(0, 21, ("retin", "ganglion", "cell"), "CL:1"), cand(8, 16, ("ganglion",), "UBERON:1")]
    counts = count_terms(cands, [((Span(0, 21),), "CL:1")])
    assert sum(v for (t, _), v in counts.items() if t[0] == ("ganglion",)) == 0


def test_decision_estimate_by_hand():
    d = Decision(threshold=0.5, prior=0.2, weight=1.0)
    assert d.estimate(0, 0) == 0.2  # unseen: the prior
    assert d.estimate(1, 1) == 0.6  # (1 + 0.2) / 2
    assert d.estimate(1, 4) == 0.24  # (1 + 0.2) / 5


def test_choose_keeps_the_best_passing_class():
    c = cand(0, 4, ("cell",), "CL:1", "CL:2")
    stats = {(("cell",), "CL:1"): (9, 10), (("cell",), "CL:2"): (1, 10)}
    out = choose([c], Decision(0.5, 0.1), lambda t: stats.get(t, (0, 0)))
    assert [(x[1]) for x in out] == ["CL:1"]
    none = choose([c], Decision(0.95, 0.1), lambda t: stats.get(t, (0, 0)))
    assert none == []


def test_resolve_prefers_the_longest_then_the_surest():
    long = (cand(0, 21, ("a", "b", "c"), "X:1"), "X:1", 0.6)
    inner = (cand(8, 16, ("b",), "X:2"), "X:2", 0.9)
    other = (cand(30, 34, ("d",), "X:3"), "X:3", 0.7)
    rival = (cand(30, 34, ("d",), "X:4"), "X:4", 0.8)
    out = resolve([inner, long, other, rival])
    assert [(x[0].start, x[1]) for x in out] == [(0, "X:1"), (30, "X:4")]


@given(st.lists(st.tuples(st.integers(0, 50), st.integers(1, 10), st.floats(0, 1)), max_size=30))
def test_resolved_choices_never_overlap(items):
    chosen = [(cand(s, s + n, ("k",), "X:1"), "X:1", p) for s, n, p in items]
    out = resolve(chosen)
    for a, b in itertools.pairwise(out):
        assert a[0].end <= b[0].start
    # every dropped choice overlaps a kept one that is at least as long
    for c, _, _ in chosen:
        if not any(c is k[0] for k in out):
            assert any(
                k[0].start < c.end and c.start < k[0].end and k[0].end - k[0].start >= c.end - c.start for k in out
            )


def test_true_positives_use_the_scorers_class_comparison():
    # in SO_EXT the scorer compares SO_EXT:0000704 as SO:0000704: a find of either class is right
    from craftrdf.matching.training.select import comparer

    cands = [cand(0, 4, ("gene",), "SO:0000704", "SO_EXT:0000704")]
    gold = [((Span(0, 4),), "SO_EXT:0000704")]
    counts = count_terms(cands, gold, comparer("SO_EXT"))
    assert counts[((("gene",), "SO:0000704"), True)] == 1
    assert counts[((("gene",), "SO_EXT:0000704"), True)] == 1
    raw = count_terms(cands, gold)  # compared as written: only the gold's own id
    assert raw[((("gene",), "SO:0000704"), False)] == 1


_CLASSES = st.text(alphabet="GO:_0129AB", max_size=6)


@given(
    st.tuples(st.sampled_from([0.25, 0.5, 0.75]), st.integers(0, 3), _CLASSES),
    st.tuples(st.sampled_from([0.25, 0.5, 0.75]), st.integers(0, 3), _CLASSES),
)
def test_a_class_beats_another_in_the_order_of_estimate_true_positives_then_class(a, b):
    # the order as first written, an eager tuple comparison, is the oracle of the lazy one
    def key(x):
        return (x[0], x[1], tuple(-ord(ch) for ch in x[2]))

    assert _better(*a, b) == (key(a) > key(b))
