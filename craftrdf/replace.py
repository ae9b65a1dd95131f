"""Replace a named graph's content in one SPARQL update: old or new, never neither.

Replacing a batch used to be two steps (drop the graph, then bulk-load the new version); a
``kill -9`` between them left the batch absent. pyoxigraph runs one ``Store.update`` as one
transaction, committed whole or not at all, and so does an Oxigraph server's ``/update``;
neither exposes a transaction that spans several calls. So the replacement is computed as
a difference and sent as one update::

    DELETE DATA { GRAPH <g> { ...triples only the old version has... } } ;
    DELETE { GRAPH <g> { ?s ?p ?o } } WHERE { GRAPH <g> { ?s ?p ?o } FILTER(isBlank(?s) || isBlank(?o)) } ;
    INSERT DATA { GRAPH <g> { ...triples only the new version has, and every one with a blank node... } }

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
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Protocol

import pyoxigraph as ox

__all__ = ["GraphDiff", "replacement_update"]


class _HasTerms(Protocol):
    @property
    def subject(self) -> object: ...
    @property
    def predicate(self) -> object: ...
    @property
    def object(self) -> object: ...


Source = Callable[[], Iterable[_HasTerms]]


@dataclass(frozen=True, slots=True)
class GraphDiff:
    """The one update that turns the old version of a graph into the new one, and what it changes.

    ``removed`` and ``added`` count triples without blank nodes; ``blank_old`` and
    ``blank_new`` the triples with one (all of the old ones are deleted, all of the new
    ones inserted).
    """

    update: str
    removed: int
    added: int
    blank_old: int
    blank_new: int


def _has_blank(t: _HasTerms) -> bool:
    return isinstance(t.subject, ox.BlankNode) or isinstance(t.object, ox.BlankNode)


def _text(t: _HasTerms) -> str:
    return f"{t.subject} {t.predicate} {t.object} ."


def _digest(text: str) -> bytes:
    return hashlib.blake2b(text.encode("utf-8"), digest_size=16).digest()


def _digests(source: Source) -> tuple[set[bytes], int]:
    """Digests of the triples without blank nodes, and the number of those with one."""
    out: set[bytes] = set()
    blank = 0
    for t in source():
        if _has_blank(t):
            blank += 1
        else:
            out.add(_digest(_text(t)))
    return out, blank


def replacement_update(graph: str, old: Source, new: Source) -> GraphDiff:
    """The update replacing graph ``graph``'s triples ``old()`` by ``new()`` (each called twice).

    ``old`` and ``new`` return the triples (or quads: only subject, predicate and object
    are read) of each version, as pyoxigraph terms; the graph is ``graph`` for both.
    """
    g = ox.NamedNode(graph)
    old_keys, blank_old = _digests(old)
    new_keys, blank_new = _digests(new)
    gone = old_keys - new_keys
    fresh = new_keys - old_keys
    del old_keys, new_keys
    out = io.StringIO()
    out.write(f"DELETE DATA {{ GRAPH {g} {{\n")
    for t in old():
        if not _has_blank(t):
            line = _text(t)
            if _digest(line) in gone:
                out.write(line + "\n")
    out.write("} } ;\n")
    if blank_old:
        out.write(
            f"DELETE {{ GRAPH {g} {{ ?s ?p ?o }} }} WHERE {{ GRAPH {g} {{ ?s ?p ?o }} "
            "FILTER(isBlank(?s) || isBlank(?o)) } ;\n"
        )
    out.write(f"INSERT DATA {{ GRAPH {g} {{\n")
    for t in new():
        line = _text(t)
        if _has_blank(t) or _digest(line) in fresh:
            out.write(line + "\n")
    out.write("} }\n")
    return GraphDiff(out.getvalue(), len(gone), len(fresh), blank_old, blank_new)
