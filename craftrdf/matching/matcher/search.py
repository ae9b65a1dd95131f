"""The search: dictionary entries found in the normalized tokens of each sentence.

This follows ConceptMapper's ``ConceptMapper.processTokenList`` (contiguous) and
``processTokenListSkipAny`` / ``findMatchesSkipAnyToken`` / ``processMatch`` (skip),
position by position through the sentence's tokens (stop words already removed):

``CONTIGUOUS_MATCH``
    At each position, the longest run of contiguous tokens starting there that is an
    entry (with ``orderIndependentLookup=ON``: whose tokens, in any order, are the
    entry's tokens). ``findAllMatches=NO``: emit it and continue after it, so matches
    never overlap. ``YES``: emit every entry starting there, of every length, and
    continue at the next position.
``SKIP_ANY_MATCH``
    At each position, the entries containing that position's token whose tokens all
    occur in the rest of the sentence are tried, longest (most tokens) first; a try
    walks forward from the position taking the first occurrence of each token the
    entry still needs, skipping the others. ``NO``: emit the first entry that
    succeeds and continue after its last token (so matches do not overlap, though a
    skipped token inside one is not looked at again). ``YES``: emit every entry that
    succeeds and continue at the next position. Order-independent: ConceptMapper
    forces it on (see :func:`~craftrdf.matching.matcher.config.canonical`).
``SKIP_ANY_MATCH_ALLOW_OVERLAP``
    The same, but after a match the search continues at the next position, so
    matches may overlap. With ``orderIndependentLookup=OFF`` the match must start with
    the entry's first token and take the rest in the entry's order (a subsequence).

Where ConceptMapper's result depends on its dictionary's internal order, craftrdf
decides as follows: among entries of the same length that succeed at one position
(``NO``), the one whose last token comes first wins, then the smaller entry;
ConceptMapper's skip search checks ``containsAll`` on token *sets* and may then fail
the walk and still skip ahead; craftrdf counts repeated tokens and moves on to the
next entry. An entry shared by several classes (names that normalize alike) emits
every class.

Everything here works on tuples of normalized strings; nothing knows of the store.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Container, Iterable
from dataclasses import dataclass, field
from typing import Any, NamedTuple, cast

from ...core.model import Span
from .config import FindAllMatches, OrderIndependentLookup, SearchKey, SearchStrategy
from .dictionary import Dictionary
from .normalize import NormalizedText


@dataclass(frozen=True, slots=True)
class Match:
    """Tokens of one sentence that match one entry: their positions (indices into the
    normalized text's kept tokens, increasing) and the entry's classes."""

    positions: tuple[int, ...]
    classes: frozenset[str]


class _Entry(NamedTuple):
    key: tuple[str, ...]  # entry tokens (sorted when order-independent)
    elements: frozenset[str]
    need: tuple[tuple[str, int], ...]
    classes: frozenset[str]
    length: int


@dataclass(eq=False)
class SearchIndex:
    """Lookup structures over one dictionary, built on first use and kept.

    ``order_independent`` selects entries keyed by their sorted tokens (classes of
    entries with the same tokens in another order merged) instead of in order.
    """

    dictionary: Dictionary
    order_independent: bool
    _trie: dict[object, object] | None = field(default=None, repr=False)
    _sorted: dict[tuple[str, ...], frozenset[str]] | None = field(default=None, repr=False)
    _maxlen: dict[str, int] | None = field(default=None, repr=False)
    _buckets: dict[str, list[_Entry]] | None = field(default=None, repr=False)

    def prepare(self, key: SearchKey) -> SearchIndex:
        """Build now the structures a search under ``key`` uses (they are otherwise built on first use)."""
        if key.searchStrategy is not SearchStrategy.CONTIGUOUS_MATCH:
            self.buckets()
        elif self.order_independent:
            self.maxlen()
        else:
            self.trie()
        return self

    def keyed(self) -> dict[tuple[str, ...], frozenset[str]]:
        """Entry tokens (sorted when order-independent) -> classes."""
        if not self.order_independent:
            return dict(self.dictionary.entries)
        if self._sorted is None:
            merged: dict[tuple[str, ...], set[str]] = {}
            for k, v in self.dictionary.entries.items():
                merged.setdefault(tuple(sorted(k)), set()).update(v)
            self._sorted = {k: frozenset(v) for k, v in merged.items()}
        return self._sorted

    def trie(self) -> dict[object, object]:
        """Nested dicts token -> node; ``node[None]`` holds the classes of the entry ending there."""
        if self._trie is None:
            root: dict[object, object] = {}
            for key, classes in self.dictionary.entries.items():
                node = root
                for tok in key:
                    node = cast(dict[object, object], node.setdefault(tok, {}))
                node[None] = classes
            self._trie = root
        return self._trie

    def maxlen(self) -> dict[str, int]:
        """Token -> the length of the longest (sorted) entry containing it."""
        if self._maxlen is None:
            out: dict[str, int] = {}
            for key in self.keyed():
                n = len(key)
                for tok in key:
                    if out.get(tok, 0) < n:
                        out[tok] = n
            self._maxlen = out
        return self._maxlen

    def buckets(self) -> dict[str, list[_Entry]]:
        """Entries for the skip search, each under its rarest token (fewest entries contain it)."""
        if self._buckets is None:
            keyed = self.keyed()
            df: dict[str, int] = {}
            for key in keyed:
                for t in set(key):
                    df[t] = df.get(t, 0) + 1
            out: dict[str, list[_Entry]] = {}
            for key, classes in keyed.items():
                elements = frozenset(key)
                rare = min(elements, key=lambda t: (df[t], t))
                need = tuple((t, 1) for t in key) if len(elements) == len(key) else tuple(Counter(key).items())
                out.setdefault(rare, []).append(_Entry(key, elements, need, classes, len(key)))
            self._buckets = out
        return self._buckets


def search_tokens(
    tokens: tuple[str, ...] | list[str], index: SearchIndex, key: SearchKey, start: int = 0, stop: int | None = None
) -> list[Match]:
    """Matches in ``tokens[start:stop]``, one sentence, under the search parameters ``key``.

    ``key`` must agree with ``index.order_independent`` (after ConceptMapper's forcing:
    use ``config.search_key``).

    >>> from craftrdf.matching.matcher.config import MatcherConfig, TextNormalization
    >>> from craftrdf.matching.matcher.dictionary import Dictionary, terms_from_names
    >>> d = Dictionary.build(terms_from_names({"X:1": "ganglion cell", "X:2": "cell layer"}),
    ...                      TextNormalization("CASE_IGNORE", "NONE", "NONE"))
    >>> toks = ("ganglion", "cell", "layer")
    >>> [m.positions for m in search_tokens(toks, SearchIndex(d, False), MatcherConfig().search_key)]
    [(0, 1)]
    >>> yes = MatcherConfig(findAllMatches="YES").search_key
    >>> [m.positions for m in search_tokens(toks, SearchIndex(d, False), yes)]
    [(0, 1), (1, 2)]
    """
    return _search(tokens, [(start, len(tokens) if stop is None else stop)], index, key)


def _search(
    tokens: tuple[str, ...] | list[str], sentences: Iterable[tuple[int, int]], index: SearchIndex, key: SearchKey
) -> list[Match]:
    """Matches in every sentence (a range of ``tokens``)."""
    order_independent = key.orderIndependentLookup is OrderIndependentLookup.ON
    if order_independent != index.order_independent:
        raise ValueError("search key and index disagree on orderIndependentLookup")
    find_all = key.findAllMatches is FindAllMatches.YES
    out: list[Match] = []
    if key.searchStrategy is not SearchStrategy.CONTIGUOUS_MATCH:
        overlap = key.searchStrategy is SearchStrategy.SKIP_ANY_MATCH_ALLOW_OVERLAP
        buckets = index.buckets()
        for a, b in sentences:
            if b > a:
                _skip(tokens, a, b, buckets, find_all, overlap, order_independent, out)
        return out
    # Contiguous: only positions whose token can start (ordered) or be part of (unordered) an entry
    # are looked at; finding them is one pass at C speed over the whole text.
    table: Container[object] = index.maxlen() if order_independent else index.trie()
    starts = [i for i, t in enumerate(tokens) if t in table]
    n = len(starts)
    k = 0
    for a, b in sentences:
        while k < n and starts[k] < a:
            k += 1
        first = k
        while k < n and starts[k] < b:
            k += 1
        if k > first:
            if order_independent:
                _contiguous_unordered(tokens, a, b, starts[first:k], index, find_all, out)
            else:
                _contiguous_ordered(tokens, b, starts[first:k], index.trie(), find_all, out)
    return out


def _contiguous_ordered(
    toks: tuple[str, ...] | list[str],
    b: int,
    starts: list[int],
    root: dict[object, object],
    find_all: bool,
    out: list[Match],
) -> None:
    free = 0  # with findAllMatches=NO, positions before the end of the last match are skipped
    for i in starts:
        if i < free:
            continue
        # Any: a trie node maps tokens to nodes and None to classes; no cast in the hot loop
        node: Any = root[toks[i]]
        j = i + 1  # node has consumed toks[i:j]
        best_end = 0
        best: frozenset[str] | None = None
        while True:
            classes = node.get(None)
            if classes is not None:
                if find_all:
                    out.append(Match(tuple(range(i, j)), classes))
                else:
                    best_end, best = j, classes
            if j >= b:
                break
            node = node.get(toks[j])
            if node is None:
                break
            j += 1
        if best is not None:
            out.append(Match(tuple(range(i, best_end)), best))
            free = best_end


def _contiguous_unordered(
    toks: tuple[str, ...] | list[str],
    a: int,
    b: int,
    starts: list[int],
    index: SearchIndex,
    find_all: bool,
    out: list[Match],
) -> None:
    keyed = index.keyed()
    maxlen = index.maxlen()
    # run[k]: how many tokens from a + k on are dictionary tokens (a window can only match inside such a run)
    run = [0] * (b - a + 1)
    for k in range(b - 1, a - 1, -1):
        run[k - a] = run[k - a + 1] + 1 if toks[k] in maxlen else 0
    free = 0
    for i in starts:
        if i < free:
            continue
        length = min(maxlen[toks[i]], run[i - a])
        while length >= 1:
            classes = keyed.get(tuple(sorted(toks[i : i + length])))
            if classes is not None:
                out.append(Match(tuple(range(i, i + length)), classes))
                if not find_all:
                    free = i + length
                    break
            length -= 1


def _skip(
    toks: tuple[str, ...] | list[str],
    a: int,
    b: int,
    buckets: dict[str, list[_Entry]],
    find_all: bool,
    overlap: bool,
    order_independent: bool,
    out: list[Match],
) -> None:
    present = set(toks[a:b])
    starts: dict[str, list[_Entry]] = {}
    for w in present:
        for e in buckets.get(w, ()):
            if e.elements <= present:
                if order_independent:
                    for t in e.elements:
                        starts.setdefault(t, []).append(e)
                else:
                    starts.setdefault(e.key[0], []).append(e)
    if not starts:
        return
    for lst in starts.values():
        lst.sort(key=lambda e: (-e.length, e.key))
    walk = _walk_unordered if order_independent else _walk_ordered
    p = a
    while p < b:
        entries = starts.get(toks[p])
        if not entries:
            p += 1
            continue
        if find_all:
            for e in entries:
                pos = walk(toks, p, b, e)
                if pos is not None:
                    out.append(Match(pos, e.classes))
            p += 1
            continue
        chosen: tuple[tuple[int, ...], _Entry] | None = None
        for e in entries:
            if chosen is not None and e.length < chosen[1].length:
                break
            pos = walk(toks, p, b, e)
            if pos is not None and (chosen is None or (pos[-1], e.key) < (chosen[0][-1], chosen[1].key)):
                chosen = (pos, e)
        if chosen is None:
            p += 1
        else:
            out.append(Match(chosen[0], chosen[1].classes))
            p = p + 1 if overlap else chosen[0][-1] + 1


def _walk_unordered(toks: tuple[str, ...] | list[str], p: int, b: int, e: _Entry) -> tuple[int, ...] | None:
    """Positions of the first occurrences, from ``p`` on, of the entry's tokens (with repeats)."""
    need = dict(e.need)
    left = e.length
    positions = []
    for q in range(p, b):
        c = need.get(toks[q])
        if c:
            need[toks[q]] = c - 1
            positions.append(q)
            left -= 1
            if not left:
                return tuple(positions)
    return None


def _walk_ordered(toks: tuple[str, ...] | list[str], p: int, b: int, e: _Entry) -> tuple[int, ...] | None:
    """Positions of the entry's tokens as a subsequence from ``p`` on, earliest first."""
    key = e.key
    n = len(key)
    j = 0
    positions = []
    for q in range(p, b):
        if toks[q] == key[j]:
            positions.append(q)
            j += 1
            if j == n:
                return tuple(positions)
    return None


def find_matches(text: NormalizedText, index: SearchIndex, key: SearchKey) -> list[Match]:
    """Every match in every sentence of a normalized text."""
    return _search(text.tokens, text.sentences, index, key)


def match_spans(text: NormalizedText, positions: Iterable[int]) -> tuple[Span, ...]:
    """Character spans of a match: one per run of positions adjacent among the kept tokens.

    Tokens adjacent once stop words are dropped form one run, so "layer of the cortex"
    matched (stop words PUBMED) as "layer cortex" is one span; a skip match gives one
    span per run of tokens it took.
    """
    tok = text.tokenized
    idx = text.index
    spans: list[Span] = []
    first = prev = -2
    for k in positions:
        if k != prev + 1:
            if prev >= 0:
                spans.append(Span(tok.starts[idx[first]], tok.ends[idx[prev]]))
            first = k
        prev = k
    if prev >= 0:
        spans.append(Span(tok.starts[idx[first]], tok.ends[idx[prev]]))
    return tuple(spans)
