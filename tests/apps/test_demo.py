"""The demo's similarity, matcher and export steps, checked against the sample's raw files, and its next steps."""

from __future__ import annotations

import heapq
import io
import json
import re
import shlex
import zipfile
from pathlib import Path

import pytest

from craftrdf.apps.cli import build_parser
from craftrdf.apps.demo import DEMO_CLASS, DEMO_DOCUMENT, DEMO_MATCHER_SET, DEMO_SET, next_steps, run_demo, sample_dir
from craftrdf.querying.webanno import fetch_annotations
from craftrdf.store.local import AnnotationStore
from tests.helpers.cli import craftrdf
from tests.helpers.sample import raw_set

WEIGHTS = {"is_a": 0.8, "part_of": 0.6}


@pytest.fixture(scope="module")
def demo():
    store = AnnotationStore.memory()
    return store, run_demo(store)


def _uberon_parents() -> tuple[dict[str, list[tuple[str, float]]], set[str], set[str]]:
    """is_a and part_of parents of every term of the sample's UBERON.obo, read line by line, with
    the terms and the obsolete terms. An ``intersection_of`` line is a parent too (its class, the
    genus, as is_a; ``part_of X`` as part_of): the class is equivalent to the intersection, so it
    is under each operand (the OBO 1.4 -> OWL mapping)."""
    path = sample_dir() / "concept-annotation" / "UBERON" / "UBERON" / "UBERON.obo.zip"
    with zipfile.ZipFile(path) as z:
        text = io.TextIOWrapper(z.open("UBERON.obo"), encoding="utf-8").read()
    parents: dict[str, list[tuple[str, float]]] = {}
    terms: set[str] = set()
    obsolete: set[str] = set()
    for stanza in text.split("\n\n"):
        lines = stanza.strip().splitlines()
        if not lines or lines[0] != "[Term]":
            continue
        term = next(x[4:].strip() for x in lines if x.startswith("id: "))
        terms.add(term)
        for line in lines:
            tag, _, value = line.partition(": ")
            words = value.split("!")[0].split()
            if tag == "is_a":
                parents.setdefault(term, []).append((words[0], WEIGHTS["is_a"]))
            elif tag == "relationship" and words[0] == "part_of":
                parents.setdefault(term, []).append((words[1], WEIGHTS["part_of"]))
            elif tag == "intersection_of" and len(words) == 1:
                parents.setdefault(term, []).append((words[0], WEIGHTS["is_a"]))
            elif tag == "intersection_of" and words[0] == "part_of":
                parents.setdefault(term, []).append((words[1], WEIGHTS["part_of"]))
            elif tag == "is_obsolete" and words == ["true"]:
                obsolete.add(term)
    return parents, terms, obsolete


def _s_values(parents: dict[str, list[tuple[str, float]]], term: str) -> dict[str, float]:
    """Wang's S-values by a best-first search over products of edge weights."""
    done: dict[str, float] = {}
    heap = [(-1.0, term)]
    while heap:
        neg, t = heapq.heappop(heap)
        if t not in done:
            done[t] = -neg
            heap.extend((neg * w, p) for p, w in parents.get(t, []) if p not in done)
    return done


def test_the_most_similar_classes_are_wangs_on_the_raw_ontology(demo):
    _, r = demo
    parents, terms, obsolete = _uberon_parents()
    sa = _s_values(parents, DEMO_CLASS)
    expected = {}
    for t in terms - obsolete - {DEMO_CLASS}:
        sb = _s_values(parents, t)
        expected[t] = sum(sa[x] + sb[x] for x in sa.keys() & sb.keys()) / (sum(sa.values()) + sum(sb.values()))
    best = sorted(expected.values(), reverse=True)[:5]
    assert [s for _, _, s in r.similar] == pytest.approx(best, abs=1e-12)
    assert all(expected[t] == pytest.approx(s, abs=1e-12) for t, _, s in r.similar)
    assert {t: lab for t, lab, _ in r.similar}["UBERON:0001017"] == "central nervous system"


def test_the_matcher_is_scored_against_every_gold_annotation(demo):
    store, r = demo
    gold = raw_set("UBERON/UBERON+extensions")  # the sample's Knowtator files
    total = r.scores.total
    assert r.scores.key == DEMO_SET and len(r.scores.documents) == len(gold) == 3
    assert total.ref_count == sum(len(a) for a in gold.values()) > 0
    predicted = fetch_annotations(store, DEMO_MATCHER_SET)
    assert total.pred_count == r.matcher.annotations == len(predicted) > 0
    # every prediction with a gold annotation's exact spans and class is a full match (Jaccard 1, similarity 1)
    exact = {(d, a.spans, a.cls) for d, anns in gold.items() for a in anns}
    hits = sum(1 for a in predicted if (a.document, tuple((s.start, s.end) for s in a.spans), a.class_id) in exact)
    assert hits <= total.matches <= total.pred_count
    assert total.ser == pytest.approx((total.substitutions + total.insertions + total.deletions) / total.ref_count)


def test_the_matcher_finds_brain_where_the_sample_texts_say_brain(demo):
    # by hand: the default configuration ignores case and stems with Porter ("brains" -> "brain"), and no
    # longer UBERON_EXT name or exact synonym starting with "brain" occurs in the sample texts, so every
    # word "brain" or "brains" and nothing else is annotated with brain
    store, _ = demo
    texts = {p.stem: p.read_text(encoding="utf-8") for p in (sample_dir() / "articles" / "txt").glob("*.txt")}
    expected = {(d, m.start(), m.end()) for d, t in texts.items() for m in re.finditer(r"(?i)\bbrains?\b", t)}
    found = [a for a in fetch_annotations(store, DEMO_MATCHER_SET) if a.class_id == DEMO_CLASS]
    assert {(a.document, a.spans[0].start, a.spans[0].end) for a in found} == expected
    assert len(found) == len(expected) == 71


def test_the_demo_prints_each_step(tmp_path):
    r = craftrdf("demo", "--out", str(tmp_path / "out"))
    assert r.returncode == 0, r.stderr
    raw = raw_set("UBERON/UBERON+extensions")
    ref = sum(len(a) for a in raw.values())
    assert "craftrdf similarity --top-k 5" in r.stdout and "central nervous system" in r.stdout
    lines = r.stdout.splitlines()
    header = next(i for i, line in enumerate(lines) if line.split()[:3] == ["set", "docs", "ref"])
    assert lines[header + 1].split()[:3] == [DEMO_SET, "3", str(ref)]  # documents, gold annotations

    # the export: the JSON-LD file is where the demo says, and holds the raw gold annotations
    path = tmp_path / "out" / f"{DEMO_SET}.jsonld"
    assert f": {path}" in r.stdout
    items = json.loads(path.read_text(encoding="utf-8"))["first"]["items"]
    assert {i["id"].rsplit("/", 1)[1] for i in items} == {a.id for anns in raw.values() for a in anns}
    first = next(line for line in lines if line.startswith("Its first annotation: "))
    assert json.loads(first.removeprefix("Its first annotation: ")) == items[0]

    # it ends with the next steps; each craftrdf command there is one the command line accepts
    steps = lines[lines.index("Next steps:") :]
    assert steps == next_steps() and lines[-1].endswith(f"http://127.0.0.1:8080/doc/{DEMO_DOCUMENT}")
    commands = [shlex.split(line) for line in steps if line.strip().startswith("craftrdf ")]
    assert [c[1] for c in commands] == ["build", "build", "serve"]
    parser = build_parser()
    for argv in commands:
        parsed = parser.parse_args(argv[1:])
        assert parsed.store == "craft.store"
    assert Path(commands[1][commands[1].index("--craft") + 1]) == sample_dir()
    assert (sample_dir() / "articles" / "txt" / f"{DEMO_DOCUMENT}.txt").is_file()
