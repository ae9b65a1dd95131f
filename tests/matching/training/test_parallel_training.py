"""Training on an executor's worker processes gives what training in this process gives."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections.abc import Callable
from typing import Any

from craftrdf.apps.demo import sample_dir
from craftrdf.core.context import RunContext
from craftrdf.matching.training.evaluate import SplitPlan, collect_trained, start_training, train_and_test
from craftrdf.matching.training.train import TrainOptions
from craftrdf.runtime.executors import InlineExecutor, LocalPool

IDS = sample_dir() / "articles" / "ids"


def test_pool_training_matches_the_serial_run(sample_store, tmp_path):
    # sets with an ontology (dictionaries shipped to the workers) and one from gold names alone
    keys = ["CL", "UBERON_EXT", "PR"]
    ctx, quick = RunContext.create(), TrainOptions(quick=True)
    serial = train_and_test(sample_store, keys, ctx, SplitPlan(options=quick, out_dir=tmp_path / "serial"))
    with LocalPool(2) as pool:
        pooled = train_and_test(
            sample_store, keys, ctx.with_(executor=pool), SplitPlan(options=quick, out_dir=tmp_path / "pool")
        )
    assert list(pooled) == list(serial) == keys
    for key in keys:
        a, b = serial[key], pooled[key]
        assert (a.ser, a.exact_only, a.false_positives, a.false_negatives) == (
            b.ser,
            b.exact_only,
            b.false_positives,
            b.false_negatives,
        )
        assert a.train.selection.config == b.train.selection.config
        assert a.train.selection.decision == b.train.selection.decision
        for name in ("model.json", "names.tsv", "terms.tsv"):
            assert (tmp_path / "serial" / key / name).read_bytes() == (tmp_path / "pool" / key / name).read_bytes()
    assert serial["PR"].exact_only and not serial["CL"].exact_only


class RecordingExecutor(InlineExecutor):
    """The inline executor, recording the order in which the training tasks are submitted."""

    def __init__(self) -> None:
        self.submitted: list[str] = []

    def submit(self, fn: Callable[..., Any], /, *args: Any) -> Any:
        self.submitted.append(args[-1])  # train_one(shared, key)
        return super().submit(fn, *args)


def _spanned_train_dev(module: str, folder: str) -> int:
    """Annotations with a span in a set's Knowtator files of the sample's train and dev documents."""
    ids = [p for s in ("train", "dev") for p in (IDS / f"craft-ids-{s}.txt").read_text().split()]
    knowtator = sample_dir() / "concept-annotation" / module / folder / "knowtator"
    return sum(
        1
        for p in ids
        for a in ET.parse(knowtator / f"{p}.txt.knowtator.xml").getroot().iter("annotation")
        if a.findall("span")
    )


def test_the_largest_sets_are_submitted_first_and_the_results_keep_the_order_given(sample_store, tmp_path):
    keys = ["CL", "UBERON_EXT", "MOP"]
    executor = RecordingExecutor()
    training = start_training(
        sample_store, keys, RunContext.create(executor=executor), SplitPlan(options=TrainOptions(quick=True))
    )
    # the order by the raw files' gold on train and dev (most first)
    sizes = {
        "CL": _spanned_train_dev("CL", "CL"),
        "UBERON_EXT": _spanned_train_dev("UBERON", "UBERON+extensions"),
        "MOP": _spanned_train_dev("MOP", "MOP"),
    }
    assert len(set(sizes.values())) == 3  # distinct, so the order is the test's own
    assert executor.submitted == sorted(keys, key=lambda k: -sizes[k])
    assert list(collect_trained(training)) == keys
