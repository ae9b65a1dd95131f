"""Resnik, Lin, Jiang and Rel against GOSemSim, an independent implementation, on the Gene Ontology.

``tests/data/similarity/gosemsim_ic_reference.tsv`` holds 2,001 pair similarities and 150 group
scores (max, avg, rcmax, BMA) per measure, computed by Bioconductor's GOSemSim 2.24 on GO.db 3.16
(the source of ``../shared/ontologies/go-2022-07-01.obo.gz``) with the information content its
own ``computeIC`` derives from ``gosemsim_ic_annotations.tsv``; ``gosemsim_ic_reference.R``
beside them made all three (Debian's r-bioc-gosemsim; installing R takes minutes, so CI reads
the kept values rather than running R). Here the same annotation counts go through
:func:`annotation_ic` over the graph read from the OBO file, every relation GO.db has followed.
"""

from __future__ import annotations

import csv

import numpy as np
import pytest

from craftrdf.analysis.similarity.groups import Scorer
from craftrdf.analysis.similarity.ic import ICIndex
from tests.helpers.corpus import DATA as TESTS_DATA
from tests.helpers.corpus import go_wang_index

DATA = TESTS_DATA / "similarity"
MEASURES = ("Resnik", "Lin", "Jiang", "Rel")
COMBINES = ("max", "avg", "rcmax", "BMA")


def _rows(name: str) -> list[dict[str, str]]:
    with (DATA / name).open(encoding="utf-8") as fh:
        return list(csv.DictReader((line for line in fh if not line.startswith("#")), delimiter="\t"))


def _value(text: str) -> float:
    return float("nan") if text == "NA" else float(text)


@pytest.fixture(scope="module")
def go_indexes(go_obo) -> dict[str, ICIndex]:
    ancestry = go_wang_index(go_obo)
    counts: dict[str, dict[str, float]] = {}
    for row in _rows("gosemsim_ic_annotations.tsv"):
        counts.setdefault(row["ontology"], {})[row["term"]] = float(row["count"])
    return {ont: ICIndex.from_counts(ancestry, c) for ont, c in counts.items()}


@pytest.mark.slow
@pytest.mark.parametrize("engine", ["numba", "numpy"])
def test_term_similarities_equal_gosemsims(go_indexes, engine):
    rows = [r for r in _rows("gosemsim_ic_reference.tsv") if r["kind"] == "pair"]
    assert len(rows) == 2001 and {r["ontology"] for r in rows} == {"BP", "CC", "MF"}
    for ont, index in go_indexes.items():
        index = ICIndex(index.ancestry, index.raw_ic, engine=engine)
        mine = [r for r in rows if r["ontology"] == ont]
        a, b = [r["terms1"] for r in mine], [r["terms2"] for r in mine]
        for measure in MEASURES:
            expected = np.array([_value(r[measure]) for r in mine])
            got = index.pairs(a, b, measure.lower())  # type: ignore[arg-type]
            assert np.array_equal(np.isnan(got), np.isnan(expected)), (ont, measure)
            assert np.allclose(got, expected, rtol=0, atol=1e-12, equal_nan=True), (ont, measure)
            # a few pairs at a time (the row-against-row path, no kernels) give the same values
            few = np.concatenate([index.pairs(a[i : i + 4], b[i : i + 4], measure.lower()) for i in range(0, 60, 4)])  # type: ignore[arg-type]
            assert np.array_equal(few, got[:60], equal_nan=True), (ont, measure)
            # the matrix path agrees with the pairs path
            m = index.matrix(a[:50], b[:50], measure.lower())  # type: ignore[arg-type]
            assert np.allclose(np.diag(m), got[:50], rtol=0, atol=0, equal_nan=True)
    assert sum(np.isnan(_value(r["Resnik"])) for r in rows) > 100  # the NA cases are exercised


@pytest.mark.slow
def test_group_scores_equal_gosemsims(go_indexes):
    rows = [r for r in _rows("gosemsim_ic_reference.tsv") if r["kind"] == "group"]
    assert len(rows) == 150
    for r in rows:
        index = go_indexes[r["ontology"]]
        g1, g2 = r["terms1"].split(), r["terms2"].split()
        for measure in MEASURES:
            for combine in COMBINES:
                expected = _value(r[f"{measure}_{combine}"])
                got = index.group(g1, g2, measure.lower(), combine=combine.lower())  # type: ignore[arg-type]
                # GOSemSim's combineScores rounds to 3 decimals of the score times 1e6 (the R script)
                assert got == pytest.approx(expected, abs=1e-9), (r["terms1"], r["terms2"], measure, combine)


@pytest.mark.slow
def test_group_matrix_equals_gosemsims_groups(go_indexes):
    rows = [r for r in _rows("gosemsim_ic_reference.tsv") if r["kind"] == "group"]
    for ont, index in go_indexes.items():
        mine = [r for r in rows if r["ontology"] == ont]
        groups = [r["terms1"].split() for r in mine] + [r["terms2"].split() for r in mine]
        n = len(mine)
        for measure in MEASURES:
            scorer = Scorer(index, measure.lower())  # type: ignore[arg-type]
            for combine in COMBINES:
                # all groups against all at once; GOSemSim's pairs are the (i, n + i) cells
                m = scorer.group_matrix(groups, combine=combine.lower())  # type: ignore[arg-type]
                expected = np.array([_value(r[f"{measure}_{combine}"]) for r in mine])
                assert np.allclose(m[np.arange(n), n + np.arange(n)], expected, rtol=0, atol=1e-9), (ont, measure)
