"""Checks a SPARQL request passes before the engine sees it: size, nesting, LOAD, SERVICE, USING.

pyoxigraph 0.5.13 crashes the whole process (a segfault, not an exception) on a query of a
few thousand nested groups, and ``LOAD <url>`` / ``SERVICE <url>`` make it fetch URLs
(server-side request forgery). So the server bounds a request's length and nesting, and
refuses those two keywords, before parsing. The guard decides on tokens, not on a parse: the
text is cut by the SPARQL 1.1 grammar's terminals (:mod:`craftrdf.core.lexer`), so a ``{`` or
the word ``LOAD`` inside a literal, an IRI, a comment or an escaped prefixed name
(``ex:p\\#q``) is not counted, and ``1.SERVICE`` is ``1``, ``.``, ``SERVICE``. Three
readings of the engine are allowed for on top of the grammar:

- oxigraph's parser matches a keyword without a word boundary (``trueSERVICE <u> {}`` and
  ``SERVICEex:x {}`` both run a SERVICE call), so a bare word or a prefix name *containing*
  ``SERVICE`` or ``LOAD`` is refused;
- SPARQL defines ``\\uXXXX`` escapes as replaced before lexing (rdflib does; oxigraph only
  inside strings and IRIs), so when the text has such escapes the expanded text is checked too,
  read leniently (what the expanded text makes of a quote is not trusted);
- the parser recurses on runs of unary operators (``!!!…!true``, 20,000 deep, segfaults it)
  and builds a left-deep tree of a long chain (40,000 ``+``, 10,000 ``UNION``, 9,000 triple
  patterns each segfault it), so a run of ``!``/``-``/``+``/``^`` counts as nesting and the
  operators at one bracket level are bounded (``max_terms``; ``INSERT DATA``/``DELETE DATA``
  blocks are data, not a tree, and are exempt).

The same tokens place the SPARQL Protocol's ``using-graph-uri`` / ``using-named-graph-uri``
dataset into an update as ``USING`` clauses (:func:`with_using`), because pyoxigraph's
``Store.update`` takes no dataset argument; the graph IRIs are checked by ``pyoxigraph.NamedNode``
and written in its N-Triples form, so they cannot change the update's structure.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass

import pyoxigraph as ox

from ...core.errors import QueryError
from ...core.lexer import Token, expand_codepoint_escapes, tokenize
from .shape import join_operands

_OPEN = "{(["
_CLOSE = "})]"
_UNARY = frozenset("!-+^")
#: Tokens that chain operands into one left-deep tree: binary operators, pattern separators, UNION...
_CHAIN_PUNCT = frozenset({".", ",", ";", "||", "&&", "=", "!=", "<", ">", "<=", ">=", "+", "-", "*", "/", "|"})
_CHAIN_WORDS = frozenset({"UNION", "OPTIONAL", "MINUS", "FILTER", "BIND", "GRAPH", "VALUES", "SERVICE"})


class RequestRefused(Exception):
    """A request the server will not run; ``status`` is the HTTP status to answer with.

    ``retry_after`` (seconds), when given, is sent as ``Retry-After`` (a 503 the client may retry).
    """

    def __init__(self, status: int, message: str, *, retry_after: int | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.retry_after = retry_after


@dataclass(frozen=True, slots=True)
class Limits:
    """What a query or update may contain.

    ``max_length`` is in characters; ``max_depth`` counts ``{`` ``(`` ``[`` open at once, plus
    the unary operators in a run; ``max_terms`` bounds the operators and separators at one
    bracket level; ``max_joins`` the triple patterns and groups joined in one group, which the
    engine's planner orders in a time that grows steeply with them
    (:func:`craftrdf.publishing.server.shape.join_operands`); ``allow_load`` lets ``LOAD`` through
    (to :mod:`craftrdf.publishing.server.load`, which fetches only the operator's URLs). ``SERVICE``
    is always refused: the engine runs without a network.
    """

    max_length: int = 100_000
    max_depth: int = 64
    max_terms: int = 1_000
    max_joins: int = 48
    allow_load: bool = False


def request_tokens(text: str) -> list[Token]:
    """The request's tokens (comments included); a text the lexer cannot read is refused with 400."""
    try:
        return list(tokenize(text, comments=True))
    except QueryError as exc:
        raise RequestRefused(400, str(exc)) from None


def _readings(text: str) -> list[list[Token]]:
    """The tokens of ``text`` as the grammar reads it, then of each codepoint-escape expansion (leniently)."""
    readings = [request_tokens(text)]
    if "\\u" in text or "\\U" in text:
        for expanded in dict.fromkeys(expand_codepoint_escapes(text, greedy=g) for g in (False, True)):
            if expanded != text:
                readings.append(list(tokenize(expanded, lenient=True)))
    return readings


def _keyword_in(tok: Token) -> str | None:
    """``LOAD`` or ``SERVICE`` if oxigraph could read one out of this token (see the module doc)."""
    if tok.kind == "keyword":
        word = tok.text.upper()
    elif tok.kind == "pname":
        word = tok.text.partition(":")[0].upper()
    else:
        return None
    for kw in ("SERVICE", "LOAD"):
        if kw in word:
            return kw
    return None


def _refuse_keyword(kw: str, limits: Limits) -> None:
    if kw == "LOAD" and not limits.allow_load:
        raise RequestRefused(403, "LOAD is disabled on this server (it would make the server fetch a URL)")
    if kw == "SERVICE":
        raise RequestRefused(403, "SERVICE is not offered: queries run without network access (no federated queries)")


def _too_deep(deepest: int, limits: Limits) -> RequestRefused:
    return RequestRefused(400, f"query nests brackets {deepest} deep; the limit is {limits.max_depth}")


def _check_tokens(tokens: Sequence[Token], limits: Limits) -> None:
    """Refuse a reading that nests too deep, chains too many terms at one level, or says LOAD/SERVICE."""
    terms = [0]  # chain tokens per open bracket level (the outermost level too)
    data = [False]  # is the bracket a DATA block (INSERT DATA / DELETE DATA)?
    run = 0  # unary operators in a row
    previous: Token | None = None
    for tok in tokens:
        if tok.kind == "comment":
            continue
        kw = _keyword_in(tok)
        if kw is not None:
            _refuse_keyword(kw, limits)
        unary = tok.kind == "punct" and tok.text in _UNARY
        run = run + 1 if unary else 0
        if len(terms) - 1 + run > limits.max_depth:
            raise _too_deep(len(terms) - 1 + run, limits)
        if tok.kind == "punct" and tok.text in _OPEN:
            terms.append(0)
            data.append(data[-1] or (tok.text == "{" and previous is not None and previous.kw("DATA")))
            if len(terms) - 1 > limits.max_depth:
                raise _too_deep(len(terms) - 1, limits)
        elif tok.kind == "punct" and tok.text in _CLOSE:
            if len(terms) > 1:
                terms.pop()
                data.pop()
        elif not data[-1] and (
            (tok.kind == "punct" and tok.text in _CHAIN_PUNCT)
            or (tok.kind == "keyword" and tok.text.upper() in _CHAIN_WORDS)
        ):
            terms[-1] += 1
            if terms[-1] > limits.max_terms:
                raise RequestRefused(
                    400,
                    f"query chains more than {limits.max_terms:,} operators or patterns at one level; "
                    "split it, or use VALUES for long lists",
                )
        previous = tok


def check_request(text: str, limits: Limits) -> None:
    """Raise :class:`RequestRefused` when ``text`` is too long, nests too deep, or uses LOAD/SERVICE.

    Too long, too deep, too many chained terms or joined patterns → 400, LOAD or SERVICE → 403. Nothing is
    parsed beyond tokens, so this is safe on any input, including input that would crash the engine.

    >>> check_request("SELECT * { { { } } }", Limits(max_depth=2))
    Traceback (most recent call last):
    ...
    craftrdf.publishing.server.guard.RequestRefused: query nests brackets 3 deep; the limit is 2

    Texts that passed (up to :data:`CACHED_LENGTH` characters) are remembered, the last 1,024:
    clients send the same queries again and again, and lexing them was half of the server's own
    time per simple query (docs/benchmarks.md, "Server throughput against oxigraph serve").
    """
    if len(text) > limits.max_length:
        raise RequestRefused(400, f"query is {len(text):,} characters long; the limit is {limits.max_length:,}")
    if len(text) <= CACHED_LENGTH:
        _passes(text, limits)
    else:
        _check(text, limits)


#: The longest text whose passing the guard remembers (so the cache holds at most ~8 MB of text).
CACHED_LENGTH = 8192


@functools.lru_cache(maxsize=1024)
def _passes(text: str, limits: Limits) -> None:
    """:func:`_check`, remembered for texts that pass (a refusal raises, and is not cached)."""
    _check(text, limits)


def _check(text: str, limits: Limits) -> None:
    """Refuse ``text`` when one of its readings breaks a limit (see :func:`check_request`)."""
    for reading in _readings(text):
        _check_tokens(reading, limits)
        joins = join_operands(reading)
        if joins > limits.max_joins:
            raise RequestRefused(
                400,
                f"query joins {joins:,} triple patterns and groups in one group; the limit is {limits.max_joins:,} "
                "(the engine's planning time grows steeply with them); split it, or use VALUES for long lists",
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
    400, as the SPARQL 1.1 Protocol requires; so does a DELETE WHERE (which takes no USING)
    and an update with no operation the parameters could apply to (never silently ignored).
    Graph IRIs must be absolute (ValueError from pyoxigraph becomes a 400 too).
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
    for op in _operations(request_tokens(update)):
        body = _after_prologue(op)
        words = [t.text.upper() for t in body if t.kind == "keyword"]
        if not body or body[0].kind != "keyword" or words[0] not in ("INSERT", "DELETE", "WITH"):
            continue
        if len(body) > 1 and words[0] == "DELETE" and body[1].kw("WHERE"):
            # DELETE WHERE takes no USING (SPARQL 1.1 Update, 3.1.3.3): the parameters cannot apply
            raise RequestRefused(
                400,
                "using-graph-uri / using-named-graph-uri cannot apply to DELETE WHERE (it takes no USING); "
                "write it as DELETE { … } WHERE { … }",
            )
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
    if not inserts:
        raise RequestRefused(
            400,
            "using-graph-uri / using-named-graph-uri apply to INSERT/DELETE … WHERE operations, "
            "and this update has none; drop the parameters",
        )
    for pos in reversed(inserts):
        update = update[:pos] + clause + " " + update[pos:]
    return update
