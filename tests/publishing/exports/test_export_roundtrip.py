"""Round trips through the exports, with expected values from the raw sample files or written by hand.

BioNLP -> store -> BioNLP is byte-identical; Knowtator -> store -> BioNLP -> store gives the same
annotations; an RDF dump loads into a fresh store with the same set graph; the JSON-LD, expanded with
the Web Annotation context, and the PubAnnotation JSON, read by a small reader written here, give
back the classes and spans of the raw Knowtator files. A property test sends random annotations
through every annotation format; an expected failure records what BioNLP cannot carry.
"""

from __future__ import annotations

import json
import re
import tempfile
import warnings
import zipfile
from collections import Counter
from pathlib import Path

import pyoxigraph as ox
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from craftrdf.apps.demo import sample_dir
from craftrdf.building.loader import load_files
from craftrdf.core.errors import DataWarning
from craftrdf.core.iris import DOCUMENTS_GRAPH
from craftrdf.core.model import Document, Span
from craftrdf.publishing.exports.sets import export_set
from craftrdf.querying.webanno import document_nquads, fetch_annotations
from craftrdf.store.local import AnnotationStore
from tests.helpers.corpus import DATA as TESTS_DATA
from tests.helpers.sample import article_text, raw_set

DATA = TESTS_DATA / "export"
BASE = "https://w3id.org/craftrdf/"
OBO = "http://purl.obolibrary.org/obo/"
OA = "http://www.w3.org/ns/oa#"
RDF = "http://www.w3.org/1999/02/22-rdf-syntax-ns#"
CRAFT = BASE + "vocab#"


def obo_iri(curie: str) -> str:
    return OBO + curie.replace(":", "_", 1)


def load_quietly(store, key, paths):  # type: ignore[no-untyped-def]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DataWarning)
        load_files(store, paths, set_key=key)


def obo_names(zip_path: Path) -> dict[str, str]:
    """id -> name of every [Term] stanza of a zipped OBO file, read with a regex."""
    with zipfile.ZipFile(zip_path) as z:
        text = z.read(z.namelist()[0]).decode("utf-8")
    out = {}
    for stanza in text.split("\n\n"):
        if stanza.lstrip().startswith("[Term]"):
            ident = re.search(r"^id: (\S+)", stanza, re.MULTILINE)
            name = re.search(r"^name: (.*)$", stanza, re.MULTILINE)
            if ident and name:
                out[ident.group(1)] = name.group(1).strip()
    return out


# -- BioNLP ----------------------------------------------------------------------------


def test_bionlp_fixture_comes_back_byte_for_byte(sample_store, tmp_path):
    load_quietly(sample_store, "RT_FIXTURE", [DATA / "11319941.bionlp"])
    r = export_set(sample_store, "rt_fixture", tmp_path, format="bionlp")
    # a set covers every document of the store (as evaluate reads it): the other two files are empty
    assert (r.documents, r.annotations, r.files, r.skipped) == (3, 5, 3, 0)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["11319941.bionlp", "11597317.bionlp", "17244351.bionlp"]
    assert (tmp_path / "11319941.bionlp").read_bytes() == (DATA / "11319941.bionlp").read_bytes()
    assert (tmp_path / "11597317.bionlp").read_bytes() == (tmp_path / "17244351.bionlp").read_bytes() == b""


@pytest.mark.parametrize("key", ["UBERON_EXT", "GO_BP_EXT", "CHEBI"])
def test_knowtator_to_bionlp_to_store_and_back(sample_store, tmp_path, key):
    first, second = tmp_path / "first", tmp_path / "second"
    export_set(sample_store, key, first, format="bionlp")
    load_quietly(sample_store, f"RT_{key}", [first])
    export_set(sample_store, f"RT_{key}", second, format="bionlp")
    # BioNLP -> store -> BioNLP: the same files, byte for byte
    assert sorted(p.name for p in first.iterdir()) == sorted(p.name for p in second.iterdir())
    for p in first.iterdir():
        assert (second / p.name).read_bytes() == p.read_bytes(), p.name

    # Knowtator -> store -> BioNLP -> store: the same annotations (ids become T numbers)
    def content(k: str) -> Counter:
        return Counter((a.document, a.class_id, a.spans, a.text) for a in fetch_annotations(sample_store, k))

    assert content(key) == content(f"RT_{key}")


def test_bionlp_lines_are_the_raw_knowtator_annotations(sample_store, tmp_path):
    export_set(sample_store, "UBERON_EXT", tmp_path, format="bionlp")
    expected = raw_set("UBERON/UBERON+extensions")
    assert sorted(p.stem for p in tmp_path.iterdir()) == sorted(d for d, anns in expected.items() if anns)
    for pmid, anns in expected.items():
        if not anns:
            continue
        text = article_text(pmid)
        lines = (tmp_path / f"{pmid}.bionlp").read_text(encoding="utf-8").splitlines()
        assert [line.split("\t")[0] for line in lines] == [f"T{n}" for n in range(1, len(lines) + 1)]
        got = Counter()
        for line in lines:
            _, middle, covered = line.split("\t")
            cls, _, offsets = middle.partition(" ")
            spans = tuple(tuple(int(x) for x in piece.split()) for piece in offsets.split(";"))
            assert covered == " ... ".join(text[s:e] for s, e in spans).replace("\n", " ")
            got[(cls, spans)] += 1
        assert got == Counter((a.cls, a.spans) for a in anns), pmid


# -- RDF dumps -------------------------------------------------------------------------


def graph_quads(store: ox.Store, graph: str) -> set[ox.Quad]:
    return set(store.quads_for_pattern(None, None, None, ox.NamedNode(graph)))


@pytest.mark.parametrize(("fmt", "rdf_format"), [("trig", ox.RdfFormat.TRIG), ("nquads", ox.RdfFormat.N_QUADS)])
def test_dataset_dump_loads_into_a_fresh_store(sample_store, tmp_path, fmt, rdf_format):
    out = tmp_path / f"uberon.{fmt}"
    r = export_set(sample_store, "UBERON_EXT", out, format=fmt)
    fresh = ox.Store()
    fresh.load(path=str(out), format=rdf_format)
    assert r.quads == len(fresh)
    set_graph = BASE + "set/UBERON_EXT"
    assert graph_quads(fresh, set_graph) == graph_quads(sample_store.raw, set_graph)
    assert {g.value for g in fresh.named_graphs()} == {
        set_graph,
        BASE + "documents",
        BASE + "ontology/UBERON+extensions",
        BASE + "mappings/UBERON_EXT",
    }

    expected = raw_set("UBERON/UBERON+extensions")
    annotated = {pmid for pmid, anns in expected.items() if anns}
    assert r.annotations == sum(len(a) for a in expected.values()) and r.documents == len(annotated)
    docs = ox.NamedNode(BASE + "documents")
    text = ox.NamedNode(CRAFT + "text")
    assert {q.subject.value: q.object.value for q in fresh.quads_for_pattern(None, text, None, docs)} == {
        BASE + "doc/" + pmid: article_text(pmid) for pmid in annotated
    }

    # the classes: every class the raw files use that the OBO file defines, with the OBO file's name
    names = obo_names(sample_dir() / "concept-annotation/UBERON/UBERON+extensions/UBERON+extensions.obo.zip")
    used = {a.cls for anns in expected.values() for a in anns}
    onto = ox.NamedNode(BASE + "ontology/UBERON+extensions")
    label = ox.NamedNode("http://www.w3.org/2000/01/rdf-schema#label")
    labels = {q.subject.value: q.object.value for q in fresh.quads_for_pattern(None, label, None, onto)}
    assert labels == {obo_iri(c): names[c] for c in used if c in names}
    assert {q.subject.value for q in fresh.quads_for_pattern(None, None, None, onto)} == set(labels)
    mappings = ox.NamedNode(BASE + "mappings/UBERON_EXT")
    assert {q.subject.value for q in fresh.quads_for_pattern(None, None, None, mappings)} <= {obo_iri(c) for c in used}


def test_turtle_dump_is_the_set_graph(sample_store, tmp_path):
    out = tmp_path / "cl.ttl"
    r = export_set(sample_store, "CL_EXT", out, format="turtle")
    fresh = ox.Store()
    fresh.load(path=str(out), format=ox.RdfFormat.TURTLE)
    original = {
        q.triple for q in sample_store.raw.quads_for_pattern(None, None, None, ox.NamedNode(BASE + "set/CL_EXT"))
    }
    assert {q.triple for q in fresh} == original and r.quads == len(original)
    assert "@prefix oa: <http://www.w3.org/ns/oa#> ." in out.read_text(encoding="utf-8")


def test_dump_of_one_document(sample_store, tmp_path):
    out = tmp_path / "doc.trig"
    r = export_set(sample_store, "UBERON_EXT", out, format="trig", document="11319941")
    fresh = ox.Store()
    fresh.load(path=str(out), format=ox.RdfFormat.TRIG)
    # expected: the set's description (without its batch digest) and, for each raw annotation of the
    # document, every quad of the stored set graph about it, its target and its selectors
    set_graph = BASE + "set/UBERON_EXT"
    ids = [a.id for a in raw_set("UBERON/UBERON+extensions")["11319941"]]
    subjects = {BASE + f"ann/UBERON_EXT/11319941/{i}" for i in ids}
    subjects |= {s + "#target" for s in subjects} | {s + f"#span{n}" for s in subjects for n in range(4)}
    expected = {
        q
        for q in graph_quads(sample_store.raw, set_graph)
        if q.subject.value in subjects or (q.subject.value == set_graph and q.predicate.value != CRAFT + "digest")
    }
    assert graph_quads(fresh, set_graph) == expected
    assert r.annotations == len(ids) and r.documents == 1
    docs = {q.subject.value for q in fresh.quads_for_pattern(None, None, None, ox.NamedNode(BASE + "documents"))}
    assert docs == {BASE + "doc/11319941"}
    used = {obo_iri(a.cls) for a in raw_set("UBERON/UBERON+extensions")["11319941"]}
    onto = {
        q.subject.value
        for q in fresh.quads_for_pattern(None, None, None, ox.NamedNode(BASE + "ontology/UBERON+extensions"))
    }
    assert onto and onto <= used


# -- JSON-LD ---------------------------------------------------------------------------


def expand_jsonld(path: Path) -> ox.Store:
    """Parse an export with pyoxigraph (which fetches no context), after checking that its inline context
    defines the Web Annotation terms the export uses as the hand-made copy of the W3C context does."""
    doc = json.loads(path.read_text(encoding="utf-8"))
    wa, _ = doc["@context"]
    local = json.loads((DATA / "anno-terms.jsonld").read_text(encoding="utf-8"))["@context"]
    assert {term: wa.get(term) for term in local} == local
    store = ox.Store()
    store.load(path=str(path), format=ox.RdfFormat.JSON_LD)
    return store


def objects(store: ox.Store, s, p: str) -> list:  # type: ignore[no-untyped-def]
    return [q.object for q in store.quads_for_pattern(s, ox.NamedNode(p), None)]


def one(store: ox.Store, s, p: str):  # type: ignore[no-untyped-def]
    found = objects(store, s, p)
    assert len(found) == 1, (s, p, found)
    return found[0]


def position_selector(store: ox.Store, target):  # type: ignore[no-untyped-def]
    """The target's one TextPositionSelector (a TextQuoteSelector may stand beside it)."""
    by_type = {one(store, sel, RDF + "type").value: sel for sel in objects(store, target, OA + "hasSelector")}
    assert set(by_type) <= {OA + "TextPositionSelector", OA + "TextQuoteSelector"}, by_type
    return by_type[OA + "TextPositionSelector"]


def rdf_list(store: ox.Store, head) -> list:  # type: ignore[no-untyped-def]
    out = []
    while head != ox.NamedNode(RDF + "nil"):
        out.append(one(store, head, RDF + "first"))
        head = one(store, head, RDF + "rest")
    return out


def read_wa(store: ox.Store) -> dict[str, tuple[str, str, tuple[int, int], tuple[tuple[int, int], ...] | None]]:
    """annotation IRI -> (body, source, selector (start, end), craft:spans or None), from expanded JSON-LD."""
    out = {}

    def pos(sel):  # type: ignore[no-untyped-def]
        return int(one(store, sel, OA + "start").value), int(one(store, sel, OA + "end").value)

    for q in store.quads_for_pattern(None, ox.NamedNode(RDF + "type"), ox.NamedNode(OA + "Annotation")):
        a = q.subject
        target = one(store, a, OA + "hasTarget")
        selector = position_selector(store, target)
        pieces = [q.object for q in store.quads_for_pattern(target, ox.NamedNode(CRAFT + "spans"), None)]
        spans = tuple(pos(s) for s in rdf_list(store, pieces[0])) if pieces else None
        out[a.value] = (
            one(store, a, OA + "hasBody").value,
            one(store, target, OA + "hasSource").value,
            pos(selector),
            spans,
        )
    return out


def test_jsonld_expands_to_the_raw_annotations(sample_store, tmp_path):
    out = tmp_path / "uberon.jsonld"
    r = export_set(sample_store, "UBERON_EXT", out, format="jsonld")
    store = expand_jsonld(out)
    expected = {}
    for pmid, anns in raw_set("UBERON/UBERON+extensions").items():
        for a in anns:
            extent = (min(s for s, _ in a.spans), max(e for _, e in a.spans))
            expected[BASE + f"ann/UBERON_EXT/{pmid}/{a.id}"] = (
                obo_iri(a.cls),
                BASE + f"doc/{pmid}",
                extent,
                a.spans if len(a.spans) > 1 else None,
            )
    assert any(v[3] for v in expected.values()), "the sample has discontinuous annotations"
    assert read_wa(store) == expected
    # the collection: typed, its total, one page whose items list holds every annotation
    coll = ox.NamedNode(BASE + "set/UBERON_EXT")
    AS = "http://www.w3.org/ns/activitystreams#"
    assert one(store, coll, RDF + "type").value == AS + "OrderedCollection"
    assert int(one(store, coll, AS + "totalItems").value) == len(expected) == r.annotations
    page = one(store, coll, AS + "first")
    assert one(store, page, RDF + "type").value == AS + "OrderedCollectionPage"
    assert {i.value for i in rdf_list(store, one(store, page, AS + "items"))} == set(expected)


def test_jsonld_keeps_pieces_out_of_text_order(sample_store, tmp_path):
    load_quietly(sample_store, "JSONLD_FIXTURE", [DATA / "11319941.bionlp"])
    out = tmp_path / "fixture.jsonld"
    export_set(sample_store, "JSONLD_FIXTURE", out, format="jsonld", document="11319941")
    got = read_wa(expand_jsonld(out))
    ann = BASE + "ann/JSONLD_FIXTURE/11319941/"
    doc = BASE + "doc/11319941"
    assert got == {  # by hand, from the fixture's five lines
        ann + "T1": (obo_iri("UBERON:0002435"), doc, (36, 44), None),
        ann + "T2": (obo_iri("UBERON:0005383"), doc, (36, 44), None),
        ann + "T3": (obo_iri("CL:1001474"), doc, (36, 89), ((83, 89), (36, 44))),
        ann + "T4": (obo_iri("CL:0000540"), doc, (83, 89), None),
        ann + "T5": (obo_iri("UBERON:0005381"), doc, (16855, 16894), ((16855, 16876), (16881, 16894))),
    }


# -- PubAnnotation ---------------------------------------------------------------------


def read_pubannotation(doc: dict) -> Counter:
    """(obj, spans) of each entity: a denotation, or fragments joined by _lexicallyChainedTo relations."""
    dens = {d["id"]: d for d in doc["denotations"]}
    earlier = {r["subj"]: r["obj"] for r in doc.get("relations", []) if r["pred"] == "_lexicallyChainedTo"}
    assert all(r["pred"] == "_lexicallyChainedTo" for r in doc.get("relations", []))
    used = set()
    out: Counter = Counter()
    for d in doc["denotations"]:
        if d["obj"] == "_FRAGMENT":
            continue
        chain = [d["id"]]
        while chain[-1] in earlier:
            chain.append(earlier[chain[-1]])
        used.update(chain)
        out[(d["obj"], tuple((dens[i]["span"]["begin"], dens[i]["span"]["end"]) for i in reversed(chain)))] += 1
    assert used == set(dens), "every fragment belongs to a chain"
    return out


def test_pubannotation_reads_back_as_the_raw_annotations(sample_store, tmp_path):
    r = export_set(sample_store, "UBERON_EXT", tmp_path, format="pubannotation")
    expected = raw_set("UBERON/UBERON+extensions")
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(f"{d}.json" for d, a in expected.items() if a)
    assert r.files == r.documents == len(list(tmp_path.iterdir()))
    for path in tmp_path.iterdir():
        pmid = path.stem
        doc = json.loads(path.read_text(encoding="utf-8"))
        assert (doc["sourcedb"], doc["sourceid"], doc["target"]) == ("PubMed", pmid, BASE + f"doc/{pmid}")
        assert doc["text"] == article_text(pmid)
        assert read_pubannotation(doc) == Counter((a.cls, a.spans) for a in expected[pmid])


def test_pubannotation_fragments_by_hand(sample_store, tmp_path):
    load_quietly(sample_store, "PA_FIXTURE", [DATA / "11319941.bionlp"])
    export_set(sample_store, "PA_FIXTURE", tmp_path, format="pubannotation")
    doc = json.loads((tmp_path / "11319941.json").read_text(encoding="utf-8"))
    assert doc["denotations"] == [
        {"id": "T1", "span": {"begin": 36, "end": 44}, "obj": "UBERON:0002435"},
        {"id": "T2", "span": {"begin": 36, "end": 44}, "obj": "UBERON:0005383"},
        {"id": "T3-0", "span": {"begin": 83, "end": 89}, "obj": "_FRAGMENT"},
        {"id": "T3-1", "span": {"begin": 36, "end": 44}, "obj": "CL:1001474"},
        {"id": "T4", "span": {"begin": 83, "end": 89}, "obj": "CL:0000540"},
        {"id": "T5-0", "span": {"begin": 16855, "end": 16876}, "obj": "_FRAGMENT"},
        {"id": "T5-1", "span": {"begin": 16881, "end": 16894}, "obj": "UBERON:0005381"},
    ]
    assert doc["relations"] == [
        {"id": "C-T3-0", "pred": "_lexicallyChainedTo", "subj": "T3-1", "obj": "T3-0"},
        {"id": "C-T5-0", "pred": "_lexicallyChainedTo", "subj": "T5-1", "obj": "T5-0"},
    ]


def test_bionlp_round_trip_of_a_span_over_newlines(tmp_path):
    # BioNLP cannot carry a newline in its text column: the writer puts a space there, and
    # validation counts line breaks as spaces (CRAFT: MONDO 14737183-927)
    store = AnnotationStore.memory()
    text = "acromegaloid facial appearance\n\nResults"
    store.load_batch(DOCUMENTS_GRAPH, document_nquads([Document("nl", text)], graph=DOCUMENTS_GRAPH), digest="nl")
    load_quietly(store, "NL", [DATA / "newline.knowtator.xml"])
    export_set(store, "NL", tmp_path, format="bionlp")
    assert (tmp_path / "nl.bionlp").read_text() == "T1\tHP:0001999 0 32\tacromegaloid facial appearance  \n"
    load_quietly(store, "NL_RT", [tmp_path])
    back = fetch_annotations(store, "NL_RT")
    assert [(a.class_id, a.spans) for a in back] == [("HP:0001999", (Span(0, 32),))]


# -- property: any annotations survive every annotation format -------------------------

_CLASSES = ["CL:0000540", "UBERON:0000955", "UBERON_EXT:bone_element_or_tissue", "GO:0005634"]


@st.composite
def documents(draw: st.DrawFn) -> tuple[str, list[tuple[str, tuple[tuple[int, int], ...]]]]:
    """A text and annotations on it: class and 1-3 spans (any order, overlapping, possibly empty)."""
    text = draw(st.text(alphabet="ab cé", min_size=1, max_size=40))
    span = st.tuples(st.integers(0, len(text)), st.integers(0, len(text))).map(lambda p: (min(p), max(p)))
    ann = st.tuples(st.sampled_from(_CLASSES), st.lists(span, min_size=1, max_size=3).map(tuple))
    return text, draw(st.lists(ann, min_size=1, max_size=6))


@settings(max_examples=25, deadline=None)
@given(documents())
def test_any_annotations_survive_every_format(doc):
    text, anns = doc
    expected = Counter(anns)
    store = AnnotationStore.memory()
    store.load_batch(DOCUMENTS_GRAPH, document_nquads([Document("d1", text)], graph=DOCUMENTS_GRAPH), digest="d1")
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp)
        lines = [
            f"T{i}\t{c} {';'.join(f'{s} {e}' for s, e in spans)}\t" + " ... ".join(text[s:e] for s, e in spans)
            for i, (c, spans) in enumerate(reversed(anns), 1)
        ]
        (out / "d1.bionlp").write_text("".join(line + "\n" for line in lines), encoding="utf-8")
        load_quietly(store, "P", [out / "d1.bionlp"])
        export_set(store, "P", out / "b1", format="bionlp")
        got = Counter()
        for line in (out / "b1" / "d1.bionlp").read_text(encoding="utf-8").splitlines():
            cls, _, offsets = line.split("\t")[1].partition(" ")
            got[(cls, tuple(tuple(int(x) for x in p.split()) for p in offsets.split(";")))] += 1
        assert got == expected
        load_quietly(store, "P2", [out / "b1"])  # BioNLP -> store -> BioNLP is stable
        export_set(store, "P2", out / "b2", format="bionlp")
        assert (out / "b2" / "d1.bionlp").read_bytes() == (out / "b1" / "d1.bionlp").read_bytes()
        export_set(store, "P", out / "pa", format="pubannotation")
        pa = json.loads((out / "pa" / "d1.json").read_text(encoding="utf-8"))
        assert pa["text"] == text and read_pubannotation(pa) == Counter((c, s) for c, s in anns)
        export_set(store, "P", out / "p.jsonld", format="jsonld")
        wa = read_wa(expand_jsonld(out / "p.jsonld"))
        curie = {obo_iri(c): c for c in _CLASSES}
        assert Counter((curie[body], spans or (sel,)) for body, _, sel, spans in wa.values()) == expected
