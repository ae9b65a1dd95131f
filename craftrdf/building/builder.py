"""Build a store from a CRAFT directory: plan the batches, then load each atomically.

A plan lists every batch the corpus offers (documents; per annotation set its
ontology file, its annotations, its mapping files and parallel extension classes),
each with a digest of its input. Executing it loads the batches the store lacks,
skips those already loaded from the same input, and reports what it skipped and why.
"""

from __future__ import annotations

import hashlib
import logging
import time
import warnings
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from ..core.context import RunContext
from ..core.curie import CurieMap, parallel_base
from ..core.errors import ConfigError, DataWarning, InputError
from ..core.iris import DOCUMENTS_GRAPH, mapping_graph, ontology_graph, relations_graph, set_iri
from ..core.model import Annotation, Document
from ..core.rdf import iri, literal, quad
from ..core.registry import AnnotationSetSpec, Registry, ontology_name
from ..core.vocab import CRAFT, OBOINOWL, OWL, RDF, RDFS
from ..ingest.corpus import read_documents
from ..ingest.cycles import warn_is_a_cycles
from ..ingest.knowtator import read_knowtator, read_knowtator2
from ..ingest.mappings import MappingKind, mapping_nquads, read_mapping_file
from ..ingest.obo import iter_obo
from ..ingest.ontology import ontology_nquads
from ..ingest.rdfsource import rdf_file_nquads
from ..ingest.validate import validate_annotations
from ..querying.indexes import Progress, update_indexes, view_row_lines, view_rows_graph
from ..querying.webanno import annotation_nquads, document_nquads, set_nquads
from ..store.local import ReadableStore, WritableStore, solutions

logger = logging.getLogger(__name__)

#: Bumped whenever the RDF model changes, so old batches are replaced on the next build.
MODEL_VERSION = "craftrdf-rdf-model-3"


@dataclass(frozen=True, slots=True)
class Step:
    """One batch to load: its graph, a digest of its input and a producer of its lines."""

    graph: str
    label: str
    digest: str
    lines: Callable[[], Iterable[str]]
    companions: tuple[str, ...] = ()
    #: for a set's batch: its key and its annotations (read once, kept for the view indexes)
    annotations: tuple[str, Callable[[], list[Annotation]]] | None = None


@dataclass(frozen=True, slots=True)
class BuildReport:
    """What a build did: batches loaded (graph -> quads), batches already present, and skips.

    ``indexes``: the view-index batches made at the end (:func:`craftrdf.querying.indexes.update_indexes`),
    in ``index_seconds`` of the ``seconds``.
    """

    loaded: dict[str, int] = field(default_factory=dict)
    unchanged: tuple[str, ...] = ()
    skipped: dict[str, str] = field(default_factory=dict)
    seconds: float = 0.0
    indexes: int = 0
    index_seconds: float = 0.0

    @property
    def quads(self) -> int:
        return sum(self.loaded.values())


def _digest(*parts: str | bytes | Path) -> str:
    h = hashlib.sha256(MODEL_VERSION.encode())
    for p in parts:
        if isinstance(p, Path):
            h.update(p.name.encode())
            h.update(p.read_bytes())
        else:
            h.update(p.encode() if isinstance(p, str) else p)
        h.update(b"\0")
    return h.hexdigest()


def _annotation_files(folder: Path, fmt: str) -> list[Path]:
    pattern = "*.txt.knowtator.xml" if fmt == "knowtator" else "*.xml"
    return sorted(folder.glob(pattern))


def read_set_annotations(
    spec: AnnotationSetSpec, folder: Path, texts: dict[str, str], *, curies: CurieMap
) -> list[Annotation]:
    """Read and validate every annotation file of one set; InputError names the bad file."""
    out: list[Annotation] = []
    for path in _annotation_files(folder, spec.format):
        anns = read_knowtator(path) if spec.format == "knowtator" else read_knowtator2(path, curies=curies)
        if not anns:
            continue
        doc = anns[0].document
        text = texts.get(doc)
        if text is None:
            raise InputError(f"annotations for document {doc}, which has no article text", source=str(path))
        validate_annotations(anns, text, source=str(path))
        out.extend(anns)
    return out


def ontology_lines(path: Path, *, graph: str, curies: CurieMap) -> Iterator[str]:
    """N-Quads of an ontology file: OBO through our reader, OWL/RDF through pyoxigraph.

    The lines fill the ontology graph and its derived relations graph
    (:func:`~craftrdf.core.iris.relations_graph`), to be loaded as one batch with that companion.
    Each ``is_a`` cycle is a DataWarning naming its classes once the lines are all read.
    """
    name = path.name.lower()
    relations = relations_graph(graph)
    if ".obo" in name:
        lines = ontology_nquads(iter_obo(path), graph=graph, curies=curies, relations=relations, source=str(path))
    else:
        lines = rdf_file_nquads(path, graph=graph, relations=relations)
    return warn_is_a_cycles(lines, source=str(path), curies=curies)


def parallel_class_lines(
    class_ids: Iterable[str], *, labels: dict[str, str], defined: set[str], graph: str, curies: CurieMap
) -> Iterator[str]:
    """Classes for the parallel extension ids (``SO_EXT:0000704``) the ontology file lacks.

    Each is typed ``craft:ParallelExtensionClass``, linked to its base by
    ``craft:parallelOf`` and labelled with the base class's label when known.
    """
    g = iri(graph)
    for cid in sorted(set(class_ids)):
        base = parallel_base(cid)
        if base is None:
            continue
        c_iri = curies.expand(cid)
        if c_iri in defined:
            continue
        b_iri = curies.expand(base)
        c = iri(c_iri)
        yield quad(c, iri(RDF.type), iri(OWL.Class), g)
        yield quad(c, iri(RDF.type), iri(CRAFT.ExtensionClass), g)
        yield quad(c, iri(RDF.type), iri(CRAFT.ParallelExtensionClass), g)
        yield quad(c, iri(OBOINOWL.id), literal(cid), g)
        yield quad(c, iri(CRAFT.parallelOf), iri(b_iri), g)
        if b_iri in labels:
            yield quad(c, iri(RDFS.label), literal(labels[b_iri]), g)


_CLASSES = f"""
SELECT ?g ?c ?label WHERE {{ GRAPH ?g {{ ?c a <{OWL.Class}> . OPTIONAL {{ ?c <{RDFS.label}> ?label }} }} }}
"""


def _ontology_classes(store: ReadableStore, graph: str | None) -> tuple[set[str], dict[str, str]]:
    import pyoxigraph as ox

    if graph is None:
        return set(), {}
    defined: set[str] = set()
    labels: dict[str, str] = {}
    for row in solutions(store.query(_CLASSES, substitutions={"g": ox.NamedNode(graph)})):
        c, label = row["c"], row["label"]
        if isinstance(c, ox.NamedNode):
            defined.add(c.value)
            if isinstance(label, ox.Literal):
                labels.setdefault(c.value, label.value)
    return defined, labels


def check_craft_dir(craft_dir: Path) -> Path:
    """``craft_dir`` if it has CRAFT's layout, else ConfigError; check before creating a store for it."""
    if not (craft_dir / "concept-annotation").is_dir():
        raise ConfigError(f"{craft_dir} has no concept-annotation/ folder: not a CRAFT directory")
    return craft_dir


def plan_build(
    craft_dir: Path,
    store: ReadableStore,
    *,
    registry: Registry,
    curies: CurieMap,
    sets: Iterable[str] | None = None,
) -> tuple[list[Step], dict[str, str]]:
    """The batches a CRAFT directory offers, and the ontologies skipped with the reason.

    ``sets`` limits the plan to these set keys (case-insensitive). Steps read their
    input only when executed, so planning is cheap.
    """
    ca = check_craft_dir(craft_dir) / "concept-annotation"
    chosen = [registry.set(k) for k in sets] if sets is not None else list(registry.sets.values())
    documents: list[Document] = read_documents(craft_dir)
    texts = {d.pmid: d.text for d in documents}
    doc_digest = _digest(*(d.pmid + "\0" + d.text + "\0" + (d.split or "") + (d.pmcid or "") for d in documents))
    steps: list[Step] = [
        Step(DOCUMENTS_GRAPH, "documents", doc_digest, lambda: document_nquads(documents, graph=DOCUMENTS_GRAPH))
    ]
    skipped: dict[str, str] = {}
    planned_ontologies: dict[str, str] = {}
    for spec in chosen:
        onto_graph, onto_digest = _plan_ontology(spec, craft_dir, registry, curies, planned_ontologies, steps, skipped)
        folder = ca / spec.annotations
        if not folder.is_dir():
            skipped[spec.key + " annotations"] = f"annotation folder {folder} not found"
            continue
        files = _annotation_files(folder, spec.format)
        set_digest = _digest(
            doc_digest, spec.key, *(p.name + hashlib.sha256(p.read_bytes()).hexdigest() for p in files)
        )
        mgraph = mapping_graph(spec.key)
        cache: dict[str, list[Annotation]] = {}

        def read_annotations(
            spec: AnnotationSetSpec = spec, folder: Path = folder, cache: dict[str, list[Annotation]] = cache
        ) -> list[Annotation]:
            if "a" not in cache:
                cache["a"] = read_set_annotations(spec, folder, texts, curies=curies)
            return cache["a"]

        def set_lines(
            spec: AnnotationSetSpec = spec,
            onto: str | None = onto_graph,
            mg: str = mgraph,
            annotations: Callable[[], list[Annotation]] = read_annotations,
            digest: str = set_digest,
        ) -> Iterator[str]:
            yield from set_nquads(spec.key, module=spec.module, variant=spec.variant, ontology=onto, mappings=mg)
            yield from annotation_nquads(annotations(), set_key=spec.key, curies=curies)
            # the set's view rows, from the annotations at hand rather than read back later
            yield from view_row_lines(spec.key, digest, annotations(), curies=curies)

        steps.append(
            Step(
                set_iri(spec.key),
                f"annotations {spec.key}",
                set_digest,
                set_lines,
                (view_rows_graph(spec.key),),
                (spec.key, read_annotations),
            )
        )
        mfiles = {kind: ca / rel for kind, rel in spec.mapping_files().items() if (ca / rel).is_file()}
        map_digest = _digest(set_digest, onto_digest, *(p for p in mfiles.values()))
        steps.append(
            Step(
                mgraph,
                f"mappings {spec.key}",
                map_digest,
                _bind_mappings(spec, mfiles, mgraph, onto_graph, read_annotations, store, curies),
            )
        )
    return steps, skipped


def _plan_ontology(
    spec: AnnotationSetSpec,
    craft_dir: Path,
    registry: Registry,
    curies: CurieMap,
    planned: dict[str, str],
    steps: list[Step],
    skipped: dict[str, str],
) -> tuple[str | None, str]:
    """The ontology graph and digest of a set (None, "" without a file), adding its step once to ``steps``."""
    if spec.ontology is None:
        return None, ""
    path = registry.locate_ontology(craft_dir, spec.ontology)
    if path is None:
        skipped[spec.key] = f"ontology file {spec.ontology} not in this CRAFT directory"
        return None, ""
    graph = ontology_graph(ontology_name(path))
    digest = _file_digest(path)
    if graph not in planned:
        planned[graph] = digest
        load = _bind_ontology(path, graph, curies)
        steps.append(Step(graph, f"ontology {path.name}", digest, load, (relations_graph(graph),)))
    return graph, digest


def _file_digest(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            h.update(chunk)
    return _digest(path.name, h.hexdigest())


def _bind_ontology(path: Path, graph: str, curies: CurieMap) -> Callable[[], Iterable[str]]:
    return lambda: ontology_lines(path, graph=graph, curies=curies)


def _bind_mappings(
    spec: AnnotationSetSpec,
    files: dict[MappingKind, Path],
    graph: str,
    onto_graph: str | None,
    annotations: Callable[[], list[Annotation]],
    store: ReadableStore,
    curies: CurieMap,
) -> Callable[[], Iterable[str]]:
    def lines() -> Iterator[str]:
        g = iri(graph)
        yield quad(g, iri(RDF.type), iri(CRAFT.MappingGraph), g)
        used: set[str] = {a.class_id for a in annotations()}
        for kind, path in files.items():
            rows = read_mapping_file(path, kind, curies=curies)
            used.update(r.cls for r in rows)
            used.update(t for r in rows for t in r.targets)
            yield from mapping_nquads(rows, kind, set_iri=set_iri(spec.key), graph=graph, curies=curies)
        defined, labels = _ontology_classes(store, onto_graph)
        yield from parallel_class_lines(used, labels=labels, defined=defined, graph=graph, curies=curies)

    return lines


def build_store(
    craft_dir: Path,
    store: WritableStore,
    ctx: RunContext,
    *,
    sets: Iterable[str] | None = None,
    progress: Progress | None = None,
) -> BuildReport:
    """Load a CRAFT directory into ``store``; batches already loaded from the same input are skipped.

    ``ctx`` gives the registry (which ontologies and sets) and the CURIE map.

    Stops at the first batch whose input is invalid (InputError naming file and
    element); batches loaded before it stay, each complete. Ontologies whose file is
    absent are skipped and listed in the report; their annotations are still loaded.
    Each set's view rows are written in its batch, and the view indexes brought up to
    date at the end (:func:`craftrdf.querying.indexes.update_indexes`), as the last step of ``progress``.
    """
    t0 = time.perf_counter()
    steps, skipped = plan_build(craft_dir, store, registry=ctx.registry, curies=ctx.curies, sets=sets)
    for key, reason in skipped.items():
        logger.info("skipped %s: %s", key, reason)
    loaded: dict[str, int] = {}
    unchanged: list[str] = []
    written: dict[str, list[Annotation]] = {}
    total = len(steps) + 1  # and the view indexes
    for i, step in enumerate(steps):
        if progress is not None:
            progress(i, total, step.label)
        if store.has_batch(step.graph, step.digest):
            unchanged.append(step.graph)
            continue
        t = time.perf_counter()
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", DataWarning)
            n = store.load_batch(step.graph, step.lines(), digest=step.digest, companions=step.companions)
        for w in caught:
            logger.warning("%s", w.message)
        loaded[step.graph] = n
        if step.annotations is not None:
            key, annotations = step.annotations
            written[key] = annotations()
        logger.info("%s: %d quads in %.2f s", step.label, n, time.perf_counter() - t)
    if progress is not None:
        progress(len(steps), total, "view indexes")
    t = time.perf_counter()
    indexes = update_indexes(store, known=written)
    if progress is not None:
        progress(total, total, "done")
    return BuildReport(loaded, tuple(unchanged), skipped, time.perf_counter() - t0, indexes, time.perf_counter() - t)
