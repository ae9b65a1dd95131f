"""How many joins a query asks the engine to plan, read from its tokens: the guard's bound on planning time.

pyoxigraph 0.5.13 plans a query (orders its joins) before it runs it, and the planning time grows
steeply with the operands joined in one group: measured on a quiet machine, 100 triple patterns
in one group take 3 s to plan, 100 sibling groups 3 to 5 s, an RDF collection of 100 items (200
patterns) 2.4 s, 400 sibling sub-SELECTs 1.4 s; each doubling costs 10 to 30 times more
(docs/server.md, *Queries the engine cannot take*). Planning cannot be interrupted, so such a
query would hold its worker until the time limit. :func:`join_operands` counts, on the lexer's
tokens, what the planner joins:

- a triple pattern is one operand: one per triples block in a group, plus one per ``;`` and ``,``
  (each starts another pattern), two per item of a collection ``( … )`` (``rdf:first``,
  ``rdf:rest``), and the patterns of a blank-node list ``[ … ]``;
- a nested group (``{ … }``, ``OPTIONAL``, ``MINUS``, ``GRAPH``, ``EXISTS``, a sub-SELECT) adds
  its own count to its parent's, as the planner flattens them into one join;
- the branches of a ``UNION`` are planned apart: they add the largest branch's count, not the sum;
- ``VALUES`` blocks, ``INSERT DATA``/``DELETE DATA`` blocks and ``CONSTRUCT``/``INSERT``/``DELETE``
  templates are data, not joins; expressions (``FILTER``, ``BIND``, select expressions) count nothing.

The count is the largest of any group's, so a query of a few patterns in many UNION branches
stays cheap, as it is to plan.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ...core.lexer import Token

_TERMS = frozenset({"iri", "pname", "var", "string", "number", "bnode"})
#: Keywords after which the next ``{`` is data or a template, not a group pattern.
_DATA_BEFORE = frozenset({"DATA", "VALUES", "CONSTRUCT", "INSERT", "DELETE"})
#: Keywords taking one expression, after which a group's triples go on.
_EXPRESSION = frozenset({"FILTER", "BIND"})


@dataclass(slots=True)
class _Frame:
    """One open bracket: what kind it is, and (for a group) the operands counted in it so far."""

    kind: str  # "group", "data" (counts nothing), "list" (collection), "bnode", "expr"
    own: int = 0  # triple patterns directly in this group
    joins: int = 0  # counts of the nested groups joined here
    alt: int | None = None  # largest branch of an open UNION
    last: int = 0  # count of the last nested group
    union: bool = False  # the last token here was UNION
    block: bool = False  # inside a triples block (its first pattern counted)
    skip: str = ""  # "kw": after a keyword until `{` or `.`; "expr": until one expression closes

    def total(self) -> int:
        return self.own + self.joins + (self.alt or 0)


def _term_kind(tok: Token) -> bool:
    return tok.kind in _TERMS or (tok.kind == "keyword" and tok.text.upper() in ("A", "TRUE", "FALSE"))


def join_operands(tokens: Sequence[Token]) -> int:
    """The largest number of operands (triple patterns and nested groups) joined in one group of the query."""
    stack: list[_Frame] = []
    worst = 0
    data_next = False  # the next `{` opens data (after VALUES, DATA, a template keyword)
    previous = ""
    for tok in tokens:
        if tok.kind == "comment":
            continue
        top = stack[-1] if stack else None
        text = tok.text.upper() if tok.kind == "keyword" else tok.text
        after, previous = previous, text if tok.kind == "punct" else ""
        if tok.kind == "punct" and text in "{([":
            stack.append(_open(text, top, data_next))
            data_next = data_next and text != "{"
            continue
        if tok.kind == "punct" and text in "})]":
            if not stack:
                continue
            closed = stack.pop()
            if closed.kind == "group":
                worst = max(worst, closed.total())
            parent = stack[-1] if stack else None
            if parent is not None:
                _closed_child(parent, closed)
            continue
        if tok.kind == "keyword" and text == "WHERE":
            data_next = False  # CONSTRUCT WHERE { … }, DELETE WHERE { … }: the pattern is a pattern
        if top is None or top.kind in ("data", "expr"):
            if tok.kind == "keyword" and text in _DATA_BEFORE:
                data_next = True
            continue
        if top.kind == "list":
            if _term_kind(tok) and after != "^^":  # "1"^^xsd:int is one item
                top.own += 2
            continue
        _in_pattern(top, tok, text)
        if tok.kind == "keyword" and text in _DATA_BEFORE and text != "INSERT" and text != "DELETE":
            data_next = True
    return worst


def _open(bracket: str, top: _Frame | None, data_next: bool) -> _Frame:
    """The frame a bracket opens, read from where it stands."""
    if bracket == "{":
        if data_next or (top is not None and top.kind == "data"):
            return _Frame("data")
        return _Frame("group")
    if top is None or top.kind in ("data", "expr") or (top.kind == "group" and top.skip):
        return _Frame("data" if top is not None and top.kind == "data" else "expr")
    # a bracket where a term stands in a triples block: a collection, or a blank-node list
    if top.kind == "group" and not top.block:  # it starts a triples block: that block's first pattern
        top.block = True
        top.own += 1
    return _Frame("list" if bracket == "(" else "bnode")


def _closed_child(parent: _Frame, closed: _Frame) -> None:
    """Add what a closed bracket counted to its parent (a group, a list, a blank-node list)."""
    if closed.kind in ("list", "bnode"):
        parent.own += closed.total() + (2 if parent.kind == "list" else 0)  # a list as an item of a list
        return
    if (closed.kind == "expr" and parent.skip == "expr") or closed.kind == "data":  # FILTER (…), VALUES … { … }
        parent.skip = ""
        return
    if closed.kind != "group":
        return
    if parent.skip:  # OPTIONAL { }, GRAPH ?g { }, EXISTS { }: the keyword's group is over
        parent.skip = ""
    parent.block = False
    total = closed.total()
    if parent.union:
        parent.alt = max(parent.alt or 0, total)
        parent.union = False
        parent.last = 0
        return
    if parent.alt is not None:  # the alternation before this group is complete: it joins as its largest branch
        parent.joins += parent.alt
        parent.alt = None
    parent.joins += total
    parent.last = total


def _in_pattern(frame: _Frame, tok: Token, text: str) -> None:
    """Count a token standing in a group or a blank-node list (not in brackets of its own)."""
    if tok.kind == "keyword" and text == "UNION" and frame.kind == "group":
        if frame.alt is None:
            frame.joins -= frame.last
            frame.alt = frame.last
        frame.union = True
        return
    if tok.kind == "keyword" and not _term_kind(tok):
        if frame.skip != "expr":  # FILTER regex(…), FILTER NOT EXISTS { … }: one expression still
            frame.skip = "expr" if text in _EXPRESSION else "kw"
        frame.block = False
        return
    if frame.skip == "kw" and tok.kind == "punct" and text == ".":
        frame.skip = ""
    if frame.skip:
        return
    if tok.kind == "punct" and text in (";", ","):
        frame.own += 1
    elif tok.kind == "punct" and text == ".":
        frame.block = False
    elif _term_kind(tok) and not frame.block:
        frame.block = True
        frame.own += 1
