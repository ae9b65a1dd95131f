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

Both versions come as N-Triples files written by pyoxigraph's serializer (``Store.dump`` of
the graph, ``pyoxigraph.serialize`` of the new quads), one triple per line in one canonical
form, so lines compare as triples and the per-triple work in Python is a line and a digest.
Memory: two passes over each file; between them, a 16-byte digest per triple without a blank
node (old and new), then the update text and the store's transaction, which grow with the
number of triples that change (measured in docs/benchmarks.md, "Atomic replacement").
"""

from __future__ import annotations

import hashlib
import io
import tempfile
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import IO

import pyoxigraph as ox

__all__ = ["GraphDiff", "ntriples_file", "replacement_update"]


@dataclass(frozen=True, slots=True)
class GraphDiff:
    """The one update that turns the old version of a graph into the new one, and what it changes.

    ``removed`` and ``added`` count distinct triples without blank nodes; ``blank_old`` and
    ``blank_new`` the triples with one (all of the old ones are deleted, all of the new
    ones inserted).
    """

    update: str
    removed: int
    added: int
    blank_old: int
    blank_new: int


def ntriples_file(triples: Iterable[ox.Triple]) -> IO[bytes]:
    """A temporary file (rewound) holding ``triples`` as pyoxigraph's N-Triples; the caller closes it."""
    out = tempfile.TemporaryFile()  # noqa: SIM115 - handed to the caller, who closes it
    ox.serialize(triples, out, ox.RdfFormat.N_TRIPLES)
    out.seek(0)
    return out


def _has_blank(line: bytes) -> bool:
    """True when the subject or object of an N-Triples line is a blank node.

    In pyoxigraph's N-Triples the subject is ``<iri>`` or ``_:id`` and the predicate
    ``<iri>``; an IRI holds neither a space nor ``>``, so the object starts after the
    predicate's ``> ``.
    """
    if line.startswith(b"_:"):
        return True
    after_subject = line.index(b"> ") + 2
    after_predicate = line.index(b"> ", after_subject) + 2
    return line.startswith(b"_:", after_predicate)


def _lines(nt: IO[bytes]) -> Iterator[bytes]:
    nt.seek(0)
    for line in nt:
        line = line.rstrip(b"\r\n")
        if line:
            yield line


def _digest(line: bytes) -> bytes:
    return hashlib.blake2b(line, digest_size=16).digest()


def _digests(nt: IO[bytes]) -> tuple[set[bytes], int]:
    """Digests of the lines without blank nodes, and the number of lines with one."""
    out: set[bytes] = set()
    blank = 0
    for line in _lines(nt):
        if _has_blank(line):
            blank += 1
        else:
            out.add(_digest(line))
    return out, blank


def replacement_update(graph: str, old: IO[bytes], new: IO[bytes]) -> GraphDiff:
    """The update replacing graph ``graph``'s triples ``old`` by ``new``, both N-Triples from pyoxigraph.

    ``old`` and ``new`` are binary files read twice from the start (see
    :func:`ntriples_file`; ``Store.dump(..., from_graph=...)`` writes the same form).
    """
    g = ox.NamedNode(graph)
    old_keys, blank_old = _digests(old)
    new_keys, blank_new = _digests(new)
    gone = old_keys - new_keys
    fresh = new_keys - old_keys
    del old_keys, new_keys
    out = io.StringIO()
    out.write(f"DELETE DATA {{ GRAPH {g} {{\n")
    for line in _lines(old):
        if not _has_blank(line) and _digest(line) in gone:
            out.write(line.decode("utf-8") + "\n")
    out.write("} } ;\n")
    if blank_old:
        out.write(
            f"DELETE {{ GRAPH {g} {{ ?s ?p ?o }} }} WHERE {{ GRAPH {g} {{ ?s ?p ?o }} "
            "FILTER(isBlank(?s) || isBlank(?o)) } ;\n"
        )
    out.write(f"INSERT DATA {{ GRAPH {g} {{\n")
    for line in _lines(new):
        if _has_blank(line) or _digest(line) in fresh:
            out.write(line.decode("utf-8") + "\n")
    out.write("} }\n")
    return GraphDiff(out.getvalue(), len(gone), len(fresh), blank_old, blank_new)
