"""Each parameter value on small hand-built dictionaries: the same sentence, annotated differently.

Every expected result below is worked out by hand from the rules in docs/matcher.md.
``found`` gives each annotation as (class, covered pieces): one piece per span, so a
discontinuous annotation shows as several pieces.
"""

from __future__ import annotations

import pytest

from craftrdf.matching.matcher.annotate import Matcher
from craftrdf.matching.matcher.config import MatcherConfig
from craftrdf.matching.matcher.dictionary import DictionaryTerm

#: A plain configuration; each test varies one parameter.
PLAIN = {
    "caseMatch": "CASE_IGNORE",
    "findAllMatches": "NO",
    "orderIndependentLookup": "OFF",
    "searchStrategy": "CONTIGUOUS_MATCH",
    "stemmer": "NONE",
    "stopWords": "NONE",
    "synonyms": "EXACT_ONLY",
}


def found(text, dictionary, **params):
    config = MatcherConfig(**{**PLAIN, **params})
    return {
        (a.class_id, tuple(text[s.start : s.end] for s in a.spans)) for a in Matcher(dictionary, config).annotate(text)
    }


# -- caseMatch ----------------------------------------------------------------------------

CASE_TEXT = "Brain, BRAIN, brain and E14 embryos."
CASE_DICT = {"X:brain": "brain", "X:e14": "e14"}


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("CASE_SENSITIVE", {("X:brain", ("brain",))}),
        ("CASE_INSENSITIVE", {("X:brain", ("Brain",)), ("X:brain", ("brain",))}),
        (
            "CASE_IGNORE",
            {("X:brain", ("Brain",)), ("X:brain", ("BRAIN",)), ("X:brain", ("brain",)), ("X:e14", ("E14",))},
        ),
        ("CASE_FOLD_DIGITS", {("X:brain", ("brain",)), ("X:e14", ("E14",))}),
    ],
)
def test_case_match(value, expected):
    assert found(CASE_TEXT, CASE_DICT, caseMatch=value) == expected


# -- findAllMatches -----------------------------------------------------------------------

NESTED = {"C:rgc": "retinal ganglion cell", "C:gc": "ganglion cell", "C:gcl": "ganglion cell layer", "C:c": "cell"}


def test_find_all_matches_no_takes_the_longest_and_moves_past_it():
    assert found("retinal ganglion cell layer", NESTED, findAllMatches="NO") == {("C:rgc", ("retinal ganglion cell",))}


def test_find_all_matches_yes_takes_every_entry_at_every_position():
    assert found("retinal ganglion cell layer", NESTED, findAllMatches="YES") == {
        ("C:rgc", ("retinal ganglion cell",)),
        ("C:gc", ("ganglion cell",)),
        ("C:gcl", ("ganglion cell layer",)),
        ("C:c", ("cell",)),
    }


# -- orderIndependentLookup ---------------------------------------------------------------

ORDER_TEXT = "The tissue muscle and the muscle tissue."


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("OFF", {("T:m", ("muscle tissue",))}),
        ("ON", {("T:m", ("tissue muscle",)), ("T:m", ("muscle tissue",))}),
    ],
)
def test_order_independent_lookup(value, expected):
    assert found(ORDER_TEXT, {"T:m": "muscle tissue"}, orderIndependentLookup=value) == expected


# -- searchStrategy -----------------------------------------------------------------------

STRATEGY_TEXT = "muscle and bone tissue"
STRATEGY_DICT = {"T:muscle": "muscle tissue", "T:bone": "bone tissue"}


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        # contiguous: only "bone tissue" is a run of tokens
        ("CONTIGUOUS_MATCH", {("T:bone", ("bone tissue",))}),
        # skip: at "muscle", skip "and" and "bone", take "tissue" (two spans); then continue after
        # "tissue", so "bone tissue" is never looked at
        ("SKIP_ANY_MATCH", {("T:muscle", ("muscle", "tissue"))}),
        # overlap allowed: continue at "and", then "bone tissue" matches too, sharing "tissue"
        ("SKIP_ANY_MATCH_ALLOW_OVERLAP", {("T:muscle", ("muscle", "tissue")), ("T:bone", ("bone tissue",))}),
    ],
)
def test_search_strategy(value, expected):
    assert found(STRATEGY_TEXT, STRATEGY_DICT, searchStrategy=value, orderIndependentLookup="ON") == expected


def test_skip_match_yields_one_span_per_run_of_tokens():
    text = "granule cell layer of the adult dentate gyrus"
    got = found(
        text,
        {"U:dg": "dentate gyrus granule cell layer"},
        searchStrategy="SKIP_ANY_MATCH_ALLOW_OVERLAP",
        orderIndependentLookup="ON",
    )
    assert got == {("U:dg", ("granule cell layer", "dentate gyrus"))}


def test_skip_any_match_ignores_orderindependentlookup_off_as_conceptmapper_does():
    text = "layer of the cortex; cortex layer"
    on = found(text, {"U:cl": "cortex layer"}, searchStrategy="SKIP_ANY_MATCH", orderIndependentLookup="ON")
    off = found(text, {"U:cl": "cortex layer"}, searchStrategy="SKIP_ANY_MATCH", orderIndependentLookup="OFF")
    assert on == off == {("U:cl", ("layer", "cortex")), ("U:cl", ("cortex layer",))}


def test_allow_overlap_with_order_off_takes_the_entry_in_order():
    # "layer ... cortex" is out of order; "cortex" (3) then "layer" (5, skipping "cortex" at 4) is in order,
    # and so is "cortex layer" (4, 5), which overlaps it
    text = "layer of the cortex; cortex layer"
    assert found(
        text, {"U:cl": "cortex layer"}, searchStrategy="SKIP_ANY_MATCH_ALLOW_OVERLAP", orderIndependentLookup="OFF"
    ) == {("U:cl", ("cortex", "layer")), ("U:cl", ("cortex layer",))}


def test_skip_matches_stay_inside_the_sentence():
    text = "The muscle is here. The tissue is there."
    assert found(text, {"T:m": "muscle tissue"}, searchStrategy="SKIP_ANY_MATCH") == set()


def test_skip_match_needs_repeated_tokens_as_often_as_the_entry_has_them():
    d = {"X:aa": "alpha alpha"}
    assert found("alpha beta", d, searchStrategy="SKIP_ANY_MATCH") == set()
    assert found("alpha beta alpha", d, searchStrategy="SKIP_ANY_MATCH") == {("X:aa", ("alpha", "alpha"))}


# -- stemmer ------------------------------------------------------------------------------

STEM_TEXT = "neuronal nuclei"
STEM_DICT = {"N:neuron": "neuron", "N:nucleus": "nucleus"}


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("NONE", set()),
        ("PORTER", {("N:neuron", ("neuronal",))}),  # neuronal -> neuron; nuclei/nucleus -> nuclei/nucleu
        ("BIOLEMMATIZER", {("N:nucleus", ("nuclei",))}),  # nuclei -> nucleus; neuronal is an adjective lemma
    ],
)
def test_stemmer(value, expected):
    assert found(STEM_TEXT, STEM_DICT, stemmer=value) == expected


# -- stopWords ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("NONE", set()),  # "wall of the heart" is not "wall of heart"
        ("PUBMED", {("U:wh", ("wall of the heart",))}),  # both are "wall heart"; one span over the stop words
    ],
)
def test_stop_words(value, expected):
    assert found("the wall of the heart", {"U:wh": "wall of heart"}, stopWords=value) == expected


# -- synonyms -----------------------------------------------------------------------------

SYNONYM_TERMS = [
    DictionaryTerm("S:1", "stomach", "LABEL"),
    DictionaryTerm("S:1", "ventriculus", "EXACT"),
    DictionaryTerm("S:1", "gaster", "RELATED"),
    DictionaryTerm("S:2", "belly", "BROAD"),
    DictionaryTerm("S:3", "stomach lining", "NARROW"),
]
SYNONYM_TEXT = "stomach, ventriculus, gaster, belly and stomach lining"


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("EXACT_ONLY", {("S:1", ("stomach",)), ("S:1", ("ventriculus",))}),
        (
            "ALL",
            {
                ("S:1", ("stomach",)),
                ("S:1", ("ventriculus",)),
                ("S:1", ("gaster",)),
                ("S:2", ("belly",)),
                ("S:3", ("stomach lining",)),
            },
        ),
    ],
)
def test_synonyms(value, expected):
    assert found(SYNONYM_TEXT, SYNONYM_TERMS, synonyms=value) == expected


# -- several classes, overlaps ------------------------------------------------------------


def test_every_class_of_a_matched_name_is_emitted():
    d = {"UBERON:0000965": "lens", "UBERON_EXT:lens": ["lens", "crystalline lens"]}
    assert found("the lens", d) == {("UBERON:0000965", ("lens",)), ("UBERON_EXT:lens", ("lens",))}


def test_names_of_two_classes_that_normalize_alike_are_one_entry_with_both():
    d = {"A:1": "Lens Fibers", "A:2": "lens fiber"}
    assert found("lens fiber", d, stemmer="PORTER") == {("A:1", ("lens fiber",)), ("A:2", ("lens fiber",))}


def test_contiguous_longest_match_does_not_overlap_but_find_all_does():
    d = {"X:ab": "bone marrow", "X:bc": "marrow cell"}
    assert found("bone marrow cell", d) == {("X:ab", ("bone marrow",))}
    assert found("bone marrow cell", d, findAllMatches="YES") == {
        ("X:ab", ("bone marrow",)),
        ("X:bc", ("marrow cell",)),
    }


def test_punctuation_separates_tokens_but_does_not_block_a_match():
    assert found("bone-marrow (bone marrow)", {"X:bm": "bone marrow"}) == {
        ("X:bm", ("bone-marrow",)),
        ("X:bm", ("bone marrow",)),
    }


def test_annotations_carry_offsets_ids_text_and_annotator():
    m = Matcher({"U:1": "dentate gyrus"}, MatcherConfig(**PLAIN))
    [a] = m.annotate("In the Dentate Gyrus.", document="d7")
    assert (a.id, a.document, a.class_id, a.spans[0].start, a.spans[0].end, a.text, a.annotator) == (
        "M1",
        "d7",
        "U:1",
        7,
        20,
        "Dentate Gyrus",
        "craftrdf matcher",
    )
