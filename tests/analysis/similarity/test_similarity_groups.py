"""Group similarity (Scorer, group_matrix), intrinsic IC, and IC from the annotations of a set in a store."""

from __future__ import annotations

import math
import xml.etree.ElementTree as ET
from collections import Counter

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from craftrdf.analysis.similarity.corpus import annotation_counts, document_classes, ic_index
from craftrdf.analysis.similarity.definition import SimilarityWarning, UnknownTermError, combine_scores, weighted_dag
from craftrdf.analysis.similarity.graph import IndexSpec
from craftrdf.analysis.similarity.groups import COMBINES, Scorer
from craftrdf.analysis.similarity.ic import ICIndex, intrinsic_ic
from craftrdf.analysis.similarity.wang import WangIndex
from craftrdf.core.errors import ConfigError
from tests.helpers.corpus import REPO

KNOWTATOR = REPO / "craftrdf" / "sample" / "craft" / "concept-annotation" / "UBERON" / "UBERON+extensions" / "knowtator"

#   r
#  / \
# a   b        c is_a a and b; d is_a c; e is_a b
#  \ / \
#   c   e
#   |
#   d
TOY = weighted_dag(
    [
        ("a", "is_a", "r"),
        ("b", "is_a", "r"),
        ("c", "is_a", "a"),
        ("c", "is_a", "b"),
        ("d", "is_a", "c"),
        ("e", "is_a", "b"),
    ],
    {"is_a": 0.8},
)


def test_intrinsic_ic_is_secos_formula_by_hand():
    wang = WangIndex(TOY)
    ic = dict(zip(wang.terms, intrinsic_ic(wang)))
    # Seco et al. 2004: 1 - ln(hypo + 1) / ln(N), N = 6 classes; hypo(r) = 5, hypo(b) = 3 (c, d, e),
    # hypo(a) = 2 (c, d), hypo(c) = 1, leaves 0
    assert ic["r"] == pytest.approx(0.0, abs=1e-15)
    assert ic["b"] == pytest.approx(1 - math.log(4) / math.log(6))
    assert ic["a"] == pytest.approx(1 - math.log(3) / math.log(6))
    assert ic["c"] == pytest.approx(1 - math.log(2) / math.log(6))
    assert ic["d"] == ic["e"] == 1.0
    idx = ICIndex.intrinsic(wang)
    # MICA of d and e is b (their only common ancestors are b and r); max IC is 1, so ic is as computed
    assert idx.similarity("d", "e", "resnik") == pytest.approx(ic["b"])
    assert idx.similarity("d", "e", "lin") == pytest.approx(2 * ic["b"] / 2)
    assert idx.similarity("d", "e", "jiang") == pytest.approx(max(0.0, 1 - (2 - 2 * ic["b"])))
    # the root has IC 0: no similarity (GOSemSim's NA)
    assert math.isnan(idx.similarity("r", "d", "resnik"))


def test_corpus_ic_by_hand():
    wang = WangIndex(TOY)
    # 4 annotations: d twice, e once, a once. Propagated: d 2, c 2, a 3, b 3, e 1, r 4
    idx = ICIndex.from_counts(wang, {"d": 2, "e": 1, "a": 1})
    assert idx.information_content("d") == pytest.approx(-math.log(2 / 4))
    assert idx.information_content("b") == pytest.approx(-math.log(3 / 4))
    assert idx.max_ic == pytest.approx(math.log(4))  # e's, p = 1/4
    # Resnik(d, e) = ic(b) / max IC; Rel multiplies Lin by 1 - p(MICA) = 1/4
    res = math.log(4 / 3) / math.log(4)
    assert idx.similarity("d", "e", "resnik") == pytest.approx(res)
    lin = 2 * res / (math.log(2) / math.log(4) + 1)
    assert idx.similarity("d", "e", "lin") == pytest.approx(lin)
    assert idx.similarity("d", "e", "rel") == pytest.approx(lin * (1 - 3 / 4))
    with pytest.raises(UnknownTermError):
        idx.similarity("d", "nope", "lin")


def test_scorer_needs_the_index_of_its_measure():
    wang = WangIndex(TOY)
    with pytest.raises(ConfigError, match="needs an ICIndex"):
        Scorer(wang, "resnik")
    with pytest.raises(ConfigError, match="needs a WangIndex"):
        Scorer(ICIndex.intrinsic(wang), "wang")
    with pytest.raises(ConfigError, match="unknown measure"):
        Scorer(wang, "cosine")  # type: ignore[arg-type]


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.lists(st.sampled_from("rabcde"), max_size=5), min_size=1, max_size=6),
    st.sampled_from(["wang", "resnik", "lin", "jiang", "rel"]),
    st.sampled_from(COMBINES),
)
def test_group_matrix_equals_every_pair_combined(groups, measure, combine):
    wang = WangIndex(TOY)
    index = wang if measure == "wang" else ICIndex.from_counts(wang, {"d": 2, "e": 1, "a": 1, "c": 1})
    scorer = Scorer(index, measure)
    m = scorer.group_matrix(groups, combine=combine)
    for i, a in enumerate(groups):
        for j, b in enumerate(groups):
            # the definition: the term matrix of the two sets (classes that score, once each), combined
            ua = [t for t in dict.fromkeys(a) if measure == "wang" or t != "r"]
            ub = [t for t in dict.fromkeys(b) if measure == "wang" or t != "r"]
            want = combine_scores(scorer.matrix(ua, ub), combine) if ua and ub else math.nan
            assert m[i, j] == pytest.approx(want, abs=1e-12, nan_ok=True)


def test_group_leaves_unknown_terms_out_with_a_warning():
    scorer = Scorer(WangIndex(TOY))
    with pytest.warns(SimilarityWarning, match="1 term"):
        assert scorer.group(["d", "nope"], ["d"]) == 1.0
    with pytest.warns(SimilarityWarning):
        m = scorer.group_matrix([["nope"], ["d"]])
    assert np.isnan(m[0]).all() and m[1, 1] == 1.0


def _raw_counts() -> tuple[Counter[str], dict[str, Counter[str]]]:
    """Classes of the sample's UBERON+extensions annotations, from the Knowtator files themselves."""
    total: Counter[str] = Counter()
    by_doc: dict[str, Counter[str]] = {}
    for path in sorted(KNOWTATOR.glob("*.xml")):
        root = ET.parse(path).getroot()
        mention_class = {m.get("id"): m.find("mentionClass").get("id") for m in root.iter("classMention")}  # type: ignore[union-attr]
        doc = path.name.split(".")[0]
        used = Counter(mention_class[a.find("mention").get("id")] for a in root.iter("annotation"))  # type: ignore[union-attr]
        by_doc[doc] = used
        total.update(used)
    return total, by_doc


def test_counts_and_document_classes_equal_the_knowtator_files(sample_store):
    total, by_doc = _raw_counts()
    assert annotation_counts(sample_store, "UBERON_EXT") == total
    assert {d: Counter(cs) for d, cs in document_classes(sample_store, "UBERON_EXT").items()} == by_doc
    # 11597317 is the sample's train document (articles/ids/craft-ids-train.txt)
    assert annotation_counts(sample_store, "UBERON_EXT", splits=["train"]) == by_doc["11597317"]
    assert document_classes(sample_store, "UBERON_EXT", documents=["nope"]) == {"nope": []}
    with pytest.raises(ConfigError, match="UBERON_EXT"):  # the error lists the sets the store has
        annotation_counts(sample_store, "NOPE")
    with pytest.raises(ConfigError, match="unknown split"):
        annotation_counts(sample_store, "UBERON_EXT", splits=["training"])


def test_ic_index_from_a_set_in_the_store(sample_store):
    total, _ = _raw_counts()
    idx = ic_index(sample_store, IndexSpec(ontology="UBERON+extensions"), set_key="UBERON_EXT")
    # p(brain) by hand: annotations of UBERON:0000955 and of every class whose ancestors include it
    below = [t for t in total if t in idx.index and "UBERON:0000955" in _ancestors(idx, t)]
    p = sum(total[t] for t in below) / sum(n for t, n in total.items() if t in idx.index)
    assert idx.information_content("UBERON:0000955") == pytest.approx(-math.log(p))
    assert ic_index(sample_store, IndexSpec(ontology="UBERON+extensions"), set_key="UBERON_EXT") is idx  # cached
    with pytest.raises(ConfigError, match="needs an annotation set"):
        ic_index(sample_store, IndexSpec(ontology="UBERON+extensions"))


def _ancestors(idx: ICIndex, term: str) -> set[str]:
    indptr, cols = idx.ancestry.ancestry()
    r = idx.index[term]
    return {idx.terms[c] for c in cols[indptr[r] : indptr[r + 1]]}
