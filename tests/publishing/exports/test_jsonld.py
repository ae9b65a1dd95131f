"""The JSON-LD export read by two other JSON-LD processors (pyld, rdflib) with the network cut off.

Expected values come from the store's set graph (the triples the export should carry across) and from
the sample's raw Knowtator files and article texts (offsets, covered text, annotator, quote context).
"""

from __future__ import annotations

import json
import socket
from collections import defaultdict

import pyoxigraph as ox
import pytest

from craftrdf.publishing.exports.sets import export_set
from tests.helpers.cli import craftrdf
from tests.helpers.sample import article_text, raw_set

pyld = pytest.importorskip("pyld", reason="the test extra installs PyLD")
rdflib = pytest.importorskip("rdflib", reason="the test extra installs rdflib")
from pyld import jsonld  # noqa: E402

BASE = "https://w3id.org/craftrdf/"
OA = "http://www.w3.org/ns/oa#"
RDF = "http://www.w3.org/1999/02/22-rdf-syntax-ns#"
DCTERMS = "http://purl.org/dc/terms/"
FOAF = "http://xmlns.com/foaf/0.1/"
CONTEXT_CHARS = 32  # docs/exports.md: prefix and suffix hold 32 characters of the article


class NetworkUsed(AssertionError):
    pass


@pytest.fixture
def offline(monkeypatch: pytest.MonkeyPatch) -> None:
    """No socket may connect, and pyld's document loader (its only way to fetch a context) fails."""

    def refuse(*args: object, **kwargs: object) -> None:
        raise NetworkUsed(f"network access attempted: {args[1:] or kwargs}")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket.socket, "connect_ex", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)
    monkeypatch.setattr(jsonld, "_default_document_loader", refuse)


def canonical(data: bytes, rdf_format: ox.RdfFormat) -> set[ox.Quad]:
    """The quads of ``data`` with RDFC-1.0 blank node labels, so two parsers' graphs compare with ``==``."""
    dataset = ox.Dataset(ox.parse(data, rdf_format))
    dataset.canonicalize(ox.CanonicalizationAlgorithm.RDFC_1_0)
    return set(dataset)


def values(store: ox.Store, p: str, graph: ox.NamedNode | None = None) -> dict[str, list[ox.Term]]:
    """subject -> objects of predicate ``p`` (in ``graph``, or in any graph)."""
    out: dict[str, list[ox.Term]] = defaultdict(list)
    for q in store.quads_for_pattern(None, ox.NamedNode(p), None, graph):
        out[q.subject.value].append(q.object)
    return out


# rdflib 7's JSON-LD parser builds its own (deprecated) ConjunctiveGraph whatever it parses into; not ours to fix
@pytest.mark.filterwarnings("ignore:ConjunctiveGraph is deprecated:DeprecationWarning")
def test_pyld_and_rdflib_read_the_export_without_a_network(sample_store, tmp_path, offline):
    out = tmp_path / "uberon.jsonld"
    export_set(sample_store, "UBERON_EXT", out, format="jsonld")
    doc = json.loads(out.read_text(encoding="utf-8"))
    nquads = jsonld.to_rdf(doc, {"format": "application/n-quads"}).encode("utf-8")  # pyld's RDF of it
    got = ox.Store()
    got.load(nquads, ox.RdfFormat.N_QUADS)

    # rdflib's own JSON-LD parser reads the same graph from the file (compared with canonical blank node
    # labels: rdflib.compare.isomorphic takes minutes here)
    g = rdflib.Graph().parse(data=out.read_text(encoding="utf-8"), format="json-ld")
    by_rdflib = canonical(g.serialize(format="nt", encoding="utf-8"), ox.RdfFormat.N_TRIPLES)
    assert len(got) > 0 and by_rdflib == canonical(nquads, ox.RdfFormat.N_QUADS)

    # the triples that carry over as they are: what is an annotation, its class, its document, its annotator
    stored = sample_store.raw
    set_graph = ox.NamedNode(BASE + "set/UBERON_EXT")
    annotation = ox.NamedNode(OA + "Annotation")
    typed = {q.subject.value for q in stored.quads_for_pattern(None, ox.NamedNode(RDF + "type"), annotation, set_graph)}
    assert {q.subject.value for q in got.quads_for_pattern(None, ox.NamedNode(RDF + "type"), annotation)} == typed
    assert values(got, OA + "hasBody") == values(stored, OA + "hasBody", set_graph)

    def source_of(store: ox.Store, graph: ox.NamedNode | None) -> dict[str, str]:
        targets, sources = values(store, OA + "hasTarget", graph), values(store, OA + "hasSource", graph)
        return {a: sources[t[0].value][0].value for a, t in targets.items() if a in typed}

    assert source_of(got, None) == source_of(stored, set_graph)
    names = values(got, FOAF + "name")
    creators = {
        a: [names[agent.value][0] for agent in agents] for a, agents in values(got, DCTERMS + "creator").items()
    }
    assert creators == values(stored, DCTERMS + "creator", set_graph) and len(creators) == len(typed)
    # every annotation classifies its mention (Web Annotation Data Model 3.3.5)
    motivations = values(got, OA + "motivatedBy")
    assert set(motivations) == typed and {m.value for ms in motivations.values() for m in ms} == {OA + "classifying"}


def test_a_remote_context_needs_the_network(sample_store, tmp_path, offline):
    # the guard above is real: the same export naming the W3C context by its IRI cannot be expanded
    out = tmp_path / "remote.jsonld"
    export_set(sample_store, "UBERON_EXT", out, format="jsonld", document="11319941", jsonld_context="remote")
    doc = json.loads(out.read_text(encoding="utf-8"))
    assert doc["@context"][0] == "http://www.w3.org/ns/anno.jsonld"
    with pytest.raises(jsonld.JsonLdError):
        jsonld.expand(doc)


def test_selectors_creator_and_quote_are_the_raw_files(sample_store, tmp_path, offline):
    out = tmp_path / "uberon.jsonld"
    export_set(sample_store, "UBERON_EXT", out, format="jsonld")
    items = {a["id"]: a for a in json.loads(out.read_text(encoding="utf-8"))["first"]["items"]}
    raw = raw_set("UBERON/UBERON+extensions")
    checked = discontinuous = 0
    for pmid, anns in raw.items():
        text = article_text(pmid)
        for a in anns:
            item = items[BASE + f"ann/UBERON_EXT/{pmid}/{a.id}"]
            start, end = min(s for s, _ in a.spans), max(e for _, e in a.spans)
            assert item["motivation"] == "classifying"
            assert item["creator"] == {"type": "Person", "name": a.annotator}
            position, quote = item["target"]["selector"]
            assert position == {"type": "TextPositionSelector", "start": start, "end": end}
            assert quote["type"] == "TextQuoteSelector" and quote["exact"] == text[start:end]
            assert quote.get("prefix", "") == text[max(0, start - CONTEXT_CHARS) : start]
            assert quote.get("suffix", "") == text[end : end + CONTEXT_CHARS]
            if len(a.spans) == 1:
                assert quote["exact"] == a.text  # Knowtator's own covered text
            else:
                discontinuous += 1
                assert [(p["start"], p["end"]) for p in item["target"]["spans"]] == list(a.spans)
                # Knowtator joins the pieces with " ... "; the quote is the whole segment between them
                first, *_, last = a.text.split(" ... ")
                assert quote["exact"].startswith(first) and quote["exact"].endswith(last)
            checked += 1
    assert checked == len(items) and discontinuous > 0


def test_the_discontinuous_example_of_the_docs(sample_store, tmp_path):
    # docs/exports.md's example, by hand from the article text: "granule cell layer of the dentate gyrus",
    # 16855-16876 and 16881-16894
    out = tmp_path / "one.jsonld"
    export_set(sample_store, "UBERON_EXT", out, format="jsonld", document="11319941")
    items = json.loads(out.read_text(encoding="utf-8"))["first"]["items"]
    item = next(i for i in items if i["id"].endswith("/UBERON_Instance_30000"))
    text = article_text("11319941")
    assert text[16855:16876] == "granule cell layer of" and text[16881:16894] == "dentate gyrus"
    assert item["target"]["selector"][1] == {
        "type": "TextQuoteSelector",
        "exact": "granule cell layer of the dentate gyrus",
        "prefix": text[16855 - 32 : 16855],
        "suffix": text[16894 : 16894 + 32],
    }


def test_cli_context_option(sample_store_dir, tmp_path):
    out = tmp_path / "r.jsonld"
    r = craftrdf(
        "export", "--store", str(sample_store_dir), "--set", "CL", "--format", "jsonld", "--out", str(out),
        "--context", "remote",
    )  # fmt: skip
    assert r.returncode == 0, r.stderr
    assert json.loads(out.read_text(encoding="utf-8"))["@context"][0] == "http://www.w3.org/ns/anno.jsonld"
    r = craftrdf(
        "export", "--store", str(sample_store_dir), "--set", "CL", "--format", "turtle", "--out", str(out),
        "--context", "remote",
    )  # fmt: skip
    assert r.returncode == 1 and r.stderr == "craftrdf: error: --context is for --format jsonld, not turtle\n"
