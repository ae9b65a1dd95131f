"""Token normalization: case folding, stemming or lemmatizing, stop words.

A token is normalized as ConceptMapper's ``TokenNormalizer`` does it: first case
folding (``caseMatch``), then the stemmer on the folded token. The same
:class:`Normalizer` is applied to dictionary entries and to texts, so a text token
and an entry token match when their normalized forms are equal.

- ``CASE_SENSITIVE`` folds nothing; ``CASE_INSENSITIVE`` folds a token made of one
  upper-case letter followed by lower-case letters only ("Brain", not "BRAIN" or
  "mRNA"; ConceptMapper's ``^[A-Z][a-z]+$``, here for any script); ``CASE_IGNORE``
  folds every token; ``CASE_FOLD_DIGITS`` folds every token holding a digit ("E14" ->
  "e14") and no other.
- ``PORTER`` is the original Porter (1980) algorithm as Snowball implements it
  (PyStemmer), as ConceptMapper's Porter stemmer; like it, it only strips lower-case
  suffixes, so "Cells" -> "Cell" and "CELLS" stays.
- ``BIOLEMMATIZER`` stands in for BioLemmatizer (Java) with lemminflect, a
  dictionary-and-rules English lemmatizer from PyPI whose data ship inside the
  package. Without a part-of-speech tagger the lemma is chosen in the order noun,
  verb, adjective, adverb ("mice" -> "mouse", "nuclei" -> "nucleus", "stained" ->
  "stain"); an alphabetic word it does not know goes through its noun rules
  ("fibroblasts" -> "fibroblast"). Left as written: a token of two or more capitals and
  no lower-case letter (an abbreviation), and a form of an auxiliary verb ("am", "is",
  "was", "has", "does"): lemmatized, UBERON's synonym "am" (anterior macula) would
  match every "is", "was" and "were" of a text.
- ``PUBMED`` stop words (PubMed's list of 133, shipped as ``pubmed_stopwords.txt``)
  are dropped from entries and texts; a token is a stop word when its lower-cased
  surface form is on the list. (ConceptMapper tests the normalized form, so that with
  the Porter stemmer "this" -> "thi" and "was" -> "wa" escape the list; craftrdf tests
  the word as written, which is what the parameter means.)

Normalizing depends on the text and these three parameters only, so a sweep does it
once per document and :class:`~craftrdf.matching.matcher.config.TextNormalization`.
"""

from __future__ import annotations

import re
import threading
from array import array
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from importlib import resources

from .config import CaseMatch, Stemmer, StopWords, TextNormalization
from .tokenize import TOKEN, TokenizedText

_DIGIT = re.compile(r"\d")


@cache
def pubmed_stop_words() -> frozenset[str]:
    """PubMed's stop words (lower case), read from the data file shipped with craftrdf.

    >>> len(pubmed_stop_words()), "the" in pubmed_stop_words(), "brain" in pubmed_stop_words()
    (133, True, False)
    """
    text = resources.files(__package__).joinpath("pubmed_stopwords.txt").read_text(encoding="utf-8")
    return frozenset(w.strip().lower() for w in text.splitlines() if w.strip() and not w.startswith("#"))


def _fold_none(token: str) -> str:
    return token


def _fold_init_cap(token: str) -> str:
    if len(token) > 1 and token[0].isupper() and token[1:].isalpha() and token[1:].islower():
        return token.lower()
    return token


def _fold_all(token: str) -> str:
    return token.lower()


def _fold_digits(token: str) -> str:
    return token.lower() if _DIGIT.search(token) else token


_FOLD: dict[CaseMatch, Callable[[str], str]] = {
    CaseMatch.CASE_SENSITIVE: _fold_none,
    CaseMatch.CASE_INSENSITIVE: _fold_init_cap,
    CaseMatch.CASE_IGNORE: _fold_all,
    CaseMatch.CASE_FOLD_DIGITS: _fold_digits,
}

_LEMMA_POS = ("NOUN", "VERB", "ADJ", "ADV", "PROPN")


def _porter() -> Callable[[str], str]:
    import Stemmer as pystemmer  # noqa: N813  # PyStemmer ships no stubs

    stem: Callable[[str], str] = pystemmer.Stemmer("porter").stemWord
    return stem


def _lemmatizer() -> Callable[[str], str]:
    import lemminflect

    lemmas = lemminflect.getAllLemmas
    oov = lemminflect.getAllLemmasOOV

    def lemma(token: str) -> str:
        if len(token) > 1 and token.isupper():
            # an abbreviation ("BE", "AER"), not an inflected word: lemminflect would turn "BE" into "be",
            # which every "is", "was" and "were" also becomes
            return token
        found = lemmas(token)
        if "AUX" in found:
            # a form of an auxiliary ("am", "is", "was", "has", "does"): kept as written, or UBERON's
            # abbreviation "am" (anterior macula) would match every "is", "was" and "were"
            return token
        for pos in _LEMMA_POS:
            if pos in found:
                return str(found[pos][0])
        if len(token) > 3 and token.isalpha():
            guessed = oov(token, upos="NOUN").get("NOUN")
            if guessed:
                return str(guessed[0])
        return token

    return lemma


def _stemmer(kind: Stemmer) -> Callable[[str], str] | None:
    if kind is Stemmer.PORTER:
        return _porter()
    if kind is Stemmer.BIOLEMMATIZER:
        return _lemmatizer()
    return None


class Normalizer:
    """Normalizes tokens and phrases under one :class:`TextNormalization`; results are memoized.

    >>> from craftrdf.matching.matcher.config import TextNormalization
    >>> n = Normalizer(TextNormalization("CASE_INSENSITIVE", "PORTER", "PUBMED"))
    >>> n.normalize("Cells"), n.normalize("CELLS"), n.is_stop("The")
    ('cell', 'CELLS', True)
    >>> n.phrase("wall of the Heart")
    ('wall', 'heart')
    """

    def __init__(self, normalization: TextNormalization) -> None:
        self.normalization = TextNormalization(
            CaseMatch(normalization.caseMatch), Stemmer(normalization.stemmer), StopWords(normalization.stopWords)
        )
        self._fold = _FOLD[self.normalization.caseMatch]
        self._stem = _stemmer(self.normalization.stemmer)
        self.stop_words: frozenset[str] = (
            pubmed_stop_words() if self.normalization.stopWords is StopWords.PUBMED else frozenset()
        )
        # raw token -> normalized form, or "" for a stop word (tokens are never empty); filling it from
        # several threads is harmless (a token's form is always the same)
        self._memo: dict[str, str] = {}
        # PyStemmer's stemmer "has internal state, so must not be called concurrently" (its docstring)
        self._stem_lock = threading.Lock()

    def __reduce__(self) -> tuple[type[Normalizer], tuple[TextNormalization]]:
        return (Normalizer, (self.normalization,))

    def normalize(self, token: str) -> str:
        """The normalized form of one token (stop words are normalized too; see :meth:`is_stop`)."""
        folded = self._fold(token)
        if self._stem is None:
            return folded
        with self._stem_lock:
            return self._stem(folded)

    def is_stop(self, token: str) -> bool:
        """True when ``token`` (as written, lower-cased) is a stop word of this normalization."""
        return token.lower() in self.stop_words

    def lookup(self, token: str) -> str:
        """The normalized form of ``token``, ``""`` for a stop word; memoized."""
        hit = self._memo.get(token)
        if hit is None:
            hit = "" if self.is_stop(token) else self.normalize(token)
            self._memo[token] = hit
        return hit

    def phrase(self, text: str) -> tuple[str, ...]:
        """The normalized tokens of a dictionary name, stop words left out (``()`` if none remain)."""
        out = []
        for m in TOKEN.finditer(text):
            n = self.lookup(m.group())
            if n:
                out.append(n)
        return tuple(out)


@dataclass(frozen=True, slots=True, eq=False)
class NormalizedText:
    """A tokenized text under one normalization: the kept (non-stop) tokens, normalized.

    ``tokens[k]`` is the normalized form of token ``index[k]`` of ``tokenized``;
    ``sentences[i]`` is the range of ``k`` of sentence ``i`` (possibly empty).
    """

    tokenized: TokenizedText
    normalization: TextNormalization
    tokens: tuple[str, ...]
    index: array[int]
    sentences: tuple[tuple[int, int], ...]


def normalize_text(tokenized: TokenizedText, normalizer: Normalizer) -> NormalizedText:
    """Normalize every token of ``tokenized``, dropping stop words.

    >>> from craftrdf.matching.matcher.tokenize import analyze
    >>> from craftrdf.matching.matcher.config import TextNormalization
    >>> n = Normalizer(TextNormalization("CASE_IGNORE", "NONE", "PUBMED"))
    >>> nt = normalize_text(analyze("The Wall of the heart."), n)
    >>> nt.tokens, list(nt.index), nt.sentences
    (('wall', 'heart'), [1, 4], ((0, 2),))
    """
    raw = tokenized.tokens()
    lookup = normalizer.lookup
    out: list[str] = []
    index = array("l")
    bounds: list[tuple[int, int]] = []
    for first, stop in tokenized.sentences:
        begin = len(out)
        for i in range(first, stop):
            n = lookup(raw[i])
            if n:
                out.append(n)
                index.append(i)
        bounds.append((begin, len(out)))
    return NormalizedText(tokenized, normalizer.normalization, tuple(out), index, tuple(bounds))
