"""The rules on hand-made sentences: abbreviations take (or lose) their long form's class; coordination."""

from __future__ import annotations

import itertools
import re

from hypothesis import given, settings
from hypothesis import strategies as st

from craftrdf.core.model import Span
from craftrdf.matching.matcher.annotate import MatchingSession
from craftrdf.matching.matcher.config import MatcherConfig, TextNormalization
from craftrdf.matching.matcher.normalize import Normalizer, normalize_text
from craftrdf.matching.matcher.tokenize import analyze
from craftrdf.matching.training.decide import with_rules
from craftrdf.matching.training.engine import Candidate, Decision
from craftrdf.matching.training.names import GoldNames
from craftrdf.matching.training.rules import RuleContext, Rules, _whole_words, apply_rules, short_forms
from craftrdf.matching.training.select import FoldView, Prepared

NORM = Normalizer(TextNormalization("CASE_INSENSITIVE", "NONE", "NONE"))


def context(text: str, names: dict[tuple[str, ...], list[str]]) -> RuleContext:
    nt = normalize_text(analyze(text, [(0, len(text))]), NORM)
    stats, decision = (lambda term: (0, 0)), Decision(0.5, 0.6)
    return RuleContext("d", nt, NORM, stats, lambda key: names.get(key, []), decision, short_forms(text, NORM))


def kept(text: str, phrase: str, cls: str, key: tuple[str, ...]) -> tuple[Candidate, str, float]:
    s = text.index(phrase)
    return Candidate("d", (Span(s, s + len(phrase)),), key, frozenset({cls})), cls, 0.9


def test_short_form_takes_the_long_forms_class():
    text = "The lateral ganglionic eminence (LGE) grows. In the LGE, cells divide."
    k = kept(text, "lateral ganglionic eminence", "UBERON:1", ("lateral", "ganglionic", "eminence"))
    out = apply_rules(context(text, {}), [k], Rules(abbreviations=True))
    first, second = text.index("LGE"), text.rindex("LGE")
    assert sorted((s[0].start, c) for s, c in out) == [(4, "UBERON:1"), (first, "UBERON:1"), (second, "UBERON:1")]


def test_short_form_of_a_long_form_outside_the_set_is_dropped():
    # "OM" matched by the dictionary, but defined as otitis media, which the set does not annotate
    text = "Otitis media (OM) is common. OM is painful."
    om = [kept(text, "OM", "UBERON:2", ("OM",))]
    second = text.rindex("OM")
    om.append((Candidate("d", (Span(second, second + 2),), ("OM",), frozenset({"UBERON:2"})), "UBERON:2", 0.9))
    assert apply_rules(context(text, {}), om, Rules(abbreviations=True)) == []
    assert len(apply_rules(context(text, {}), om, Rules())) == 2  # without the rule both stay


def test_short_form_of_a_long_form_kept_only_in_part_is_left_to_the_decision():
    # "amacrine cells" is kept, but the long form is "starburst amacrine cells": a SAC is not an
    # amacrine cell as annotators wrote it, so the short form does not take that class (the
    # "(SACs)" of the definition gets nothing); a match of its own the decision kept stays as it is
    text = "The starburst amacrine cells (SACs) fire. SACs are wide."
    head = kept(text, "amacrine cells", "CL:0000561", ("amacrine", "cells"))
    second = text.rindex("SACs")
    sac = (Candidate("d", (Span(second, second + 4),), ("sacs",), frozenset({"CL:0004232"})), "CL:0004232", 0.9)
    out = apply_rules(context(text, {}), [head, sac], Rules(abbreviations=True))
    assert sorted(out) == sorted([(head[0].spans, "CL:0000561"), ((Span(second, second + 4),), "CL:0004232")])


def test_coordination_annotates_the_elided_head_discontinuously():
    text = "Both left and right ventricles were enlarged."
    k = kept(text, "right ventricles", "UBERON:R", ("right", "ventricles"))
    names = {("left", "ventricles"): ["UBERON:L"]}
    out = apply_rules(context(text, names), [k], Rules(coordination=True))
    left, head = text.index("left"), text.index("ventricles")
    assert ((Span(left, left + 4), Span(head, head + 10)), "UBERON:L") in out
    # without a dictionary name for "left ventricles" nothing is added
    assert len(apply_rules(context(text, {}), [k], Rules(coordination=True))) == 1


def test_coordination_drops_the_bare_modifier_it_completes():
    # the dictionary also names "rod" alone; annotators wrote "rod ... photoreceptors", never "rod" there
    text = "Both rod and cone photoreceptors degenerate; the rod is thin."
    rod, later = text.index("rod"), text.rindex("rod")
    bare = (Candidate("d", (Span(rod, rod + 3),), ("rod",), frozenset({"CL:R"})), "CL:R", 0.9)
    other = (Candidate("d", (Span(later, later + 3),), ("rod",), frozenset({"CL:R"})), "CL:R", 0.9)
    k = kept(text, "cone photoreceptors", "CL:C", ("cone", "photoreceptors"))
    names = {("rod", "photoreceptors"): ["CL:R"]}
    out = apply_rules(context(text, names), [bare, k, other], Rules(coordination=True))
    head = text.index("photoreceptors")
    assert sorted(out) == sorted(
        [
            (k[0].spans, "CL:C"),
            ((Span(rod, rod + 3), Span(head, head + 14)), "CL:R"),
            ((Span(later, later + 3),), "CL:R"),  # a "rod" no head completes stays
        ]
    )
    # without a name for "rod photoreceptors" nothing is added and the bare "rod" stays
    assert len(apply_rules(context(text, {}), [bare, k, other], Rules(coordination=True))) == 3


def test_coordination_follows_a_list():
    text = "CD4, CD8 and B cells"
    k = kept(text, "B cells", "CL:B", ("B", "cells"))
    names = {("CD4", "cells"): ["CL:4"], ("CD8", "cells"): ["CL:8"]}
    out = apply_rules(context(text, names), [k], Rules(coordination=True))
    assert {c for _, c in out} == {"CL:B", "CL:4", "CL:8"}


def test_stacked_modifier_shares_the_head_discontinuously():
    # CRAFT writes "spiral sensory neurons" as "sensory neurons" and "spiral ... neurons"
    text = "The spiral sensory neurons fire."
    k = kept(text, "sensory neurons", "CL:S", ("sensory", "neurons"))
    names = {("spiral", "neurons"): ["CL:0011113"]}
    out = apply_rules(context(text, names), [k], Rules(modifiers=True))
    spiral, head = text.index("spiral"), text.index("neurons")
    assert sorted(out) == sorted(
        [(k[0].spans, "CL:S"), ((Span(spiral, spiral + 6), Span(head, head + 7)), "CL:0011113")]
    )
    # the rule off, or no name "spiral neurons": the kept annotation alone
    assert apply_rules(context(text, names), [k], Rules(coordination=True)) == [(k[0].spans, "CL:S")]
    assert apply_rules(context(text, {}), [k], Rules(modifiers=True)) == [(k[0].spans, "CL:S")]


def test_stacked_modifier_needs_a_space_and_a_head():
    names = {("spiral", "neurons"): ["CL:0011113"], ("spiral", "sensory"): ["CL:X"]}
    # a comma between is a list, not one noun phrase (coordination's case)
    text = "spiral, sensory neurons"
    k = kept(text, "sensory neurons", "CL:S", ("sensory", "neurons"))
    assert apply_rules(context(text, names), [k], Rules(modifiers=True)) == [(k[0].spans, "CL:S")]
    # a one-token annotation has no head to share: "spiral sensory" is not made of "sensory"
    text = "spiral sensory cells"
    k = kept(text, "sensory", "CL:S", ("sensory",))
    assert apply_rules(context(text, names), [k], Rules(modifiers=True)) == [(k[0].spans, "CL:S")]
    # nothing before the annotation
    text = "sensory neurons fire"
    k = kept(text, "sensory neurons", "CL:S", ("sensory", "neurons"))
    assert apply_rules(context(text, names), [k], Rules(modifiers=True)) == [(k[0].spans, "CL:S")]


def test_parenthesis_splits_a_match_and_adds_the_long_form():
    # CRAFT writes "embryonic stem (ES) cells" as "ES ... cells" and "embryonic stem ... cells", both CL:0002322
    text = "Mouse embryonic stem (ES) cells were cultured."
    es = text.index("ES")
    k = kept(text, "ES) cells", "CL:0002322", ("es", "cells"))
    out = apply_rules(context(text, {}), [k], Rules(parentheses=True))
    cells = text.index("cells")
    long = text.index("embryonic")
    assert sorted(out) == sorted(
        [
            ((Span(es, es + 2), Span(cells, cells + 5)), "CL:0002322"),
            ((Span(long, long + len("embryonic stem")), Span(cells, cells + 5)), "CL:0002322"),
        ]
    )
    # without the rule the match stays whole
    assert apply_rules(context(text, {}), [k], Rules()) == [((Span(es, cells + 5),), "CL:0002322")]


def test_parenthesis_parts_take_the_confidence_of_the_annotation_split():
    # what a user's --min-confidence filters: the split parts and the long form are the kept match's
    # (not the class's best elsewhere in the document: the later "ES cells" has 0.95)
    text = "Mouse embryonic stem (ES) cells were cultured. ES cells grew."
    k = kept(text, "ES) cells", "CL:0002322", ("es", "cells"))
    later = text.rindex("ES cells")
    other = Candidate("d", (Span(later, later + 8),), ("es", "cells"), frozenset({"CL:0002322"}))
    session = MatchingSession({"d": text}, {})
    prepared = Prepared(MatcherConfig(findAllMatches="YES"), session, GoldNames({}), {}, {"d": [k[0], other]}, {})
    view = FoldView(prepared, frozenset(), ["d"])
    chosen = [(k[0], k[1], 0.8125), (other, "CL:0002322", 0.95)]
    out = with_rules(view, {"d": chosen}, Rules(parentheses=True), Decision(0.5, 0.5))
    split = sorted((spans, v) for spans, _, v in out["d"] if len(spans) == 2)
    long = text.index("embryonic")
    assert [(spans[0].start, v) for spans, v in split] == [(long, 0.8125), (text.index("ES"), 0.8125)]
    assert ((Span(later, later + 8),), "CL:0002322", 0.95) in out["d"]


def test_parenthesis_split_without_a_definition_and_matches_without_one_unchanged():
    text = "The 3' (untranslated) region and the coding region."
    k = kept(text, "3' (untranslated) region", "SO:1", ("3", "untranslated", "region"))
    plain = kept(text, "coding region", "SO:2", ("coding", "region"))
    out = apply_rules(context(text, {}), [k, plain], Rules(parentheses=True))
    three, unt, region = text.index("3"), text.index("untranslated"), text.index("region")
    assert sorted(out) == sorted(
        [
            ((Span(three, three + 1), Span(unt, unt + 12), Span(region, region + 6)), "SO:1"),
            (plain[0].spans, "SO:2"),
        ]
    )


def test_parenthesis_inside_a_symbol_is_no_gap():
    # a symbol's own text may hold a parenthesis ("(+)"): nothing to split between tokens
    text = "Pax6 (+) mice"
    s = text.index("(+)")
    k = (Candidate("d", (Span(s, s + 3),), ("(+)",), frozenset({"SO:3"})), "SO:3", 0.9)
    assert apply_rules(context(text, {}), [k], Rules(parentheses=True)) == [((Span(s, s + 3),), "SO:3")]


@settings(max_examples=200, deadline=None)
@given(
    text=st.text(alphabet="aB1_- (.α", max_size=40),
    short=st.text(alphabet="aB1-α", min_size=1, max_size=3),
    start=st.integers(0, 40),
)
def test_short_form_occurrences_are_the_regex_whole_words(text, short, start):
    # the rule's definition, as a regex over the text from the definition on
    expected = [
        (start + m.start(), start + m.end())
        for m in re.finditer(r"(?<![\w-])" + re.escape(short) + r"(?![\w-])", text[start:])
    ]
    assert list(_whole_words(text, short, min(start, len(text)))) == expected


@settings(max_examples=300, deadline=None)
@given(words=st.lists(st.sampled_from(["ES", "cells", "(", ")", "(a)", "[x]", "stem", "-"]), min_size=1, max_size=8))
def test_parenthesis_parts_cover_the_match_and_hold_no_parenthesis(words):
    # whatever the text, the parts are ordered, inside the match, start and end with it, and no
    # part has a parenthesis between its tokens while every gap between parts has one
    text = "x " + " ".join(words) + " y"
    tokens = [m.span() for m in re.finditer(r"[^\W_]+", text)]
    if len(tokens) < 3:
        return
    s, e = tokens[1][0], tokens[-2][1]
    k = (Candidate("d", (Span(s, e),), ("k",), frozenset({"C"})), "C", 0.9)
    out = apply_rules(context(text, {}), [k], Rules(parentheses=True))
    parts = out[0][0]
    assert parts[0].start == s and parts[-1].end == e
    for a, b in itertools.pairwise(parts):
        assert a.end < b.start and re.search(r"[()\[\]]", text[a.end : b.start])
    for p in parts:
        inner = [t for t in tokens if p.start <= t[0] and t[1] <= p.end]
        for (_, x), (y, _) in itertools.pairwise(inner):
            assert not re.search(r"[()\[\]]", text[x:y])
