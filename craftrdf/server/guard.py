"""Checks a SPARQL request passes before the engine sees it: size, nesting, LOAD, SERVICE, USING.

pyoxigraph 0.5.13 crashes the whole process (a segfault, not an exception) on a query of a
few thousand nested groups, and ``LOAD <url>`` / ``SERVICE <url>`` make it fetch URLs
(server-side request forgery). So the server bounds a request's length and bracket depth,
and refuses those two keywords, before parsing. The text is read by the SPARQL lexer
(:mod:`craftrdf.lexer`, the grammar's terminals), so a ``{`` or the word ``LOAD`` inside a
literal, an IRI, a comment or an escaped prefixed name is not counted, and nothing the engine
would read as a keyword can hide inside another token.

The same tokens place the SPARQL Protocol's ``using-graph-uri`` / ``using-named-graph-uri``
dataset into an update as ``USING`` clauses (:func:`with_using`), because pyoxigraph's
``Store.update`` takes no dataset argument; the graph IRIs are checked by ``pyoxigraph.NamedNode``
and written in its N-Triples form, so they cannot change the update's structure.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import pyoxigraph as ox

from ..errors import QueryError
from ..lexer import Token, tokenize

__all__ = ["Limits", "RequestRefused", "check_request", "with_using"]

_OPEN = "{(["
_CLOSE = "})]"


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


def _tokens(text: str) -> list[Token]:
    """The request's tokens (comments included); a text the lexer cannot read is refused with 400."""
    try:
        return list(tokenize(text, comments=True))
    except QueryError as exc:
        raise RequestRefused(400, str(exc)) from None


def check_request(text: str, limits: Limits) -> None:
    """Raise :class:`RequestRefused` when ``text`` is too long, nests too deep, or uses LOAD/SERVICE.

    Too long or too deep → 400, LOAD or SERVICE → 403. Nothing is parsed beyond tokens,
    so this is safe on any input, including input that would crash the engine.

    >>> check_request("SELECT * { { { } } }", Limits(max_depth=2))
    Traceback (most recent call last):
    ...
    craftrdf.server.guard.RequestRefused: query nests brackets 3 deep; the limit is 2
    """
    if len(text) > limits.max_length:
        raise RequestRefused(400, f"query is {len(text):,} characters long; the limit is {limits.max_length:,}")
    depth = deepest = 0
    for tok in _tokens(text):
        if tok.kind == "punct":
            if tok.text in _OPEN:
                depth += 1
                if depth > deepest:
                    deepest = depth
                    if deepest > limits.max_depth:
                        raise RequestRefused(
                            400, f"query nests brackets {deepest} deep; the limit is {limits.max_depth}"
                        )
            elif tok.text in _CLOSE:
                depth = max(depth - 1, 0)
        elif tok.kind == "keyword":
            word = tok.text.upper()
            if word == "LOAD" and not limits.allow_load:
                raise RequestRefused(403, "LOAD is disabled on this server (it would make the server fetch a URL)")
            if word == "SERVICE" and not limits.allow_service:
                raise RequestRefused(
                    403, "SERVICE is disabled on this server (federated queries would make the server fetch a URL)"
                )


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
    while i < len(op) and op[i].kind == "keyword" and op[i].text.upper() in ("PREFIX", "BASE"):
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
        clause = " ".join(
            [f"USING {ox.NamedNode(g)}" for g in default_graphs]
            + [f"USING NAMED {ox.NamedNode(g)}" for g in named_graphs]
        )
    except ValueError as exc:
        raise RequestRefused(400, f"using-graph-uri / using-named-graph-uri is not an IRI: {exc}") from None
    inserts: list[int] = []
    for op in _operations(_tokens(update)):
        body = _after_prologue(op)
        words = [t.text.upper() for t in body if t.kind == "keyword"]
        if not body or body[0].kind != "keyword" or words[0] not in ("INSERT", "DELETE", "WITH"):
            continue
        if len(body) > 1 and words[0] == "DELETE" and body[1].kind == "keyword" and body[1].text.upper() == "WHERE":
            continue  # DELETE WHERE {…} has no dataset clause
        if len(body) > 1 and words[0] in ("INSERT", "DELETE") and body[1].text.upper() == "DATA":
            continue
        if "USING" in words or "WITH" in words:
            raise RequestRefused(
                400,
                "the update names its dataset (USING or WITH) and the request also gives "
                "using-graph-uri / using-named-graph-uri; give one or the other",
            )
        depth = 0
        for tok in body:
            if tok.kind == "punct" and tok.text in _OPEN:
                depth += 1
            elif tok.kind == "punct" and tok.text in _CLOSE:
                depth -= 1
            elif tok.kind == "keyword" and depth == 0 and tok.text.upper() == "WHERE":
                inserts.append(tok.start)
                break
    for pos in reversed(inserts):
        update = update[:pos] + clause + " " + update[pos:]
    return update
