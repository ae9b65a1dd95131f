"""Cross-check against GOSemSim, an independent implementation, on the full Gene Ontology.

``tests/data/similarity/gosemsim_go_wang_uniform07.tsv`` holds 180 similarities (60 pairs per
GO branch) computed by Bioconductor's GOSemSim 2.24 on GO.db 3.16, the source of
``../shared/ontologies/go-2022-07-01.obo.gz``; ``gosemsim_reference.R`` beside it made
them. That GOSemSim weights every edge 0.7 and keeps the first S-value met breadth
first, which equals the maximum only because the weights are equal; so the comparison
uses one weight, 0.7, for every relation GO.db has.
"""

from __future__ import annotations

import csv
from pathlib import Path

import numpy as np
import pytest

from tests.helpers.corpus import go_wang_index

REFERENCE = Path(__file__).resolve().parents[2] / "data" / "similarity" / "gosemsim_go_wang_uniform07.tsv"


@pytest.mark.slow
def test_wang_agrees_with_gosemsim_on_go_with_uniform_weights(go_obo):
    index = go_wang_index(go_obo)
    with REFERENCE.open(encoding="utf-8") as fh:
        rows = list(csv.DictReader((line for line in fh if not line.startswith("#")), delimiter="\t"))
    assert len(rows) == 180 and {r["ontology"] for r in rows} == {"BP", "CC", "MF"}
    got = index.pairs([r["term1"] for r in rows], [r["term2"] for r in rows])
    expected = np.array([float(r["similarity"]) for r in rows])
    assert np.allclose(got, expected, rtol=0, atol=1e-12)
