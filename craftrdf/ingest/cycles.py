"""Find ``is_a`` cycles in an ontology's quads as they stream past, and say which classes form them.

An ``is_a`` cycle makes the classes in it equivalent, which an OBO file never means to say:
it is a data error. It is not fatal: the ontology still loads, with one
:class:`~craftrdf.core.errors.DataWarning` per cycle naming its classes, and the parts of craftrdf
that need a DAG (Wang similarity) say on their pages that they cannot compute it.

Cycles are the strongly connected components of the ``rdfs:subClassOf`` graph with more
than one class, plus self-loops, found with Tarjan's algorithm (written iteratively, so an
ontology's depth is not bounded by Python's recursion limit). Only edges between IRIs are
followed: OWL restrictions (blank nodes) are not ``is_a``.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterable, Iterator, Mapping, Sequence

from ..core.curie import CurieMap
from ..core.errors import DataWarning
from ..core.vocab import RDFS

_SUBCLASS = f" <{RDFS.subClassOf}> <"
_SHOWN = 12  # classes named per cycle in a warning


def strongly_connected_components(successors: Mapping[str, Iterable[str]]) -> Iterator[list[str]]:
    """The strongly connected components of a directed graph (node -> successors), one by one.

    Tarjan's algorithm, iteratively (an ontology's depth is not bounded by Python's recursion
    limit). A component comes after every component it reaches, so a caller folding values
    up a hierarchy (node -> parents) finds its parents' results already computed. Nodes that
    only appear as successors are components too. Members are in the order the search
    closed them; a one-node component says nothing about a self-loop.

    >>> list(strongly_connected_components({"a": ["b"], "b": ["a", "c"]}))
    [['c'], ['b', 'a']]
    """
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    for root in list(successors):
        if root in index:
            continue
        work: list[tuple[str, Iterator[str]]] = [(root, iter(successors.get(root, ())))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, succ = work[-1]
            for nxt in succ:
                if nxt not in index:
                    index[nxt] = low[nxt] = len(index)
                    stack.append(nxt)
                    on_stack.add(nxt)
                    work.append((nxt, iter(successors.get(nxt, ()))))
                    break
                if nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.append(member)
                        if member == node:
                            break
                    yield component


def find_cycles(parents: Mapping[str, Sequence[str]]) -> list[list[str]]:
    """The cycles of a directed graph (node -> successors), each as its sorted nodes; sorted.

    A cycle is a strongly connected component with two or more nodes, or one node with an
    edge to itself.

    >>> find_cycles({"a": ["b"], "b": ["c"], "c": ["a", "d"], "d": ["d"], "e": ["a"]})
    [['a', 'b', 'c'], ['d']]
    """
    return sorted(
        sorted(c) for c in strongly_connected_components(parents) if len(c) > 1 or c[0] in parents.get(c[0], ())
    )


def warn_is_a_cycles(lines: Iterable[str], *, source: str, curies: CurieMap) -> Iterator[str]:
    """Pass N-Quads ``lines`` through; once they are all read, warn about each ``is_a`` cycle among them.

    One :class:`DataWarning` per cycle, naming ``source`` and the classes (as CURIEs where
    they have one). Memory: the ``is_a`` edges between IRIs, kept until the end.
    """
    cm = curies
    parents: dict[str, list[str]] = {}
    for line in lines:
        cut = line.find(_SUBCLASS)
        if cut > 0 and line[0] == "<":
            start = cut + len(_SUBCLASS)
            end = line.find(">", start)
            parents.setdefault(line[1 : cut - 1], []).append(line[start:end])
        yield line
    for cycle in find_cycles(parents):
        names = [cm.compress(c) for c in cycle]
        shown = ", ".join(names[:_SHOWN]) + (f" and {len(names) - _SHOWN} more" if len(names) > _SHOWN else "")
        warnings.warn(
            f"{source}: is_a cycle among {len(names)} class(es): {shown}; loaded as written, but similarity "
            "cannot be computed in this ontology until the cycle is broken",
            DataWarning,
            stacklevel=2,
        )
