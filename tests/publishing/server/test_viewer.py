"""The viewer's data functions and routes on the bundled sample (no browser; see test_viewer_browser.py).

Expected values come from the sample's raw files (Knowtator XML, article text, OBO
stanzas), read here with the standard library.
"""

from __future__ import annotations

import html
import json
import re
import warnings
from collections import Counter

import pytest

from craftrdf.apps.demo import sample_dir
from craftrdf.core.errors import InputError
from craftrdf.publishing.server.viewer import (
    render_class_page,
    render_document_page,
    viewer_routes,
)
from craftrdf.publishing.server.viewer_classes import ViewerState, class_view
from craftrdf.publishing.server.viewer_data import document_view
from tests.helpers.hostile import hostile_store
from tests.helpers.sample import article_text, raw_set, read_obo

PMID = "11319941"
DISC_ID = "UBERON_Instance_30000"
FOLDERS = {  # set key -> sample knowtator folder
    "UBERON": "UBERON/UBERON",
    "UBERON_EXT": "UBERON/UBERON+extensions",
    "CL_EXT": "CL/CL+extensions",
    "SO_EXT": "SO/SO+extensions",
    "GO_BP_EXT": "GO_BP/GO_BP+extensions",
    "CHEBI": "CHEBI/CHEBI",
}


def obo_parents(term: dict[str, list[str]]) -> set[tuple[str, str]]:
    """(relation, parent id) of is_a and part_of lines, trailing comments dropped."""
    out = {("is_a", v.split(" ! ")[0].split()[0]) for v in term.get("is_a", [])}
    for v in term.get("relationship", []):
        rel, target = v.split(" ! ")[0].split()[:2]
        if rel in ("part_of", "BFO:0000050"):
            out.add(("part_of", target))
    return out


@pytest.fixture(scope="module")
def doc(sample_store):
    return document_view(sample_store, PMID, base_iri="https://example.org/craft")


@pytest.fixture(scope="module")
def state(sample_store):
    # wait for every index, however busy the machine (the time limit has its own test)
    return ViewerState(sample_store, base_iri="https://example.org/craft/", similar_wait=None)


# -- documents -----------------------------------------------------------------------


@pytest.mark.parametrize("key", sorted(FOLDERS))
def test_annotation_counts_per_set_match_the_knowtator_files(doc, key):
    expected = raw_set(FOLDERS[key])[PMID]
    got = [a for a in doc.annotations if a.set == key]
    assert len(got) == len(expected)
    assert next(s for s in doc.sets if s.key == key).count == len(expected)
    assert sorted((a.id, a.class_id) for a in got) == sorted((r.id, r.cls) for r in expected)


def test_the_document_text_and_iri(doc):
    assert doc.text == article_text(PMID)
    assert doc.iri == f"https://example.org/craft/doc/{PMID}"


def test_the_article_header_has_its_title_and_pubmed_and_pmc_links(doc):
    rows = (sample_dir() / "articles" / "ids" / "craft-idmappings.txt").read_text(encoding="utf-8").splitlines()
    pmcids = {pmid: pmcid for _, pmcid, pmid in (r.split("\t") for r in rows if not r.startswith("#"))}
    title = article_text(PMID).split("\n", 1)[0]
    assert doc.pmcid == pmcids[PMID] and doc.title == title
    page = render_document_page(doc)
    assert html.unescape(re.search(r'<h1 id="doc-title">(.*?)</h1>', page).group(1)) == title
    assert f'<a id="pubmed" href="https://pubmed.ncbi.nlm.nih.gov/{PMID}/">{PMID}</a>' in page
    assert f'<a id="pmc" href="https://pmc.ncbi.nlm.nih.gov/articles/{pmcids[PMID]}/">{pmcids[PMID]}</a>' in page
    assert f"<title>{html.escape(title)} · craftrdf</title>" in page


def test_a_discontinuous_annotation_is_one_record_with_its_pieces(doc):
    (rec,) = [a for a in doc.annotations if a.set == "UBERON_EXT" and a.id == DISC_ID]
    (raw_ann,) = [a for a in raw_set("UBERON/UBERON+extensions")[PMID] if a.id == DISC_ID]
    text = article_text(PMID)
    assert [(s.start, s.end) for s in rec.spans] == list(raw_ann.spans) == [(16855, 16876), (16881, 16894)]
    assert " ... ".join(text[s:e] for s, e in raw_ann.spans) == rec.text == raw_ann.text
    assert rec.text == "granule cell layer of ... dentate gyrus"
    assert rec.label == read_obo("UBERON/UBERON+extensions")["UBERON:0005381"]["name"][0]


def test_labels_and_extension_flags(doc):
    terms = read_obo("UBERON/UBERON+extensions")
    uberon = [a for a in doc.annotations if a.set == "UBERON_EXT"]
    for a in uberon:
        assert a.extension == a.class_id.split(":")[0].endswith("_EXT")
        if a.class_id in terms:
            assert a.label == terms[a.class_id]["name"][0]
    assert any(a.extension for a in uberon) and any(not a.extension for a in uberon)


def _chars(spans) -> frozenset[int]:
    return frozenset(i for s in spans for i in range(s.start, s.end))


def test_nesting_matches_character_sets_computed_here(doc):
    anns = doc.annotations
    chars = [_chars(a.spans) for a in anns]
    for i, a in enumerate(anns):
        if a.set not in ("UBERON_EXT", "CL_EXT"):
            continue
        expected = {j for j, c in enumerate(chars) if chars[i] and chars[i] < c}
        assert set(a.within) == expected, (a.set, a.id)
    assert any(a.within for a in anns)


def test_one_default_set_per_module_preferring_extensions(doc):
    defaults = {s.key for s in doc.sets if s.default}
    modules = {s.module for s in doc.sets}
    assert len(defaults) == len(modules)
    assert {"UBERON_EXT", "CL_EXT", "SO_EXT"} <= defaults
    assert not {"UBERON", "CL", "SO"} & defaults
    colours = {s.key: s.colour for s in doc.sets}
    assert colours["UBERON"] == colours["UBERON_EXT"] != colours["CL_EXT"]


def test_unknown_and_malformed_documents(sample_store):
    assert document_view(sample_store, "999999999", base_iri="x/") is None
    for bad in ("11319941x", "../11319941", "", "1 OR 1=1", "１２３"):
        with pytest.raises(InputError):
            document_view(sample_store, bad, base_iri="x/")


# -- classes -------------------------------------------------------------------------


def test_class_description_from_the_obo_file(state):
    term = read_obo("UBERON/UBERON+extensions")["UBERON:0000955"]
    view = class_view(state, "UBERON:0000955")
    assert view is not None and view.described
    assert view.label == term["name"][0] == "brain"
    assert view.definition == term["def"][0].split('" [')[0].strip('"')
    synonyms = {(re.match(r'"(.*)" (\w+)', s).group(2), re.match(r'"(.*)" (\w+)', s).group(1)) for s in term["synonym"]}
    assert set(view.synonyms) == synonyms
    assert {(rel, p.curie) for rel, p in view.parents} == obo_parents(term)


def test_ancestors_are_the_closure_over_is_a_and_part_of(state):
    terms = {**read_obo("UBERON/UBERON"), **read_obo("UBERON/UBERON+extensions")}
    seen: set[str] = set()
    todo = ["UBERON:0005381"]
    while todo:
        for _, p in obo_parents(terms.get(todo.pop(), {})):
            if p not in seen:
                seen.add(p)
                todo.append(p)
    view = class_view(state, "UBERON:0005381")
    assert {a.curie for a in view.ancestors} == seen
    assert all(a.label == terms[a.curie]["name"][0] for a in view.ancestors if a.curie in terms)


def test_annotations_of_a_class_are_counted_set_by_set_as_in_the_knowtator_files(state):
    folders = {"UBERON": "UBERON/UBERON", "UBERON_EXT": "UBERON/UBERON+extensions"}
    per_doc: dict[str, dict[str, int]] = {}  # pmid -> set -> annotations
    mentions: dict[str, set[tuple[tuple[tuple[int, int], ...], str]]] = {}
    for key, folder in folders.items():
        for pmid, anns in raw_set(folder).items():
            hits = [a for a in anns if a.cls == "UBERON:0000955"]
            if hits:
                per_doc.setdefault(pmid, {})[key] = len(hits)
                mentions.setdefault(pmid, set()).update((a.spans, a.text) for a in hits)
    view = class_view(state, "UBERON:0000955")
    assert view.annotation_count == sum(n for sets in per_doc.values() for n in sets.values())
    assert view.per_set == tuple(
        (key, sum(s.get(key, 0) for s in per_doc.values()), sum(key in s for s in per_doc.values()))
        for key in sorted(folders)
    )
    assert {d.pmid: dict(d.per_set) for d in view.documents} == per_doc
    for d in view.documents:
        # both sets annotate each mention: a covered text counts once per mention, not once per set
        assert dict(d.texts) == Counter(text for _, text in mentions[d.pmid])
    page = render_class_page(view)
    (summary,) = re.findall(r'<span class="count" id="per-set">\((.*?)\)</span>', page)
    assert summary == " · ".join(f"{k} {n} in {d} document{'s' * (d != 1)}" for k, n, d in view.per_set)


def test_similar_classes_by_wang_with_one_index_per_ontology(state):
    from craftrdf.analysis.similarity.definition import wang_similarity, weighted_dag

    view = class_view(state, "UBERON:0000955")
    assert view.similarity_ontology == "UBERON+extensions"
    scores = [v for _, v in view.similar]
    assert view.similar and len(view.similar) <= 10
    assert scores == sorted(scores, reverse=True) and all(0 < v <= 1 for v in scores)
    assert "UBERON:0000955" not in {r.curie for r, _ in view.similar}
    # the best one, recomputed from the OBO file's is_a/part_of lines with the paper's weights
    terms = read_obo("UBERON/UBERON+extensions")
    edges = [(c, {"is_a": "is_a", "part_of": "part_of"}[rel], p) for c, t in terms.items() for rel, p in obo_parents(t)]
    dag = weighted_dag(edges, {"is_a": 0.8, "part_of": 0.6}, nodes=set(terms))
    best, score = view.similar[0]
    assert score == pytest.approx(wang_similarity(dag, "UBERON:0000955", best.curie), abs=1e-9)
    index = state.index("UBERON+extensions")
    class_view(state, "UBERON:0002435")
    assert state.index("UBERON+extensions") is index  # built once, kept in the state
    assert state.built_indexes() == ("UBERON+extensions",)
    class_view(state, "SO:0000704")
    assert state.built_indexes() == ("SO+extensions", "UBERON+extensions")


def test_a_slow_index_build_does_not_hold_the_class_page(sample_store):
    import threading

    from craftrdf.publishing.server.viewer_classes import wang_index

    release = threading.Event()
    calls: list[str] = []

    def slow(store, ontology):
        calls.append(ontology)
        assert release.wait(30), "the test never released the build"
        return wang_index(store, ontology)

    st = ViewerState(sample_store, base_iri="x/", similar_wait=0.2, build_index=slow)
    first = class_view(st, "UBERON:0000955")
    assert first.similar_pending and first.similar == () and first.label == "brain"
    assert "similar-pending" in render_class_page(first)
    assert class_view(st, "UBERON:0002435").similar_pending  # same graph: the same build, not a second one
    release.set()
    assert st.index("UBERON+extensions") is not None
    done = class_view(st, "UBERON:0000955")
    assert not done.similar_pending and done.similar
    assert calls == ["UBERON+extensions"]


def _is_a_ancestors(terms: dict[str, dict[str, list[str]]], term: str) -> set[str]:
    seen: set[str] = set()
    todo = [term]
    while todo:
        for rel, p in obo_parents(terms.get(todo.pop(), {})):
            if rel == "is_a" and p not in seen:
                seen.add(p)
                todo.append(p)
    return seen


def test_an_extension_class_is_placed_by_its_union_definition_and_has_no_purl_link(state):
    from craftrdf.analysis.similarity.definition import wang_similarity, weighted_dag

    terms = read_obo("UBERON/UBERON+extensions")
    cls = "UBERON_EXT:cartilage_element_or_tissue"
    assert not obo_parents(terms[cls])  # as shipped: no parent
    labels = re.findall(r"UBERON:'([^']+)'", terms[cls]["def"][0])
    assert labels == ["cartilage element", "cartilage tissue"]
    by_name = {t["name"][0]: i for i, t in terms.items() if "name" in t}
    members = [by_name[label] for label in labels]
    common = set.intersection(*(_is_a_ancestors(terms, m) for m in members))
    most_specific = {c for c in common if not any(c in _is_a_ancestors(terms, o) for o in common)}
    view = class_view(state, cls)
    assert view.parents == () and {r.curie for r in view.placed_under} == most_specific != set()
    assert view.placement_note is None
    # Wang over the OBO file's edges plus the placement: the class under its members' common ancestor
    edges = [(c, rel, p) for c, t in terms.items() for rel, p in obo_parents(t)]
    edges += [(m, "is_a", cls) for m in members] + [(cls, "is_a", p) for p in most_specific]
    dag = weighted_dag(edges, {"is_a": 0.8, "part_of": 0.6}, nodes=set(terms))
    scores = {r.curie: v for r, v in view.similar}
    (parent,) = most_specific
    assert scores[parent] > 0
    assert scores[parent] == pytest.approx(wang_similarity(dag, cls, parent), abs=1e-9)
    page = render_class_page(view)
    assert 'id="placed-under"' in page and f'href="../class/{parent}"' in page
    assert 'href="http://purl.obolibrary.org/obo/UBERON_EXT' not in page and '<code id="class-iri"' in page
    proper = render_class_page(class_view(state, "UBERON:0000955"))
    assert 'href="http://purl.obolibrary.org/obo/UBERON_0000955"' in proper  # a PURL that resolves stays a link


def test_an_extension_class_left_unplaced_says_why(state):
    terms = read_obo("UBERON/UBERON+extensions")
    cls = "PATO_UBERON_EXT:female_or_bearer_of_femaleness"
    assert "bearer_of some" in terms[cls]["def"][0] and not obo_parents(terms[cls])  # a restriction, not a class
    view = class_view(state, cls)
    assert view.parents == view.placed_under == view.similar == ()
    assert "not a union of named classes" in view.placement_note
    page = render_class_page(view)
    assert 'id="placement-note"' in page and 'id="similar-none"' in page


def test_extension_placements_are_built_once_per_graph_off_the_request(sample_store):
    from craftrdf.publishing.server.viewer_placements import extension_placements

    calls: list[str] = []

    def counting(store, ontology):
        calls.append(ontology)
        return extension_placements(store, ontology)

    st = ViewerState(sample_store, base_iri="x/", similar_wait=None, build_placements=counting)
    class_view(st, "UBERON:0000955")  # a proper class: the plain index, no placements
    assert calls == []
    class_view(st, "UBERON_EXT:cartilage_element_or_tissue")
    class_view(st, "UBERON_EXT:bone_element_or_tissue")
    assert calls == ["UBERON+extensions"]


def test_parallel_extension_class_points_at_its_base(state):
    view = class_view(state, "SO_EXT:0000704")
    assert view is not None
    assert view.parallel_of is not None and view.parallel_of.curie == "SO:0000704"
    assert view.parallel_of.label == read_obo("SO/SO+extensions")["SO:0000704"]["name"][0]


def test_unknown_and_malformed_classes(state):
    assert class_view(state, "UBERON:9999999") is None
    for bad in ("brain", "http://purl.obolibrary.org/obo/UBERON_0000955", "UBERON:", "UB ERON:1", "<x>:1"):
        with pytest.raises(InputError):
            class_view(state, bad)


# -- pages and routes ----------------------------------------------------------------


def test_pages_escape_what_comes_from_data(tmp_path):
    store, label, covered = hostile_store(tmp_path)
    doc = document_view(store, "1", base_iri="https://example.org/")
    assert doc.annotations[0].label == label and doc.annotations[0].text == covered
    page = render_document_page(doc)
    assert page.count("<script") == 2 and page.count("</script>") == 2  # the data block and viewer.js
    assert "<img" not in page and "alert(1)</script>" not in page
    assert 'id="pmc"' not in page and 'id="pubmed"' in page  # no PMC id in this store, so no PMC link
    blob = re.search(r'<script type="application/json" id="viewer-data">(.*?)</script>', page, re.DOTALL).group(1)
    assert json.loads(blob)["annotations"][0]["label"] == label  # intact once parsed
    cls = render_class_page(class_view(ViewerState(store, base_iri="x/"), "XX:0000001"))
    assert "<script" not in cls and "<img" not in cls and "<b>" not in cls
    assert "&lt;/script&gt;&lt;script&gt;alert(1)&lt;/script&gt;" in cls
    assert "&lt;img src=x onerror=alert(2)&gt;" in cls


@pytest.fixture(scope="module")
def client(sample_store):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # starlette's notice about its httpx client
        from starlette.applications import Starlette
        from starlette.testclient import TestClient

        return TestClient(Starlette(routes=viewer_routes(sample_store, base_iri="https://example.org/")))


def test_routes_answer_pages_json_and_static_files(client, doc):
    r = client.get(f"/doc/{PMID}")
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/html")
    assert "script-src 'self'" in r.headers["content-security-policy"]
    data = client.get(f"/api/doc/{PMID}").json()
    assert len(data["annotations"]) == len(doc.annotations)
    assert data["text"] == doc.text
    r = client.get("/class/UBERON:0000955")
    assert r.status_code == 200 and '<span id="class-label">brain</span>' in r.text
    assert client.get("/class/UBERON%3A0000955").status_code == 200
    assert client.get("/api/class/UBERON:0000955").json()["label"] == "brain"
    for name in ("viewer.js", "viewer.css"):
        assert client.get(f"/static/{name}").status_code == 200


@pytest.mark.parametrize(
    "path",
    [
        "/doc/999999999",
        "/doc/abc",
        "/doc/1%27%20OR%201=1",
        "/api/doc/999999999",
        "/class/UBERON:9999999",
        "/class/brain",
        "/api/class/%3Cscript%3E:1",
        "/class/UBERON%2F0000955",
        "/static/../viewer.py",
        "/static/%2e%2e/viewer_data.py",
        "/static/nothing.js",
    ],
)
def test_unknown_or_malformed_paths_are_404(client, path):
    r = client.get(path)
    assert r.status_code == 404
    if r.headers["content-type"].startswith("text/html"):
        assert "<script" not in r.text
    elif "script" in r.text:  # the API's JSON error quotes the input; browsers must not sniff it as HTML
        assert r.headers["content-type"] == "application/json" and r.headers["x-content-type-options"] == "nosniff"


@pytest.mark.corpus
def test_a_corpus_document_matches_its_knowtator_file(corpus_store, craft_dir):
    """On the full corpus: every UBERON+extensions annotation of an article, once."""
    import xml.etree.ElementTree as ET

    from craftrdf.store.local import AnnotationStore

    path = craft_dir / "concept-annotation" / "UBERON" / "UBERON+extensions" / "knowtator"
    pmid = "17696610"
    root = ET.parse(path / f"{pmid}.txt.knowtator.xml").getroot()
    expected = {a.find("mention").get("id") for a in root.iter("annotation")}
    with AnnotationStore.open(corpus_store, mode="read") as store:
        view = document_view(store, pmid, base_iri="https://example.org/")
    assert {a.id for a in view.annotations if a.set == "UBERON_EXT"} == expected
    assert view.text == (craft_dir / "articles" / "txt" / f"{pmid}.txt").read_text(encoding="utf-8")
