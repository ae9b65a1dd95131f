"""Annotations as W3C Web Annotation quads, and back: Knowtator -> store -> records/BioNLP."""

from __future__ import annotations

import warnings
from pathlib import Path

import pyoxigraph as ox
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from craftrdf.core.curie import CurieMap
from craftrdf.core.errors import DataWarning, StoreError
from craftrdf.core.iris import annotation_iri
from craftrdf.core.model import Annotation, Span
from craftrdf.core.rdf import literal
from craftrdf.ingest.bionlp import read_bionlp, write_bionlp
from craftrdf.ingest.knowtator import read_knowtator
from craftrdf.querying.webanno import annotation_nquads, fetch_annotations, set_nquads
from craftrdf.store.local import AnnotationStore
from tests.helpers.corpus import DATA

OA = "http://www.w3.org/ns/oa#"
CONFIDENCE = "https://w3id.org/craftrdf/vocab#confidence"


def _store(annotations: list[Annotation], key: str = "TEST", extra: tuple[str, ...] = ()) -> AnnotationStore:
    store = AnnotationStore.memory()
    lines = list(set_nquads(key, module=None, variant=None, ontology=None, mappings=None))
    lines += annotation_nquads(annotations, set_key=key, curies=CurieMap())
    lines += extra
    store.load_batch(f"https://w3id.org/craftrdf/set/{key}", lines, digest="t")
    return store


def test_discontinuous_annotation_in_web_annotation_terms():
    anns = read_knowtator(DATA / "knowtator" / "valid.knowtator.xml")
    store = _store(anns)
    # T_4 has spans 44-49 then 36-43 (not in text order): both selectors, ordered by craft:spanIndex
    rows = list(
        store.query(
            f"""SELECT ?a ?body ?i ?s ?e ?text WHERE {{ GRAPH ?g {{
              ?a a <{OA}Annotation> ; <{OA}hasBody> ?body ; <{OA}hasTarget> ?t .
              ?t <{OA}hasSource> <https://w3id.org/craftrdf/doc/valid> ;
                 <https://w3id.org/craftrdf/vocab#coveredText> ?text ; <{OA}hasSelector> ?sel .
              ?sel a <{OA}TextPositionSelector> ; <{OA}start> ?s ; <{OA}end> ?e ;
                   <https://w3id.org/craftrdf/vocab#spanIndex> ?i }} }} ORDER BY ?i""",
            substitutions={"a": ox.NamedNode("https://w3id.org/craftrdf/ann/TEST/valid/T_4")},
        )
    )
    assert [(int(r["i"].value), int(r["s"].value), int(r["e"].value)) for r in rows] == [(0, 44, 49), (1, 36, 43)]
    assert rows[0]["text"].value == "gyrus ... dentate"
    # begin/end are the extremes, as plain integers
    (r,) = store.query(
        "SELECT ?a ?b ?e WHERE { GRAPH ?g { ?a <https://w3id.org/craftrdf/vocab#begin> ?b ; "
        "<https://w3id.org/craftrdf/vocab#end> ?e } }",
        substitutions={"a": ox.NamedNode("https://w3id.org/craftrdf/ann/TEST/valid/T_4")},
    )
    assert (r["b"].value, r["e"].value) == ("36", "49")
    assert r["b"].datatype.value == "http://www.w3.org/2001/XMLSchema#integer"


def test_knowtator_store_records_round_trip():
    anns = read_knowtator(DATA / "knowtator" / "valid.knowtator.xml")
    back = fetch_annotations(_store(anns), "TEST")
    assert sorted((a.id, a.class_id, a.spans, a.text) for a in back) == sorted(
        (a.id, a.class_id, a.spans, a.text) for a in anns
    )


def test_knowtator_store_bionlp_equals_knowtator_bionlp():
    anns = read_knowtator(DATA / "knowtator" / "valid.knowtator.xml")
    text = (DATA / "knowtator" / "valid.txt").read_text()
    direct = write_bionlp(anns, text=text)
    via_store = write_bionlp(fetch_annotations(_store(anns), "TEST"), text=text)
    assert via_store == direct


def test_spanless_annotation_survives_the_store():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DataWarning)
        anns = read_knowtator(DATA / "knowtator" / "spanless.knowtator.xml")
    back = {a.id: a for a in fetch_annotations(_store(anns), "TEST")}
    assert {a.id: a.spans for a in anns} == {k: a.spans for k, a in back.items()}


@pytest.mark.corpus
def test_real_document_knowtator_store_bionlp_store(craft_dir: Path):
    path = craft_dir / "concept-annotation/UBERON/UBERON+extensions/knowtator/11319941.txt.knowtator.xml"
    text = (craft_dir / "articles/txt/11319941.txt").read_text(encoding="utf-8")
    anns = read_knowtator(path)
    bionlp = write_bionlp(fetch_annotations(_store(anns, "U"), "U"), text=text)
    assert bionlp.count("\n") == len(anns)
    again = read_bionlp(bionlp, document="11319941")
    second = fetch_annotations(_store(again, "U2"), "U2")
    assert sorted((a.class_id, a.spans) for a in second) == sorted((a.class_id, a.spans) for a in anns)
    assert write_bionlp(second, text=text) == bionlp


_spans = st.lists(st.tuples(st.integers(0, 500), st.integers(0, 40)), min_size=1, max_size=4).map(
    lambda xs: tuple(Span(s, s + n) for s, n in xs)
)


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.sampled_from(["UBERON:0000955", "CL:0000540", "UBERON_EXT:bone_element_or_tissue", "SO_EXT:0000704"]),
            _spans,
        ),
        min_size=1,
        max_size=8,
    )
)
def test_any_annotations_round_trip_through_the_store(items):
    anns = [Annotation(f"a{i}", "1234", c, s) for i, (c, s) in enumerate(items)]
    back = fetch_annotations(_store(anns), "TEST")
    assert sorted((a.id, a.class_id, a.spans) for a in back) == sorted((a.id, a.class_id, a.spans) for a in anns)


@settings(max_examples=300, deadline=None)
@given(st.text().filter(lambda s: all(not 0xD800 <= ord(c) <= 0xDFFF for c in s)))
def test_literal_escaping_round_trips_through_oxigraph(value):
    line = f"<http://ex.org/s> <http://ex.org/p> {literal(value)} <http://ex.org/g> .\n"
    (q,) = list(ox.parse(line.encode("utf-8"), ox.RdfFormat.N_QUADS))
    assert q.object.value == value


def test_confidences_are_read_back_with_the_annotations():
    # two annotations carry a craft:confidence written here by hand (as annotate --model stores it), one none
    anns = [
        Annotation("M1", "1234", "CL:0000540", (Span(0, 6),)),
        Annotation("M2", "1234", "CL:0000066", (Span(8, 12),)),
    ]
    anns.append(Annotation("M1", "5678", "CL:0000540", (Span(3, 9),)))
    graph = "<https://w3id.org/craftrdf/set/TEST>"
    decimal = "<http://www.w3.org/2001/XMLSchema#decimal>"
    store = _store(
        anns,
        extra=tuple(
            f'<{annotation_iri("TEST", doc, ann)}> <{CONFIDENCE}> "{v}"^^{decimal} {graph} .'
            for doc, ann, v in (("1234", "M1", "0.8734"), ("5678", "M1", "0.0500"))
        ),
    )
    back = {(a.document, a.id): a.confidence for a in fetch_annotations(store, "TEST")}
    assert back == {("1234", "M1"): 0.8734, ("1234", "M2"): None, ("5678", "M1"): 0.05}
    one = {(a.document, a.id): a.confidence for a in fetch_annotations(store, "TEST", document="1234")}
    assert one == {("1234", "M1"): 0.8734, ("1234", "M2"): None}


def test_a_confidence_that_is_not_a_number_is_one_store_error():
    line = f'<{annotation_iri("TEST", "1234", "M1")}> <{CONFIDENCE}> "high" <https://w3id.org/craftrdf/set/TEST> .'
    store = _store([Annotation("M1", "1234", "CL:0000540", (Span(0, 6),))], extra=(line,))
    with pytest.raises(StoreError, match="not a number: 'high'"):
        fetch_annotations(store, "TEST")


def test_one_document_lookup_is_the_set_filtered_by_document(sample_store):
    # the whole set read and filtered here is the independent answer; the lookup starts from the
    # document's targets instead (document-annotations.rq), so it must find the same records
    for key in ("UBERON_EXT", "CL"):
        whole = fetch_annotations(sample_store, key)
        documents = sorted({a.document for a in whole})
        assert len(documents) >= 2, key
        for d in documents:
            one = fetch_annotations(sample_store, key, document=d)
            assert one and one == [a for a in whole if a.document == d]
    assert fetch_annotations(sample_store, "UBERON_EXT", document="0") == []
    assert fetch_annotations(sample_store, "NO_SUCH_SET", document=documents[0]) == []


@settings(max_examples=40, deadline=None)
@given(
    st.lists(st.text(alphabet="12 a%#/\n", min_size=1, max_size=4), min_size=1, max_size=3, unique=True),
    st.text(alphabet="12 a%#/\n", max_size=6),
)
def test_one_document_lookup_of_any_id_equals_the_filter(documents, asked):
    # ids that the IRIs percent-encode (" ", "%", "#", "/") and ids no IRI can hold ("\n"): the
    # lookup answers what the set's documents are called when read back, and nothing else
    anns = [Annotation(f"a{i}", d, "UBERON:0000955", (Span(i, i + 2),)) for i, d in enumerate(documents)]
    store = _store(anns)
    whole = fetch_annotations(store, "TEST")
    for d in {a.document for a in whole} | set(documents) | {asked}:
        assert fetch_annotations(store, "TEST", document=d) == [a for a in whole if a.document == d]


def test_whole_set_read_equals_the_annotations_query(sample_store):
    # fetch_annotations hash-joins scans of the set's graph (set-annotations.rq); the library's
    # `annotations` query, run over the whole store, is the other implementation of the same rows
    from craftrdf.querying.library import run_query
    from craftrdf.querying.webanno import rows_to_annotations

    for key in ("UBERON_EXT", "CL", "UBERON"):
        result = run_query(sample_store, "annotations", {"set": key})
        expected = sorted(
            rows_to_annotations(result.columns, result.rows, CurieMap()), key=lambda a: (a.document, a.id)
        )
        got = sorted(fetch_annotations(sample_store, key), key=lambda a: (a.document, a.id))
        assert got and got == expected, key


def _read_by_query_then_sorted(store, key: str) -> list[Annotation]:
    # the whole-set read as it was before the one-pass grouping: the same query, its rows sorted
    # by (document, annotation IRI) in one stable sort, then turned into records; the reference
    # fetch_annotations must equal, order included
    from craftrdf.querying.library import run_query
    from craftrdf.querying.webanno import rows_to_annotations

    result = run_query(store, "set-annotations", {"set": key}, named_graphs=[f"https://w3id.org/craftrdf/set/{key}"])
    d, a = result.index("document"), result.index("annotation")
    rows = sorted(result.rows, key=lambda r: (r[d].value, r[a].value))
    return rows_to_annotations(result.columns, rows, CurieMap())


def test_whole_set_read_equals_the_query_sorted_at_once(sample_store):
    for key in ("UBERON_EXT", "CL", "UBERON", "NO_SUCH_SET"):
        expected = _read_by_query_then_sorted(sample_store, key)
        assert fetch_annotations(sample_store, key) == expected, key
        assert expected or key == "NO_SUCH_SET"


@pytest.mark.corpus
def test_whole_set_read_equals_the_query_sorted_at_once_on_the_corpus(corpus_store: Path):
    from craftrdf.store.local import AnnotationStore

    with AnnotationStore.open(corpus_store, mode="read") as store:
        for key in ("UBERON_EXT", "GO_BP"):
            expected = _read_by_query_then_sorted(store, key)
            assert len(expected) > 1000 and fetch_annotations(store, key) == expected, key


@settings(max_examples=40, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.sampled_from(["d1", "d2", "d 3", "d%4"]),
            st.sampled_from(["a1", "a2", "a10", "b", "a 1"]),
            st.sampled_from(["UBERON:0000955", "CL:0000540", "UBERON_EXT:bone_element_or_tissue"]),
            st.lists(st.tuples(st.integers(0, 99), st.integers(0, 9)), max_size=2),
            st.none() | st.text(alphabet="ab \n", max_size=3),
        ),
        max_size=12,
    )
)
def test_whole_set_read_of_any_set_equals_the_query_sorted_at_once(items):
    # ids repeat within a document, so one annotation IRI may carry several bodies, spans and
    # texts: the query then gives several rows for it, whose order the grouping must keep
    anns = [Annotation(i, d, c, tuple(Span(s, s + n) for s, n in spans), text) for d, i, c, spans, text in items]
    store = _store(anns)
    assert fetch_annotations(store, "TEST") == _read_by_query_then_sorted(store, "TEST")
