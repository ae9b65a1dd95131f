"""Checks a SPARQL request passes before the engine sees it: size, nesting, LOAD, SERVICE, USING.

pyoxigraph 0.5.13 crashes the whole process (a segfault, not an exception) on a query of a
few thousand nested groups, and ``LOAD <url>`` / ``SERVICE <url>`` make it fetch URLs
(server-side request forgery). So the server bounds a request's length and bracket depth,
and refuses those two keywords, before parsing. A small tokenizer skips strings, IRIs and
comments, so a ``{`` or the word ``LOAD`` inside a literal or an IRI is not counted.

The same tokenizer places the SPARQL Protocol's ``using-graph-uri`` / ``using-named-graph-uri``
dataset into an update as ``USING`` clauses (:func:`with_using`), because pyoxigraph's
``Store.update`` takes no dataset argument; the graph IRIs are checked by ``pyoxigraph.NamedNode``
and written in its N-Triples form, so they cannot change the update's structure.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import pyoxigraph as ox

__all__ = ["Limits", "RequestRefused", "Token", "check_request", "tokenize", "with_using"]


class RequestRefused(Exception):
    """A request the server will not run; ``status`` is the HTTP status to answer with."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


@dataclass(frozen=True, slots=True)
class Limits:
    """What a query or update may contain.

    ``max_length`` is in characters, ``max_depth`` counts ``{`` ``(`` ``[`` open at once;
    ``allow_load`` / ``allow_service`` let ``LOAD`` and ``SERVICE`` through (off by default:
    they make the server fetch arbitrary URLs).
    """

    max_length: int = 100_000
    max_depth: int = 64
    allow_load: bool = False
    allow_service: bool = False


@dataclass(frozen=True, slots=True)
class Token:
    """A piece of SPARQL text: ``kind`` is word, punct, string, iri, var or comment; ``start`` its offset."""

    kind: str
    text: str
    start: int


# An IRIREF cannot hold spaces, quotes or braces, which tells it from the `<` operator.
_IRI = re.compile(r'<[^<>"{}|^`\\\x00-\x20]*>')
_STRING = re.compile(r'"""(?:[^"\\]|\\.|"(?!""))*"""|\'\'\'(?:[^\'\\]|\\.|\'(?!\'\'))*\'\'\'|'
                     r'"(?:[^"\\\n\r]|\\.)*"|\'(?:[^\'\\\n\r]|\\.)*\'', re.DOTALL)
_VAR = re.compile(r"[?$][\w\u00b7\u0300-\u036f\u203f-\u2040]+")
# Prefixed names and keywords; a colon or dot inside keeps `ex:load` and `ex:a.b` one word.
_WORD = re.compile(r"[\w\-]+(?:[.:][\w\-%\\]+)*:?|:[\w\-.%\\]*")
_COMMENT = re.compile(r"#[^\n\r]*")
_OPEN = "{(["
_CLOSE = "})]"


def tokenize(text: str) -> Iterator[Token]:
    """The tokens of SPARQL text; unterminated strings are one token to the end of the line.

    >>> [t.text for t in tokenize('SELECT * { ?s <p> "a { #" } # {')]
    ['SELECT', '*', '{', '?s', '<p>', '"a { #"', '}', '# {']
    """
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c.isspace():
            i += 1
            continue
        m = None
        kind = "punct"
        if c == "#":
            m, kind = _COMMENT.match(text, i), "comment"
        elif c in "\"'":
            m, kind = _STRING.match(text, i), "string"
            if m is None:  # unterminated: the engine will say so; we only must not miscount
                end = text.find("\n", i)
                end = n if end < 0 else end
                yield Token("string", text[i:end], i)
                i = end
                continue
        elif c == "<":
            m = _IRI.match(text, i)
            kind = "iri" if m else "punct"
        elif c in "?$":
            m = _VAR.match(text, i)
            kind = "var" if m else "punct"
        elif c.isalnum() or c in "_:" or ord(c) > 127:
            m, kind = _WORD.match(text, i), "word"
        if m is not None and m.end() > i:
            yield Token(kind, m.group(0), i)
            i = m.end()
        else:
            yield Token("punct", c, i)
            i += 1


def check_request(text: str, limits: Limits) -> None:
    """Raise :class:`RequestRefused` when ``text`` is too long, nests too deep, or uses LOAD/SERVICE.

    Too long or too deep → 400, LOAD or SERVICE → 403. Nothing is parsed beyond tokens,
    so this is safe on any input, including input that would crash the engine.

    >>> check_request("SELECT * { { { } } }", Limits(max_depth=2))
    Traceback (most recent call last):
    ...
    craftrdf.publish.guard.RequestRefused: query nests brackets 3 deep; the limit is 2
    """
    if len(text) > limits.max_length:
        raise RequestRefused(400, f"query is {len(text):,} characters long; the limit is {limits.max_length:,}")
    depth = deepest = 0
    for tok in tokenize(text):
        if tok.kind == "punct":
            if tok.text in _OPEN:
                depth += 1
                if depth > deepest:
                    deepest = depth
                    if deepest > limits.max_depth:
                        raise RequestRefused(
                            400, f"query nests brackets {deepest} deep; the limit is {limits.max_depth}")
            elif tok.text in _CLOSE:
                depth = max(depth - 1, 0)
        elif tok.kind == "word":
            word = tok.text.upper()
            if word == "LOAD" and not limits.allow_load:
                raise RequestRefused(403, "LOAD is disabled on this server (it would make the server fetch a URL)")
            if word == "SERVICE" and not limits.allow_service:
                raise RequestRefused(403, "SERVICE is disabled on this server (federated queries would make "
                                          "the server fetch a URL)")


def _operations(tokens: Sequence[Token]) -> list[list[Token]]:
    """Split an update's tokens into operations at top-level ``;`` (comments dropped)."""
    ops: list[list[Token]] = [[]]
    depth = 0
    for tok in tokens:
        if tok.kind == "comment":
            continue
        if tok.kind == "punct" and tok.text in _OPEN:
            depth += 1
        elif tok.kind == "punct" and tok.text in _CLOSE:
            depth -= 1
        if tok.kind == "punct" and tok.text == ";" and depth == 0:
            ops.append([])
        else:
            ops[-1].append(tok)
    return [op for op in ops if op]


def _after_prologue(op: Sequence[Token]) -> list[Token]:
    """An operation's tokens after its PREFIX/BASE declarations (``PREFIX ex: <iri>``, ``BASE <iri>``)."""
    i = 0
    while i < len(op) and op[i].kind == "word" and op[i].text.upper() in ("PREFIX", "BASE"):
        i += 3 if op[i].text.upper() == "PREFIX" else 2
    return list(op[i:])


def with_using(update: str, default_graphs: Sequence[str], named_graphs: Sequence[str]) -> str:
    """The update with the protocol's dataset as ``USING`` / ``USING NAMED`` before each WHERE.

    Applies to the INSERT/DELETE … WHERE operations (the only ones with a dataset). An
    operation that already has USING or WITH makes the request ambiguous: RequestRefused
    400, as the SPARQL 1.1 Protocol requires. Graph IRIs must be absolute (ValueError from
    pyoxigraph becomes a 400 too).
    """
    if not default_graphs and not named_graphs:
        return update
    try:
        clause = " ".join([f"USING {ox.NamedNode(g)}" for g in default_graphs]
                          + [f"USING NAMED {ox.NamedNode(g)}" for g in named_graphs])
    except ValueError as exc:
        raise RequestRefused(400, f"using-graph-uri / using-named-graph-uri is not an IRI: {exc}") from None
    inserts: list[int] = []
    for op in _operations(list(tokenize(update))):
        body = _after_prologue(op)
        words = [t.text.upper() for t in body if t.kind == "word"]
        if not body or body[0].kind != "word" or words[0] not in ("INSERT", "DELETE", "WITH"):
            continue
        if len(body) > 1 and words[0] == "DELETE" and body[1].kind == "word" and body[1].text.upper() == "WHERE":
            continue  # DELETE WHERE {…} has no dataset clause
        if len(body) > 1 and words[0] in ("INSERT", "DELETE") and body[1].text.upper() == "DATA":
            continue
        if "USING" in words or "WITH" in words:
            raise RequestRefused(400, "the update names its dataset (USING or WITH) and the request also gives "
                                      "using-graph-uri / using-named-graph-uri; give one or the other")
        depth = 0
        for tok in body:
            if tok.kind == "punct" and tok.text in _OPEN:
                depth += 1
            elif tok.kind == "punct" and tok.text in _CLOSE:
                depth -= 1
            elif tok.kind == "word" and depth == 0 and tok.text.upper() == "WHERE":
                inserts.append(tok.start)
                break
    for pos in reversed(inserts):
        update = update[:pos] + clause + " " + update[pos:]
    return update
