"""The SPARQL 1.1 lexer: query and update text as the grammar's terminals.

Two parts of craftrdf read SPARQL text without parsing it: the remote store, which binds
values by placing them as tokens (:mod:`craftrdf.core.bindings`), and the server's guard, which
refuses ``SERVICE``, ``LOAD`` and deep nesting before the engine sees a request
(:mod:`craftrdf.publishing.server.guard`). Both must cut the text exactly where the SPARQL grammar
does, or a string, a comment or an escaped prefixed name hides what follows. So this
module follows the terminals of the SPARQL 1.1 grammar (Query Language, section 19.8):
``IRIREF``, ``PNAME_NS``/``PNAME_LN`` (``PN_LOCAL`` with its ``PLX`` escapes:
``ex:p\\#q`` is one token), ``BLANK_NODE_LABEL``, ``VAR1``/``VAR2``, ``LANGTAG``,
``INTEGER``/``DECIMAL``/``DOUBLE`` (``1.SERVICE`` is ``1``, ``.``, ``SERVICE``), the four
string forms with ``ECHAR`` escapes, comments, and keywords. Oxigraph also reads
``\\uXXXX`` escapes inside strings and IRIs, so those are accepted there too.

A character that no terminal can start, or a string or IRI left open, is a
:class:`~craftrdf.core.errors.QueryError` naming the offset: a reader that guessed would be a
reader an attacker can steer.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Literal, cast

from .errors import QueryError

TokenKind = Literal["iri", "pname", "bnode", "var", "string", "number", "langtag", "keyword", "punct", "comment"]

# The grammar's character classes (SPARQL 1.1 Query Language, productions 164-173).
_PN_CHARS_BASE = (
    "A-Za-z\u00c0-\u00d6\u00d8-\u00f6\u00f8-\u02ff\u0370-\u037d\u037f-\u1fff\u200c-\u200d"
    "\u2070-\u218f\u2c00-\u2fef\u3001-\ud7ff\uf900-\ufdcf\ufdf0-\ufffd\U00010000-\U000effff"
)
_PN_CHARS_U = _PN_CHARS_BASE + "_"
_PN_CHARS = _PN_CHARS_U + r"\-0-9\u00b7\u0300-\u036f\u203f-\u2040"
_PLX = r"(?:%[0-9A-Fa-f]{2}|\\[_~.\-!$&'()*+,;=/?#@%])"
_PN_PREFIX = f"[{_PN_CHARS_BASE}](?:[{_PN_CHARS}.]*[{_PN_CHARS}])?"
_PN_LOCAL = f"(?:[{_PN_CHARS_U}:0-9]|{_PLX})(?:(?:[{_PN_CHARS}.:]|{_PLX})*(?:[{_PN_CHARS}:]|{_PLX}))?"
_UCHAR = r"\\u[0-9A-Fa-f]{4}|\\U[0-9A-Fa-f]{8}"
_ECHAR = r"""\\[tbnrf\\"']"""
_ESC = f"(?:{_ECHAR}|{_UCHAR})"

_TERMINALS = re.compile(
    "|".join(
        [
            r"(?P<ws>[\x20\t\r\n]+)",
            r"(?P<comment>#[^\r\n]*)",
            rf"(?P<iri><(?:[^<>\"{{}}|^`\\\x00-\x20]|{_UCHAR})*>)",
            # long strings before short ones: '''...''' would otherwise read as '' then '...
            rf"(?P<string>\"\"\"(?:(?:\"|\"\")?(?:[^\"\\]|{_ESC}))*\"\"\""
            rf"|'''(?:(?:'|'')?(?:[^'\\]|{_ESC}))*'''"
            rf"|\"(?:[^\"\\\n\r]|{_ESC})*\""
            rf"|'(?:[^'\\\n\r]|{_ESC})*')",
            rf"(?P<bnode>_:[{_PN_CHARS_U}0-9](?:[{_PN_CHARS}.]*[{_PN_CHARS}])?)",
            rf"(?P<pname>(?:{_PN_PREFIX})?:(?:{_PN_LOCAL})?)",
            rf"(?P<var>[?$][{_PN_CHARS_U}0-9][{_PN_CHARS_U}0-9\u00b7\u0300-\u036f\u203f-\u2040]*)",
            r"(?P<langtag>@[a-zA-Z]+(?:-[a-zA-Z0-9]+)*)",
            # DOUBLE, then DECIMAL, then INTEGER: the longest numeric terminal that matches
            r"(?P<number>[0-9]+\.[0-9]*[eE][+-]?[0-9]+|\.[0-9]+[eE][+-]?[0-9]+|[0-9]+[eE][+-]?[0-9]+"
            r"|[0-9]*\.[0-9]+|[0-9]+)",
            # keywords, function names and ``a``: the grammar's bare words
            r"(?P<keyword>[A-Za-z_][A-Za-z0-9_]*)",
            r"(?P<punct>\^\^|\|\||&&|!=|<=|>=|[{}()\[\].,;*+\-/!=<>|^?])",
        ]
    ),
)


@dataclass(frozen=True, slots=True)
class Token:
    """One terminal of SPARQL text: its kind, its text and its offsets ``[start, end)``."""

    kind: TokenKind
    text: str
    start: int
    end: int

    def kw(self, *words: str) -> bool:
        """True when this is one of the keywords ``words`` (given in upper case; SPARQL keywords ignore case)."""
        return self.kind == "keyword" and self.text.upper() in words


def _open_string(text: str, i: int) -> bool:
    return text[i] in "\"'"


def tokenize(text: str, *, comments: bool = False, lenient: bool = False) -> Iterator[Token]:
    """The terminals of SPARQL ``text`` in order, without white space (and comments unless asked for).

    QueryError for a character no terminal can start (a stray ``\\``, ``~``, a control
    character), or a string or an IRI that is not closed where the grammar closes it.
    With ``lenient`` such a character is skipped instead and lexing goes on after it (an
    unclosed quote then opens nothing): a checker that must find every keyword a more
    forgiving reader could see uses that.

    >>> [t.text for t in tokenize('PREFIX ex: <http://e/#> SELECT * { ?s ex:p\\\\#q "a { #" } # {')]
    ['PREFIX', 'ex:', '<http://e/#>', 'SELECT', '*', '{', '?s', 'ex:p\\\\#q', '"a { #"', '}']
    >>> [(t.kind, t.text) for t in tokenize("1.SERVICE")]
    [('number', '1'), ('punct', '.'), ('keyword', 'SERVICE')]
    """
    pos, n = 0, len(text)
    while pos < n:
        m = _TERMINALS.match(text, pos)
        if (m is None or m.end() == pos) and lenient:
            pos += 1
            continue
        if m is None or m.end() == pos:
            what = "an unterminated string" if _open_string(text, pos) else f"the character {text[pos]!r}"
            line = text.count("\n", 0, pos) + 1
            raise QueryError(f"SPARQL syntax error at line {line}, offset {pos}: {what} cannot start a token")
        kind = m.lastgroup
        if kind != "ws" and (kind != "comment" or comments):
            yield Token(cast(TokenKind, kind), m.group(), pos, m.end())  # the group names are the TokenKinds
        pos = m.end()


_CODEPOINT = re.compile(r"\\u([0-9A-Fa-f]{4})|\\U([0-9A-Fa-f]{8})")
_CODEPOINT_GREEDY = re.compile(r"\\[uU]([0-9A-Fa-f]{8}|[0-9A-Fa-f]{4})")


def expand_codepoint_escapes(text: str, *, greedy: bool = False) -> str:
    r"""``text`` with its ``\uXXXX`` / ``\UXXXXXXXX`` escapes replaced by the characters they name.

    SPARQL 1.1 (Query Language, section 19.2) defines these escapes as processed before
    lexing, anywhere in the text; some engines do so (rdflib), others only inside strings
    and IRIs (oxigraph). ``greedy`` reads ``\u`` or ``\U`` followed by eight hex digits as
    one escape, as rdflib 7 does. An escape naming no character (a surrogate, past U+10FFFF)
    is left as it is.

    >>> expand_codepoint_escapes(r"\u0053ERVICE <x>")
    'SERVICE <x>'
    >>> expand_codepoint_escapes(r"\u0000004C", greedy=True)
    'L'
    """

    def char(m: re.Match[str]) -> str:
        code = int(m.group(1) or m.group(2) or "", 16) if not greedy else int(m.group(1), 16)
        if code > 0x10FFFF or 0xD800 <= code <= 0xDFFF:
            return m.group()
        return chr(code)

    return (_CODEPOINT_GREEDY if greedy else _CODEPOINT).sub(char, text)


def match_bracket(tokens: list[Token], i: int) -> int:
    """Index of the token closing the bracket at ``tokens[i]`` (``{``, ``(`` or ``[``); QueryError if none."""
    opening = tokens[i].text
    closing = {"{": "}", "(": ")", "[": "]"}[opening]
    depth = 0
    for j in range(i, len(tokens)):
        t = tokens[j]
        if t.kind != "punct":
            continue
        if t.text == opening:
            depth += 1
        elif t.text == closing:
            depth -= 1
            if depth == 0:
                return j
    raise QueryError(f"unbalanced {opening!r} in the query")
