"""Case folding, stemmers and stop words, one value at a time (expected values by hand)."""

from __future__ import annotations

import pytest

from craftrdf.matching.matcher.config import TextNormalization
from craftrdf.matching.matcher.normalize import Normalizer, normalize_text, pubmed_stop_words
from craftrdf.matching.matcher.tokenize import analyze


def norm(case: str = "CASE_SENSITIVE", stemmer: str = "NONE", stop: str = "NONE") -> Normalizer:
    return Normalizer(TextNormalization(case, stemmer, stop))


@pytest.mark.parametrize(
    ("case", "expected"),
    [
        # tokens:           Brain    BRAIN    brain    mRNA    E14     Ab1
        ("CASE_SENSITIVE", ["Brain", "BRAIN", "brain", "mRNA", "E14", "Ab1"]),
        ("CASE_INSENSITIVE", ["brain", "BRAIN", "brain", "mRNA", "E14", "Ab1"]),  # ^[A-Z][a-z]+$ only
        ("CASE_IGNORE", ["brain", "brain", "brain", "mrna", "e14", "ab1"]),
        ("CASE_FOLD_DIGITS", ["Brain", "BRAIN", "brain", "mRNA", "e14", "ab1"]),  # tokens with a digit only
    ],
)
def test_case_folding(case, expected):
    n = norm(case)
    assert [n.normalize(t) for t in ["Brain", "BRAIN", "brain", "mRNA", "E14", "Ab1"]] == expected


def test_porter_follows_the_1980_algorithm():
    n = norm(stemmer="PORTER")
    # step 1a plurals, step 4 -al (m > 1), step 1a leaves -i alone
    assert n.normalize("cells") == "cell"
    assert n.normalize("neuronal") == "neuron"
    assert n.normalize("nucleus") == "nucleu"
    assert n.normalize("nuclei") == "nuclei"
    # it only strips lower-case suffixes: upper case survives unless folded first
    assert n.normalize("CELLS") == "CELLS"
    assert norm("CASE_IGNORE", "PORTER").normalize("CELLS") == "cell"


def test_lemmatizer_gives_dictionary_lemmas():
    n = norm(stemmer="BIOLEMMATIZER")
    assert n.normalize("mice") == "mouse"  # irregular plural
    assert n.normalize("nuclei") == "nucleus"  # Latin plural
    assert n.normalize("ganglia") == "ganglion"
    assert n.normalize("vertebrae") == "vertebra"
    assert n.normalize("neuronal") == "neuronal"  # an adjective is its own lemma
    assert n.normalize("stained") == "stain"  # no noun reading: the verb's lemma
    assert n.normalize("E14") == "E14"  # not a word: unchanged


def test_lemmatizer_leaves_abbreviations_and_auxiliaries_alone():
    """Regression: UBERON's synonym "am" became "be", the lemma of every "is", "was" and "were" in CRAFT."""
    n = norm("CASE_INSENSITIVE", "BIOLEMMATIZER", "NONE")
    assert n.normalize("am") == "am" and n.normalize("was") == "was" and n.normalize("has") == "has"
    assert n.normalize("BE") == "BE" and n.normalize("AER") == "AER"
    assert n.normalize("Mice") == "mouse"  # an initial capital is folded first, then lemmatized


def test_pubmed_stop_words_are_the_133_and_drop_from_texts_and_names():
    words = pubmed_stop_words()
    assert len(words) == 133
    assert {"the", "of", "and", "significantly", "pmid", "kg"} <= words
    assert not {"brain", "not", "cell"} & words
    n = norm("CASE_IGNORE", "NONE", "PUBMED")
    assert n.phrase("Wall of the Heart") == ("wall", "heart")
    assert n.phrase("the of") == ()
    assert norm().phrase("Wall of the Heart") == ("Wall", "of", "the", "Heart")


def test_stop_words_are_tested_as_written_not_stemmed():
    # with PORTER, "this" stems to "thi" and "was" to "wa"; they are still stop words
    n = norm("CASE_SENSITIVE", "PORTER", "PUBMED")
    assert n.phrase("This was The brain") == ("brain",)


def test_normalize_text_keeps_token_indices_and_sentence_ranges():
    a = analyze("The wall of the heart. Heart walls.")
    nt = normalize_text(a, norm("CASE_IGNORE", "PORTER", "PUBMED"))
    assert nt.tokens == ("wall", "heart", "heart", "wall")
    assert list(nt.index) == [1, 4, 5, 6]
    assert nt.sentences == ((0, 2), (2, 4))


def test_normalizer_pickles_by_its_parameters():
    import pickle

    n = norm("CASE_IGNORE", "BIOLEMMATIZER", "PUBMED")
    m = pickle.loads(pickle.dumps(n))
    assert m.normalization == n.normalization and m.normalize("Mice") == "mouse"
