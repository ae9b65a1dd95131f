"""Sentences and tokens with offsets."""

from __future__ import annotations

import itertools

from hypothesis import given, settings
from hypothesis import strategies as st

from craftrdf.matching.matcher.tokenize import analyze, split_sentences, tokenize


def test_tokens_are_letter_and_digit_runs_with_offsets():
    text = "The β-actin (Fig. 2) of E14.5 mice's retinae_x"
    assert [text[s:e] for s, e in tokenize(text)] == [
        "The",
        "β",
        "actin",
        "Fig",
        "2",
        "of",
        "E14",
        "5",
        "mice",
        "s",
        "retinae",
        "x",
    ]


def test_sentences_respect_scientific_abbreviations_and_lines():
    text = (
        "Smith et al. (2001) found that E. coli grows, e.g. in the gut (Fig. 2A). "
        "The cells (n = 5; P < .001) died.\nMethods\nApprox. 5 mg vs. 3 mg were used."
    )
    got = [text[s:e] for s, e in split_sentences(text)]
    assert got == [
        "Smith et al. (2001) found that E. coli grows, e.g. in the gut (Fig. 2A).",
        "The cells (n = 5; P < .001) died.",
        "Methods",
        "Approx. 5 mg vs. 3 mg were used.",
    ]


def test_analyze_assigns_every_token_to_its_sentence():
    a = analyze("Brain stem. Spinal cord\n\nHeart")
    assert a.tokens() == ["Brain", "stem", "Spinal", "cord", "Heart"]
    assert a.sentences == ((0, 2), (2, 4), (4, 5))
    assert [a.text[s:e] for s, e in a.sentence_spans] == ["Brain stem.", "Spinal cord", "Heart"]


def test_empty_and_blank_texts_have_no_sentences():
    assert analyze("").sentences == ()
    assert analyze("  \n\n ").sentences == ()
    assert analyze("...").sentences == ()


@settings(max_examples=60, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("ab Z9.,;()-\n\té'")), max_size=80))
def test_tokenization_invariants(text):
    a = analyze(text)
    toks = list(zip(a.starts, a.ends))
    # tokens: non-empty letter/digit runs, in order, non-overlapping, maximal
    for s, e in toks:
        assert e > s and all(ch.isalnum() and ch != "_" for ch in text[s:e])
        assert s == 0 or not text[s - 1].isalnum()
        assert e == len(text) or not text[e].isalnum()
    assert all(e1 <= s2 for (_, e1), (s2, _) in itertools.pairwise(toks))
    # every token is in exactly one sentence, sentences are consecutive ranges covering all tokens
    covered = [i for first, stop in a.sentences for i in range(first, stop)]
    assert covered == list(range(len(toks)))
    for (first, stop), (cs, ce) in zip(a.sentences, a.sentence_spans):
        assert cs <= a.starts[first] and a.ends[stop - 1] <= ce
