"""Training on an executor's worker processes gives what training in this process gives."""

from __future__ import annotations

from craftrdf.registry import load_registry
from craftrdf.sweeps import LocalPool
from craftrdf.training.evaluate import train_and_test


def test_pool_training_matches_the_serial_run(sample_store, tmp_path):
    # sets with an ontology (dictionaries shipped to the workers) and one from gold names alone
    keys = ["CL", "UBERON_EXT", "PR"]
    registry = load_registry()
    serial = train_and_test(sample_store, keys, registry=registry, quick=True, out_dir=tmp_path / "serial")
    with LocalPool(2) as pool:
        pooled = train_and_test(
            sample_store, keys, registry=registry, quick=True, out_dir=tmp_path / "pool", executor=pool
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
