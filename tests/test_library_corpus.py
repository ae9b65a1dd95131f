"""Each library query on the real corpus, against an independent count from the raw files."""

from __future__ import annotations

import re
import statistics
import zipfile
from collections import Counter, defaultdict
from pathlib import Path

import pytest

from craftrdf.analysis.stats import set_stats
from craftrdf.querying.library import resolve_query, run_query
from craftrdf.store.local import AnnotationStore

pytestmark = [pytest.mark.corpus]
CLASS = re.compile(r'<mentionClass id="([^"]+)"')


def _raw_classes(craft_dir: Path, folder: str) -> dict[str, list[str]]:
    """document -> class id of every annotation, from the Knowtator files of one folder."""
    out = {}
    for f in (craft_dir / "concept-annotation" / folder / "knowtator").glob("*.xml"):
        out[f.name.split(".")[0]] = CLASS.findall(f.read_text(encoding="utf-8"))
    return out


@pytest.fixture(scope="module")
def store(corpus_store: Path):
    with AnnotationStore.open(corpus_store, mode="read") as st:
        yield st


def test_per_document_stats_and_summary(store, craft_dir):
    raw = _raw_classes(craft_dir, "UBERON/UBERON+extensions")
    rows = run_query(store, resolve_query("per-document-stats"), {"set": "UBERON_EXT"}).rows
    got = {r[1].value: (int(r[2].value), int(r[3].value)) for r in rows}
    assert got == {d: (len(c), len(set(c))) for d, c in raw.items() if c}
    s = set_stats(store, "UBERON_EXT", documents=raw)
    counts = [len(c) for c in raw.values()]
    assert (s.documents, s.annotations, s.annotations_max) == (97, sum(counts), max(counts))
    assert s.annotations_median == statistics.median(counts)
    assert s.concepts == len({c for cs in raw.values() for c in cs})


def test_top_classes(store, craft_dir):
    raw = Counter(c for cs in _raw_classes(craft_dir, "CL/CL+extensions").values() for c in cs)
    rows = run_query(store, resolve_query("top-classes"), {"set": "CL_EXT"}).rows
    assert [(r[1].value.rsplit("/", 1)[1], int(r[3].value)) for r in rows[:5]] == [
        (c.replace(":", "_"), n) for c, n in sorted(raw.items(), key=lambda kv: (-kv[1], kv[0].replace(":", "_")))[:5]
    ]
    assert rows[0][2] is not None  # labelled from the CL+extensions ontology


def test_missing_classes(store, craft_dir):
    with zipfile.ZipFile(craft_dir / "concept-annotation/UBERON/UBERON+extensions/UBERON+extensions.obo.zip") as z:
        obo = z.read("UBERON+extensions.obo").decode("utf-8")
    defined = set(re.findall(r"^id: (\S+)$", obo, flags=re.M))
    used = Counter(c for cs in _raw_classes(craft_dir, "UBERON/UBERON+extensions").values() for c in cs)
    expected = {c: n for c, n in used.items() if c not in defined}
    rows = run_query(store, resolve_query("missing-classes"), {"set": "UBERON_EXT"}).rows
    got = {r[1].value.rsplit("/", 1)[1]: int(r[2].value) for r in rows}
    assert got == {c.replace(":", "_"): n for c, n in expected.items()}


def test_annotations_of_class_and_descendants(store, craft_dir):
    # is_a closure below 'brain' in the raw UBERON file, then the raw annotation count of those classes
    with zipfile.ZipFile(craft_dir / "concept-annotation/UBERON/UBERON/UBERON.obo.zip") as z:
        obo = z.read("UBERON.obo").decode("utf-8")
    children = defaultdict(set)
    for stanza in obo.split("\n\n"):
        m = re.search(r"^id: (\S+)$", stanza, flags=re.M)
        if m and stanza.lstrip().startswith("[Term]"):
            for parent in re.findall(r"^is_a: (\S+)", stanza, flags=re.M):
                children[parent].add(m.group(1))
    below, todo = set(), ["UBERON:0001016"]  # nervous system: a class with a real subtree
    while todo:
        c = todo.pop()
        if c not in below:
            below.add(c)
            todo.extend(children[c])
    raw = sum(1 for cs in _raw_classes(craft_dir, "UBERON/UBERON").values() for c in cs if c in below)
    rows = run_query(store, resolve_query("annotations-of-class"), {"cls": "UBERON:0001016", "set": "UBERON"}).rows
    assert len(rows) == raw > 0


def test_unique_concepts(store, craft_dir):
    raw = _raw_classes(craft_dir, "SO/SO")
    (row,) = run_query(store, resolve_query("unique-concepts"), {"set": "SO"}).rows
    assert (int(row[1].value), int(row[2].value), int(row[3].value)) == (
        sum(map(len, raw.values())),
        len({c for cs in raw.values() for c in cs}),
        sum(1 for c in raw.values() if c),
    )
