"""The RDF dumps of a set: Turtle (its graph), TriG and N-Quads (with documents, classes and mappings)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from pathlib import Path

import pyoxigraph as ox

from ...core.errors import StoreError
from ...core.iris import DOCUMENTS_GRAPH
from ...core.vocab import BASE, CRAFT, OA, RDF, prefixes
from ...querying.sets import SetRef
from ...store.local import ReadableStore
from ._base import ExportFormat, atomic, select

_RDF_FORMATS = {
    ExportFormat.TURTLE: ox.RdfFormat.TURTLE,
    ExportFormat.TRIG: ox.RdfFormat.TRIG,
    ExportFormat.NQUADS: ox.RdfFormat.N_QUADS,
}


def _rdf_prefixes(ref: SetRef, doc: ox.NamedNode | None) -> dict[str, str]:
    """The shared prefixes plus craftrdf's own namespaces; ``ann:`` covers the set's annotations."""
    out = prefixes()
    out.update(
        {
            "craftrdf": BASE,
            "set": BASE + "set/",
            "doc": BASE + "doc/",
            "ontology": BASE + "ontology/",
            "mappings": BASE + "mappings/",
        }
    )
    ann = BASE + "ann/" + ref.graph.rsplit("/", 1)[1] + "/"
    if doc is not None:
        ann += doc.value.rsplit("/", 1)[1] + "/"
    out["ann"] = ann
    return out


def export_rdf(
    store: ReadableStore, ref: SetRef, fmt: ExportFormat, path: Path, doc: ox.NamedNode | None
) -> tuple[int, int, int, int, int]:
    counter = _Counter()
    with atomic(path) as fh:
        if fmt is ExportFormat.TURTLE:
            triples = (q.triple for q in counter.count(_set_quads(store, ref, doc)))
            ox.serialize(triples, fh, _RDF_FORMATS[fmt], prefixes=_rdf_prefixes(ref, doc))
        else:
            quads = counter.count(_dataset_quads(store, ref, doc))
            ox.serialize(quads, fh, _RDF_FORMATS[fmt], prefixes=_rdf_prefixes(ref, doc))
    return counter.documents, counter.annotations, 0, 1, counter.quads


class _Counter:
    """Counts quads, annotations and documents while they stream past."""

    _ANN = ox.NamedNode(OA.Annotation)
    _TYPE = ox.NamedNode(RDF.type)
    _SOURCE = ox.NamedNode(OA.hasSource)

    def __init__(self) -> None:
        self.quads = self.annotations = 0
        self._docs: set[str] = set()

    @property
    def documents(self) -> int:
        return len(self._docs)

    def count(self, quads: Iterable[ox.Quad]) -> Iterator[ox.Quad]:
        for q in quads:
            self.quads += 1
            if q.predicate == self._TYPE:
                if q.object == self._ANN:
                    self.annotations += 1
            elif q.predicate == self._SOURCE:
                self._docs.add(str(q.object))
            yield q


def _set_quads(store: ReadableStore, ref: SetRef, doc: ox.NamedNode | None) -> Iterator[ox.Quad]:
    """The set graph: as it is, or its description and one document's annotations."""
    g = ox.NamedNode(ref.graph)
    if doc is None:
        yield from store.quads_for_pattern(None, None, None, g)
        return
    digest = ox.NamedNode(CRAFT.digest)  # the manifest describes the whole batch, not this extract
    yield from (q for q in store.quads_for_pattern(g, None, None, g) if q.predicate != digest)
    rows = select(store, "export-set-annotations", setGraph=g, doc=doc)
    yield from _sorted_quads(((r["s"], r["p"], r["o"]) for r in rows), g)


def _dataset_quads(store: ReadableStore, ref: SetRef, doc: ox.NamedNode | None) -> Iterator[ox.Quad]:
    """The set graph, then its documents, then its classes from each ontology and mapping graph."""
    g = ox.NamedNode(ref.graph)
    yield from _set_quads(store, ref, doc)
    bindings = {"setGraph": g} if doc is None else {"setGraph": g, "doc": doc}
    rows = select(store, "export-documents", **bindings)
    yield from _sorted_quads(((r["doc"], r["p"], r["o"]) for r in rows), ox.NamedNode(DOCUMENTS_GRAPH))
    for source in _class_graphs(store, ref):
        src = ox.NamedNode(source)
        rows = select(store, "export-classes", source=src, **bindings)
        yield from _sorted_quads(((r["class"], r["p"], r["o"]) for r in rows), src)


def _class_graphs(store: ReadableStore, ref: SetRef) -> list[str]:
    """The set's declared ontology and mapping graphs; for a kind it declares none of, all of that kind."""
    declared: dict[str, list[str]] = {"ontology": [], "mappings": []}
    every: dict[str, list[str]] = {"ontology": [], "mappings": []}
    for r in select(store, "export-class-graphs", setGraph=ox.NamedNode(ref.graph)):
        kind = r["kind"].value
        (declared if r["declared"].value == "true" else every)[kind].append(r["graph"].value)
    out: list[str] = []
    for kind in ("ontology", "mappings"):
        out.extend(declared[kind] or every[kind])
    return list(dict.fromkeys(out))


def _sorted_quads(triples: Iterable[tuple[object, object, object]], graph: ox.NamedNode) -> list[ox.Quad]:
    """Quads in ``graph``, repeats removed, grouped by subject so Turtle and TriG come out compact."""
    unique = {(str(s), str(p), str(o)): (s, p, o) for s, p, o in triples}
    return [_quad(*unique[k], graph) for k in sorted(unique)]


def _quad(s: object, p: object, o: object, graph: ox.NamedNode) -> ox.Quad:
    if (
        isinstance(s, (ox.NamedNode, ox.BlankNode))
        and isinstance(p, ox.NamedNode)
        and isinstance(o, (ox.NamedNode, ox.BlankNode, ox.Literal))
    ):
        return ox.Quad(s, p, o, graph)
    raise StoreError(f"the store answered a triple that cannot be exported: {s!r} {p!r} {o!r}")
