"""Benchmark: all-pairs Resnik on UBERON against semsimian (OAK's engine), and Resnik/Lin on GO against GOSemSim.

    python bench/bench_ic_similarity.py --store /work/corpus.store [--terms 2000] [--repeat 3]
        [--go ../shared/ontologies/go-2022-07-01.obo.gz] [--seed 1]

UBERON (the store's ``UBERON`` graph, is_a only): the same ``--terms`` random classes, every pair of
them, by craftrdf's :class:`~craftrdf.analysis.similarity.ic.ICIndex` (``matrix``, numba) and by semsimian's
``all_by_all_pairwise_similarity`` (Rust, rayon threads; pip install semsimian). Both take the same
information content, semsimian's: IC(t) = -log2(|descendants of t, itself included| / |classes|), so
craftrdf's Resnik (GOSemSim's, divided by the largest IC) times the largest IC is semsimian's Resnik;
the script checks that on every pair before timing. Semsimian is given the reflexive-transitive
closure (as OAK gives it); its set-up and craftrdf's (the index) are timed apart.

GO (``--go``, the OBO release GOSemSim's GO.db 3.16 was made from): GOSemSim 2.24's ``termSim``
(Rscript) and craftrdf's ``ICIndex.matrix`` on the same 667 x 667 BP terms with the same IC (the
annotation counts of tests/data/similarity/gosemsim_ic_annotations.tsv), Resnik and Lin; R's time is
measured inside R (``system.time``), after its ancestor table is loaded. Skipped when Rscript or
GOSemSim is missing.

Prints each figure and the ratios, medians of ``--repeat`` runs. Not part of the test suite.
"""

from __future__ import annotations

import argparse
import csv
import math
import os
import random
import shutil
import statistics
import subprocess
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

from craftrdf import similarity_index
from craftrdf.analysis.similarity.ic import ICIndex
from craftrdf.store.local import AnnotationStore

DATA = Path(__file__).resolve().parent.parent / "tests" / "data" / "similarity"


def median_time(fn: Callable[[], object], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def uberon(store_path: str, n_terms: int, repeat: int, seed: int) -> None:
    from semsimian import Semsimian

    with AnnotationStore.open(store_path, mode="read") as store:
        wang = similarity_index(store, ontology="UBERON", weights={"is_a": 0.8}, cache=None)
    indptr, cols = wang.ancestry()
    n = len(wang)
    below = np.bincount(cols, minlength=n).astype(np.float64)
    ic = -np.log2(below / n)
    t = time.perf_counter()
    index = ICIndex(wang, ic)
    index.matrix(["UBERON:0000955"], ["UBERON:0000955"])  # the kernels loaded (numba's cache)
    ours_setup = time.perf_counter() - t
    terms = sorted(random.Random(seed).sample([t for t in wang.terms if t.startswith("UBERON:")], n_terms))
    spo = [(wang.terms[r], "rdfs:subClassOf", wang.terms[c]) for r in range(n) for c in cols[indptr[r] : indptr[r + 1]]]
    t = time.perf_counter()
    sem = Semsimian(spo, ["rdfs:subClassOf"])
    sem_setup = time.perf_counter() - t
    print(f"UBERON is_a: {n:,} classes, {len(spo):,} closure edges; {n_terms:,} terms, {n_terms**2:,} pairs")
    print(f"  set-up: craftrdf ICIndex {ours_setup:.2f} s, semsimian {sem_setup:.2f} s")

    # the same numbers first: semsimian's Resnik on 300 pairs equals ours times the largest IC
    rng = random.Random(seed + 1)
    check = [(rng.choice(terms), rng.choice(terms)) for _ in range(300)]
    ours = index.pairs([a for a, _ in check], [b for _, b in check], "resnik") * index.max_ic
    theirs = np.array([sem.resnik_similarity(a, b)[1] for a, b in check])
    both = ~np.isnan(ours)
    worst = float(np.max(np.abs(ours[both] - theirs[both]))) if both.any() else math.nan
    print(f"  agreement on 300 pairs: max |difference| {worst:.2e} ({int((~both).sum())} NaN on our side: IC 0)")

    matrix_time = median_time(lambda: index.matrix(terms, terms, "resnik"), repeat)
    as_set = set(terms)
    sem_time = median_time(lambda: sem.all_by_all_pairwise_similarity(as_set, as_set, 0.0, 0.0), repeat)
    print(f"  all pairs, Resnik: craftrdf ICIndex.matrix {matrix_time:.3f} s, semsimian all_by_all {sem_time:.3f} s")
    print(f"  ratio semsimian / craftrdf: {sem_time / matrix_time:.1f}x")


R_SCRIPT = r"""
suppressMessages({ library(GOSemSim); library(GO.db); library(AnnotationDbi) })
args <- commandArgs(trailingOnly = TRUE)
GOSemSim:::.initial()
t <- toTable(GOBPPARENTS)
gotbl <- data.frame(go_id = t[[1]], relationship = t[[3]], parent = t[[2]], Ontology = "BP", stringsAsFactors = FALSE)
assign("gotbl", gotbl, envir = get(".GOSemSimEnv", envir = .GlobalEnv))
ann <- read.delim(args[1])
ann <- ann[ann$ontology == "BP", ]
sd <- new("GOSemSimDATA", ont = "BP")
sd@IC <- GOSemSim:::computeIC(data.frame(GO = rep(ann$term, ann$count)), "BP")
terms <- readLines(args[2])
invisible(termSim(terms[1:2], terms[1:2], sd, method = "Resnik"))  # GO.db's ancestor table read once
for (m in c("Resnik", "Lin")) {
  for (i in seq_len(as.integer(args[3]))) {
    s <- system.time(termSim(terms, terms, sd, method = m))[["elapsed"]]
    cat(m, s, "\n")
  }
}
"""


def go(go_obo: str, repeat: int, seed: int) -> None:
    from craftrdf.analysis.similarity.definition import weighted_dag
    from craftrdf.analysis.similarity.wang import WangIndex
    from craftrdf.core.model import Term
    from craftrdf.ingest.obo import iter_obo

    rscript = shutil.which("Rscript")
    if rscript is None:
        print("GO: Rscript not found, GOSemSim skipped")
        return
    nodes, edges = [], []
    for item in iter_obo(go_obo):
        if isinstance(item, Term) and not item.obsolete:
            nodes.append(item.id)
            edges.extend((item.id, "is_a", p) for p in item.is_a)
            edges.extend((item.id, rel, p) for rel, p in item.relationships)
    rels = ("is_a", "part_of", "regulates", "negatively_regulates", "positively_regulates")
    wang = WangIndex(weighted_dag(edges, dict.fromkeys(rels, 0.7), nodes=nodes))
    with (DATA / "gosemsim_ic_annotations.tsv").open(encoding="utf-8") as fh:
        counts = {r["term"]: float(r["count"]) for r in csv.DictReader(fh, delimiter="\t") if r["ontology"] == "BP"}
    index = ICIndex.from_counts(wang, counts)
    scored = sorted(t for t in counts if t in index.index and index.scored[index.index[t]])
    terms = sorted(random.Random(seed).sample(scored, 667))
    with tempfile.TemporaryDirectory() as tmp:
        script, term_file = Path(tmp) / "bench.R", Path(tmp) / "terms.txt"
        script.write_text(R_SCRIPT)
        term_file.write_text("\n".join(terms) + "\n")
        done = subprocess.run(
            [rscript, str(script), str(DATA / "gosemsim_ic_annotations.tsv"), str(term_file), str(repeat)],
            capture_output=True,
            text=True,
            env={**os.environ, "R_LIBS_USER": os.environ.get("R_LIBS_USER", "")},
            check=False,
        )
    if done.returncode != 0:
        print(f"GO: GOSemSim failed, skipped: {done.stderr.strip().splitlines()[-1:]}")
        return
    r_times: dict[str, list[float]] = {}
    for line in done.stdout.splitlines():
        name, seconds = line.split()
        r_times.setdefault(name, []).append(float(seconds))
    print(f"GO BP: {len(terms)} x {len(terms)} terms, IC from the test annotation counts")
    for m in ("Resnik", "Lin"):
        ours = median_time(lambda m=m: index.matrix(terms, terms, m.lower()), repeat)  # type: ignore[misc]
        theirs = statistics.median(r_times[m])
        print(f"  {m}: craftrdf {ours:.3f} s, GOSemSim termSim {theirs:.2f} s, ratio {theirs / ours:.0f}x")


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--store", required=True, help="a built CRAFT store (with the UBERON graph)")
    p.add_argument("--terms", type=int, default=2000)
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--go", help="go-2022-07-01.obo.gz, for the GOSemSim comparison")
    a = p.parse_args()
    print(f"load: {os.getloadavg()[0]:.1f} {os.getloadavg()[1]:.1f} {os.getloadavg()[2]:.1f} on {os.cpu_count()} cores")
    uberon(a.store, a.terms, a.repeat, a.seed)
    if a.go:
        go(a.go, a.repeat, a.seed)


if __name__ == "__main__":
    main()
