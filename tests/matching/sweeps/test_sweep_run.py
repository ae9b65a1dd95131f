"""The sweep on hand-made inputs: rows equal to the matcher run directly and counted by hand; resume; executors."""

from __future__ import annotations

import dataclasses
import json

import pytest

from craftrdf.analysis.evaluation.official_graph import OfficialGraph, OfficialWang
from craftrdf.analysis.evaluation.run import evaluate_sets
from craftrdf.core.errors import ConfigError
from craftrdf.core.model import Annotation, Span
from craftrdf.matching.matcher.annotate import annotate_texts
from craftrdf.matching.matcher.config import MatcherConfig, grid
from craftrdf.matching.matcher.dictionary import DictionaryTerm
from craftrdf.matching.sweeps.grid import load_grid
from craftrdf.matching.sweeps.results import read_results
from craftrdf.matching.sweeps.run import SweepInputs, run_sweep
from craftrdf.runtime.executors import InlineExecutor, LocalPool

TEXTS = {"d1": "The Brain and the lens fibers of the eye.", "d2": "Eye lenses; brain regions."}
TERMS = (
    DictionaryTerm("UBERON:0000955", "brain", "LABEL"),
    DictionaryTerm("UBERON:0000970", "eye", "LABEL"),
    DictionaryTerm("UBERON:0000965", "lens of camera-type eye", "LABEL"),
    DictionaryTerm("UBERON:0000965", "lens", "EXACT"),
    DictionaryTerm("UBERON:0002444", "lens fiber", "LABEL"),
    DictionaryTerm("UBERON:0002616", "regional part of brain", "LABEL"),
    DictionaryTerm("UBERON:0002616", "brain region", "RELATED"),
)
# gold, written by hand: (document, spans, class)
GOLD = {
    ("d1", ((4, 9),), "UBERON:0000955"),  # Brain
    ("d1", ((18, 29),), "UBERON:0002444"),  # lens fibers
    ("d1", ((37, 40),), "UBERON:0000970"),  # eye
    ("d2", ((0, 3),), "UBERON:0000970"),  # Eye
    ("d2", ((4, 10),), "UBERON:0000965"),  # lenses
    ("d2", ((12, 25),), "UBERON:0002616"),  # brain regions
}
# is_a parents (weight 0.65, as the Shared Task's Wang similarity)
DAG = {
    "UBERON:0000061": {},
    "UBERON:0000955": {"UBERON:0000061": 0.65},
    "UBERON:0000970": {"UBERON:0000061": 0.65},
    "UBERON:0000965": {"UBERON:0000061": 0.65},
    "UBERON:0002444": {"UBERON:0000965": 0.65},
    "UBERON:0002616": {"UBERON:0000955": 0.65},
}


#: the official scorer's graph of DAG (each edge one step, weighted 0.65 by the scorer)
GRAPH = OfficialGraph(frozenset(DAG), {c: tuple(p) for c, p in DAG.items() if p})


def gold_annotations() -> dict[str, tuple[Annotation, ...]]:
    out: dict[str, list[Annotation]] = {d: [] for d in TEXTS}
    for i, (doc, spans, cls) in enumerate(sorted(GOLD)):
        out[doc].append(Annotation(f"T{i}", doc, cls, tuple(Span(s, e) for s, e in spans)))
    return {d: tuple(v) for d, v in out.items()}


def inputs() -> SweepInputs:
    return SweepInputs(
        "UBERON",
        TEXTS,
        {},
        TERMS,
        gold_annotations(),
        OfficialWang(GRAPH),
        documents="hand-made (2 documents)",
    )


def fields(rows) -> set[tuple[str, ...]]:
    """Rows as their CSV fields, seconds left out (timings differ from run to run)."""
    return {tuple(r.values()[:-1]) for r in rows}


def predicted(config: MatcherConfig) -> set[tuple[str, tuple[tuple[int, int], ...], str]]:
    out = annotate_texts(TEXTS, list(TERMS), config)
    return {(d, tuple(sorted((s.start, s.end) for s in a.spans)), a.class_id) for d, anns in out.items() for a in anns}


def test_one_configuration_counted_by_hand():
    config = MatcherConfig(caseMatch="CASE_IGNORE", stemmer="NONE")
    # by hand: Brain, eye (d1) and Eye (d2) found; "lens" (d1, 18-22) and "brain" (d2, 12-17) wrong;
    # "lens fibers", "lenses" and "brain regions" missed (no stemmer; RELATED synonyms not in EXACT_ONLY)
    row = run_sweep(inputs(), [config]).rows[0]
    assert (row.tp, row.fp, row.fn) == (3, 2, 3)
    assert row.precision == pytest.approx(3 / 5) and row.recall == pytest.approx(3 / 6)


def test_every_row_equals_the_matcher_run_directly():
    """All 576 rows: the sweep (shared work, duplicates folded) against one matcher run per configuration."""
    result = run_sweep(inputs(), grid())
    assert len(result.rows) == 576 and result.distinct_runs == 432
    for row in result.rows:
        pred = predicted(row.config)
        tp = len(pred & GOLD)
        assert (row.tp, row.fp, row.fn) == (tp, len(pred) - tp, len(GOLD) - tp), row.config.label()


def test_ser_equals_the_official_evaluation_of_the_same_predictions():
    """The sweep's SER is ``craftrdf evaluate``'s official one (evaluate_sets with the official scorer)."""
    for config in (MatcherConfig(), MatcherConfig(synonyms="ALL", caseMatch="CASE_IGNORE")):
        out = annotate_texts(TEXTS, list(TERMS), config)
        report = evaluate_sets(
            {"UBERON": dict(gold_annotations())},
            {"UBERON": out},
            official=lambda _key: OfficialWang(GRAPH),
            criteria=("exact",),
        )[0]
        assert run_sweep(inputs(), [config]).rows[0].ser == report.total.ser


def test_resume_skips_finished_configurations(tmp_path):
    configs = load_grid("quick")
    full = run_sweep(inputs(), configs, out_dir=tmp_path / "a")
    assert full.run_now == 16 and full.resumed == 0
    # keep the header and 5 rows, plus half of the next line, as a kill would leave it
    path = tmp_path / "a" / "results.csv"
    lines = path.read_text().splitlines(keepends=True)
    path.write_text("".join(lines[:6]) + lines[6][:20])
    calls: list[tuple[int, int]] = []
    again = run_sweep(inputs(), configs, out_dir=tmp_path / "a", progress=lambda d, t, _: calls.append((d, t)))
    assert again.resumed == 5 and again.run_now == 11
    assert calls[0] == (5, 16) and calls[-1] == (16, 16)
    assert fields(read_results(path).values()) == fields(full.rows)
    assert len(path.read_text().splitlines()) == 17
    assert run_sweep(inputs(), configs, out_dir=tmp_path / "a").run_now == 0


def test_resuming_with_other_inputs_is_refused(tmp_path):
    run_sweep(inputs(), [MatcherConfig()], out_dir=tmp_path)
    other = dataclasses.replace(inputs(), texts={**TEXTS, "d2": "Changed."}, token="")
    with pytest.raises(ConfigError, match="holds a sweep of other inputs"):
        run_sweep(other, [MatcherConfig()], out_dir=tmp_path)
    assert json.loads((tmp_path / "sweep.json").read_text())["documents"] == "hand-made (2 documents)"


def test_a_local_process_pool_gives_the_same_rows():
    configs = load_grid("quick")
    inline = run_sweep(inputs(), configs, executor=InlineExecutor())
    with LocalPool(2) as pool:
        pooled = run_sweep(inputs(), configs, executor=pool)
    assert fields(pooled.rows) == fields(inline.rows)


@pytest.mark.slow
def test_a_dask_local_cluster_gives_the_same_rows():
    distributed = pytest.importorskip("distributed")
    from craftrdf.runtime.executors import DaskExecutor

    configs = load_grid("quick")
    inline = run_sweep(inputs(), configs)
    # dashboard ":0", not None: None still binds port 8787, and a lost race there leaks a socket in tornado
    with (
        distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0", scheduler_port=0
        ) as cluster,
        distributed.Client(cluster) as client,
    ):
        dask = run_sweep(inputs(), configs, executor=DaskExecutor(client))
    assert fields(dask.rows) == fields(inline.rows)
