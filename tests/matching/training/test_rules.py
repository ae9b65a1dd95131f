"""The rules on hand-made sentences: abbreviations take (or lose) their long form's class; coordination."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from craftrdf.core.model import Span
from craftrdf.matching.matcher.config import TextNormalization
from craftrdf.matching.matcher.normalize import Normalizer, normalize_text
from craftrdf.matching.matcher.tokenize import analyze
from craftrdf.matching.training.engine import Candidate, Decision
from craftrdf.matching.training.rules import RuleContext, Rules, _whole_words, apply_rules, short_forms

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


def test_coordination_annotates_the_elided_head_discontinuously():
    text = "Both left and right ventricles were enlarged."
    k = kept(text, "right ventricles", "UBERON:R", ("right", "ventricles"))
    names = {("left", "ventricles"): ["UBERON:L"]}
    out = apply_rules(context(text, names), [k], Rules(coordination=True))
    left, head = text.index("left"), text.index("ventricles")
    assert ((Span(left, left + 4), Span(head, head + 10)), "UBERON:L") in out
    # without a dictionary name for "left ventricles" nothing is added
    assert len(apply_rules(context(text, {}), [k], Rules(coordination=True))) == 1


def test_coordination_follows_a_list():
    text = "CD4, CD8 and B cells"
    k = kept(text, "B cells", "CL:B", ("B", "cells"))
    names = {("CD4", "cells"): ["CL:4"], ("CD8", "cells"): ["CL:8"]}
    out = apply_rules(context(text, names), [k], Rules(coordination=True))
    assert {c for _, c in out} == {"CL:B", "CL:4", "CL:8"}


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
