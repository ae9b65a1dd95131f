"""Invariants of the search over random small dictionaries, sentences and configurations."""

from __future__ import annotations

import dataclasses
import itertools
from collections import Counter

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from craftrdf.matching.matcher.annotate import Matcher
from craftrdf.matching.matcher.config import MatcherConfig, canonical, grid
from craftrdf.matching.matcher.normalize import Normalizer

WORDS = ["bone", "Bone", "bones", "marrow", "cell", "Cells", "of", "the", "E14", "e14", "tissue", "muscle", "x"]
CONFIGS = grid()

names = st.lists(st.sampled_from(WORDS), min_size=1, max_size=3).map(" ".join)
dictionaries = st.dictionaries(
    st.sampled_from([f"C:{i}" for i in range(5)]), st.lists(names, min_size=1, max_size=2), min_size=1, max_size=5
)
sentences = st.lists(st.sampled_from([*WORDS, ",", "-"]), min_size=0, max_size=12).map(" ".join)
texts = st.lists(sentences, min_size=1, max_size=3).map(lambda ss: ". ".join(ss) + ".")
configs = st.sampled_from(CONFIGS)
common = settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def annotate(text, dictionary, config):
    return Matcher(dictionary, config).annotate(text)


def entry_keys(dictionary, config):
    """class -> the normalized token tuples of its names, computed from the names directly."""
    n = Normalizer(config.normalization)
    return {cls: {n.phrase(name) for name in names} - {()} for cls, names in dictionary.items()}


@common
@given(texts, dictionaries, configs)
def test_every_annotation_normalizes_to_an_entry_of_its_class(text, dictionary, config):
    keys = entry_keys(dictionary, config)
    n = Normalizer(config.normalization)
    order_independent = canonical(config).orderIndependentLookup.value == "ON"
    for a in annotate(text, dictionary, config):
        tokens = tuple(t for s in a.spans for t in n.phrase(text[s.start : s.end]))
        if order_independent:
            assert Counter(tokens) in [Counter(k) for k in keys[a.class_id]]
        else:
            assert tokens in keys[a.class_id]


@common
@given(texts, dictionaries, configs)
def test_spans_are_ordered_disjoint_token_runs_in_one_sentence(text, dictionary, config):
    from craftrdf.matching.matcher.tokenize import split_sentences

    sentences = split_sentences(text)
    for a in annotate(text, dictionary, config):
        assert all(s.end > s.start for s in a.spans)
        assert all(x.end < y.start for x, y in zip(a.spans, a.spans[1:]))
        assert any(ss <= a.spans[0].start and a.spans[-1].end <= se for ss, se in sentences)
        if config.searchStrategy.value == "CONTIGUOUS_MATCH":
            assert len(a.spans) == 1


@common
@given(texts, dictionaries, configs)
def test_longest_match_searches_never_overlap(text, dictionary, config):
    if config.findAllMatches.value == "YES" or config.searchStrategy.value == "SKIP_ANY_MATCH_ALLOW_OVERLAP":
        return
    extents = sorted({(a.spans[0].start, a.spans[-1].end) for a in annotate(text, dictionary, config)})
    assert all(e1 <= s2 for (_, e1), (s2, _) in itertools.pairwise(extents))


def _found(text, dictionary, config):
    return {(a.class_id, a.spans) for a in annotate(text, dictionary, config)}


@common
@given(texts, dictionaries, configs)
def test_find_all_matches_yes_finds_everything_no_finds(text, dictionary, config):
    no = dataclasses.replace(config, findAllMatches="NO")
    yes = dataclasses.replace(config, findAllMatches="YES")
    assert _found(text, dictionary, no) <= _found(text, dictionary, yes)


@common
@given(texts, dictionaries, configs)
def test_allowing_overlap_only_adds_matches(text, dictionary, config):
    skip = dataclasses.replace(config, searchStrategy="SKIP_ANY_MATCH", orderIndependentLookup="ON")
    overlap = dataclasses.replace(skip, searchStrategy="SKIP_ANY_MATCH_ALLOW_OVERLAP")
    assert _found(text, dictionary, skip) <= _found(text, dictionary, overlap)


@common
@given(texts, dictionaries, configs, st.sampled_from(CONFIGS))
def test_configurations_with_equal_keys_give_identical_annotations(text, dictionary, config, other):
    assert annotate(text, dictionary, config) == annotate(text, dictionary, canonical(config))
    # another configuration's search parameters with this one's dictionary parameters
    twin = dataclasses.replace(
        config,
        findAllMatches=other.findAllMatches,
        orderIndependentLookup=other.orderIndependentLookup,
        searchStrategy=other.searchStrategy,
    )
    if twin.search_key == config.search_key:
        assert annotate(text, dictionary, config) == annotate(text, dictionary, twin)


@common
@given(texts, dictionaries)
def test_with_find_all_both_skip_strategies_search_alike(text, dictionary):
    skip = MatcherConfig(findAllMatches="YES", searchStrategy="SKIP_ANY_MATCH", orderIndependentLookup="ON")
    overlap = dataclasses.replace(skip, searchStrategy="SKIP_ANY_MATCH_ALLOW_OVERLAP")
    assert annotate(text, dictionary, skip) == annotate(text, dictionary, overlap)


@common
@given(texts, dictionaries, configs, st.randoms())
def test_results_do_not_depend_on_dictionary_order(text, dictionary, config, rnd):
    items = list(dictionary.items())
    rnd.shuffle(items)
    assert annotate(text, dictionary, config) == annotate(text, dict(items), config)


@common
@given(texts, dictionaries)
def test_every_class_sharing_a_matched_name_is_emitted(text, dictionary):
    config = MatcherConfig(caseMatch="CASE_IGNORE", stemmer="NONE")
    n = Normalizer(config.normalization)
    by_key = {}
    for cls, ns in dictionary.items():
        for name in ns:
            by_key.setdefault(n.phrase(name), set()).add(cls)
    found = {}
    for a in annotate(text, dictionary, config):
        found.setdefault(a.spans, set()).add(a.class_id)
    for spans, classes in found.items():
        key = tuple(t for s in spans for t in n.phrase(text[s.start : s.end]))
        assert by_key[key] <= classes
