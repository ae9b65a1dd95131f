"""Abbreviations defined in the text: "retinal pigment epithelium (RPE)".

The algorithm is Schwartz & Hearst's (A. S. Schwartz and M. A. Hearst, "A simple
algorithm for identifying abbreviation definitions in biomedical text", Pacific
Symposium on Biocomputing 8:451-462, 2003), as the paper describes it:

- a candidate short form is the text inside parentheses that follow some words: one or
  two words, 2 to 10 characters, with at least one letter and an alphanumeric first
  character;
- the candidate long form is at most ``min(|SF| + 5, 2 * |SF|)`` words before the
  parenthesis (``|SF|`` the short form's characters);
- the long form is found by matching the short form's characters right to left in the
  candidate, each to a character of the long form further left, the first one at the
  start of a word; the long form starts at the word where the match ends; a long form
  shorter than its short form, or containing it as a word, is rejected.

(The paper also reads "short form (long form)"; CRAFT's articles define abbreviations
the other way, and this module reads only that.)
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

_PAREN = re.compile(r"\(([^()]{1,40})\)")
_WORD = re.compile(r"\S+")


@dataclass(frozen=True, slots=True)
class Definition:
    """A short form defined by a long form: both as character ranges of the text."""

    short: str
    short_start: int
    short_end: int
    long_start: int
    long_end: int


def best_long_form(short: str, candidate: str) -> int | None:
    """Where in ``candidate`` the long form of ``short`` starts (an offset), or None.

    >>> c = "cells of the retinal pigment epithelium"
    >>> c[best_long_form("RPE", c):]
    'retinal pigment epithelium'
    >>> best_long_form("XYZ", c) is None
    True
    """
    s = len(short) - 1
    i = len(candidate) - 1
    while s >= 0:
        ch = short[s].lower()
        if not ch.isalnum():
            s -= 1
            continue
        while i >= 0 and (candidate[i].lower() != ch or (s == 0 and i > 0 and candidate[i - 1].isalnum())):
            i -= 1
        if i < 0:
            return None
        i -= 1
        s -= 1
    return candidate.rfind(" ", 0, i + 1) + 1


def _short_form_ok(short: str) -> bool:
    return 2 <= len(short) <= 10 and len(short.split()) <= 2 and short[0].isalnum() and any(c.isalpha() for c in short)


def definitions(text: str) -> Iterator[Definition]:
    """Every "long form (short form)" definition of ``text``, in text order.

    >>> t = "Cells of the retinal pigment epithelium (RPE) grow; the RPE thickens."
    >>> [(d.short, t[d.long_start:d.long_end]) for d in definitions(t)]
    [('RPE', 'retinal pigment epithelium')]
    """
    for m in _PAREN.finditer(text):
        short = m.group(1).strip()
        if ";" in short or "," in short:
            short = re.split(r"[;,]", short)[0].strip()
        if not _short_form_ok(short):
            continue
        line_start = max(text.rfind("\n", 0, m.start()), text.rfind(". ", 0, m.start()) + 1, 0)
        words = list(_WORD.finditer(text, line_start, m.start()))
        limit = min(len(short) + 5, 2 * len(short))
        words = words[-limit:]
        if not words:
            continue
        start = words[0].start()
        end = words[-1].end()
        candidate = text[start:end]
        offset = best_long_form(short, candidate)
        if offset is None:
            continue
        long_form = candidate[offset:]
        if len(long_form) <= len(short) or short.lower() in long_form.lower().split():
            continue
        s0 = m.start(1) + m.group(1).find(short)
        yield Definition(short, s0, s0 + len(short), start + offset, end)
