"""Values of OBO tag lines: quoted strings, escapes, xrefs, definitions, synonyms (for :mod:`.obo`).

Each function takes a line's raw value with its line number and source, and raises
OboSyntaxError naming them when the value is malformed.
"""

from __future__ import annotations

import logging
import re

from ..core.errors import OboSyntaxError
from ..core.model import Synonym, SynonymScope

logger = logging.getLogger(__name__)

_SCOPES: dict[str, SynonymScope] = {"EXACT": "EXACT", "BROAD": "BROAD", "NARROW": "NARROW", "RELATED": "RELATED"}

# A quoted string at the start of a value; group 1 is its escaped content. Possessive
# quantifiers (Python 3.11) keep a failed match linear.
_QUOTED = re.compile(r'"((?:[^"\\]++|\\.)*+)"', re.DOTALL)
# A value made of plain characters, escapes and complete quoted strings, then optional
# trailing modifiers {...}, then an optional comment. _LOOSE takes braces literally.
_STRICT_VALUE = re.compile(
    r'((?:[^"\\!{]++|\\.|"(?:[^"\\]++|\\.)*+")*+)'
    r'(?:\{(?:[^"\\}]++|\\.|"(?:[^"\\]++|\\.)*+")*+\})?'
    r"\s*(?:!.*)?$",
    re.DOTALL,
)
_LOOSE_VALUE = re.compile(r'((?:[^"\\!]++|\\.|"(?:[^"\\]++|\\.)*+")*+)\s*(?:!.*)?$', re.DOTALL)
# The part of an xref before its optional quoted description.
_BEFORE_QUOTE = re.compile(r'(?:[^"\\]++|\\.)*+', re.DOTALL)
# A def whose text holds unescaped quotes: up to the last quote before the xref list.
_GREEDY_DEF = re.compile(r'"(.*)"\s*(?:\[(?:[^\]\\]|\\.)*\])?\s*(?:\{[^}]*\})?\s*(?:!.*)?$', re.DOTALL)
_ESCAPE = re.compile(r"\\(.)", re.DOTALL)
_ESCAPES = {"n": "\n", "t": "\t", "W": " "}


def parse_id(previous: str | None, raw: str, lineno: int, source: str) -> str:
    """The stanza id; OboSyntaxError for an empty value or a second ``id:`` line."""
    value = parse_unquoted(raw, lineno, source)
    if not value:
        raise OboSyntaxError("empty id: value", source=source, line=lineno)
    if previous is not None:
        raise OboSyntaxError(f"second id: tag ({value!r} after {previous!r})", source=source, line=lineno)
    return value


def _unescape(text: str) -> str:
    """Decode OBO backslash escapes: ``\\n`` newline, ``\\t`` tab, ``\\W`` space, ``\\x`` -> x."""
    if "\\" not in text:
        return text
    return _ESCAPE.sub(lambda m: _ESCAPES.get(m.group(1), m.group(1)), text)


def _body(raw: str, lineno: int, source: str) -> str:
    """``raw`` without its comment and trailing modifiers, escapes still encoded.

    A ``{`` that does not open a final modifier block is kept as text.
    """
    if "\\" not in raw and '"' not in raw:  # fast path: no escapes, no quotes
        cut = raw.find("!")
        if cut >= 0:
            raw = raw[:cut].rstrip()
        if raw.endswith("}") and "{" in raw:
            raw = raw[: raw.rfind("{")].rstrip()
        return raw
    m = _STRICT_VALUE.match(raw) or _LOOSE_VALUE.match(raw)
    if m is None:
        raise OboSyntaxError(f"unterminated quoted string: {raw!r}", source=source, line=lineno)
    return m.group(1).rstrip()


def parse_unquoted(raw: str, lineno: int, source: str) -> str:
    """An unquoted value: comment and modifiers removed, escapes decoded, stripped."""
    return _unescape(_body(raw, lineno, source)).strip()


def parse_xref(raw: str, lineno: int, source: str) -> str:
    """The xref itself, without its optional quoted description."""
    body = _body(raw, lineno, source)
    m = _BEFORE_QUOTE.match(body)
    assert m is not None  # the pattern matches the empty string
    return _unescape(m.group()).strip()


def _quoted(raw: str, tag: str, lineno: int, source: str) -> tuple[str, str]:
    """``(decoded text, rest of line)`` of a value that starts with a quoted string."""
    if not raw.startswith('"'):
        raise OboSyntaxError(f"{tag}: value must start with a quoted string: {raw!r}", source=source, line=lineno)
    m = _QUOTED.match(raw)
    if m is None:
        raise OboSyntaxError(f"unterminated quoted string in {tag}: {raw!r}", source=source, line=lineno)
    return _unescape(m.group(1)), raw[m.end() :].lstrip()


def parse_definition(raw: str, lineno: int, source: str) -> str:
    """The text of ``def: "text" [xrefs]``, repairing two kinds of stray quotes.

    A value wrapped in a second pair of quotes (``""text" [xrefs]"``) is unwrapped; a
    text holding unescaped quotes (``"CHEBI:'ribosomal RNA" or SO_EXT:rRNA"``) ends at
    the last quote that only an xref list, modifiers or a comment follow.
    """
    text, rest = _quoted(raw, "def", lineno, source)
    if not rest or rest[0] in "[{!":
        return text
    if not text and raw.endswith('"') and len(raw) > 2:
        inner, inner_rest = _quoted(raw[1:-1], "def", lineno, source)
        if not inner_rest or inner_rest[0] in "[{!":
            logger.debug("%s, line %d: doubly quoted def unwrapped", source, lineno)
            return inner
    m = _GREEDY_DEF.match(raw)
    if m is not None:
        logger.debug("%s, line %d: def with unescaped inner quotes", source, lineno)
        return _unescape(m.group(1))
    raise OboSyntaxError(f"text after the quoted definition: {rest!r}", source=source, line=lineno)


def parse_synonym(raw: str, scope: SynonymScope | None, lineno: int, source: str) -> Synonym:
    """A synonym from ``"text" [SCOPE [TYPE]] [xrefs]`` (scope given for OBO 1.0 tags)."""
    text, rest = _quoted(raw, "synonym", lineno, source)
    words: list[str] = []
    for word in rest.split(None, 2)[:2]:
        if word[0] in "[{!":
            break
        words.append(word)
    if scope is None and words:
        word = words.pop(0)
        scope = _SCOPES.get(word.upper())
        if scope is None:
            message = f"synonym scope must be EXACT, BROAD, NARROW or RELATED, not {word!r}"
            raise OboSyntaxError(message, source=source, line=lineno)
    return Synonym(text=text, scope=scope or "RELATED", type=words[0] if words else None)


def parse_intersection(raw: str, lineno: int, source: str) -> tuple[str | None, str]:
    """``(None, genus)`` or ``(relation, target)`` from ``intersection_of: [REL] TARGET``."""
    words = parse_unquoted(raw, lineno, source).split()
    if len(words) not in (1, 2):
        raise OboSyntaxError(
            f"intersection_of needs a class or a relation and a class: {raw!r}", source=source, line=lineno
        )
    return (None, words[0]) if len(words) == 1 else (words[0], words[1])


def parse_relationship(raw: str, lineno: int, source: str) -> tuple[str, str]:
    """``(relation, target)`` from ``relationship: REL TARGET``."""
    words = parse_unquoted(raw, lineno, source).split()
    if len(words) < 2:
        raise OboSyntaxError(f"relationship needs a relation and a target: {raw!r}", source=source, line=lineno)
    return words[0], words[1]
