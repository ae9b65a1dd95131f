"""Extension classes placed by their logical definitions for the viewer, as ``similarity --classify-extensions`` does.

CRAFT's extension classes come without parents, so their class pages would show no ancestors
and no similar classes. :func:`extension_placements` places those of one ontology graph
(:func:`craftrdf.ontology.placement.place_in_store`: union classes, then the structural reasoner)
and builds the Wang index over the placed graph; the viewer's
:class:`~craftrdf.publishing.server.viewer_classes.ViewerState` keeps one per graph.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from ...analysis.similarity.graph import IndexSpec, wang_index
from ...analysis.similarity.wang import WangIndex
from ...core.curie import CurieMap
from ...ontology.cache import SimilarityCache
from ...ontology.placement import place_in_store
from ...store.local import ReadableStore


@dataclass(frozen=True, slots=True)
class Placements:
    """The extension classes of one ontology graph placed by their logical definitions, and the Wang index over them.

    ``parents``: extension class -> the parents it was placed under; ``unplaced``:
    extension class -> why it has none (the definition does not parse, is not a union and the
    structural reasoner finds no parent, names a class the graph lacks, or its members share no
    ancestor). An extension class in neither has no logical definition, or had parents already.
    """

    index: WangIndex
    parents: Mapping[str, tuple[str, ...]]
    unplaced: Mapping[str, str]


def extension_placements(store: ReadableStore, ontology: str) -> Placements:
    """What ``craftrdf similarity --classify-extensions`` does to one ontology graph, kept for the viewer.

    The placement is :func:`craftrdf.ontology.placement.place_in_store`'s; the index is
    :func:`~craftrdf.analysis.similarity.graph.wang_index` with ``classify_extensions`` (paper's weights).
    Seconds on the sample, about half a minute for UBERON+extensions of the full corpus.
    """
    curies = CurieMap()
    cache = SimilarityCache()  # this build's own: the ontology is read once for the report and the index
    report = place_in_store(store, ontology, curies=curies, cache=cache)
    index = wang_index(store, IndexSpec(ontology=ontology, classify_extensions=True), cache=cache)
    return Placements(index, report.parents(), report.unplaced())
