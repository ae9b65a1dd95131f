"""Maintainer script: is a set's gap between cross-validated and test SER more than the documents' spread?

    python tools/ser_gap.py STORE SET TEST_TSV [--resamples 10000]

The cross-validated side is computed here, as ``tools/cv_errors.py`` computes it (train+dev only:
each document's out-of-fold predictions scored with the official rules). The test side is read from
``craftrdf evaluate``'s ``<SET>_results.tsv`` (one row per test document: S, I, D, M, N, P), so this
script never opens the test split itself. A document's errors are N − M + I (the slot error rate's
numerator, as S + D = N − M); both sides are resampled by document (bootstrap, fixed seed) and the
script prints each side's SER with a 95 % interval, the interval of the difference, and how much of
each side's errors its three worst documents carry.
"""

from __future__ import annotations

import argparse
import csv
import sys
from pathlib import Path

import numpy as np
import numpy.typing as npt
from cv_errors import cv_pairs

from craftrdf.analysis.evaluation.official import prepare_official, score_prepared
from craftrdf.matching.training.select import to_predictions
from craftrdf.store.local import AnnotationStore

Counts = npt.NDArray[np.float64]  # one row per document: errors (N - M + I), N


def cv_counts(store: AnnotationStore, key: str) -> Counts:
    """Per train+dev document, the cross-validated decision's errors and N, scored with the official rules."""
    data, corpus, _, pairs = cv_pairs(store, key, verbose=False)
    predictions = to_predictions(pairs, corpus.texts)
    if data.wang is None:
        raise SystemExit(f"{key}: the store has no ontology for it, so no official score to compare")
    rows = []
    for doc in sorted(corpus.gold):
        gold = prepare_official(corpus.gold[doc], data.wang, key)
        s = score_prepared(gold, prepare_official(predictions.get(doc, ()), data.wang, key), data.wang)
        rows.append((s.ref_count - s.matches + s.insertions, s.ref_count))
    return np.array(rows, dtype=np.float64)


def test_counts(tsv: Path) -> Counts:
    """Per document of ``craftrdf evaluate``'s TSV (TOTAL left out), errors and N."""
    rows = []
    with tsv.open(encoding="utf-8", newline="") as f:
        for line, r in enumerate(csv.reader(f, delimiter="\t"), 1):
            if line == 1 or not r or r[0] == "TOTAL":
                continue
            insertions, matches, n = int(r[2]), float(r[4]), int(r[5])
            rows.append((n - matches + insertions, n))
    return np.array(rows, dtype=np.float64)


def ser(c: Counts) -> float:
    """SER of summed counts."""
    return float(c[:, 0].sum() / c[:, 1].sum())


def boot(c: Counts, resamples: int, rng: np.random.Generator) -> npt.NDArray[np.float64]:
    """SER of ``resamples`` resamples of the documents, with replacement."""
    idx = rng.integers(0, len(c), size=(resamples, len(c)))
    return c[idx, 0].sum(axis=1) / c[idx, 1].sum(axis=1)  # type: ignore[no-any-return]


def top_share(c: Counts, k: int = 3) -> float:
    """The share of all errors carried by the ``k`` documents with most errors."""
    return float(np.sort(c[:, 0])[::-1][:k].sum() / c[:, 0].sum())


def main(argv: list[str]) -> None:
    """Print the comparison for one set."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("store", type=Path)
    parser.add_argument("set")
    parser.add_argument("tsv", type=Path)
    parser.add_argument("--resamples", type=int, default=10_000)
    args = parser.parse_args(argv)
    with AnnotationStore.open(args.store, mode="read") as store:
        cv = cv_counts(store, args.set)
    test = test_counts(args.tsv)
    rng = np.random.default_rng(2019)
    b_cv, b_test = boot(cv, args.resamples, rng), boot(test, args.resamples, rng)
    lo, hi = np.percentile(b_test - b_cv, [2.5, 97.5])
    for name, c, b in (("cross-validated", cv, b_cv), ("test", test, b_test)):
        a, z = np.percentile(b, [2.5, 97.5])
        print(
            f"{args.set} {name}: SER {ser(c):.4f} (95 % {a:.4f}-{z:.4f}) over {len(c)} documents, "
            f"{int(c[:, 1].sum())} gold; worst 3 documents carry {top_share(c):.0%} of the errors"
        )
    print(f"{args.set} test - cross-validated: {ser(test) - ser(cv):+.4f} (95 % {lo:+.4f} to {hi:+.4f})")


if __name__ == "__main__":
    main(sys.argv[1:])
