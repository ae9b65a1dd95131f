"""The full corpus: the published annotation counts, reproduced from a store built from ../shared/craft."""

from __future__ import annotations

import csv
import io
import re
import subprocess
import sys
import zipfile
from collections import defaultdict
from pathlib import Path

import pyoxigraph as ox
import pytest

from craftrdf.building.builder import build_store
from craftrdf.core.context import RunContext
from craftrdf.core.iris import ontology_graph
from craftrdf.querying.library import resolve_query, run_query
from craftrdf.store.local import AnnotationStore

pytestmark = [pytest.mark.corpus, pytest.mark.slow]
TABLE = Path(__file__).parents[1] / "data" / "craft_st2019_table4.tsv"


@pytest.fixture(scope="module")
def store_path(corpus_store: Path) -> Path:
    return corpus_store


def _expected() -> dict[str, tuple[int, int, int, int]]:
    rows = {}
    for line in TABLE.read_text().splitlines():
        if line and not line.startswith("#"):
            key, *numbers = line.split("\t")
            rows[key.lower()] = tuple(int(n) for n in numbers)
    return rows


def test_annotation_counts_reproduce_the_published_table(store_path: Path):
    # through the public CLI, as a user would run it
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "craftrdf",
            "query",
            "annotation-counts",
            "--store",
            str(store_path),
            "--format",
            "csv",
        ],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    got: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0, 0])
    for row in csv.DictReader(io.StringIO(out)):
        cols = (0, 1) if row["split"] in ("train", "dev") else (2, 3)
        got[row["set"].lower()][cols[0]] += int(row["annotations"])
        got[row["set"].lower()][cols[1]] += int(row["discontinuous"])
    assert {k: tuple(v) for k, v in got.items()} == _expected()


def test_ontology_classes_equal_raw_term_stanzas(store_path: Path, craft_dir: Path):
    path = craft_dir / "concept-annotation/UBERON/UBERON+extensions/UBERON+extensions.obo.zip"
    with zipfile.ZipFile(path) as z:
        raw = z.read("UBERON+extensions.obo").decode("utf-8")
    stanzas = len(re.findall(r"^\[Term\]$", raw, flags=re.M))
    with AnnotationStore.open(store_path, mode="read") as store:
        rows = list(
            store.query(
                # named classes only: OWL's class expressions (intersections, unions) are blank nodes
                # typed owl:Class, and classes a definition names but the file does not declare are
                # minted under craftrdf/ref/ (docs/rdf-model.md)
                "SELECT ?g (COUNT(DISTINCT ?c) AS ?n) WHERE { GRAPH ?g { ?c a <http://www.w3.org/2002/07/owl#Class> "
                'FILTER(isIRI(?c) && !STRSTARTS(STR(?c), "https://w3id.org/craftrdf/ref/")) } } GROUP BY ?g',
                substitutions=None,
            )
        )
    counts = {r["g"].value.rsplit("/", 1)[1]: int(r["n"].value) for r in rows}
    assert counts["UBERON+extensions"] == stanzas


def test_rebuild_of_the_corpus_loads_nothing(corpus_store_for_writing: Path, craft_dir: Path):
    # (runs after this module's readers of the shared store: it opens it for writing)
    with AnnotationStore.open(corpus_store_for_writing) as store:
        before = len(store)
        report = build_store(craft_dir, store, RunContext.create())
        assert report.loaded == {}
        assert len(store) == before


def test_kill_9_during_a_build_leaves_whole_batches(craft_dir: Path, tmp_path: Path):
    import os
    import signal
    import time

    store = tmp_path / "killed.store"
    # documents and MOP's six small batches, then UBERON's ontology (300,000 quads, about 5 s on a
    # quiet machine): the kill lands inside an ontology batch, which also fills a companion graph
    sets = ["MOP", "MOP_EXT", "UBERON"]
    p = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "craftrdf",
            "-v",
            "-q",
            "build",
            "--craft",
            str(craft_dir),
            "--store",
            str(store),
            "--sets",
            ",".join(sets),
        ],
        stderr=subprocess.PIPE,
        text=True,
    )
    done = 0
    for line in p.stderr:  # the build logs one line per batch it has written
        if " quads in " in line:
            done += 1
            if done == 7:
                break
    time.sleep(1.0)  # into the next batch's bulk load: UBERON's ontology
    os.kill(p.pid, signal.SIGKILL)
    p.wait()
    p.stderr.close()
    expected = {k.lower(): v[0] + v[2] for k, v in _expected().items()}
    with AnnotationStore.open(store) as st:
        assert not list(store.glob("bulk-*.sst"))
        # a set's view rows are a batch of their own, written with the set's (a companion graph)
        digests = {g: b for g, b in st.batches().items() if "/derived/view-rows/" not in g}
        assert len(digests) == 7, "the kill was meant to land inside UBERON's ontology batch"
        assert ontology_graph("UBERON") not in digests
        # a batch's companion graphs (an ontology's relations graph) are whole when the batch is:
        # its manifest lists them, and the digest comes after every quad of the batch
        companion = "https://w3id.org/craftrdf/vocab#companion"
        owned = {
            q.object.value
            for b in digests
            for q in st.raw.quads_for_pattern(ox.NamedNode(b), ox.NamedNode(companion), None, ox.NamedNode(b))
        }
        for g in st.raw.named_graphs():
            assert g.value in digests or g.value in owned, f"graph {g.value} has quads but no manifest: a partial batch"
        rows = list(
            st.query(
                "SELECT ?key (COUNT(?a) AS ?n) WHERE { GRAPH ?g { ?g <https://w3id.org/craftrdf/vocab#key> ?key . "
                "?a a <http://www.w3.org/ns/oa#Annotation> } } GROUP BY ?key"
            )
        )
        for r in rows:
            assert int(r["n"].value) == expected[r["key"].value.lower()], r["key"].value
        # and the build finishes from there
        report = build_store(craft_dir, st, RunContext.create(), sets=sets)
        assert set(report.unchanged) == set(digests)
        # documents, then per set: its own ontology file, its annotations, its mappings
        assert len(report.loaded) + len(report.unchanged) == 1 + 3 * len(sets)
        counts = {r[0].value: int(r[4].value) for r in run_query(st, resolve_query("sets")).rows}
        assert counts == {k: expected[k.lower()] for k in sets}
