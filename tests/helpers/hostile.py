"""A store built to attack the viewer: a class label and a covered text that are HTML."""

from __future__ import annotations

from pathlib import Path

from craftrdf.store.local import AnnotationStore


def hostile_store(tmp_path: Path) -> tuple[AnnotationStore, str, str]:
    """An in-memory store with one document and one class whose label and covered text are HTML."""
    from craftrdf.building.builder import ontology_lines
    from craftrdf.core.curie import CurieMap
    from craftrdf.core.iris import DOCUMENTS_GRAPH, ontology_graph, set_iri
    from craftrdf.core.model import Annotation, Document, Span
    from craftrdf.querying.webanno import annotation_nquads, document_nquads, set_nquads
    from craftrdf.store.local import AnnotationStore

    label = "</script><script>alert(1)</script>"
    covered = "<img src=x onerror=alert(2)>"
    obo = tmp_path / "XX.obo"
    obo.write_text(
        f'format-version: 1.2\nontology: xx\n\n[Term]\nid: XX:0000001\nname: {label}\ndef: "<b>bold</b> & </p>" []\n',
        encoding="utf-8",
    )
    curies = CurieMap()
    store = AnnotationStore.memory()
    store.load_batch(
        DOCUMENTS_GRAPH,
        list(document_nquads([Document("1", covered + " is not markup.")], graph=DOCUMENTS_GRAPH)),
        digest="d",
    )
    graph = ontology_graph("XX")
    store.load_batch(graph, list(ontology_lines(obo, graph=graph, curies=curies)), digest="o")
    ann = Annotation("a1", "1", "XX:0000001", (Span(0, len(covered)),), covered)
    lines = [
        *set_nquads("HOSTILE", module="XX", variant=None, ontology=graph, mappings=None),
        *annotation_nquads([ann], set_key="HOSTILE", curies=curies),
    ]
    store.load_batch(set_iri("HOSTILE"), lines, digest="s")
    return store, label, covered
