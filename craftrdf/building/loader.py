"""Load files outside the CRAFT layout: ontologies (OBO, OWL/RDF, Turtle) and annotation sets.

Everything given is read and validated before anything is written, so a bad file
leaves the store as it was. Each ontology file becomes one batch (graph
``ontology/<file stem>``); each annotation input becomes (part of) one set batch.
"""

from __future__ import annotations

import hashlib
import logging
import warnings
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pyoxigraph as ox

from ..core.curie import CurieMap
from ..core.errors import ConfigError, DataWarning, InputError
from ..core.iris import check_set_key, ontology_graph, relations_graph, set_iri
from ..core.model import Annotation
from ..core.registry import ontology_name
from ..ingest.bionlp import read_bionlp
from ..ingest.knowtator import read_knowtator, read_knowtator2
from ..ingest.rdfsource import rdf_format_of
from ..ingest.validate import validate_annotations
from ..querying.indexes import Progress, update_indexes, write_set_batch
from ..querying.webanno import annotation_nquads, document_texts, set_nquads
from ..store.local import ReadableStore, WritableStore, solutions
from .builder import ontology_lines  # the CRAFT build and this share one ontology reader

logger = logging.getLogger(__name__)
_ANNOTATION_SUFFIXES = (".knowtator.xml", ".xml", ".bionlp", ".ann")


#: The quads of the graphs ``named_graphs`` gives, less those about the graph itself (its manifest, a set's
#: description): what a load stored from its input.
STORED_QUERY = "SELECT (COUNT(*) AS ?n) WHERE { GRAPH ?g { ?s ?p ?o FILTER(?s != ?g) } }"


@dataclass(frozen=True, slots=True)
class LoadReport:
    """Graphs written by a load (graph -> quads the store holds from the input, 0: already loaded).

    ``empty``: annotation files that hold no annotation, loaded as such (some CRAFT files are).
    """

    loaded: dict[str, int]
    empty: tuple[str, ...] = ()


def _is_ontology(path: Path) -> bool:
    return ".obo" in path.name.lower() or (rdf_format_of(path) is not None and not path.name.endswith(".knowtator.xml"))


def read_annotation_path(path: Path, *, curies: CurieMap) -> list[tuple[Path, list[Annotation]]]:
    """Each annotation file of one file or folder (Knowtator, Knowtator-2, BioNLP) with its annotations.

    A BioNLP file's document id is its file stem; the XML formats name their document.
    """
    files = (
        sorted(p for p in path.rglob("*") if p.is_file() and p.name.endswith(_ANNOTATION_SUFFIXES))
        if path.is_dir()
        else [path]
    )
    if not files:
        raise InputError("no annotation files (*.knowtator.xml, *.xml, *.bionlp, *.ann) found", source=str(path))
    out: list[tuple[Path, list[Annotation]]] = []
    for f in files:
        if f.name.endswith((".bionlp", ".ann")):
            out.append((f, read_bionlp(f, document=f.name.split(".")[0])))
        elif f.name.endswith(".knowtator.xml"):
            out.append((f, read_knowtator(f)))
        elif f.name.endswith(".xml"):
            out.append((f, read_knowtator2(f, curies=curies)))
        else:
            raise InputError("not an annotation file", source=str(f))
    return out


def load_files(
    store: WritableStore,
    paths: Sequence[Path],
    *,
    set_key: str | None = None,
    module: str | None = None,
    curies: CurieMap | None = None,
    progress: Progress | None = None,
) -> LoadReport:
    """Validate every input, then load ontologies and annotations as batches.

    Annotation inputs need ``set_key`` (they all go into that set). Annotations on
    documents whose text is in the store are checked against it; others are loaded
    with a warning that they could not be checked. The view indexes are brought up to
    date at the end (:func:`craftrdf.querying.indexes.update_indexes`, reporting to ``progress``).
    The counts reported are read back from the store: duplicate input lines count once.
    """
    curies = curies or CurieMap()
    ontologies: list[tuple[Path, list[str]]] = []
    groups: list[tuple[Path, list[Annotation]]] = []
    for p in paths:
        if not p.exists():
            raise InputError("no such file or directory", source=str(p))
        with warnings_if_read():
            if p.is_file() and _is_ontology(p):
                ontologies.append((p, list(ontology_lines(p, graph=ontology_graph(ontology_name(p)), curies=curies))))
            else:
                groups.extend(read_annotation_path(p, curies=curies))
    annotations = [a for _, anns in groups for a in anns]
    if annotations:
        if set_key is None:
            raise ConfigError("annotation inputs need --set KEY: the name of the set they form")
        check_set_key(set_key)
        texts = document_texts(store)
        by_doc: dict[str, list[Annotation]] = {}
        for a in annotations:
            by_doc.setdefault(a.document, []).append(a)
        unchecked = sorted(d for d in by_doc if d not in texts)
        for doc, anns in by_doc.items():
            if doc in texts:
                validate_annotations(anns, texts[doc], source=f"{set_key}/{doc}")
        if unchecked:
            logger.warning(
                "%d document(s) have no text in the store, spans not checked: %s",
                len(unchecked),
                ", ".join(unchecked[:10]),
            )
        ann_lines = list(set_nquads(set_key, module=module, variant=None, ontology=None, mappings=None))
        for path, anns in groups:  # per file, so a bad class id names its file
            ann_lines.extend(annotation_nquads(anns, set_key=set_key, curies=curies, source=str(path)))
    loaded: dict[str, int] = {}
    for path, lines in ontologies:
        graph = ontology_graph(ontology_name(path))
        written = store.load_batch(graph, lines, digest=_digest(lines), companions=[relations_graph(graph)])
        loaded[graph] = written and stored_quads(store, graph)
    if annotations and set_key is not None:  # set_key None with annotations raised above
        n = write_set_batch(
            store, set_key, ann_lines, annotations, digest=_digest(ann_lines), curies=curies, progress=progress
        )
        loaded[set_iri(set_key)] = n and stored_quads(store, set_iri(set_key))
    else:
        update_indexes(store, progress=progress)
    return LoadReport(loaded, tuple(str(path) for path, anns in groups if not anns))


@contextmanager
def warnings_if_read() -> Iterator[None]:
    """Hold back the DataWarnings of the reading inside, issuing them only when it succeeds.

    A file refused after warnings (every stanza malformed) is then one error, which quotes the first
    warning, instead of a warning per problem followed by the error.
    """
    with warnings.catch_warnings(record=True) as held:
        warnings.simplefilter("always", DataWarning)
        try:
            yield
        except InputError as exc:
            if not held:
                raise
            more = f" ({len(held) - 1} more)" if len(held) > 1 else ""
            message = f"{exc.message}; first warning{more}: {held[0].message}"
            raise type(exc)(message, source=exc.source, line=exc.line, element=exc.element) from None
    for w in held:
        warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)


def stored_quads(store: ReadableStore, graph: str) -> int:
    """The quads batch ``graph`` holds from its input: its manifest and description left out, duplicates once."""
    for row in solutions(store.query(STORED_QUERY, named_graphs=[graph])):
        n = row["n"]
        return int(n.value) if isinstance(n, ox.Literal) else 0
    return 0


def _digest(lines: Iterable[str]) -> str:
    h = hashlib.sha256()
    for line in lines:
        h.update(line.encode())
        h.update(b"\n")
    return h.hexdigest()
