"""Replace named graphs' content in one SPARQL update: old or new, never neither.

Replacing a batch used to be two steps (drop the graph, then bulk-load the new version); a
``kill -9`` between them left the batch absent. pyoxigraph runs one ``Store.update`` as one
transaction, committed whole or not at all, and so does an Oxigraph server's ``/update``;
neither exposes a transaction that spans several calls. So the replacement is computed as
a difference and sent as one update::

    DELETE DATA { GRAPH <g> { ...quads only the old version has... } } ;
    DELETE { GRAPH <g> { ?s ?p ?o } } WHERE { GRAPH <g> { ?s ?p ?o } FILTER(isBlank(?s) || isBlank(?o)) } ;
    INSERT DATA { GRAPH <g> { ...quads only the new version has, and every one with a blank node... } }

A batch can span several graphs (an ontology and its derived relations graph): the
difference is taken over all of them, the blank-node deletion repeated per graph, and
a graph the new version no longer fills is dropped, all in the same update.

Blank nodes cannot be named across two parses (and ``DELETE DATA`` forbids them), so triples
holding one are always replaced whole; the middle operation is left out when the old version
has none. Only the difference is written, so a small edit to a large ontology is a small
transaction. The terms in the text are pyoxigraph's own N-Triples serialisation of parsed
terms, never text from the input, so the update's structure cannot be changed by data.

Memory: two passes over each version; between them, a 16-byte digest per triple without a
blank node (old and new), then the update text and the store's transaction, which grow with
the number of triples that change (measured in docs/benchmarks.md, "Atomic replacement").
"""

from __future__ import annotations

import hashlib
import io
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

import pyoxigraph as ox

__all__ = ["GraphDiff", "replacement_update"]

Source = Callable[[], Iterable[ox.Quad]]


@dataclass(frozen=True, slots=True)
class GraphDiff:
    """The one update that turns the old version of some graphs into the new one, and what it changes.

    ``removed`` and ``added`` count quads without blank nodes; ``blank_old`` and
    ``blank_new`` the quads with one (all of the old ones are deleted, all of the new
    ones inserted).
    """

    update: str
    removed: int
    added: int
    blank_old: int
    blank_new: int


def _has_blank(q: ox.Quad) -> bool:
    return isinstance(q.subject, ox.BlankNode) or isinstance(q.object, ox.BlankNode)


def _text(q: ox.Quad) -> str:
    return f"GRAPH {q.graph_name} {{ {q.subject} {q.predicate} {q.object} . }}"


def _digest(text: str) -> bytes:
    return hashlib.blake2b(text.encode("utf-8"), digest_size=16).digest()


def _digests(source: Source) -> tuple[set[bytes], dict[str, int]]:
    """Digests of the quads without blank nodes; per graph, the number of quads with one."""
    out: set[bytes] = set()
    blank: dict[str, int] = {}
    for q in source():
        if _has_blank(q):
            g = str(q.graph_name)
            blank[g] = blank.get(g, 0) + 1
        else:
            out.add(_digest(_text(q)))
    return out, blank


def replacement_update(graphs: Sequence[str], old: Source, new: Source) -> GraphDiff:
    """The update replacing the quads ``old()`` of ``graphs`` by ``new()`` (each called twice).

    ``old`` and ``new`` return pyoxigraph quads, each in one of ``graphs``; a graph of
    ``graphs`` that ``new()`` leaves empty is dropped.
    """
    old_keys, blank_old = _digests(old)
    new_keys, blank_new = _digests(new)
    gone = old_keys - new_keys
    fresh = new_keys - old_keys
    del old_keys, new_keys
    filled: set[str] = set(blank_new)
    out = io.StringIO()
    out.write("DELETE DATA {\n")
    for q in old():
        if not _has_blank(q):
            line = _text(q)
            if _digest(line) in gone:
                out.write(line + "\n")
    out.write("} ;\n")
    for g in blank_old:
        out.write(
            f"DELETE {{ GRAPH {g} {{ ?s ?p ?o }} }} WHERE {{ GRAPH {g} {{ ?s ?p ?o }} "
            "FILTER(isBlank(?s) || isBlank(?o)) } ;\n"
        )
    out.write("INSERT DATA {\n")
    for q in new():
        filled.add(str(q.graph_name))
        line = _text(q)
        if _has_blank(q) or _digest(line) in fresh:
            out.write(line + "\n")
    out.write("}")
    for name in graphs:
        g = str(ox.NamedNode(name))
        if g not in filled:
            out.write(f" ;\nDROP SILENT GRAPH {g}")
    out.write("\n")
    return GraphDiff(out.getvalue(), len(gone), len(fresh), sum(blank_old.values()), sum(blank_new.values()))
