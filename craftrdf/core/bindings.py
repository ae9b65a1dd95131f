"""Values bound into SPARQL text, for endpoints that take no bindings (the SPARQL 1.1 Protocol).

The protocol has no way to bind values, so :func:`bind_values` rewrites the query:
each value is serialized by pyoxigraph (N-Triples syntax, escaped) and enters the
query as one token of a ``VALUES`` block at the start of the query's outermost
``WHERE`` group (and of every subquery that projects the variable, as pyoxigraph
passes bound values into those); a ``BIND(expr AS ?v)`` of a bound variable becomes
the compatibility test pyoxigraph applies to it. The query text is cut at positions
found by the SPARQL lexer (:mod:`craftrdf.core.lexer`); user values are never tokenized or
pasted anywhere else.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import pyoxigraph as ox

from .errors import QueryError
from .lexer import Token, match_bracket, tokenize

Term = ox.NamedNode | ox.Literal


@dataclass(slots=True)
class _Level:
    """A query or subquery: its projection and the token range of its WHERE group."""

    plain: set[str]
    assigned: set[str]
    star: bool
    open: int  # index of the group's "{"
    close: int  # index of its matching "}"
    parent: _Level | None
    select: int = -1  # index of a subquery's SELECT


def _select_level(toks: list[Token], i: int, parent: _Level | None) -> _Level:
    """The level of the SELECT at token ``i``."""
    plain: set[str] = set()
    assigned: set[str] = set()
    star = False
    depth = 0
    j = i + 1
    while j < len(toks):
        t = toks[j]
        if depth == 0 and (t.text == "{" or t.kw("WHERE", "FROM")):
            break
        if t.text == "(":
            depth += 1
        elif t.text == ")":
            depth -= 1
        elif t.kind == "var":
            if depth == 0:
                plain.add(t.text[1:])
            elif toks[j - 1].kw("AS"):
                assigned.add(t.text[1:])
        elif t.text == "*" and depth == 0:
            star = True
        j += 1
    while j < len(toks) and toks[j].text != "{":
        j += 1
    if j == len(toks):
        raise QueryError("a SELECT without a WHERE group")
    return _Level(plain, assigned, star, j, match_bracket(toks, j), parent, i)


def _outer_group(toks: list[Token]) -> int:
    """Index of the outermost query's WHERE ``{`` (CONSTRUCT templates are skipped)."""
    for i, t in enumerate(toks):
        if t.kw("SELECT", "ASK", "DESCRIBE", "CONSTRUCT"):
            j = i + 1
            if t.kw("CONSTRUCT") and j < len(toks) and toks[j].text == "{":
                j = match_bracket(toks, j) + 1
            while j < len(toks) and toks[j].text != "{":
                j += 1
            if j < len(toks):
                return j
            break
    raise QueryError("cannot find the query's WHERE group to bind values into")


def query_form(sparql: str) -> str:
    """SELECT, ASK, CONSTRUCT or DESCRIBE: the form of a query, read past prefixes and comments.

    >>> query_form("# a SELECT that LOADs nothing\\nPREFIX x: <http://e/#>\\nask { }")
    'ASK'
    """
    for t in list(tokenize(sparql)):
        if t.kw("SELECT", "ASK", "DESCRIBE", "CONSTRUCT"):
            return t.text.upper()
        if t.kind == "keyword" and t.text.upper() not in ("PREFIX", "BASE"):
            break
    raise QueryError("not a SPARQL query (SELECT, ASK, CONSTRUCT or DESCRIBE); updates go elsewhere")


def _term(name: str, value: object) -> ox.NamedNode | ox.Literal:
    if isinstance(value, (ox.NamedNode, ox.Literal)):
        return value  # written as pyoxigraph's N-Triples serialization, escaped
    raise QueryError(f"?{name}: only IRIs and literals can be bound in a remote query, not {value!r}")


def same_term(expr: str, value: ox.NamedNode | ox.Literal) -> str:
    """A SPARQL expression true when ``expr`` is the term ``value``: ``sameTerm`` spelt out for a literal.

    Virtuoso 7 answers ``sameTerm(?stored, "a")`` false for a stored ``"a"`` (it keeps plain
    strings apart from the ``xsd:string`` a constant gets), while comparing lexical form,
    datatype and language tag separately gives what the RDF 1.1 term equality gives everywhere.

    >>> same_term("?x", ox.Literal("a"))
    '(isLiteral(?x) && STR(?x) = "a" && DATATYPE(?x) = <http://www.w3.org/2001/XMLSchema#string> && LANG(?x) = "")'
    """
    if isinstance(value, ox.NamedNode):
        return f"sameTerm({expr}, {value})"
    lexical, language = ox.Literal(value.value), ox.Literal(value.language or "")
    return (
        f"(isLiteral({expr}) && STR({expr}) = {lexical} && DATATYPE({expr}) = {value.datatype} "
        f"&& LANG({expr}) = {language})"
    )


def _bind_filter(expr: str, var: str, value: ox.NamedNode | ox.Literal) -> str:
    """What replaces ``BIND(expr AS ?var)`` when ``?var`` is bound to ``value``: rows where ``expr`` equals it or fails.

    ``COALESCE(equal, true)`` says that in one filter. Virtuoso 7.2 answers false for a string
    comparison inside COALESCE or IF when the string has a character beyond ASCII (measured:
    ``COALESCE(STR(?s) = "é", true)`` drops the row holding ``"é"``), so such a value is compared
    outside any function: the expression is bound to a variable of its own, unbound when it fails.

    >>> _bind_filter("?a", "n", ox.Literal("x")).startswith("FILTER(COALESCE(")
    True
    >>> _bind_filter("?a", "n", ox.Literal("é")).split(" FILTER")[0]
    'BIND((?a) AS ?craftrdf_bound_n)'
    """
    if isinstance(value, ox.NamedNode) or value.value.isascii():
        return f"FILTER(COALESCE({same_term(f'({expr})', value)}, true))"
    own = f"?craftrdf_bound_{var}"
    return f"BIND(({expr}) AS {own}) FILTER(!BOUND({own}) || {same_term(own, value)})"


def bind_values(sparql: str, substitutions: Mapping[str, Term]) -> str:
    """The query text with ``substitutions`` bound as pyoxigraph's ``substitutions`` would bind them.

    pyoxigraph binds a value throughout the query, except inside subqueries that do not
    project the variable. The rewrite does the same with standard SPARQL: a
    ``VALUES (?v) { (value) }`` block starts the query's ``WHERE`` group (and that of each
    subquery projecting ``?v``) and every group inside that uses ``?v``, so the variable is
    bound wherever it is used; an IRI also replaces the variable inside those groups, so the
    engine plans with a constant (a graph IRI after ``GRAPH``: one graph read instead of a
    join over all of them); and a
    ``BIND(expr AS ?v)`` becomes ``FILTER(COALESCE(sameTerm(expr, value), true))`` (the
    sameTerm spelt out for a literal: :func:`same_term`), which keeps what pyoxigraph keeps (a
    row whose expression equals the value, or fails). Values are serialized by pyoxigraph
    (N-Triples syntax, escaped) and inserted as single tokens at positions found by
    :func:`_tokens`; nothing else of them reaches the text.

    Like pyoxigraph, a SELECT query must project every bound variable (RuntimeError
    otherwise). QueryError for a value that is neither an IRI nor a literal, or a variable
    the query computes in a SELECT list.

    >>> print(bind_values('SELECT ?x WHERE { ?x ?p ?o }', {"x": ox.NamedNode("http://e/a")}))
    SELECT ?x WHERE { VALUES (?x) { (<http://e/a>) } <http://e/a> ?p ?o }
    >>> print(bind_values('SELECT ?x WHERE { ?s ?p ?x }', {"x": ox.Literal('a "b"')}))
    SELECT ?x WHERE { VALUES (?x) { ("a \\"b\\"") } ?s ?p ?x }
    """
    if not substitutions:
        return sparql
    names = list(substitutions)
    values = {n: _term(n, substitutions[n]) for n in names}
    toks = list(tokenize(sparql))
    levels = _levels(toks, names)

    def bound(level: _Level) -> list[str]:
        """The bound variables visible inside ``level``'s group."""
        if level.parent is None:
            return names
        return [n for n in bound(level.parent) if n in level.plain or (level.star and _mentions(toks, level, n))]

    edits = _Edits({}, {})
    for level in levels:
        here = bound(level)
        clash = [n for n in here if n in level.assigned]
        if clash:
            raise QueryError(
                f"?{clash[0]} is computed in a SELECT list of the query and cannot be bound on a remote store"
            )
        if here:
            iris = {n for n in here if isinstance(substitutions[n], ox.NamedNode)}
            _edit_level(sparql, toks, levels, level, here, iris, values, edits)
    return _splice(sparql, toks, edits)


def _levels(toks: list[Token], names: list[str]) -> list[_Level]:
    """The query's levels: the outer query, then each subquery (with its parent), in text order.

    RuntimeError, as pyoxigraph raises it, when a SELECT does not project a bound variable.
    """
    outer_open = _outer_group(toks)
    form = next(t for t in toks if t.kw("SELECT", "ASK", "DESCRIBE", "CONSTRUCT"))
    if form.kw("SELECT"):
        outer = _select_level(toks, toks.index(form), None)
    else:
        outer = _Level(set(names), set(), False, outer_open, match_bracket(toks, outer_open), None)
    for n in names:
        if form.kw("SELECT") and not (outer.star or n in outer.plain or n in outer.assigned):
            # the same refusal, and message, as pyoxigraph's
            raise RuntimeError(f"The SPARQL query does not contains variable ?{n} in its SELECT projection")
    levels = [outer]
    for i in range(outer.open + 1, outer.close):
        if toks[i].kw("SELECT"):
            if toks[i - 1].text != "{":
                raise QueryError("a subquery must be alone in its group")
            parent = max((lv for lv in levels if lv.open < i < lv.close), key=lambda lv: lv.open)
            levels.append(_select_level(toks, i, parent))
    return levels


@dataclass(slots=True)
class _Edits:
    """What the rewrite changes, filled in level by level: text inserted after a token; token runs replaced."""

    inserts: dict[int, str]  # token index -> text inserted after it
    replaced: dict[int, tuple[int, str]]  # first token index -> (last token index, new text)


def _edit_level(
    sparql: str,
    toks: list[Token],
    levels: list[_Level],
    level: _Level,
    here: list[str],
    iris: set[str],
    values: Mapping[str, ox.NamedNode | ox.Literal],
    edits: _Edits,
) -> None:
    """Record the edits of one level: VALUES blocks, IRIs for variables, BINDs made filters."""
    replaced = edits.replaced
    # a subquery, from its SELECT to the end of its modifiers, is its own level
    skip = {lv.select: match_bracket(toks, lv.select - 1) for lv in levels if lv.parent is level}
    mentions: dict[int, set[str]] = {level.open: set(here)}  # group -> variables to bind in it
    stack: list[int] = []
    i = level.open
    while i <= level.close:
        t = toks[i]
        if i in skip:
            i = skip[i]
            continue
        if t.kw("VALUES"):  # its variable list stays, its data block is not a group
            j = i
            while toks[j].text != "{":
                j += 1
            i = match_bracket(toks, j) + 1
            continue
        bind = _bind_at(toks, i)
        if bind is not None and bind[2] in here:
            expr_from, expr_to, var, last = bind
            expr = sparql[toks[expr_from].start : toks[expr_to].end]
            replaced[i] = (last, _bind_filter(expr, var, values[var]))
            mentions.setdefault(stack[-1], set()).update(
                u.text[1:] for u in toks[expr_from : expr_to + 1] if u.kind == "var" and u.text[1:] in here
            )
            i = last + 1
            continue
        if t.text == "{":
            stack.append(i)
            if toks[i + 1].kw("SELECT"):
                mentions[i] = set()  # a subquery's wrapper: nothing may precede the SELECT
        elif t.text == "}":
            stack.pop()
        elif t.kind == "var" and t.text[1:] in here:
            n = t.text[1:]
            if n in iris and not toks[i - 1].kw("AS") and not (toks[i - 1].text == "(" and toks[i - 2].kw("BOUND")):
                replaced[i] = (i, str(values[n]))
            elif not toks[stack[-1] + 1].kw("SELECT"):
                mentions.setdefault(stack[-1], set()).add(n)
        i += 1
    for g, ns in mentions.items():
        if ns:
            chosen = [n for n in here if n in ns]
            edits.inserts[g] = (
                " VALUES ("
                + " ".join("?" + n for n in chosen)
                + ") { ("
                + " ".join(str(values[n]) for n in chosen)
                + ") }"
            )


def _splice(sparql: str, toks: list[Token], edits: _Edits) -> str:
    """The query text with the edits applied, everything else as it was."""
    out: list[str] = []
    pos = 0
    i = 0
    while i < len(toks):
        t = toks[i]
        if i in edits.replaced:
            last, text = edits.replaced[i]
            out.append(sparql[pos : t.start])
            out.append(text)
            pos = toks[last].end
            i = last + 1
            continue
        if i in edits.inserts:
            out.append(sparql[pos : t.end])
            out.append(edits.inserts[i])
            pos = t.end
        i += 1
    out.append(sparql[pos:])
    return "".join(out)


def _mentions(toks: list[Token], level: _Level, name: str) -> bool:
    return any(t.kind == "var" and t.text[1:] == name for t in toks[level.open : level.close])


def _bind_at(toks: list[Token], i: int) -> tuple[int, int, str, int] | None:
    """For ``BIND ( expr AS ?v )`` starting at token ``i``: expr's token range, v, the ``)`` index."""
    if not (toks[i].kw("BIND") and i + 1 < len(toks) and toks[i + 1].text == "("):
        return None
    depth = 0
    for j in range(i + 1, len(toks)):
        if toks[j].text == "(":
            depth += 1
        elif toks[j].text == ")":
            depth -= 1
            if depth == 0:
                if j >= i + 5 and toks[j - 2].kw("AS") and toks[j - 1].kind == "var":
                    return i + 2, j - 3, toks[j - 1].text[1:], j
                return None
    return None
