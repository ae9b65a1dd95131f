"""The official CRAFT Shared Task scorer's rules, worked by hand on tests/data/evaluation/official_toy.obo.

w = 0.65. Each S-value map below is read off the toy ontology by hand (breadth-first
distance d gives 0.65**d); each similarity is sum(common S_a + S_b) / (sum S_a + sum S_b)
as a fraction, then rounded half-up to 10 decimals. docs/evaluation.md says which official
source file each test pins.
"""

from __future__ import annotations

import shutil
import subprocess
import warnings
from decimal import Decimal
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from craftrdf.analysis.evaluation.official import (
    java_hash_order,
    official_class,
    official_row,
    score_official,
    spans_overlap,
)
from craftrdf.analysis.evaluation.official_graph import (
    OfficialGraph,
    OfficialWang,
    obo_iri,
    read_official_graph,
    store_official_graph,
)
from craftrdf.analysis.evaluation.scores import total
from craftrdf.core.errors import DataWarning
from craftrdf.core.model import Annotation, Span
from tests.helpers.corpus import DATA

TOY = DATA / "evaluation" / "official_toy.obo"
OBO = "http://purl.obolibrary.org/obo/"
ROOT, ORGAN, LIMB, PAW, BONE, CARTILAGE, HAND, MANUS, MAMMAL = (f"TOY:000000{i}" for i in range(1, 10))
UNION = "TOY_EXT:bone_or_cartilage"


@pytest.fixture(scope="module")
def wang() -> OfficialWang:
    return OfficialWang(read_official_graph(TOY))


def ann(cls: str, *spans: tuple[int, int], id: str = "T") -> Annotation:
    return Annotation(id, "doc", cls, tuple(Span(a, b) for a, b in spans))


def d(x: str) -> Decimal:
    return Decimal(x)


# -- the graph (BossyMetric.populateSvalueMap over owltools' getOutgoingEdges) ------------------


def test_edges_read_from_the_obo_file(wang: OfficialWang) -> None:
    g = wang.graph
    iri = {c: g.lookup(c) for c in (LIMB, PAW, BONE, CARTILAGE, HAND, MANUS, UNION)}
    assert iri[UNION] == OBO + "TOY_EXT#_bone_or_cartilage"  # a local id with "_" gets "#_"
    assert g.parents[OBO + "TOY_0000004"] == (OBO + "TOY_0000003",)  # the genus only
    assert set(g.parents[OBO + "TOY_0000005"]) == {OBO + "TOY_0000002", iri[UNION]}  # union reversed
    assert g.parents[OBO + "TOY_0000007"] == (OBO + "TOY_0000008",)  # equivalent_to, both ways
    assert OBO + "TOY_0000007" in g.parents[OBO + "TOY_0000008"]
    assert OBO + "TOY_0000099" in g.parents[OBO + "TOY_0000006"]
    assert OBO + "TOY_0000099" not in g.declared and "TOY:0000099" not in g
    assert len(g.declared) == 10  # the [Term] stanzas; the [Typedef] is no class


def test_genus_edge(wang: OfficialWang) -> None:
    # S(paw) = {paw 1, limb .65, root .4225}; S(limb) = {limb 1, root .65}
    # (1.65 + 1.0725) / (2.0725 + 1.65) = 2.7225 / 3.7225 = 1089/1489
    assert wang.similarity(PAW, LIMB) == d("0.7313633311")
    # neither the differentia (mammal) nor relationship: part_of organ is a parent
    assert wang.similarity(PAW, MAMMAL) == 0
    # S(organ) = {organ 1, root .65}: common root only, (0.4225 + 0.65) / (2.0725 + 1.65) = 429/1489
    assert wang.similarity(PAW, ORGAN) == d("0.2881128274")
    s = score_official([ann(PAW, (0, 4))], [ann(LIMB, (0, 4))], wang)
    assert s.exact == d("0.7313633311")
    assert official_row("d", s).split("\t")[7] == "0.2686"  # SER = 1 - M = 0.2686366689


def test_union_members_get_the_union_class_as_parent(wang: OfficialWang) -> None:
    # S(bone) = {bone 1, organ .65, union .65, root .4225} = 2.7225; S(union) = {union 1}
    # (0.65 + 1) / 3.7225 = 660/1489
    assert wang.similarity(BONE, UNION) == d("0.4432505037")


def test_equivalent_classes_have_similarity_one(wang: OfficialWang) -> None:
    # S(hand) = {hand 1, manus .65, limb .4225, root .274625}; S(manus) = {manus 1, hand .65, limb .65, root .4225}
    # every class is common: the quotient is 1
    assert wang.similarity(HAND, MANUS) == 1


def test_undeclared_parent_is_still_an_ancestor(wang: OfficialWang) -> None:
    # S(cartilage) = {cartilage 1, organ .65, TOY:0000099 .65, union .65, root .4225} = 3.3725
    # S(bone) = 2.7225; common organ, union, root: 1.3 + 1.3 + 0.845 = 3.445; 3.445 / 6.095 = 13/23
    assert wang.similarity(CARTILAGE, BONE) == d("0.5652173913")


def test_store_graph_gives_the_same_similarities(wang: OfficialWang) -> None:
    from craftrdf.store.local import AnnotationStore

    store = AnnotationStore.memory()
    lines = _turtle_as_nquads(DATA / "evaluation" / "official_toy.ttl", "https://w3id.org/craftrdf/ontology/TOY")
    store.load_batch("https://w3id.org/craftrdf/ontology/TOY", lines, digest="toy")
    other = OfficialWang(store_official_graph(store, "TOY"))
    classes = [ROOT, ORGAN, LIMB, PAW, BONE, CARTILAGE, HAND, MANUS, MAMMAL, UNION]
    assert {c for c in classes if c in other.graph} == set(classes)
    for a in classes:
        for b in classes:
            assert other.similarity(a, b) == wang.similarity(a, b), (a, b)


def test_extension_definitions_in_the_store_are_not_scorer_edges() -> None:
    """The store writes TOY_EXT:muscle's def: as an owl:unionOf; the scorer reads the OBO file, where it is text."""
    from craftrdf.building.loader import load_files
    from craftrdf.store.local import AnnotationStore

    path = DATA / "similarity" / "toy_extensions.obo"
    store = AnnotationStore.memory()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DataWarning)
        load_files(store, [path])
    from_store, from_file = store_official_graph(store, "toy_extensions"), read_official_graph(path)
    obo = "http://purl.obolibrary.org/obo/"
    # by hand from the file: muscle tissue's one parent is tissue; the extension class muscle has none
    assert from_store.parents[obo + "TOY_0000004"] == (obo + "TOY_0000002",)
    assert obo + "TOY_EXT_muscle" not in from_store.parents and "TOY_EXT:muscle" in from_store

    # the OWL API names an extension class .../TOY_EXT#_x, the store .../TOY_EXT_x: the same class for lookup
    def named(iri: str) -> str:
        return iri.replace("_EXT#_", "_EXT_")

    def edges(g: OfficialGraph) -> set[tuple[str, str]]:
        return {(named(c), named(p)) for c, ps in g.parents.items() for p in ps}

    assert edges(from_store) == edges(from_file)
    sim = OfficialWang(from_store).similarity("TOY_EXT:muscle", "TOY:0000004")
    assert sim == OfficialWang(from_file).similarity("TOY_EXT:muscle", "TOY:0000004") == 0


def test_the_store_graph_and_the_models_told_axioms_are_one_read(monkeypatch: pytest.MonkeyPatch) -> None:
    """The scorer's store graph projects the ontology model's told axioms: one query per graph serves both."""
    from craftrdf.building.loader import load_files
    from craftrdf.core.iris import ontology_graph
    from craftrdf.ontology import store_model
    from craftrdf.store.local import AnnotationStore

    store = AnnotationStore.memory()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DataWarning)
        load_files(store, [DATA / "similarity" / "toy_extensions.obo"])
    reads: list[str] = []
    real = store_model.read_told_axioms
    monkeypatch.setattr(store_model, "read_told_axioms", lambda s, g: reads.append(g) or real(s, g))
    graph = store_official_graph(store, "toy_extensions")
    model = store_model.read_store_model(store, "toy_extensions")
    obo = "http://purl.obolibrary.org/obo/"
    # by hand from the file: muscle tissue is_a tissue, in the model's told axioms and the scorer's graph
    assert obo + "TOY_0000002" in model.subclass_of["TOY:0000004"]
    assert graph.parents[obo + "TOY_0000004"] == (obo + "TOY_0000002",)
    assert reads == [ontology_graph("toy_extensions")]


def test_store_wang_reads_a_graph_once_per_store_and_again_when_the_store_changes() -> None:
    from craftrdf.analysis.evaluation.official_graph import store_wang
    from craftrdf.building.loader import load_files
    from craftrdf.core.iris import ontology_graph
    from craftrdf.store.local import AnnotationStore

    store = AnnotationStore.memory()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DataWarning)
        load_files(store, [DATA / "similarity" / "toy_extensions.obo"])
        first = store_wang(store, ontology_graph("toy_extensions"))
        assert store_wang(store, ontology_graph("toy_extensions")).graph is first.graph
        load_files(store, [DATA / "similarity" / "wang2007_fig1.obo"])  # a new batch: the cache is dropped
        again = store_wang(store, ontology_graph("toy_extensions"))
    assert again.graph is not first.graph and again.graph == first.graph


def _turtle_as_nquads(path: Path, graph: str) -> list[str]:
    import pyoxigraph as ox

    quads = ox.parse(path=str(path), format=ox.RdfFormat.TURTLE)
    return [f"{ox.Quad(q.subject, q.predicate, q.object, ox.NamedNode(graph))} ." for q in quads]


# -- ids (BossyMetric.getOWLClass, CraftConceptEvaluationUtil.translateExtensionToBaseNamespace) ---


def test_ext_digits_renamed_only_in_extension_sets(wang: OfficialWang) -> None:
    assert official_class("TOY_EXT:0000005", "TOY_EXT") == BONE
    assert official_class("TOY_EXT:0000005", "TOY") == "TOY_EXT:0000005"
    assert official_class("Toy_EXT:0000005", "TOY_EXT") == "Toy_EXT:0000005"  # [A-Z]+ only
    assert official_class("TOY_EXT:bone_or_cartilage", "TOY_EXT") == UNION
    s = score_official([ann("TOY_EXT:0000005", (0, 4))], [ann(BONE, (0, 4))], wang, set_key="TOY_EXT")
    assert (s.exact, s.ref_count, s.pred_count) == (1, 1, 1)
    with pytest.warns(DataWarning, match="TOY_EXT:0000005"):
        s = score_official([ann("TOY_EXT:0000005", (0, 4))], [ann(BONE, (0, 4))], wang, set_key="TOY")
    assert (s.ref_count, s.pred_count, s.insertions) == (0, 1, 1)


def test_obo_ids_to_iris() -> None:
    assert obo_iri("GO:0005575") == OBO + "GO_0005575"
    assert obo_iri("GO_EXT:killing") == OBO + "GO_EXT_killing"
    assert obo_iri("CL_GO_EXT:cell_part") == OBO + "CL_GO_EXT#_cell_part"
    assert obo_iri("X:a'b") == OBO + "X_a%27b"
    assert obo_iri("has part") is None


def test_undeclared_class_dropped_with_a_warning(wang: OfficialWang) -> None:
    refs = [ann(BONE, (0, 4))]
    preds = [ann("TOY:0000099", (0, 4), id="T1"), ann(BONE, (10, 14), id="T2")]
    with pytest.warns(DataWarning, match="TOY:0000099"):
        s = score_official(refs, preds, wang)
    # P counts only the declared prediction; it does not overlap the reference
    assert (s.exact, s.insertions, s.deletions, s.ref_count, s.pred_count) == (0, 1, 1, 1, 1)
    assert official_row("d", s).split("\t")[7] == "2.0000"


# -- pairing (BossyMetric.finalizeScoredMatches, SpanComparator.overlaps) ------------------------


def test_zero_score_overlap_is_a_substitution(wang: OfficialWang) -> None:
    # Jaccard 5/15, Wang(organ, mammal) = 0: the pair is kept with score 0
    s = score_official([ann(ORGAN, (0, 10))], [ann(MAMMAL, (5, 15))], wang)
    assert (s.exact, s.insertions, s.deletions) == (0, 0, 0)
    assert s.substitutions == 1 and official_row("d", s).split("\t")[7] == "1.0000"


def test_zero_length_span_overlaps_a_closed_interval(wang: OfficialWang) -> None:
    assert spans_overlap(Span(5, 5), Span(0, 5)) and spans_overlap(Span(0, 5), Span(0, 0))
    assert not spans_overlap(Span(6, 6), Span(0, 5)) and not spans_overlap(Span(3, 3), Span(3, 3))
    s = score_official([ann(BONE, (5, 5))], [ann(BONE, (0, 5))], wang)  # no characters in common: 0
    assert (s.exact, s.insertions, s.deletions, s.ref_count) == (0, 0, 0, 1)


def test_tie_follows_java_hash_order(wang: OfficialWang) -> None:
    # ref_0 [10,20) and ref_1 [18,30); test_0 [10,15) and test_1 [15,20), all bone.
    # (ref_0,test_0) and (ref_0,test_1) both score 5/10 = 0.5; (ref_1,test_1) scores 2/15.
    # A JVM iterates {test_0, test_1} as test_1, test_0, so (ref_0,test_1) is kept first and
    # blocks the other two: M = 0.5, I = D = 1, SER = (0.5 + 1 + 1) / 2 = 1.25.
    # (Breaking the tie by position would keep (ref_0,test_0) and (ref_1,test_1): SER 0.6833.)
    refs = [ann(BONE, (10, 20), id="T1"), ann(BONE, (18, 30), id="T2")]
    preds = [ann(BONE, (10, 15), id="T1"), ann(BONE, (15, 20), id="T2")]
    s = score_official(refs, preds, wang)
    assert (s.exact, s.insertions, s.deletions) == (d("0.5"), 1, 1)
    assert official_row("d", s).split("\t")[7:] == ["1.2500", "0.2500", "0.2500", "0.2500"]


# what a JVM (java.util.HashMap / HashSet, default capacity) printed for these insertion orders
JVM_ORDERS = [
    (["test_1", "test_0", "test_10"], ["test_1", "test_0", "test_10"]),
    (["ref_0", "ref_7", "ref_14"], ["ref_0", "ref_14", "ref_7"]),
    (
        [f"ref_{7 * i}" for i in range(13)],
        [
            "ref_70",
            "ref_14",
            "ref_35",
            "ref_56",
            "ref_77",
            "ref_21",
            "ref_42",
            "ref_63",
            "ref_84",
            "ref_0",
            "ref_28",
            "ref_49",
            "ref_7",
        ],
    ),
]


@pytest.mark.parametrize(("inserted", "printed"), JVM_ORDERS)
def test_java_hash_order_as_a_jvm_printed_it(inserted: list[str], printed: list[str]) -> None:
    assert java_hash_order(inserted) == printed


@pytest.mark.skipif(shutil.which("javac") is None, reason="no JDK (javac) on this machine")
def test_java_hash_order_against_a_live_jvm(tmp_path: Path) -> None:
    keys = [f"test_{i}" for i in range(200, -1, -3)]
    src = tmp_path / "Order.java"
    body = "".join(f'm.put("{k}", 1);' for k in keys)
    src.write_text(
        "import java.util.*; public class Order { public static void main(String[] a) {"
        f" Map<String,Integer> m = new HashMap<>(); {body}"
        ' System.out.println(String.join(",", m.keySet())); } }'
    )
    subprocess.run(["javac", str(src)], check=True, cwd=tmp_path)
    out = subprocess.run(["java", "-cp", str(tmp_path), "Order"], check=True, capture_output=True, text=True)
    assert java_hash_order(keys) == out.stdout.strip().split(",")


def test_repeated_t_id_keeps_the_last_line_and_duplicates_stay(wang: OfficialWang) -> None:
    refs = [ann(BONE, (0, 4), id="T1")]
    preds = [ann(ORGAN, (0, 4), id="T1"), ann(BONE, (0, 4), id="T1")]  # T1 twice: the bone line wins
    s = score_official(refs, preds, wang)
    assert (s.exact, s.pred_count) == (1, 1)
    preds = [ann(BONE, (0, 4), id="T1"), ann(BONE, (0, 4), id="T2")]  # same span and class, two ids
    s = score_official(refs, preds, wang)
    assert (s.exact, s.pred_count, s.insertions) == (1, 2, 1)


def test_totals_add_exact_matches(wang: OfficialWang) -> None:
    a = score_official([ann(PAW, (0, 4))], [ann(LIMB, (0, 4))], wang)
    b = score_official([ann(BONE, (0, 4))], [ann(UNION, (0, 4))], wang)
    t = total([a, b])
    assert t.exact == d("0.7313633311") + d("0.4432505037")
    # SER = (2 - 1.1746138348) / 2 = 0.4126930826
    assert official_row("TOTAL", t).split("\t")[7] == "0.4127"


@given(st.lists(st.tuples(st.integers(0, 30), st.integers(0, 8), st.sampled_from([BONE, ORGAN, PAW])), max_size=8))
def test_gold_against_itself_is_perfect(items: list[tuple[int, int, str]]) -> None:
    w = OfficialWang(read_official_graph(TOY))
    anns = [ann(c, (s, s + n), id=f"T{i}") for i, (s, n, c) in enumerate(items) if n > 0]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        s = score_official(anns, anns, w)
    assert s.exact == len(anns) and s.insertions == s.deletions == 0


def test_similarity_method_bossy_follows_the_official_graph(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from craftrdf.apps.cli import main
    from craftrdf.store.local import AnnotationStore

    graph = "https://w3id.org/craftrdf/ontology/TOY"
    with AnnotationStore.open(tmp_path / "s") as store:
        store.load_batch(graph, _turtle_as_nquads(DATA / "evaluation" / "official_toy.ttl", graph), digest="toy")
    code = main(["-q", "similarity", PAW, LIMB, "--store", str(tmp_path / "s"), "--method", "bossy"])
    assert (code, capsys.readouterr().out) == (0, f"{1089 / 1489:.6f}\n")  # the genus edge, as in test_genus_edge


@given(st.integers(0, 20), st.integers(0, 6), st.integers(0, 20), st.integers(0, 6))
def test_span_overlap_is_symmetric_and_shares_a_character_for_nonempty_spans(a: int, n: int, c: int, m: int) -> None:
    x, y = Span(a, a + n), Span(c, c + m)
    assert spans_overlap(x, y) == spans_overlap(y, x)
    if n and m:
        assert spans_overlap(x, y) == bool(set(range(a, a + n)) & set(range(c, c + m)))
    elif n and not m:  # a zero-length span inside the closed interval of the other
        assert spans_overlap(x, y) == (a <= c <= a + n)


@given(st.from_regex(r"[A-Z]{1,6}(_EXT)?:[A-Za-z0-9_]{1,12}", fullmatch=True))
def test_an_obo_id_finds_its_own_declared_class(obo_id: str) -> None:
    from craftrdf.analysis.evaluation.official_graph import OfficialGraph

    iri = obo_iri(obo_id)
    assert iri is not None
    g = OfficialGraph(frozenset({iri}), {})
    # the scorer finds canonical ids, and "#_" ids only behind an _EXT prefix (BossyMetric.getOWLClass)
    found = g.lookup(obo_id) == iri
    local = obo_id.split(":", 1)[1]
    assert found == ("_" not in local or "_EXT:" in obo_id)


@given(st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=300))
def test_any_text_reads_as_a_graph_or_an_input_error(tmp_path_factory: pytest.TempPathFactory, text: str) -> None:
    from craftrdf.core.errors import InputError

    path = tmp_path_factory.mktemp("obo") / "x.obo"
    path.write_text("[Term]\n" + text, encoding="utf-8")
    try:
        g = read_official_graph(path)
    except InputError:
        return
    assert all(isinstance(p, tuple) for p in g.parents.values())
