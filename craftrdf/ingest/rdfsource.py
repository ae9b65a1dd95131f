"""RDF ontology files (OWL/RDF-XML, Turtle, N-Triples...) as N-Quads lines in one graph.

Parsing is pyoxigraph's; files may be zipped or gzipped like the corpus's OBO files. RDF/XML
with a DTD is refused before pyoxigraph sees it (:mod:`craftrdf.ingest.xmlguard`): its parser
would expand the DTD's entities without bound.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pyoxigraph as ox

from ..core.errors import InputError
from ..core.rdf import iri, quad
from ..core.vocab import CRAFT, RDF
from .files import open_text
from .relations import RelationCollector
from .xmlguard import check_no_dtd

_FORMATS = {
    ".owl": ox.RdfFormat.RDF_XML,
    ".rdf": ox.RdfFormat.RDF_XML,
    ".ttl": ox.RdfFormat.TURTLE,
    ".nt": ox.RdfFormat.N_TRIPLES,
    ".nq": ox.RdfFormat.N_QUADS,
    ".trig": ox.RdfFormat.TRIG,
    ".jsonld": ox.RdfFormat.JSON_LD,
}


def rdf_format_of(path: Path) -> ox.RdfFormat | None:
    """The RDF format from a file name (``.zip``/``.gz`` suffixes looked through), else None."""
    name = path.name.lower()
    for wrapper in (".zip", ".gz"):
        if name.endswith(wrapper):
            name = name[: -len(wrapper)]
    for suffix, fmt in _FORMATS.items():
        if name.endswith(suffix):
            return fmt
    return None


def rdf_file_nquads(path: Path, *, graph: str, relations: str | None = None) -> Iterator[str]:
    """Every triple of an RDF file, put into ``graph``; InputError with the parser's position on bad syntax.

    With ``relations``, the direct edges of the OWL axioms (:mod:`craftrdf.ingest.relations`)
    follow, in that graph, with ``<graph> craft:relationsGraph <relations>``.

    RDF/XML that declares a DTD is an InputError before anything is parsed. A file without a triple
    is an InputError once read (never an empty ontology), and so is a line or literal longer than
    pyoxigraph's parser buffer (16 MiB).
    """
    fmt = rdf_format_of(path)
    if fmt is None:
        raise InputError("unknown RDF format (expected .owl, .rdf, .ttl, .nt, .nq, .trig, .jsonld)", source=str(path))
    if fmt == ox.RdfFormat.RDF_XML:
        check_no_dtd(path)
    g = f"<{graph}>"
    collector = RelationCollector()
    triples = 0
    try:
        with open_text(path) as stream:
            for q in ox.parse(stream, fmt, base_iri=path.resolve().as_uri()):
                yield f"{q.subject} {q.predicate} {q.object} {g} ."
                collector.add(q.subject, q.predicate.value, q.object)
                triples += 1
    except SyntaxError as exc:
        raise InputError(f"RDF syntax error: {exc}", source=str(path)) from None
    except UnicodeDecodeError as exc:
        # the decoder sees the file in chunks, so its offset is not the file's: name the byte instead
        bad = exc.object[exc.start : exc.start + 1].hex()
        raise InputError(f"not UTF-8 text (byte 0x{bad}): RDF files are read as UTF-8", source=str(path)) from None
    except MemoryError as exc:
        # pyoxigraph's own bound on one token ("Reached the buffer maximal size of 16777216"), or true exhaustion
        raise InputError(f"a line or term too large to parse: {exc or 'out of memory'}", source=str(path)) from None
    if not triples:
        raise InputError("no triples: an empty RDF file is not an ontology", source=str(path))
    if relations is not None:
        r = iri(relations)
        yield quad(g, iri(CRAFT.relationsGraph), r, g)
        yield quad(r, iri(RDF.type), iri(CRAFT.RelationsGraph), r)
        for s, p, o in collector.edges():
            yield quad(iri(s), iri(p), iri(o), r)
