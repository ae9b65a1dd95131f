"""Extension classes placed by their logical definitions, in one step: unions, then the structural reasoner.

CRAFT's extension classes come without parents. :func:`place_in_store` places those of one
ontology graph of a store (or of every ontology graph) in two passes over the same ontology:

1. union-defined classes, from the model's logical definitions (text), as
   :func:`craftrdf.ontology.extensions.place_union_classes` places them: members under the
   class, the class under its members' most specific common ancestors;
2. every parent the structural reasoner (:mod:`craftrdf.ontology.reasoning.structural`) finds
   for an extension class from the graph's OWL axioms (intersections too), :func:`reasoned_placements`.

The result is one :class:`PlacementReport`; ``similarity --classify-extensions`` adds its edges to
the similarity graph, writes its union part as ``--extensions-report``, and the viewer shows its
parents and the reasons a class stays unplaced. ``craftrdf classify`` stores the reasoner's whole
output instead (:mod:`craftrdf.ontology.reasoning.run`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ..core.curie import CurieMap
from ..core.iris import ontology_graph
from ..store.local import ReadableStore
from .cache import DEFAULT_CACHE, SimilarityCache
from .extensions import ExtensionReport, place_extensions
from .model import OntologyModel
from .owlread import OntologyAxioms, read_ontology
from .reasoning.structural import classify_structural
from .store_model import read_store_model

_ONTOLOGY_PREFIX = ontology_graph("")


@dataclass(frozen=True, slots=True)
class PlacementReport:
    """Where the extension classes of an ontology were placed, by which pass, and which were not.

    ``unions``: the union pass (placed classes with their members and parents; problems with their
    kind); ``reasoned``: the reasoner's ``(extension class, parent)`` CURIE pairs.
    """

    unions: ExtensionReport
    reasoned: tuple[tuple[str, str], ...]

    def edges(self) -> list[tuple[str, str]]:
        """Every is_a edge ``(child, parent)`` the placements add: the union pass's, then the reasoner's."""
        return [*self.unions.edges(), *self.reasoned]

    def parents(self) -> dict[str, tuple[str, ...]]:
        """Each placed extension class and the parents it was placed under (both passes), sorted."""
        found: dict[str, set[str]] = {}
        for placed in self.unions.placed:
            found.setdefault(placed.cls, set()).update(placed.parents)
        for child, parent in self.reasoned:
            found.setdefault(child, set()).add(parent)
        return {c: tuple(sorted(ps)) for c, ps in found.items() if ps}

    def unplaced(self) -> dict[str, str]:
        """Each extension class with a definition that neither pass placed, and why."""
        parents = self.parents()
        out = {p.cls: _why(p.kind, p.reason) for p in self.unions.problems if p.cls not in parents}
        for placed in self.unions.placed:
            if placed.cls not in parents:  # its members became its children, but they share no ancestor
                out[placed.cls] = f"its members ({', '.join(placed.members)}) share no ancestor to place it under"
        return out


def _why(kind: str, reason: str) -> str:
    if kind == "not-union":
        return (
            "its logical definition is not a union of named classes, and the structural reasoner finds no "
            "named parent for it"
        )
    if kind == "syntax":
        return f"its logical definition cannot be read ({reason})"
    return reason


def reasoned_placements(onto: OntologyAxioms, curies: CurieMap | None = None) -> list[tuple[str, str]]:
    """The structural reasoner's edges ``(extension class, new parent)`` of one ontology, as CURIEs.

    ``onto`` is :func:`craftrdf.ontology.owlread.read_ontology`'s (it pickles, so this can run in
    another process). Union members under their union are the union pass's part, and classes
    outside the file are left out.
    """
    cm = curies or CurieMap()
    out: list[tuple[str, str]] = []
    for child, parent in classify_structural(onto):
        c, p = cm.compress(child), cm.compress(parent)
        if "_EXT:" in c and "/craftrdf/ref/" not in parent:
            out.append((c, p))
    return out


def place_in_store(
    store: ReadableStore,
    ontology: str | None = None,
    *,
    curies: CurieMap | None = None,
    cache: SimilarityCache | None = DEFAULT_CACHE,
    reasoned: Sequence[tuple[str, str]] | None = None,
    model: OntologyModel | None = None,
) -> PlacementReport:
    """Place the extension classes of ontology graph ``ontology`` (None: every ontology graph) of a store.

    The union pass runs on the store's ontology model, the reasoner on each graph's OWL axioms; both
    are cached per store with the model. ``reasoned``: with a named ``ontology``, the reasoner's
    placements computed beforehand (:func:`reasoned_placements`, on a worker process say); ``model``:
    the store model of ``ontology`` already read. ConfigError when the named graph is not in the store.
    """
    cm = curies or CurieMap()
    entries: dict[object, object] = cache.entries(store) if cache is not None else {}
    unions = place_extensions(model or read_store_model(store, ontology, curies=cm, cache=cache))
    key = ("placements", ontology)
    if reasoned is not None and ontology is not None:
        entries.setdefault(key, list(reasoned))
    hit = entries.get(key)
    if not isinstance(hit, list):
        prefix = _ONTOLOGY_PREFIX
        names = [ontology] if ontology else [g[len(prefix) :] for g in store.batches() if g.startswith(prefix)]
        hit = entries[key] = [e for name in names for e in reasoned_placements(read_ontology(store, name), cm)]
    return PlacementReport(unions, tuple(hit))
