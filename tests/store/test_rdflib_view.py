"""AnnotationStore.to_rdflib: a read-only rdflib view over the same Oxigraph store, and the shipped SHACL shapes."""

from __future__ import annotations

from pathlib import Path

import pytest

rdflib = pytest.importorskip("rdflib")
pytest.importorskip("oxrdflib")
pyshacl = pytest.importorskip("pyshacl")

from craftrdf.core.curie import CurieMap  # noqa: E402
from craftrdf.core.errors import StoreError  # noqa: E402
from craftrdf.core.model import Annotation, Span  # noqa: E402
from craftrdf.publishing.shapes import WEBANNO_SHAPES, webanno_shapes  # noqa: E402
from craftrdf.querying.webanno import annotation_nquads  # noqa: E402
from craftrdf.store.local import AnnotationStore  # noqa: E402

OA = "http://www.w3.org/ns/oa#"
SH = "http://www.w3.org/ns/shacl#"
XSD = "http://www.w3.org/2001/XMLSchema#"
CRAFT = "https://w3id.org/craftrdf/vocab#"
SET = "https://w3id.org/craftrdf/set/TEST"
#: sets of the bundled sample validated in full: every kind of annotation the sample has
#: (one span, discontinuous spans, an extension class), about 230 annotations
SAMPLE_SETS = ("MOP", "MOP_EXT", "GO_MF", "GO_MF_EXT", "CHEBI", "GO_CC", "CL")


def _lines(*annotations: Annotation) -> list[str]:
    return list(annotation_nquads(annotations, set_key="TEST", curies=CurieMap()))


GOOD = Annotation("T1", "123", "UBERON:0000955", (Span(0, 5),), "brain")
TWO_SPANS = Annotation("T2", "123", "UBERON:0000955", (Span(0, 5), Span(8, 9)), "brain x")


def test_a_view_not_a_copy() -> None:
    store = AnnotationStore.memory()
    ds = store.to_rdflib()
    assert len(ds.graph(SET)) == 0
    store.load_batch(SET, _lines(GOOD), digest="a")  # written after the view was made
    g = ds.graph(SET)
    import pyoxigraph as ox

    in_oxigraph = list(store.raw.quads_for_pattern(None, None, None, ox.NamedNode(SET)))
    assert len(g) == len(in_oxigraph) >= len(_lines(GOOD))
    assert rdflib.URIRef("http://purl.obolibrary.org/obo/UBERON_0000955") in set(
        g.objects(None, rdflib.URIRef(OA + "hasBody"))
    )
    assert len(list(ds.query(f"SELECT ?s WHERE {{ GRAPH <{SET}> {{ ?s a <{OA}Annotation> }} }}"))) == 1


def test_every_write_is_refused() -> None:
    store = AnnotationStore.memory()
    store.load_batch(SET, _lines(GOOD), digest="a")
    before = len(store)
    ds = store.to_rdflib()
    triple = (rdflib.URIRef("http://e/s"), rdflib.URIRef("http://e/p"), rdflib.Literal("o"))
    with pytest.raises(StoreError, match="read-only"):
        ds.add((*triple, rdflib.URIRef(SET)))
    with pytest.raises(StoreError, match="read-only"):
        ds.graph(SET).add(triple)
    with pytest.raises(StoreError, match="read-only"):
        ds.remove((None, None, None, None))
    with pytest.raises(StoreError, match="read-only"):
        ds.update("INSERT DATA { <http://e/s> <http://e/p> 'o' }")
    assert len(store) == before


def test_takes_no_write_lock(tmp_path: Path) -> None:
    path = tmp_path / "store"
    with AnnotationStore.open(path) as store:
        store.load_batch(SET, _lines(GOOD), digest="a")
    with AnnotationStore.open(path, mode="read") as reader:
        ds = reader.to_rdflib()
        assert len(ds.graph(SET)) > 0
        with AnnotationStore.open(path, mode="read") as other:  # a second reader still gets in
            assert len(other) == len(reader)
        with pytest.raises(StoreError, match="read-only"):
            ds.add((rdflib.URIRef("http://e/s"), rdflib.URIRef("http://e/p"), rdflib.Literal("o"), rdflib.URIRef(SET)))


def test_shapes_ship_with_the_package() -> None:
    assert WEBANNO_SHAPES.name == "webanno.ttl" and WEBANNO_SHAPES.is_file()
    shapes = webanno_shapes()
    assert (
        rdflib.URIRef("https://w3id.org/craftrdf/shapes#Annotation"),
        rdflib.RDF.type,
        rdflib.URIRef(SH + "NodeShape"),
    ) in shapes


def _results(ds: object) -> tuple[bool, set[tuple[str, str, str]]]:
    """(conforms, {(focus node, path, constraint component)}) of a pySHACL run with the shipped shapes."""
    conforms, report, _ = pyshacl.validate(ds, shacl_graph=webanno_shapes())
    found = set()
    for r in report.subjects(rdflib.RDF.type, rdflib.URIRef(SH + "ValidationResult")):
        focus = report.value(r, rdflib.URIRef(SH + "focusNode"))
        path = report.value(r, rdflib.URIRef(SH + "resultPath"))
        comp = report.value(r, rdflib.URIRef(SH + "sourceConstraintComponent"))
        found.add((str(focus), str(path) if path is not None else "", str(comp).rsplit("#", 1)[-1]))
    return bool(conforms), found


def test_the_sample_annotations_conform(sample_store: AnnotationStore) -> None:
    ds = sample_store.to_rdflib()
    checked = 0
    for key in SAMPLE_SETS:
        g = ds.graph(f"https://w3id.org/craftrdf/set/{key}")
        checked += len(set(g.subjects(rdflib.RDF.type, rdflib.URIRef(OA + "Annotation"))))
        conforms, found = _results(g)
        assert conforms and not found, (key, sorted(found)[:5])
    assert checked > 200


def test_well_formed_annotations_conform() -> None:
    store = AnnotationStore.memory()
    store.load_batch(SET, _lines(GOOD, TWO_SPANS), digest="a")
    assert _results(store.to_rdflib().graph(SET)) == (True, set())


def _broken(edit: str) -> tuple[bool, set[tuple[str, str, str]]]:
    """The one-span annotation with its N-Quads edited: ``drop:<predicate>`` or ``swap:<old>=><new>``."""
    lines = _lines(GOOD)
    kind, _, arg = edit.partition(":")
    if kind == "drop":
        lines = [x for x in lines if arg not in x]
    else:
        old, new = arg.split("=>")
        lines = [x.replace(old, new) for x in lines]
    store = AnnotationStore.memory()
    store.load_batch(SET, lines, digest="b")
    return _results(store.to_rdflib().graph(SET))


ANN = "https://w3id.org/craftrdf/ann/TEST/123/T1"


def test_missing_selector_is_reported() -> None:
    conforms, found = _broken(f"drop:<{OA}hasSelector>")
    assert not conforms
    assert (ANN, "", "SPARQLConstraintComponent") in found  # craft:spanCount 1, no selector


def test_end_before_start_is_reported() -> None:
    conforms, found = _broken(f'swap:<{OA}start> "0"=><{OA}start> "9"')  # start 9, end 5
    assert not conforms
    assert (ANN + "#span0", OA + "start", "LessThanOrEqualsConstraintComponent") in found


def test_wrong_datatype_is_reported() -> None:
    conforms, found = _broken(f'swap:<{OA}start> "0"^^<{XSD}nonNegativeInteger>=><{OA}start> "0"')
    assert not conforms
    assert (ANN + "#span0", OA + "start", "DatatypeConstraintComponent") in found


def test_missing_body_and_source_are_reported() -> None:
    conforms, found = _broken(f"drop:<{OA}hasBody>")
    assert not conforms and (ANN, OA + "hasBody", "MinCountConstraintComponent") in found
    conforms, found = _broken(f"drop:<{OA}hasSource>")
    assert not conforms and (ANN + "#target", OA + "hasSource", "MinCountConstraintComponent") in found


def test_a_confidence_conforms_and_one_out_of_range_is_reported() -> None:
    from dataclasses import replace

    store = AnnotationStore.memory()
    store.load_batch(SET, _lines(replace(GOOD, confidence=0.87)), digest="c")
    assert _results(store.to_rdflib().graph(SET)) == (True, set())
    conf = f'<{CRAFT}confidence> "0.8700"^^<{XSD}decimal>'
    lines = [
        x.replace(conf, f'<{CRAFT}confidence> "1.5000"^^<{XSD}decimal>') for x in _lines(replace(GOOD, confidence=0.87))
    ]
    assert any("1.5000" in x for x in lines)
    store = AnnotationStore.memory()
    store.load_batch(SET, lines, digest="d")
    conforms, found = _results(store.to_rdflib().graph(SET))
    assert not conforms and (ANN, CRAFT + "confidence", "MaxInclusiveConstraintComponent") in found
