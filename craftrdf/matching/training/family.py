"""Word families: a gold name found in another derivational form ("polymerized" for "polymerization").

BioLemmatizer joins inflections ("polymerized", "polymerizes") but not derivations
("polymerization", "polymerize"); Porter's stemmer joins both, and also words annotators
kept apart ("hybrid", "hybridization"). When the configuration selected does not stem
with Porter, every gold name is also searched under Porter's normalization: a match
found so but not by the configuration's own search is a *family* candidate, whose key
is the Porter key with each token marked ``~`` (no normalized token holds ``~``, so a
family term's counts never mix with a name's). Family terms are judged as every term
is: by their record on the training documents, under cross-validation, so they are
kept only where the training data shows they pay.
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence

from ...core.model import Annotation
from ..matcher.annotate import MatchingSession
from ..matcher.config import Stemmer, Synonyms, TextNormalization
from ..matcher.search import SearchIndex
from .engine import Candidate, Key, Term, find_candidates
from .names import GoldNames, gold_names
from .symbols import symbol_of

MARK = "~"


def porter(normalization: TextNormalization) -> TextNormalization | None:
    """The normalization under which families are searched; None when it stems with Porter already."""
    if normalization.stemmer == Stemmer.PORTER:
        return None
    return dataclasses.replace(normalization, stemmer=Stemmer.PORTER)


def is_family(key: Key) -> bool:
    """Whether a key is a family key (its tokens marked)."""
    return bool(key) and key[0].startswith(MARK)


def _mark(key: Key) -> Key:
    return tuple(MARK + t for t in key)


def with_families(
    names: GoldNames,
    gold: Mapping[str, Iterable[Annotation]],
    texts: Mapping[str, str],
    session: MatchingSession,
    normalization: TextNormalization,
) -> GoldNames:
    """``names`` with every gold name's family key (written in the same documents) added."""
    family = porter(normalization)
    if family is None:
        return names
    found = gold_names(gold, texts, session.normalizer(family))
    documents = dict(names.documents)
    written: dict[Term, Counter[str]] = dict(names.written)
    for (key, cls), docs in found.documents.items():
        if symbol_of(key) is not None:
            continue
        term = (_mark(key), cls)
        documents[term] = docs
        written[term] = found.written[(key, cls)]
    return GoldNames(documents, written)


def family_index(names: GoldNames, normalization: TextNormalization, synonyms: Synonyms) -> SearchIndex | None:
    """The search index of the family names (None: no family, or the normalization is Porter's)."""
    family = porter(normalization)
    if family is None:
        return None
    entries: dict[Term, frozenset[str]] = {
        (tuple(t[len(MARK) :] for t in key), cls): docs
        for (key, cls), docs in names.documents.items()
        if is_family(key)
    }
    return SearchIndex(GoldNames(entries).dictionary(family, synonyms), False) if entries else None


def family_candidates(
    document: str,
    session: MatchingSession,
    index: SearchIndex | None,
    normalization: TextNormalization,
    found: Sequence[Candidate],
) -> list[Candidate]:
    """The family matches (``index``: :func:`family_index`) in a document that the configuration's search missed."""
    family = porter(normalization)
    if index is None or family is None:
        return []
    seen = {c.spans for c in found}
    return [
        dataclasses.replace(c, key=_mark(c.key))
        for c in find_candidates(document, session.normalized(document, family), [index])
        if c.spans not in seen
    ]
