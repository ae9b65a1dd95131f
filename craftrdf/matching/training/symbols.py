"""Symbols annotators annotated: "+" and "−" in genotypes ("Pax6+/−"), which no word search finds.

A gold annotation whose text has no letter or digit (at most three characters) gives a
*symbol* name, kept as the key ``("symbol:+",)`` beside the word names. Every occurrence of
a known symbol in a text is a candidate; its written form is its *context*: the two
characters on each side, letters written ``a``, digits ``0``, white space ``s``
(``context:a0|+|/−`` for "x6+/−"). The symbol's counts and its context's counts are kept
as a word's key and written form are (:mod:`.engine`), so "+" between a gene name and a
slash is judged apart from "+" in "Ca2+ influx".
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from ...core.model import Span
from .engine import Candidate, Key

PREFIX = "symbol:"
MAX_SYMBOL = 3
_WORDISH = re.compile(r"[^\W_]")


def is_symbol(text: str) -> bool:
    """Whether a gold surface form is a symbol: 1 to 3 characters, no letter or digit, no space.

    >>> is_symbol("+"), is_symbol("−"), is_symbol("+/+"), is_symbol("a+"), is_symbol(" ")
    (True, True, True, False, False)
    """
    return 0 < len(text) <= MAX_SYMBOL and not _WORDISH.search(text) and not any(c.isspace() for c in text)


def symbol_key(symbol: str) -> Key:
    """The dictionary key of a symbol (no word token has a colon, so none collides)."""
    return (PREFIX + symbol,)


def _kind(ch: str) -> str:
    if ch.isspace():
        return "s"
    if ch.isdigit():
        return "0"
    if ch.isalpha():
        return "a"
    return ch


def context(text: str, start: int, end: int) -> str:
    """The written form of a symbol occurrence: two characters each side, by kind.

    >>> t = "Pax6+/− mice"
    >>> context(t, 4, 5), context(t, 6, 7)
    ('context:a0|+|/−', 'context:+/|−|sa')
    """
    left = "".join(_kind(c) for c in text[max(0, start - 2) : start])
    right = "".join(_kind(c) for c in text[end : end + 2])
    return f"context:{left}|{text[start:end]}|{right}"


def symbol_candidates(document: str, text: str, classes: Mapping[str, frozenset[str]]) -> list[Candidate]:
    """A candidate for every occurrence of a known symbol (longest symbols first where they overlap)."""
    if not classes:
        return []
    pattern = re.compile("|".join(re.escape(s) for s in sorted(classes, key=lambda s: (-len(s), s))))
    return [
        Candidate(
            document,
            (Span(m.start(), m.end()),),
            symbol_key(m.group()),
            classes[m.group()],
            context(text, m.start(), m.end()),
        )
        for m in pattern.finditer(text)
    ]


def symbol_of(key: Key) -> str | None:
    """The symbol of a symbol key, None for a word key."""
    return key[0][len(PREFIX) :] if len(key) == 1 and key[0].startswith(PREFIX) else None
