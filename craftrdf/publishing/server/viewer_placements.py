"""Extension classes placed by their logical definitions for the viewer, as ``similarity --classify-extensions`` does.

CRAFT's extension classes come without parents, so their class pages would show no ancestors
and no similar classes. :func:`extension_placements` places those of one ontology graph
(union classes by :func:`craftrdf.ontology.extensions.place_extensions`, the rest by the structural
reasoner) and builds the Wang index over the placed graph; the viewer's
:class:`~craftrdf.publishing.server.viewer_classes.ViewerState` keeps one per graph.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping
from dataclasses import dataclass

from ...analysis.similarity.graph import SimilarityCache, load_term_graph, similarity_index, structural_placements
from ...analysis.similarity.wang import WangIndex
from ...core.curie import CurieMap
from ...ontology.extensions import place_extensions
from ...ontology.owlread import read_ontology
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

    Union classes are placed as :func:`craftrdf.ontology.extensions.place_extensions` places them, and
    every parent the structural reasoner finds is added; the index is
    :func:`~craftrdf.analysis.similarity.graph.similarity_index` with ``classify_extensions`` (paper's weights).
    Seconds on the sample, about half a minute for UBERON+extensions of the full corpus.
    """
    curies = CurieMap()
    cache = SimilarityCache()  # this build's own: the term graph is read once for the report and the index
    report = place_extensions(load_term_graph(store, ontology=ontology, curies=curies, cache=cache))
    reasoned = structural_placements(read_ontology(store, ontology), curies)
    index = similarity_index(
        store, method="wang", ontology=ontology, classify_extensions=True, cache=cache, placements=reasoned
    )
    parents: dict[str, set[str]] = defaultdict(set)
    for placed in report.placed:
        parents[placed.cls].update(placed.parents)
    for child, parent in reasoned:
        parents[child].add(parent)
    unplaced = {p.cls: _why(p.kind, p.reason) for p in report.problems if not parents.get(p.cls)}
    for placed in report.placed:
        if not parents.get(placed.cls):  # its members became its children, but they share no ancestor
            unplaced[placed.cls] = f"its members ({', '.join(placed.members)}) share no ancestor to place it under"
    return Placements(index, {c: tuple(sorted(ps)) for c, ps in parents.items() if ps}, unplaced)


def _why(kind: str, reason: str) -> str:
    if kind == "not-union":
        return (
            "its logical definition is not a union of named classes, and the structural reasoner finds no "
            "named parent for it"
        )
    if kind == "syntax":
        return f"its logical definition cannot be read ({reason})"
    return reason
