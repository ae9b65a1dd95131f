"""Benchmark (#14): the hierarchy-walking library queries and the Wang set-up on UBERON + UBERON_EXT.

    PYTHONPATH=. python bench/bench_owl_queries.py

Builds the UBERON and UBERON_EXT sets from ../shared/craft into an in-memory store, then times
annotations-of-class, viewer-class-ancestors, viewer-class, matcher-subtree and similarity-graph
(median of 5) and similarity_index for UBERON+extensions (median of 3). Run it with PYTHONPATH on
two checkouts for before/after. Not part of the test suite.
"""

import statistics
import time
import warnings
from pathlib import Path

from craftrdf import similarity_index
from craftrdf.building.builder import build_store
from craftrdf.core.context import RunContext
from craftrdf.core.curie import CurieMap
from craftrdf.querying.library import resolve_query, run_query
from craftrdf.store.local import AnnotationStore

st = AnnotationStore.memory()
t = time.perf_counter()
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    build_store(
        Path(__file__).resolve().parents[2] / "shared" / "craft",
        st,
        RunContext.create(),
        sets=["UBERON", "UBERON_EXT"],
    )
print(f"build UBERON,UBERON_EXT: {time.perf_counter() - t:.1f} s, {len(st):,} quads")
cases = [
    ("annotations-of-class", {"cls": "UBERON:0000955"}),
    ("viewer-class-ancestors", {"cls": "UBERON:0002398"}),
    ("viewer-class", {"cls": "UBERON:0002398"}),
    ("matcher-subtree", {"set": "UBERON_EXT", "root": "UBERON:0000061"}),
    ("similarity-graph", {"graph": "https://w3id.org/craftrdf/ontology/UBERON+extensions"}),
]
for name, params in cases:
    times = []
    for _ in range(5):
        t = time.perf_counter()
        r = run_query(st, resolve_query(name), params, curies=CurieMap())
        times.append(time.perf_counter() - t)
    print(
        f"{name}: {statistics.median(times) * 1000:.0f} ms median ({min(times) * 1000:.0f}-{max(times) * 1000:.0f}), {len(r.rows)} rows"
    )
times = []
for _ in range(3):
    t = time.perf_counter()
    similarity_index(st, ontology="UBERON+extensions", cache=None)
    times.append(time.perf_counter() - t)
print(f"similarity_index UBERON+extensions (query + index): {statistics.median(times):.2f} s median")
