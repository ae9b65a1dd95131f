"""Sentences and tokens of a text, with character offsets.

Sentences (the matcher's enclosing spans) come from syntok, a rule-based segmenter
that knows scientific abbreviations ("et al.", "Fig. 2A", "e.g.", "i.e.", "approx.",
"vs.") and bracketed references. A line break always ends a sentence: CRAFT's texts
put titles, headings and paragraphs on lines of their own. Each line is segmented
on its own, which also keeps syntok's input short.

Tokens are the maximal runs of letters and digits: whitespace and punctuation
(anything that is neither a letter nor a digit, ``_`` included) separate tokens and
are not tokens themselves. That matches CRAFT's span guidelines, where any boundary
at whitespace or punctuation can be an annotation boundary, and it lets "bone-marrow"
match the entry "bone marrow". Every token belongs to exactly one sentence: the one
its first character is in.

All of this depends on the text only, so it is done once per document whatever the
configuration (:func:`analyze`).
"""

from __future__ import annotations

import bisect
import re
from array import array
from dataclasses import dataclass
from typing import Any

#: A token: a maximal run of Unicode letters and digits.
TOKEN = re.compile(r"[^\W_]+")


@dataclass(frozen=True, slots=True, eq=False)
class TokenizedText:
    """A text split into sentences and tokens.

    ``starts``/``ends`` are the tokens' character offsets (half-open), in text order;
    ``sentences[i]`` is ``(first, stop)``, the token indices of sentence ``i``, and
    ``sentence_spans[i]`` its character span. Sentences without tokens are left out.
    """

    text: str
    starts: array[int]
    ends: array[int]
    sentences: tuple[tuple[int, int], ...]
    sentence_spans: tuple[tuple[int, int], ...]

    def __len__(self) -> int:
        return len(self.starts)

    def token(self, i: int) -> str:
        """The text of token ``i``."""
        return self.text[self.starts[i] : self.ends[i]]

    def tokens(self) -> list[str]:
        """The text of every token, in order."""
        text = self.text
        return [text[s:e] for s, e in zip(self.starts, self.ends)]


def tokenize(text: str, start: int = 0, end: int | None = None) -> list[tuple[int, int]]:
    """Character spans of the tokens of ``text[start:end]`` (offsets into ``text``).

    >>> t = "Schlemm's canal (bone-marrow), E14.5"
    >>> [t[s:e] for s, e in tokenize(t)]
    ['Schlemm', 's', 'canal', 'bone', 'marrow', 'E14', '5']
    """
    return [m.span() for m in TOKEN.finditer(text, start, len(text) if end is None else end)]


def _syntok() -> tuple[Any, Any]:  # syntok ships no type hints
    from syntok import segmenter
    from syntok.tokenizer import Tokenizer

    return Tokenizer(), segmenter


def split_sentences(text: str) -> list[tuple[int, int]]:
    """Character spans of the sentences of ``text``, in order; each line is split on its own.

    A span runs from the sentence's first to the end of its last syntok token, so it
    has no surrounding whitespace; blank lines give no sentence.

    >>> t = "Smith et al. showed that E. coli grows (Fig. 2A). The lens is clear.\\nResults"
    >>> [t[s:e] for s, e in split_sentences(t)]
    ['Smith et al. showed that E. coli grows (Fig. 2A).', 'The lens is clear.', 'Results']
    """
    tokenizer, segmenter = _syntok()
    out: list[tuple[int, int]] = []
    pos = 0
    for line in text.split("\n"):
        if line.strip():
            # offsets relative to the line: syntok implements base_offset by prepending as many spaces
            tokens = tokenizer.tokenize(line)
            for sentence in segmenter.split(tokens):
                if sentence:
                    last = sentence[-1]
                    out.append((pos + sentence[0].offset, pos + last.offset + len(last.value)))
        pos += len(line) + 1
    return _repair(text, out)


def _repair(text: str, spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Sentence spans made consistent with the text: ordered, non-overlapping, trimmed.

    syntok may rewrite a token's value (``n't`` as ``not``), so an end computed from a
    value's length can be off; clamp to the next sentence and to the line.
    """
    fixed: list[tuple[int, int]] = []
    for i, (s, e) in enumerate(spans):
        limit = spans[i + 1][0] if i + 1 < len(spans) else len(text)
        nl = text.find("\n", s)
        if nl != -1:
            limit = min(limit, nl)
        e = min(max(e, s), limit)
        while e > s and text[e - 1].isspace():
            e -= 1
        if e > s:
            fixed.append((s, e))
    return fixed


def analyze(text: str, sentences: list[tuple[int, int]] | None = None) -> TokenizedText:
    """Sentences and tokens of ``text`` (``sentences``: spans from :func:`split_sentences` if not given).

    A token belongs to the sentence its first character lies in; a token before the
    first sentence joins the first, and a text without sentences is one sentence. A
    sentence's span is widened to cover its tokens.

    >>> a = analyze("The brain. A lens")
    >>> [a.token(i) for i in range(len(a))], a.sentences
    (['The', 'brain', 'A', 'lens'], ((0, 2), (2, 4)))
    """
    spans = split_sentences(text) if sentences is None else sorted(sentences)
    starts = array("l")
    ends = array("l")
    for m in TOKEN.finditer(text):
        s, e = m.span()
        starts.append(s)
        ends.append(e)
    if not spans:
        spans = [(0, len(text))] if len(starts) else []
    sentence_starts = [s for s, _ in spans]
    bounds: list[tuple[int, int]] = []
    char_spans: list[tuple[int, int]] = []
    n = len(starts)
    i = 0
    for k, (s, e) in enumerate(spans):
        stop = bisect.bisect_left(starts, sentence_starts[k + 1]) if k + 1 < len(spans) else n
        first = i
        if stop > first:
            bounds.append((first, stop))
            char_spans.append((min(s, starts[first]), max(e, ends[stop - 1])))
        i = max(i, stop)
    return TokenizedText(text, starts, ends, tuple(bounds), tuple(char_spans))
