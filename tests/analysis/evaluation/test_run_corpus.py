"""The evaluation on the real corpus: gold against itself, and gold moved to is_a parents.

The parent test computes its expected slot error rate from the raw OBO file with its own
breadth-first search (bossy Wang: S = 0.65 ** shortest is_a distance), not with
craftrdf.analysis.similarity.
"""

from __future__ import annotations

import io
import warnings
import zipfile
from collections import deque

import pytest

from craftrdf.analysis.evaluation.run import EvaluateOptions, evaluate_craft, evaluate_sets, evaluate_store
from craftrdf.core.registry import load_registry

pytestmark = pytest.mark.corpus

#: Every set whose ontology file the shared copy of the corpus holds.
SETS_WITH_ONTOLOGY = ("CL", "CL_EXT", "GO_MF", "GO_MF_EXT", "MOP", "MOP_EXT", "SO", "SO_EXT", "UBERON", "UBERON_EXT")


#: A fifth of their annotations: every module but SO and UBERON (the next test scores UBERON),
#: proper and extension sets, an ontology stub with text-only extension classes (GO_MF).
SMALLER_SETS = ("CL", "CL_EXT", "GO_MF", "GO_MF_EXT", "MOP", "MOP_EXT")


def test_gold_against_itself_for_six_sets_with_an_ontology(corpus_store):
    _check_gold_against_itself(corpus_store, SMALLER_SETS)


@pytest.mark.long("gold against itself over every set with an ontology: 110,000 annotations (25 s quiet)")
def test_gold_against_itself_for_every_set_with_an_ontology(corpus_store):
    _check_gold_against_itself(corpus_store, SETS_WITH_ONTOLOGY)


def _check_gold_against_itself(corpus_store, sets: tuple[str, ...]) -> None:
    from craftrdf.store.local import AnnotationStore

    with AnnotationStore.open(corpus_store, mode="read") as store, warnings.catch_warnings():
        warnings.simplefilter("ignore")
        spec = ",".join(sets)
        reports = evaluate_store(
            store, spec, spec, load_registry(), options=EvaluateOptions(criteria=("exact", "fragment"))
        )
    assert sorted(r.key for r in reports) == sorted(sets)
    for r in reports:
        assert 0 < len(r.documents) <= 97, r.key
        assert r.total.ref_count > 0, r.key
        assert (r.total.ser, r.total.insertions, r.total.deletions) == (0.0, 0, 0), r.key
        assert r.total.f1 == pytest.approx(1.0), r.key
        assert r.total.matches == pytest.approx(r.total.ref_count), r.key
        for c in r.criteria:
            if c.criterion == "exact":
                assert c.tp == c.ref_count == c.pred_count, (r.key, c)


def _obo_parents(craft_dir, module: str, name: str) -> tuple[dict[str, list[str]], dict[str, list[str]]]:
    """([Term] id -> is_a parents in file order, id -> every parent the official scorer follows).

    Read straight from the zipped OBO file. The official scorer's graph (owltools, see
    docs/evaluation.md) also makes the genus of an ``intersection_of`` (a line with one class
    and no relation) a parent, and gives each ``union_of`` member the union class as parent.
    """
    path = craft_dir / "concept-annotation" / module / module / f"{name}.obo.zip"
    is_a: dict[str, list[str]] = {}
    extra: dict[str, list[str]] = {}
    with zipfile.ZipFile(path) as z, z.open(z.namelist()[0]) as raw:
        current, in_term = None, False
        for line in io.TextIOWrapper(raw, encoding="utf-8"):
            line = line.strip()
            if line.startswith("["):
                current = None
                in_term = line == "[Term]"
            elif in_term and line.startswith("id: "):
                current = line[4:].split()[0]
                is_a[current] = []
            elif current and line.startswith("is_a: "):
                is_a[current].append(line[6:].split()[0])
            elif current and line.startswith("intersection_of: "):
                operands = line[len("intersection_of: ") :].split("!")[0].split()
                if len(operands) == 1:  # the genus; "R X" is a differentia, not followed
                    extra.setdefault(current, []).append(operands[0])
            elif current and line.startswith("union_of: "):
                extra.setdefault(line[len("union_of: ") :].split()[0], []).append(current)
    every = {t: [*is_a.get(t, []), *extra.get(t, [])] for t in is_a.keys() | extra.keys()}
    return is_a, every


def _s_values(term: str, parents: dict[str, list[str]], weight: float = 0.65) -> dict[str, float]:
    dist = {term: 0}
    todo = deque([term])
    while todo:
        t = todo.popleft()
        for p in parents.get(t, ()):
            if p not in dist:
                dist[p] = dist[t] + 1
                todo.append(p)
    return {t: weight**d for t, d in dist.items()}


def _wang(a: str, b: str, parents: dict[str, list[str]]) -> float:
    sa, sb = _s_values(a, parents), _s_values(b, parents)
    common = sa.keys() & sb.keys()
    return sum(sa[t] + sb[t] for t in common) / (sum(sa.values()) + sum(sb.values()))


def _isolated(annotations):
    """Annotations whose characters overlap no other annotation of their document."""
    chars = {}
    for a in annotations:
        for s in a.spans:
            for c in range(s.start, s.end):
                chars[(a.document, c)] = chars.get((a.document, c), 0) + 1
    return [a for a in annotations if all(chars[(a.document, c)] == 1 for s in a.spans for c in range(s.start, s.end))]


def test_gold_moved_to_is_a_parents_scores_as_computed_by_hand(corpus_reader, craft_dir):
    """Every isolated UBERON gold annotation moved to its first is_a parent: the matches are the
    sum of Wang scores computed by hand over the official graph (is_a, genus, union members)."""
    from dataclasses import replace

    from craftrdf.analysis.evaluation.official_graph import set_scorers
    from craftrdf.querying.webanno import fetch_annotations

    parents, graph = _obo_parents(craft_dir, "UBERON", "UBERON")
    gold_all = [a for a in fetch_annotations(corpus_reader, "UBERON") if a.class_id in parents]
    gold = [a for a in _isolated(gold_all) if parents[a.class_id]]
    assert len(gold) > 5000  # most UBERON annotations stand alone and have a parent
    pred = [replace(a, class_id=parents[a.class_id][0]) for a in gold]
    expected_m = sum(_wang(a.class_id, parents[a.class_id][0], graph) for a in gold)
    assert 0.5 * len(gold) < expected_m < len(gold)

    by_doc = lambda anns: {d: [a for a in anns if a.document == d] for d in {a.document for a in anns}}  # noqa: E731
    (rep,) = evaluate_sets(
        {"UBERON": by_doc(gold)},
        {"UBERON": by_doc(pred)},
        set_scorers(corpus_reader, craft_dir, load_registry()),
        criteria=["exact"],
    )
    n = len(gold)
    assert (rep.total.ref_count, rep.total.pred_count, rep.total.insertions, rep.total.deletions) == (n, n, 0, 0)
    # each Wang value is rounded to 10 decimals by the scorer: a few 1e-7 over some 5,000 pairs
    assert rep.total.matches == pytest.approx(expected_m, rel=1e-9)
    assert rep.total.ser == pytest.approx((n - expected_m) / n, rel=1e-9)


def test_evaluate_from_the_craft_directory_alone(craft_dir, tmp_path):
    """--craft without a store: gold from the raw files, the prediction a Shared Task directory."""
    from craftrdf.ingest.knowtator import read_knowtator

    doc = "15760270"  # 26 MOP annotations in its Knowtator file
    raw = read_knowtator(craft_dir / "concept-annotation" / "MOP" / "MOP" / "knowtator" / f"{doc}.txt.knowtator.xml")
    pred_dir = tmp_path / "pred" / "mop"
    pred_dir.mkdir(parents=True)
    lines = [
        f"T{i}\t{a.class_id} " + ";".join(f"{s.start} {s.end}" for s in a.spans) + f"\t{a.text}"
        for i, a in enumerate(raw, 1)
    ]
    (pred_dir / f"{doc}.bionlp").write_text("\n".join(lines) + "\n", encoding="utf-8")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        (rep,) = evaluate_craft(
            craft_dir, "MOP", str(tmp_path / "pred"), load_registry(), options=EvaluateOptions(criteria=("exact",))
        )
    assert [d for d, _ in rep.documents] == [doc]
    assert rep.total.ref_count == len(raw) == 26
    assert rep.total.ser == 0.0
