"""The full corpus in a Virtuoso 7 of its own: every library query gives the embedded store's rows.

The corpus store is dumped as N-Quads and loaded with Virtuoso's bulk loader (``ld_dir``,
``rdf_loader_run``: the faster way in, docs/remote.md), together with the S-values of
UBERON+extensions computed from the corpus store by the index ``craftrdf similarity`` uses.
Then each library query that plain SPARQL can run, with the tests' values bound (unbound when
it takes no parameter), must give the same rows from both; and ``wang-svalues`` must give,
for 1,000 random UBERON+extensions pairs, the same number on Virtuoso as on an embedded
Oxigraph store holding the same S-values, and as the index (1e-6). Dumping and loading take
minutes: long. Skipped, with the reason, without the corpus or ``virtuoso-t``.
"""

from __future__ import annotations

import random
import time
import warnings
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pyoxigraph as ox
import pytest

import craftrdf
from craftrdf import similarity_index
from craftrdf.analysis.similarity.definition import SimilarityWarning
from craftrdf.analysis.similarity.svalue_graph import svalue_lines
from craftrdf.analysis.similarity.wang import WangIndex
from craftrdf.querying.library import library, resolve_query, run_query
from craftrdf.store.local import AnnotationStore
from craftrdf.store.remote import RemoteStore
from tests.helpers.queries import SVALUES, compare_library_query_ways, uses_functions
from tests.helpers.virtuoso import virtuoso_command, virtuoso_server

pytestmark = [
    pytest.mark.corpus,
    pytest.mark.skipif(
        virtuoso_command() is None,
        reason="virtuoso-t is not installed (Debian: apt-get install virtuoso-opensource-7-bin): no Virtuoso to test",
    ),
    pytest.mark.long("the corpus dumped and bulk-loaded into Virtuoso, then every library query: 12.5 min at load 2"),
]

WEIGHTS = {"is_a": 0.8, "part_of": 0.6}  # SVALUES' weights
PLAIN = sorted(name for name in library() if not uses_functions(name) and name != "wang-svalues")
#: Library queries with no rows on the corpus for the tests' values (checked, so a change is seen): SO_EXT
#: uses no class its ontology lacks (both stores agreed on no rows, 2026-11-28)
EMPTY_IN_CORPUS = {"missing-classes"}


@dataclass
class Loaded:
    """The corpus store's path, the Virtuoso holding the same quads and the S-values, and the index."""

    store: Path
    remote: RemoteStore
    index: WangIndex
    seconds: float


@pytest.fixture(scope="module")
def loaded(corpus_store: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Loaded]:
    work = tmp_path_factory.mktemp("virtuoso-corpus")
    exe = virtuoso_command()
    assert exe is not None
    started = time.perf_counter()
    dump, svalues = work / "corpus.nq", work / "svalues.nq"
    with AnnotationStore.open(corpus_store, mode="read") as store:
        store.raw.dump(str(dump), format=ox.RdfFormat.N_QUADS)
        # the index craftrdf similarity computes with (no cache: nothing written outside tmp)
        index = similarity_index(store, ontology="UBERON+extensions", weights=WEIGHTS, cache=None)
    with open(svalues, "w", encoding="utf-8") as out:
        out.writelines(line + "\n" for line in svalue_lines(index, SVALUES))
    # 1.4 GB of pages: the corpus (800 MB in Virtuoso's files) stays in memory
    with virtuoso_server(exe, work / "server", buffers=170_000) as server:
        server.bulk_load([dump, svalues])
        dump.unlink()
        yield Loaded(corpus_store, RemoteStore(server.endpoint, timeout=600), index, time.perf_counter() - started)


@pytest.fixture(scope="module")
def local(loaded: Loaded) -> Iterator[AnnotationStore]:
    with AnnotationStore.open(loaded.store, mode="read") as store:
        yield store


def test_virtuoso_holds_the_corpus(loaded: Loaded, local: AnnotationStore) -> None:
    batches = local.batches()
    assert loaded.remote.batches() == batches
    # per set: the set, its mappings and its view rows (22 sets); 10 ontology files; the documents; containment
    assert len(batches) == 3 * 22 + 10 + 1 + 1
    # the corpus's quads, plus the S-value graph
    assert len(loaded.remote) == len(local) + sum(1 for _ in svalue_lines(loaded.index, SVALUES))


@pytest.mark.parametrize("name", PLAIN)
def test_library_query_same_rows_on_the_corpus(loaded: Loaded, local: AnnotationStore, name: str) -> None:
    # with the tests' values bound (unbound, an export is the whole corpus: export-set-annotations ran past
    # 10 minutes), and unbound when the query takes no parameter
    if name == "graph-sizes":  # Virtuoso holds one graph more: the S-values, with their triples
        expected = run_query(local, resolve_query(name)).rows
        extra = (ox.NamedNode(SVALUES), ox.Literal(sum(1 for _ in svalue_lines(loaded.index, SVALUES))))
        got = run_query(loaded.remote, resolve_query(name)).rows
        assert sorted(map(str, got)) == sorted(map(str, [*expected, extra]))
        return
    compare_library_query_ways(local, loaded.remote, name, empty=EMPTY_IN_CORPUS, unbound=False)


def test_plain_sparql_wang_1000_uberon_pairs_same_on_virtuoso_and_oxigraph(loaded: Loaded) -> None:
    embedded = craftrdf.open(None, mode="write")
    embedded.load_batch(SVALUES, svalue_lines(loaded.index, SVALUES), digest="svalues")
    q = resolve_query("wang-svalues")
    rng = random.Random(1000)
    classes = sorted(loaded.index.terms)
    values: set[float] = set()
    for _ in range(1000):
        a, b = rng.choice(classes), rng.choice(classes)
        with warnings.catch_warnings():  # a pair sharing no ancestor: 0, which the query must give too
            warnings.simplefilter("ignore", SimilarityWarning)
            expected = loaded.index.similarity(a, b)
        params = {"a": a, "b": b, "svalues": SVALUES}
        (on_oxigraph,) = run_query(embedded, q, params).records()
        (on_virtuoso,) = run_query(loaded.remote, q, params).records()
        assert abs(float(on_oxigraph["similarity"]) - expected) <= 1e-9, (a, b)  # type: ignore[arg-type]
        # Virtuoso writes a double with 6 significant digits (tests/helpers/queries.py assert_same_rows)
        assert abs(float(on_virtuoso["similarity"]) - float(on_oxigraph["similarity"])) <= 1e-6, (a, b)  # type: ignore[arg-type]
        values.add(round(expected, 3))
    assert len(values) > 50  # not a constant
