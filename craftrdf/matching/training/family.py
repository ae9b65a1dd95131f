"""Word families: a gold name found in another derivational form ("polymerized" for "polymerization").

Two kinds, both decided only when the selection's ``families`` rule is on:

BioLemmatizer joins inflections ("polymerized", "polymerizes") but not derivations
("polymerization", "polymerize"); Porter's stemmer joins both, and also words annotators
kept apart ("hybrid", "hybridization"). When the configuration selected does not stem
with Porter, every gold name is also searched under Porter's normalization: a match
found so but not by the configuration's own search is a *family* candidate, whose key
is the Porter key with each token marked ``~`` (no normalized token holds ``~``, so a
family term's counts never mix with a name's). Family terms are judged as every term
is: by their record on the training documents, under cross-validation, so they are
kept only where the training data shows they pay.

*Prefixed words*: CRAFT's annotators mark a name inside a word built from it with a
prefix, "anti[oxidant]", "tri[methylation]", "re[hybridized]", "sub[cellular]",
"extra[embryonic]" (MOP_EXT: 68 of 386 train+dev annotations; no search over whole
tokens finds them). Every token whose tail (after at least one character; a tail shorter
than :data:`MIN_TAIL` only when it is such a name as written, case-folded, and annotators
wrote it as a word's tail in training: the "b" of "k[b]", kilobase, 243 of SO_EXT's
train+dev annotations, "Atrx[WT]") normalizes to a one-token gold name is a *prefix*
candidate over the tail, with its own term (the name's key marked ``^``) and its own
written form (``anti^oxidant``), so "anti-" words are judged by what "anti-" words were.
No list of prefixes is assumed: which tails pay is each term's record.
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from ...core.model import Annotation, Span
from ..matcher.annotate import MatchingSession
from ..matcher.config import Stemmer, Synonyms, TextNormalization
from ..matcher.normalize import Normalizer
from ..matcher.search import SearchIndex
from .engine import Candidate, Key, Term, find_candidates
from .names import GoldNames, gold_names
from .symbols import symbol_of

MARK = "~"
#: The mark of a prefix term's key (no normalized token holds it either).
PREFIX = "^"
#: The shortest tail of a prefixed word searched for a name ("un[cut]").
MIN_TAIL = 3


def porter(normalization: TextNormalization) -> TextNormalization | None:
    """The normalization under which families are searched; None when it stems with Porter already."""
    if normalization.stemmer == Stemmer.PORTER:
        return None
    return dataclasses.replace(normalization, stemmer=Stemmer.PORTER)


def is_family(key: Key) -> bool:
    """Whether a key is a family key: a Porter family's (its tokens marked ``~``) or a prefix term's (``^``)."""
    return bool(key) and key[0][:1] in (MARK, PREFIX)


def _mark(key: Key) -> Key:
    return tuple(MARK + t for t in key)


def with_families(
    names: GoldNames,
    gold: Mapping[str, Iterable[Annotation]],
    texts: Mapping[str, str],
    session: MatchingSession,
    normalization: TextNormalization,
) -> GoldNames:
    """``names`` with every gold name's family keys (written in the same documents) added.

    A one-token name's prefix term ``(("^" + token,), class)`` is always added; a name's
    Porter family term when the normalization does not stem with Porter.
    """
    documents = dict(names.documents)
    written: dict[Term, Counter[str]] = dict(names.written)
    inside = _written_inside_words(gold, texts, session.normalizer(normalization))
    for (key, cls), docs in names.documents.items():
        # a short name ("a", "e") as a tail would be a candidate at most words' ends: only those written so
        if (
            len(key) == 1
            and (len(key[0]) >= MIN_TAIL or key[0] in inside)
            and symbol_of(key) is None
            and not is_family(key)
        ):
            documents[((PREFIX + key[0],), cls)] = docs
            written[((PREFIX + key[0],), cls)] = names.written.get((key, cls), Counter())
    family = porter(normalization)
    if family is None:
        return GoldNames(documents, written)
    found = gold_names(gold, texts, session.normalizer(family))
    for (key, cls), docs in found.documents.items():
        if symbol_of(key) is not None:
            continue
        term = (_mark(key), cls)
        documents[term] = docs
        written[term] = found.written[(key, cls)]
    return GoldNames(documents, written)


def _written_inside_words(
    gold: Mapping[str, Iterable[Annotation]], texts: Mapping[str, str], normalizer: Normalizer
) -> frozenset[str]:
    """The normalized short names (under :data:`MIN_TAIL` characters) that some gold annotation
    wrote as a word's tail ("k[b]"): only those are searched as tails."""
    out = set()
    for doc, anns in gold.items():
        text = texts[doc]
        for a in anns:
            if len(a.spans) != 1:
                continue
            s, e = a.spans[0].start, a.spans[0].end
            if s > 0 and e - s < MIN_TAIL and text[s - 1].isalnum():
                key = normalizer.phrase(text[s:e])
                if len(key) == 1:
                    out.add(key[0])
    return frozenset(out)


@dataclass(frozen=True, slots=True)
class FamilyIndex:
    """What family candidates are searched with: the Porter family names' index, and the prefix tails."""

    porter: SearchIndex | None
    #: a one-token name's normalized token -> its classes (from the ``^`` terms)
    tails: Mapping[str, frozenset[str]]
    #: the first characters of every tail's token: a token's tail is normalized only when it starts so
    heads: frozenset[str]
    #: the tails shorter than :data:`MIN_TAIL` ("b" of "k[b]"): a token's last characters are
    #: normalized only when they are one of these, case-folded
    short: frozenset[str] = frozenset()


def family_index(names: GoldNames, normalization: TextNormalization, synonyms: Synonyms) -> FamilyIndex | None:
    """The family names' search index and prefix tails (None: there are none)."""
    tails: dict[str, set[str]] = {}
    for key, cls in names.documents:
        if key and key[0].startswith(PREFIX):
            tails.setdefault(key[0][len(PREFIX) :], set()).add(cls)
    family = porter(normalization)
    index = None
    if family is not None:
        entries: dict[Term, frozenset[str]] = {
            (tuple(t[len(MARK) :] for t in key), cls): docs
            for (key, cls), docs in names.documents.items()
            if key and key[0].startswith(MARK)
        }
        index = SearchIndex(GoldNames(entries).dictionary(family, synonyms), False) if entries else None
    if index is None and not tails:
        return None
    heads = frozenset(t[:MIN_TAIL] for t in tails)
    short = frozenset(t for t in tails if len(t) < MIN_TAIL)
    return FamilyIndex(index, {t: frozenset(c) for t, c in tails.items()}, heads, short)


def family_candidates(
    document: str,
    session: MatchingSession,
    index: FamilyIndex | None,
    normalization: TextNormalization,
    found: Sequence[Candidate],
) -> list[Candidate]:
    """The family matches (``index``: :func:`family_index`) in a document that the configuration's search missed.

    Porter family matches, then prefix matches (:func:`prefix_candidates`).
    """
    if index is None:
        return []
    out = []
    family = porter(normalization)
    if index.porter is not None and family is not None:
        seen = {c.spans for c in found}
        out = [
            dataclasses.replace(c, key=_mark(c.key))
            for c in find_candidates(document, session.normalized(document, family), [index.porter])
            if c.spans not in seen
        ]
    if index.tails:
        out += prefix_candidates(document, session, index, normalization)
    return out


def prefix_candidates(
    document: str, session: MatchingSession, index: FamilyIndex, normalization: TextNormalization
) -> list[Candidate]:
    """Every token's tail that normalizes to a one-token name (``index.tails``), as a candidate over the tail.

    The tail's case-folded first :data:`MIN_TAIL` characters must start some name's token
    (normalized tokens keep a word's first letters): only those tails are normalized.
    """
    normalizer = session.normalizer(normalization)
    tokenized = session.normalized(document, normalization).tokenized
    text, starts, ends = tokenized.text, tokenized.starts, tokenized.ends
    heads, tails, short = index.heads, index.tails, index.short
    out = []
    last = len(starts) - 1
    for i, (s, e) in enumerate(zip(starts, ends)):
        if e - s < 2:
            continue
        word = text[s:e]
        low = word.lower()
        # the longest tail that is a name: tails of MIN_TAIL characters or more whose first ones
        # start a name, then the short ones that are a name as written ("k[b]", "Atrx[WT]")
        long_tails = (k for k in range(1, len(word) - MIN_TAIL + 1) if low[k : k + MIN_TAIL] in heads)
        short_tails = (k for k in range(max(1, len(word) - MIN_TAIL + 1), len(word)) if low[k:] in short)
        for k in (*long_tails, *short_tails):
            norm = normalizer.lookup(word[k:])
            classes = tails.get(norm)
            if classes is None:
                continue
            before = text[starts[i - 1] : ends[i - 1]].lower() if i > 0 else ""
            after = text[starts[i + 1] : ends[i + 1]].lower() if i < last else ""
            surface = f"{low[:k]}{PREFIX}{low[k:]}"  # "anti^oxidant": apart from the written form "oxidant"
            out.append(Candidate(document, (Span(s + k, e),), (PREFIX + norm,), classes, surface, before, after))
            break
    return out
