"""The seven parameters, the 576-configuration grid and ConceptMapper's forcing."""

from __future__ import annotations

import pytest

from craftrdf.core.errors import ConfigError
from craftrdf.matching.matcher.config import (
    PARAMETERS,
    MatcherConfig,
    OrderIndependentLookup,
    SearchStrategy,
    canonical,
    distinct_grid,
    grid,
)


def test_parameter_names_and_values_are_conceptmappers():
    assert {name: [v.value for v in enum] for name, enum in PARAMETERS.items()} == {
        "caseMatch": ["CASE_SENSITIVE", "CASE_INSENSITIVE", "CASE_IGNORE", "CASE_FOLD_DIGITS"],
        "findAllMatches": ["YES", "NO"],
        "orderIndependentLookup": ["ON", "OFF"],
        "searchStrategy": ["CONTIGUOUS_MATCH", "SKIP_ANY_MATCH", "SKIP_ANY_MATCH_ALLOW_OVERLAP"],
        "stemmer": ["NONE", "PORTER", "BIOLEMMATIZER"],
        "stopWords": ["NONE", "PUBMED"],
        "synonyms": ["EXACT_ONLY", "ALL"],
    }


def test_grid_has_576_distinct_configurations():
    g = grid()
    assert len(g) == 4 * 2 * 2 * 3 * 3 * 2 * 2 == 576
    assert len(set(g)) == 576


def test_forcing_under_skip_any_match_makes_96_duplicates():
    groups = distinct_grid()
    assert len(groups) == 480
    duplicated = [members for members in groups.values() if len(members) > 1]
    # every SKIP_ANY_MATCH configuration with ON stands for itself and its OFF twin
    assert len(duplicated) == 96
    for members in duplicated:
        assert {m.orderIndependentLookup for m in members} == {OrderIndependentLookup.ON, OrderIndependentLookup.OFF}
        assert {m.searchStrategy for m in members} == {SearchStrategy.SKIP_ANY_MATCH}


def test_canonical_changes_only_skip_any_match_off():
    off = MatcherConfig(searchStrategy="SKIP_ANY_MATCH", orderIndependentLookup="OFF")
    assert canonical(off) == MatcherConfig(searchStrategy="SKIP_ANY_MATCH", orderIndependentLookup="ON")
    overlap_off = MatcherConfig(searchStrategy="SKIP_ANY_MATCH_ALLOW_OVERLAP", orderIndependentLookup="OFF")
    assert canonical(overlap_off) == overlap_off  # the guide says otherwise; the code does not force it
    assert canonical(MatcherConfig(orderIndependentLookup="OFF")) == MatcherConfig(orderIndependentLookup="OFF")


def test_defaults_are_the_papers_best_f1_configuration():
    assert MatcherConfig().params() == {
        "caseMatch": "CASE_INSENSITIVE",
        "findAllMatches": "NO",
        "orderIndependentLookup": "OFF",
        "searchStrategy": "CONTIGUOUS_MATCH",
        "stemmer": "PORTER",
        "stopWords": "NONE",
        "synonyms": "EXACT_ONLY",
    }


def test_from_params_and_params_round_trip_for_every_configuration():
    for c in grid():
        assert MatcherConfig.from_params(c.params()) == c


def test_from_params_accepts_any_case_of_names_and_values():
    c = MatcherConfig.from_params({"casematch": "case_ignore", "STEMMER": "none"})
    assert (c.caseMatch.value, c.stemmer.value) == ("CASE_IGNORE", "NONE")


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"caseMatch": "CASE_WHATEVER"}, "CASE_SENSITIVE | CASE_INSENSITIVE"),
        ({"nope": "YES"}, "caseMatch, findAllMatches"),
        ({"stemmer": "SNOWBALL"}, "NONE | PORTER | BIOLEMMATIZER"),
    ],
)
def test_bad_parameters_are_config_errors_listing_the_allowed(params, message):
    with pytest.raises(ConfigError, match=message):
        MatcherConfig.from_params(params)


def test_keys_split_the_configuration_by_the_work_it_causes():
    a = MatcherConfig(findAllMatches="YES", searchStrategy="SKIP_ANY_MATCH")
    b = MatcherConfig(findAllMatches="NO", searchStrategy="CONTIGUOUS_MATCH")
    assert a.normalization == b.normalization and a.dictionary_key == b.dictionary_key
    assert a.search_key != b.search_key
    assert MatcherConfig(synonyms="ALL").dictionary_key != MatcherConfig().dictionary_key
    assert MatcherConfig(synonyms="ALL").normalization == MatcherConfig().normalization
    # the search key applies the forcing
    assert MatcherConfig(searchStrategy="SKIP_ANY_MATCH").search_key.orderIndependentLookup.value == "ON"
    assert len({c.normalization for c in grid()}) == 24
    assert len({c.dictionary_key for c in grid()}) == 48
    assert len({c.search_key for c in grid()}) == 9
    assert len({(c.dictionary_key, c.search_key) for c in grid()}) == 432
