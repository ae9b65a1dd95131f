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

Both versions come as N-Quads files in pyoxigraph's own serialisation (``Store.dump`` of each
graph, :func:`nquads_file` of the new quads), one quad per line in one canonical form, so
lines compare as quads and the work per quad in Python is one line and one digest (building
each quad's text from term objects in Python cost 1.5-2x more, docs/benchmarks.md).
Memory: two passes over each file; between them, a 16-byte digest per quad without a blank
node (old and new), then the update text and the store's transaction, which grow with the
number of quads that change (measured in docs/benchmarks.md, "Atomic replacement").
"""

from __future__ import annotations

import hashlib
import io
import logging
import tempfile
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import IO

import pyoxigraph as ox

logger = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class GraphDiff:
    """The one update that turns the old version of some graphs into the new one, and what it changes.

    ``removed`` and ``added`` count distinct quads without blank nodes; ``blank_old`` and
    ``blank_new`` the quads with one (all of the old ones are deleted, all of the new
    ones inserted).
    """

    update: str
    removed: int
    added: int
    blank_old: int
    blank_new: int


def _named(quads: Iterable[ox.Quad]) -> Iterator[ox.Quad]:
    for q in quads:
        if not isinstance(q.graph_name, ox.NamedNode):
            raise ValueError(f"a quad to compare is not in a named graph: {q}")
        yield q


def nquads_file(quads: Iterable[ox.Quad]) -> IO[bytes]:
    """A temporary file (rewound) of ``quads``, each in a named graph, as pyoxigraph's N-Quads; the caller closes it."""
    out = tempfile.TemporaryFile()  # noqa: SIM115 - handed to the caller, who closes it
    ox.serialize(_named(quads), out, ox.RdfFormat.N_QUADS)
    out.seek(0)
    return out


def dump_graphs(store: ox.Store, graphs: Sequence[ox.NamedNode]) -> IO[bytes]:
    """The named ``graphs`` of ``store`` as one N-Quads file in :func:`nquads_file`'s form (rewound)."""
    out = tempfile.TemporaryFile()  # noqa: SIM115 - handed to the caller, who closes it
    with tempfile.TemporaryFile() as part:
        for g in graphs:
            part.seek(0)
            part.truncate()
            store.dump(part, ox.RdfFormat.N_TRIPLES, from_graph=g)
            suffix = f" {g} .\n".encode()
            part.seek(0)
            for line in part:
                line = line.rstrip(b"\n")
                if line.endswith(b" ."):  # an N-Triples line; the graph goes before its final dot
                    out.write(line[:-2] + suffix)
    out.seek(0)
    return out


def _split(line: bytes) -> tuple[bytes, bytes]:
    """``(subject predicate object, <graph>)`` of an N-Quads line in pyoxigraph's form.

    The graph is the last term and an IRI, which holds no space: it starts at the last ``" <"``.
    """
    body = line[:-2]
    cut = body.rindex(b" <")
    return body[:cut], body[cut + 1 :]


def _has_blank(triple: bytes) -> bool:
    """True when the subject or object is a blank node (the predicate is an IRI: no space, no ``>``)."""
    if triple.startswith(b"_:"):
        return True
    after_subject = triple.index(b"> ") + 2
    after_predicate = triple.index(b"> ", after_subject) + 2
    return triple.startswith(b"_:", after_predicate)


def _lines(nq: IO[bytes]) -> Iterator[tuple[bytes, bytes, bytes]]:
    """``(line, triple, graph)`` for each quad line of ``nq``, from the start."""
    nq.seek(0)
    for raw in nq:
        line = raw.rstrip(b"\r\n")
        if line:
            triple, graph = _split(line)
            yield line, triple, graph


def _digest(line: bytes) -> bytes:
    return hashlib.blake2b(line, digest_size=16).digest()


def _digests(nq: IO[bytes]) -> tuple[set[bytes], dict[bytes, int]]:
    """Digests of the quads without blank nodes; per graph, the number of quads with one."""
    out: set[bytes] = set()
    blank: dict[bytes, int] = {}
    for line, triple, graph in _lines(nq):
        if _has_blank(triple):
            blank[graph] = blank.get(graph, 0) + 1
        else:
            out.add(_digest(line))
    return out, blank


def _text(triple: bytes, graph: bytes) -> str:
    return f"GRAPH {graph.decode()} {{ {triple.decode('utf-8')} . }}\n"


def replacement_update(graphs: Sequence[str], old: IO[bytes], new: IO[bytes]) -> GraphDiff:
    """The update replacing the quads ``old`` of ``graphs`` by ``new``: N-Quads files read twice from the start.

    Both are in pyoxigraph's N-Quads form (:func:`dump_graphs`, :func:`nquads_file`), each
    quad in one of ``graphs``; a graph of ``graphs`` that ``new`` leaves empty is dropped.
    """
    old_keys, blank_old = _digests(old)
    new_keys, blank_new = _digests(new)
    gone = old_keys - new_keys
    fresh = new_keys - old_keys
    del old_keys, new_keys
    filled: set[bytes] = set(blank_new)
    out = io.StringIO()
    out.write("DELETE DATA {\n")
    for line, triple, graph in _lines(old):
        if not _has_blank(triple) and _digest(line) in gone:
            out.write(_text(triple, graph))
    out.write("} ;\n")
    for blank_graph in blank_old:
        g = blank_graph.decode()
        out.write(
            f"DELETE {{ GRAPH {g} {{ ?s ?p ?o }} }} WHERE {{ GRAPH {g} {{ ?s ?p ?o }} "
            "FILTER(isBlank(?s) || isBlank(?o)) } ;\n"
        )
    out.write("INSERT DATA {\n")
    for line, triple, graph in _lines(new):
        filled.add(graph)
        if _has_blank(triple) or _digest(line) in fresh:
            out.write(_text(triple, graph))
    out.write("}")
    for name in graphs:
        term = str(ox.NamedNode(name))
        if term.encode() not in filled:
            out.write(f" ;\nDROP SILENT GRAPH {term}")
    out.write("\n")
    return GraphDiff(out.getvalue(), len(gone), len(fresh), sum(blank_old.values()), sum(blank_new.values()))


def replace_in_store(store: ox.Store, node: ox.NamedNode, spool: IO[bytes], companions: Sequence[str]) -> GraphDiff:
    """Turn graph ``node`` and its ``companions`` of ``store`` into the N-Quads in ``spool``, in one update.

    ``spool`` is read from the start; a quad in any other graph is a ValueError before
    anything is written. Returns the difference that was applied.
    """
    graphs = list(dict.fromkeys([node.value, *companions]))
    owned = [ox.NamedNode(g) for g in graphs]

    def new() -> Iterator[ox.Quad]:
        spool.seek(0)
        for q in ox.parse(spool, ox.RdfFormat.N_QUADS):
            if q.graph_name not in owned:
                raise ValueError(f"a quad of batch {node.value} names graph {q.graph_name}")
            yield q

    with dump_graphs(store, owned) as old, nquads_file(new()) as fresh:
        diff = replacement_update(graphs, old, fresh)
    logger.info(
        "replacing batch %s in one transaction: %d quads out, %d in (%d, %d with blank nodes)",
        node.value,
        diff.removed,
        diff.added,
        diff.blank_old,
        diff.blank_new,
    )
    store.update(diff.update)
    return diff
