"""Streamed annotation (craftrdf annotate --stream / --scheduler): Dask equals in-process, resume, failures."""

from __future__ import annotations

import logging
import shutil
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any

import pyoxigraph as ox
import pytest

from craftrdf.apps.cli import main
from craftrdf.apps.demo import sample_dir
from craftrdf.core.context import RunContext
from craftrdf.core.errors import ConfigError
from craftrdf.core.iris import set_iri
from craftrdf.core.model import Annotation
from craftrdf.core.registry import load_registry
from craftrdf.core.vocab import CRAFT
from craftrdf.ingest.bionlp import write_bionlp
from craftrdf.matching.matcher.annotate import annotate_texts
from craftrdf.matching.matcher.config import MatcherConfig
from craftrdf.matching.matcher.dictionary import Dictionary, terms_from_names
from craftrdf.matching.matcher.stream import (
    Batching,
    MatcherAnnotator,
    StreamPlan,
    annotate_stream,
    run_annotation_stream,
)
from craftrdf.matching.matcher.stream_io import iter_sources
from craftrdf.runtime.executors import DaskExecutor, InlineExecutor
from craftrdf.store.local import AnnotationStore
from tests.helpers.sample import SAMPLE_PMIDS

distributed = pytest.importorskip("distributed")


@pytest.fixture(scope="module")
def store_path(sample_store_copy: Callable[..., Path], tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The sample's UBERON_EXT set and ontology on disk."""
    return sample_store_copy(tmp_path_factory.mktemp("store") / "sample.store", sets=["UBERON_EXT"])


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The sample's 3 articles, 4 copies each under fresh ids (12 documents)."""
    d = tmp_path_factory.mktemp("corpus")
    for copy in range(4):
        for p in SAMPLE_PMIDS:
            shutil.copy(sample_dir() / "articles" / "txt" / f"{p}.txt", d / f"c{copy}-{p}.txt")
    return d


@pytest.fixture(scope="module")
def dask_executor() -> Iterator[DaskExecutor]:
    # dashboard ":0", not None: the scheduler's HTTP server starts either way and None means port 8787;
    # two xdist workers racing for it make tornado leak the losing socket (a ResourceWarning, an error)
    with (
        distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, processes=False, dashboard_address=":0", scheduler_port=0
        ) as c,
        distributed.Client(c) as client,
    ):
        yield DaskExecutor(client)


def _files(out: Path) -> dict[str, str]:
    return {p.name: p.read_text(encoding="utf-8") for p in sorted(out.glob("*.bionlp"))}


def _graph(store_path: Path, name: str) -> set[str]:
    """The quads of set ``name``'s graph, the set's name replaced by X and its digest (which names it) left out."""
    with AnnotationStore.open(store_path, mode="read") as store:
        g = ox.NamedNode(set_iri(name))
        quads = store.raw.quads_for_pattern(None, None, None, g)
        return {str(q).replace(name, "X") for q in quads if q.predicate != ox.NamedNode(CRAFT.digest)}


def _run(store_path: Path, corpus: Path, out: Path, name: str, executor: Any, **kw: Any) -> Any:
    with AnnotationStore.open(store_path) as store:
        return run_annotation_stream(
            store,
            "UBERON_EXT",
            MatcherConfig(),
            StreamPlan([corpus], out, into_store=name, batching=Batching(2, 3, **kw)),
            RunContext(load_registry(), executor=executor),
        )


def test_dask_run_equals_the_in_process_run_and_the_plain_matcher(store_path, corpus, dask_executor, tmp_path):
    r_dask = _run(store_path, corpus, tmp_path / "dask", "RUN_DASK", dask_executor)
    r_inline = _run(store_path, corpus, tmp_path / "inline", "RUN_INLINE", InlineExecutor())
    assert (r_inline.documents, r_inline.annotations) == (r_dask.documents, r_dask.annotations)
    assert (r_dask.documents, r_dask.failed, r_dask.batches) == (12, 0, 6)
    assert _files(tmp_path / "dask") == _files(tmp_path / "inline")
    # the non-streamed matcher (all texts at once, one session) gives the same BioNLP files
    texts = {p.name.split(".")[0]: p.read_text(encoding="utf-8") for p in corpus.glob("*.txt")}
    with AnnotationStore.open(store_path, mode="read") as store:
        from craftrdf.matching.matcher.dictionary import load_terms
        from craftrdf.querying.sets import resolve_set

        terms, _ = load_terms(store, resolve_set(store, "UBERON_EXT"), RunContext(load_registry()))
    plain = annotate_texts(texts, terms, MatcherConfig())
    expected = {f"{d}.bionlp": write_bionlp(plain[d], text=texts[d]) for d in texts}
    assert _files(tmp_path / "dask") == expected
    assert r_dask.annotations == sum(len(v) for v in plain.values()) > 0
    # the stored graphs hold the same annotations (the set name differs, so compare per annotation)
    dask_quads = _graph(store_path, "RUN_DASK")
    inline_quads = _graph(store_path, "RUN_INLINE")
    assert dask_quads == inline_quads
    assert r_dask.quads >= r_dask.annotations * 10  # at least 10 quads for each single-span annotation


class _Interrupted(KeyboardInterrupt):
    pass


class _StopAfter:
    """An executor that passes through to another, and is interrupted after ``k`` batches completed."""

    def __init__(self, inner: Any, k: int) -> None:
        self.inner = inner
        self.left = k

    def share(self, inputs: Any) -> object:
        return self.inner.share(inputs)

    def submit(self, fn: Any, /, *args: Any) -> Any:
        return self.inner.submit(fn, *args)

    def as_completed(self, futures: Sequence[Any]) -> Iterable[Any]:
        if self.left == 0:
            raise _Interrupted
        self.left -= 1
        return self.inner.as_completed(futures)


def test_an_interrupted_dask_run_resumes_to_the_same_result(store_path, corpus, dask_executor, tmp_path):
    clean = _run(store_path, corpus, tmp_path / "clean", "RUN_CLEAN", InlineExecutor())
    with pytest.raises(_Interrupted):
        _run(store_path, corpus, tmp_path / "resumed", "RUN_RESUMED", _StopAfter(dask_executor, 2))
    half = _files(tmp_path / "resumed")
    assert len(half) == 4  # two batches of two written, nothing else
    resumed = _run(store_path, corpus, tmp_path / "resumed", "RUN_RESUMED", dask_executor)
    assert (resumed.resumed, resumed.documents) == (4, 8)
    assert _files(tmp_path / "resumed") == _files(tmp_path / "clean")
    assert _graph(store_path, "RUN_CLEAN") == _graph(store_path, "RUN_RESUMED")
    assert clean.documents == 12
    # a third run finds nothing to do
    again = _run(store_path, corpus, tmp_path / "resumed", "RUN_RESUMED", dask_executor)
    assert (again.resumed, again.documents, again.batches) == (12, 0, 0)


def test_resuming_with_another_configuration_is_refused(store_path, corpus, tmp_path):
    _run(store_path, corpus, tmp_path / "out", "RUN_A", InlineExecutor())
    with AnnotationStore.open(store_path) as store, pytest.raises(ConfigError, match="another run"):
        run_annotation_stream(
            store,
            "UBERON_EXT",
            MatcherConfig.from_params({"caseMatch": "CASE_IGNORE"}),
            StreamPlan([corpus], tmp_path / "out", into_store="RUN_A"),
            RunContext(load_registry()),
        )


class _Picky:
    """A pluggable annotator: marks "brain", and raises on a text holding BOOM."""

    token = "picky-1"

    def __call__(self, document: str, text: str) -> list[Annotation]:
        if "BOOM" in text:
            raise RuntimeError("cannot annotate this one")
        return annotate_texts({document: text}, {"UBERON:0000955": "brain"}).get(document, [])


def test_failing_documents_are_reported_and_the_others_survive(tmp_path, caplog):
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "a.txt").write_text("The brain.", encoding="utf-8")
    (docs / "b.txt").write_bytes(b"The brain \xff\xfe here.")  # not UTF-8 at byte 10
    (docs / "c.txt").write_text("A BOOM in the brain.", encoding="utf-8")
    (docs / "d.txt").write_text("No organ; then a brain.", encoding="utf-8")
    out = tmp_path / "out"
    with caplog.at_level(logging.WARNING, logger="craftrdf.matching.matcher.stream"):
        r = annotate_stream(iter_sources([docs]), _Picky(), out, batching=Batching(3))
    assert (r.documents, r.failed, r.annotations) == (2, 2, 2)
    assert (out / "a.bionlp").read_text() == "T1\tUBERON:0000955 4 9\tbrain\n"
    assert (out / "d.bionlp").read_text() == "T1\tUBERON:0000955 17 22\tbrain\n"
    assert not (out / "b.bionlp").exists() and not (out / "c.bionlp").exists()
    rows = [line.split("\t") for line in (out / "failures.tsv").read_text().splitlines()[1:]]
    assert [(r[0], r[2]) for r in rows] == [("b", "read"), ("c", "annotate")]
    assert rows[0][3] == "not UTF-8 at byte 10"
    assert "RuntimeError: cannot annotate this one" in rows[1][3]
    assert "document b" in caplog.text and "document c" in caplog.text
    # a rerun skips every document, failed ones included
    again = annotate_stream(iter_sources([docs]), _Picky(), out, batching=Batching(3))
    assert (again.documents, again.resumed) == (0, 4)


def test_matcher_annotator_pickles_without_its_search_structures():
    import pickle

    config = MatcherConfig()
    d = Dictionary.build(terms_from_names({"UBERON:0000955": "brain"}), config.normalization, config.synonyms)
    a = MatcherAnnotator(d, config)
    a("x", "brain")  # builds the matcher
    b = pickle.loads(pickle.dumps(a))
    assert b.token == a.token and b._matcher is None
    assert [x.spans for x in b("x", "a brain")] == [x.spans for x in a("x", "a brain")]


def test_cli_stream_with_a_dask_scheduler_equals_the_plain_cli(store_path, tmp_path, capsys):
    with distributed.LocalCluster(
        n_workers=1, threads_per_worker=2, processes=False, dashboard_address=":0", scheduler_port=0
    ) as cluster:
        common = ["-q", "annotate", "--store", str(store_path), "--set", "UBERON_EXT", str(sample_dir())]
        assert main([*common, "--out", str(tmp_path / "plain"), "--no-cache"]) == 0
        argv = [*common, "--out", str(tmp_path / "dask"), "--scheduler", cluster.scheduler_address, "--no-cache"]
        assert main([*argv, "--batch-size", "1", "--into-store", "CLI_DASK"]) == 0
    out = capsys.readouterr().out
    assert "annotated 3 documents in 3 batches" in out
    assert _files(tmp_path / "dask") == _files(tmp_path / "plain")
    assert len(_graph(store_path, "CLI_DASK")) > 100


def test_streamed_run_into_a_remote_store_equals_the_local_one(store_path, tmp_path):
    from craftrdf.store.remote import RemoteStore
    from tests.store.test_remote import oxigraph_server

    common = ["-q", "annotate", "--set", "UBERON_EXT", str(sample_dir()), "--stream", "--no-cache"]
    common += ["--batch-size", "2", "--into-store", "REMOTE_RUN"]
    assert main([*common, "--store", str(store_path), "--out", str(tmp_path / "local")]) == 0
    with oxigraph_server(tmp_path) as base:
        endpoint = f"{base}/query"
        assert main(["-q", "build", "--craft", str(sample_dir()), "--endpoint", endpoint, "--sets", "UBERON_EXT"]) == 0
        assert main([*common, "--endpoint", endpoint, "--out", str(tmp_path / "remote")]) == 0
        remote = RemoteStore(endpoint)
        g = ox.NamedNode(set_iri("REMOTE_RUN"))
        remote_quads = {
            str(q).replace("REMOTE_RUN", "X")
            for q in remote.quads_for_pattern(None, None, None, g)
            if q.predicate != ox.NamedNode(CRAFT.digest)
        }
    assert remote_quads == _graph(store_path, "REMOTE_RUN")
    assert _files(tmp_path / "remote") == _files(tmp_path / "local")


def test_cli_stream_on_a_local_process_pool_equals_the_plain_cli(store_path, tmp_path, capsys):
    common = ["-q", "annotate", "--store", str(store_path), "--set", "UBERON_EXT", str(sample_dir()), "--no-cache"]
    assert main([*common, "--out", str(tmp_path / "plain")]) == 0
    assert main([*common, "--out", str(tmp_path / "pool"), "--stream", "--jobs", "2", "--batch-size", "1"]) == 0
    assert "annotated 3 documents in 3 batches" in capsys.readouterr().out
    assert _files(tmp_path / "pool") == _files(tmp_path / "plain")
