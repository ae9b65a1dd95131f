"""Virtuoso 7's departures from SPARQL 1.1 that the query text cannot avoid, worked around by rewriting.

Measured on Debian's ``virtuoso-opensource-7`` (7.2.5.1, "Virtuoso/07.20.3229"):

- A property path inside ``GRAPH ?g { … }`` whose graph is a variable is evaluated over every
  graph of the store: its steps cross graphs, its zero-length matches are lost and it binds
  ``?g`` to graphs it did not walk (openlink/virtuoso-opensource#590, #1078, #951; three library
  queries walk the class hierarchy this way). With the graph given as an IRI it is right. So
  :func:`rewrite` turns each such group into a ``UNION`` of one branch per graph that holds a
  triple whose predicate is one of the IRIs the group names, the graph written as its IRI and
  bound to ``?g`` by a ``BIND`` (a graph holding none of them cannot match the group, unless
  through a variable predicate beside the path: no library query has one).
- The store holds Virtuoso's own graphs beside the data (``virtrdf#``, ``ldp#``,
  ``localuriqaserver/sparql``): a ``GRAPH ?g`` group that names no IRI (``{ ?s ?p ?o }``, the
  only kind that can match them) gets a filter leaving them out, so ``GRAPH ?g`` ranges over the
  graphs craftrdf wrote, as on any other store.
- A literal holding U+0000 beside a character beyond ASCII is stored as the text ``\\u0000``: no
  rewrite can help, so :func:`unstorable_triple` finds it and the remote store refuses the batch.

The answers' own departures (ASK, blank nodes, booleans) are :mod:`craftrdf.store.remote_results`'.
The rewrite runs on the text after values are bound (:func:`craftrdf.core.bindings.bind_values`);
it reads the query with the SPARQL lexer, and adds only IRIs the server itself listed.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import IO

import pyoxigraph as ox

from ..core.lexer import Token, match_bracket, tokenize

#: The graphs a fresh Virtuoso 7 holds for itself (its schema, LDP and URI-QA graphs).
VIRTUOSO_GRAPHS: tuple[str, ...] = (
    "http://www.openlinksw.com/schemas/virtrdf#",
    "http://www.w3.org/ns/ldp#",
    "http://localuriqaserver/sparql",
)

_PATH_OPERATORS = frozenset({"|", "/", "^"})
_MODIFIERS = frozenset({"*", "+", "?"})
_RDF_TYPE = "http://www.w3.org/1999/02/22-rdf-syntax-ns#type"


def is_virtuoso(server_header: str) -> bool:
    """True for the ``Server`` header of a Virtuoso endpoint.

    >>> is_virtuoso("Virtuoso/07.20.3229 (Linux) x86_64-pc-linux-gnu"), is_virtuoso("Oxigraph/0.5.3")
    (True, False)
    """
    return server_header.lower().startswith("virtuoso")


def _prefixes(tokens: Sequence[Token]) -> dict[str, str]:
    """The query's ``PREFIX p: <iri>`` declarations."""
    out = {}
    for i, t in enumerate(tokens[:-2]):
        if t.kw("PREFIX") and tokens[i + 1].kind == "pname" and tokens[i + 2].kind == "iri":
            out[tokens[i + 1].text[:-1]] = tokens[i + 2].text[1:-1]
    return out


def _iri(tok: Token, prefixes: dict[str, str]) -> str | None:
    """The IRI a token names (an IRI, a prefixed name, or ``a``), else None."""
    if tok.kind == "iri":
        return tok.text[1:-1]
    if tok.kind == "pname":
        prefix, _, local = tok.text.partition(":")
        base = prefixes.get(prefix)
        return None if base is None else base + local.replace("\\", "")
    if tok.kind == "keyword" and tok.text == "a":
        return _RDF_TYPE
    return None


def _is_path_operator(tokens: Sequence[Token], i: int) -> bool:
    """True when ``tokens[i]`` is a property path operator: ``|``, ``/``, ``^`` or a modifier on a predicate."""
    t = tokens[i]
    if t.kind != "punct" or i == 0:
        return False
    before = tokens[i - 1]
    if t.text in _MODIFIERS:
        # a modifier is written against its predicate (rdfs:subClassOf*, (a|b)+); multiplication,
        # COUNT(*) and a variable's "?" are not
        return before.end == t.start and (before.kind in ("iri", "pname") or before.text in (")", "a"))
    if t.text in _PATH_OPERATORS:
        after = tokens[i + 1] if i + 1 < len(tokens) else None
        return before.kind in ("iri", "pname") or before.text in (")", "a") or bool(after and after.text == "^")
    return False


def path_predicates(tokens: Sequence[Token], start: int, end: int, prefixes: dict[str, str]) -> set[str] | None:
    """The predicates of the property paths in ``tokens[start:end]``; None when there is no path."""
    found: set[str] | None = None
    for i in range(start, end):
        if not _is_path_operator(tokens, i):
            continue
        found = found if found is not None else set()
        for j in (i - 1, i + 1):
            if start <= j < end:
                name = _iri(tokens[j], prefixes)
                if name is not None:
                    found.add(name)
        # the predicates inside a parenthesized path the modifier applies to: (a|b)+
        if tokens[i].text in _MODIFIERS and tokens[i - 1].text == ")":
            depth = 0
            for j in range(i - 1, start - 1, -1):
                depth += {")": 1, "(": -1}.get(tokens[j].text, 0)
                name = _iri(tokens[j], prefixes)
                if name is not None:
                    found.add(name)
                if depth == 0:
                    break
    return found


def _graph_groups(tokens: Sequence[Token]) -> list[tuple[int, int]]:
    """``(index of GRAPH, index of its group's "}")`` for every ``GRAPH ?var {`` group, outermost first."""
    out = []
    for i, t in enumerate(tokens[:-2]):
        if t.kw("GRAPH") and tokens[i + 1].kind == "var" and tokens[i + 2].text == "{":
            out.append((i, match_bracket(list(tokens), i + 2)))
    return out


def rewrite(text: str, graphs_with: Callable[[Iterable[str]], Sequence[str]]) -> str:
    """``text`` with Virtuoso's path and system-graph departures worked around (see the module docstring).

    ``graphs_with(predicates)`` lists the store's graphs holding a triple with one of the
    predicates (the branches of a rewritten group); Virtuoso's own graphs are never among them.

    >>> q = "SELECT ?g WHERE { GRAPH ?g { ?s <http://e/p>+ ?o } }"
    >>> print(rewrite(q, lambda ps: ["http://e/g1"]))
    SELECT ?g WHERE { { { GRAPH <http://e/g1> { ?s <http://e/p>+ ?o } BIND(<http://e/g1> AS ?g) } } }
    """
    tokens = list(tokenize(text))
    prefixes = _prefixes(tokens)
    edits: list[tuple[int, int, str]] = []  # (start offset, end offset, replacement), outermost first
    covered = -1
    for g, close in _graph_groups(tokens):
        if g <= covered:  # inside a group rewritten whole already
            continue
        var = tokens[g + 1].text
        predicates = path_predicates(tokens, g + 3, close, prefixes)
        if predicates is None:
            # only a group naming no IRI can match Virtuoso's own graphs (GRAPH ?g { ?s ?p ?o }); a
            # filter on every group overflowed Virtuoso's cost model (SQ200) on missing-classes
            if not any(t.kind in ("iri", "pname") for t in tokens[g + 3 : close]):
                excluded = ", ".join(str(ox.NamedNode(s)) for s in VIRTUOSO_GRAPHS)
                edits.append((tokens[close].end, tokens[close].end, f" FILTER({var} NOT IN ({excluded}))"))
            continue
        body = tokens[g + 3 : close]
        # a branch for every graph the group can match in, not only those its paths walk: the
        # group's other patterns (a UNION's other branches) match in graphs without them
        predicates |= {name for t in body if (name := _iri(t, prefixes)) is not None}
        branches = []
        for graph in graphs_with(sorted(predicates)):
            node = str(ox.NamedNode(graph))
            inner = _spliced(text, body, var, node, tokens[g + 2].end, tokens[close].start)
            branches.append(f"{{ GRAPH {node} {{{inner}}} BIND({node} AS {var}) }}")
        replacement = "{ " + (" UNION ".join(branches) if branches else "FILTER(false)") + " }"
        edits.append((tokens[g].start, tokens[close].end, replacement))
        covered = close
    for start, end, new in sorted(edits, reverse=True):
        text = text[:start] + new + text[end:]
    return text


def _spliced(text: str, body: Sequence[Token], var: str, node: str, start: int, end: int) -> str:
    """The text between ``start`` and ``end`` with each token ``var`` replaced by ``node``."""
    out, pos = [], start
    for t in body:
        if t.kind == "var" and t.text[1:] == var[1:]:
            out.append(text[pos : t.start])
            out.append(node)
            pos = t.end
    out.append(text[pos:end])
    return "".join(out)


class GraphLister:
    """The graphs holding given predicates, asked once per set of predicates (for :func:`rewrite`).

    ``select(text)`` runs a SELECT on the server as it is (not rewritten) and returns its rows;
    :meth:`forget` drops what was learnt (after the store is written to).
    """

    _QUERY = "SELECT DISTINCT ?g WHERE {{ VALUES ?p {{ {} }} GRAPH ?g {{ ?s ?p ?o }} }}"

    def __init__(self, select: Callable[[str], Iterable[ox.QuerySolution]]) -> None:
        self._select = select
        self._known: dict[frozenset[str], list[str]] = {}

    def __call__(self, predicates: Iterable[str]) -> list[str]:
        key = frozenset(predicates)
        hit = self._known.get(key)
        if hit is None:
            values = " ".join(str(ox.NamedNode(p)) for p in sorted(key))
            rows = self._select(self._QUERY.format(values))
            found = {r["g"].value for r in rows if isinstance(r["g"], ox.NamedNode)}
            hit = self._known[key] = sorted(found - set(VIRTUOSO_GRAPHS))
        return hit

    def forget(self) -> None:
        """Forget every list (the store's graphs changed)."""
        self._known.clear()


def unstorable_triple(nq: IO[bytes]) -> str | None:
    """The first triple of the N-Quads file ``nq`` that Virtuoso would store changed, as text; None if none.

    That is a literal holding U+0000 (NUL): Virtuoso 7 keeps it, beside a character beyond ASCII, as the six
    characters ``\\u0000`` (``"é\\u0000"`` reads back so). One rule for every literal with the character
    is simpler to state than that condition.

    The bytes are scanned first (N-Quads writes the character as the escape ``\\u0000``, or raw), so a batch
    without it is not parsed a second time.
    """
    nq.seek(0)
    tail = b""
    while chunk := nq.read(1 << 20):
        window = tail + chunk
        if b"\\u0000" in window or b"\\U00000000" in window or b"\x00" in window:
            break
        tail = window[-9:]
    else:
        return None
    nq.seek(0)
    for q in ox.parse(nq, ox.RdfFormat.N_QUADS):
        if isinstance(q.object, ox.Literal) and "\x00" in q.object.value:
            return f"{q.subject} {q.predicate}"
    return None
