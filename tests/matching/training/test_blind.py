"""Blind training: nothing of the test split reaches a model.

Two stores are built from CRAFT, one from a copy whose test articles and test gold are
scrambled (letters substituted, classes rotated: tests/helpers/scramble.py); MOP and
MOP_EXT trained on train+dev from each must give byte-identical model folders.
"""

from __future__ import annotations

import subprocess
import sys

import pytest

from craftrdf.core.context import RunContext
from craftrdf.matching.training.train import train_set
from craftrdf.store.local import AnnotationStore
from tests.helpers.scramble import scrambled_copy

SETS = ["MOP", "MOP_EXT"]

pytestmark = [pytest.mark.corpus, pytest.mark.long("builds two stores of MOP and trains four models: ~2 min")]


def _build(craft, store):
    cmd = [sys.executable, "-m", "craftrdf", "-q", "build", "--craft", str(craft), "--store", str(store)]
    subprocess.run([*cmd, "--sets", ",".join(SETS)], check=True, capture_output=True)


def _train(store_dir, out):
    models = {}
    with AnnotationStore.open(store_dir, mode="read") as store:
        for key in SETS:
            train_set(store, key, RunContext.create(), out=out / key)
            models[key] = {p.name: p.read_bytes() for p in sorted((out / key).iterdir())}
    return models


def test_models_are_byte_identical_when_the_test_split_is_scrambled(craft_dir, tmp_path):
    test = scrambled_copy(craft_dir, tmp_path / "scrambled", ["MOP"])
    assert len(test) == 30
    # the scrambled copy really differs where it should: every test article, and the test gold's classes
    pmid = test[0]
    original = (craft_dir / "articles/txt" / f"{pmid}.txt").read_text(encoding="utf-8")
    assert (tmp_path / "scrambled/articles/txt" / f"{pmid}.txt").read_text(encoding="utf-8") != original
    _build(craft_dir, tmp_path / "plain.store")
    _build(tmp_path / "scrambled", tmp_path / "scrambled.store")
    plain = _train(tmp_path / "plain.store", tmp_path / "plain")
    scrambled = _train(tmp_path / "scrambled.store", tmp_path / "scr")
    for key in SETS:
        assert sorted(plain[key]) == ["contexts.tsv", "forms.tsv", "model.json", "names.tsv", "terms.tsv"]
        for name in plain[key]:
            assert plain[key][name] == scrambled[key][name], (key, name)
