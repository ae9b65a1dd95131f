"""Schwartz & Hearst (2003) abbreviation definitions: examples worked by hand from the paper's rules."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from craftrdf.matching.training.abbreviations import best_long_form, definitions


def pairs(text: str) -> list[tuple[str, str]]:
    return [(d.short, text[d.long_start : d.long_end]) for d in definitions(text)]


def test_the_papers_kind_of_definition():
    # "HSF" matched right to left: F in "factor", S in "shock", H at the start of "heat"
    text = "binding of the heat shock factor (HSF) to DNA"
    assert pairs(text) == [("HSF", "heat shock factor")]


def test_first_character_must_start_a_word():
    # the E of "ES" must begin a word: "embryonic", not the "e" inside "the" or "stem"
    text = "derived from embryonic stem (ES) cells"
    assert pairs(text) == [("ES", "embryonic stem")]


def test_short_form_offsets_point_into_the_parentheses():
    text = "the retinal pigment epithelium (RPE)."
    (d,) = definitions(text)
    assert text[d.short_start : d.short_end] == "RPE"
    assert text[d.short_start - 1] == "("


def test_no_definition_when_letters_do_not_match():
    assert pairs("a sample of cells (XQZ) was taken") == []
    assert best_long_form("XQZ", "a sample of cells") is None


def test_rejects_bad_short_forms():
    # a single character, a long phrase, and a form starting with punctuation are not short forms
    assert pairs("the alpha chain (a) and") == []
    assert pairs("the alpha chain (see the methods section for details) and") == []
    assert pairs("the alpha chain (-ac) and") == []


def test_long_form_window_is_limited():
    # |SF| = 2 -> at most min(2 + 5, 4) = 4 words before the parenthesis: "Apple" is out of reach
    text = "Apple trees grow in warm places (AP) here"
    assert pairs(text) == []


@given(st.text(alphabet=st.sampled_from("ab cAB()-.,1\n"), max_size=80))
def test_any_text_gives_well_formed_definitions(text):
    for d in definitions(text):
        assert 0 <= d.long_start < d.long_end <= d.short_start - 1 < d.short_end <= len(text)
        assert text[d.short_start : d.short_end] == d.short
        assert len(text[d.long_start : d.long_end]) > len(d.short)
