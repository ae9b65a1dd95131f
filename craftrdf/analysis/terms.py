"""Look classes up in a store's ontology graphs: a class's record, its ancestors and descendants, label search.

What ``runoak info / ancestors / descendants / search`` answer, over the ontology graphs of a
store (one by name, or every one merged). Everything comes from the ontology read model
(:func:`craftrdf.ontology.store_model.read_store_model`: read once, cached per store), so the
extension placements that ``craftrdf classify`` stored are edges here too, and
``classify_extensions=True`` adds those of the union pass (as ``craftrdf similarity
--classify-extensions``).

>>> # from a store: TermLookup.of(store).info("UBERON:0000955").label == "brain"
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from ..core.errors import ConfigError
from ..core.vocab import RDFS
from ..ingest.ontology import RELATION_IRIS
from ..ontology.extensions import place_extensions
from ..ontology.model import OntologyModel
from ..ontology.store_model import read_store_model
from ..store.local import ReadableStore
from .similarity.definition import UnknownTermError


@dataclass(frozen=True, slots=True)
class TermInfo:
    """One class: its names, definitions and direct parents by relation (relation names as in OBO where known)."""

    id: str
    iri: str
    label: str | None
    synonyms: tuple[tuple[str, str], ...]
    definition: str | None
    logical_definition: str | None
    deprecated: bool
    parents: dict[str, list[str]] = field(default_factory=dict)
    #: the parallel extension class asked for, when the record is its base class's
    asked_as: str | None = None

    def as_dict(self) -> dict[str, object]:
        """The record as JSON-ready values."""
        return {
            "id": self.id,
            "iri": self.iri,
            "label": self.label,
            "synonyms": [{"text": t, "scope": s} for t, s in self.synonyms],
            "definition": self.definition,
            "logical_definition": self.logical_definition,
            "deprecated": self.deprecated,
            "parents": self.parents,
            "asked_as": self.asked_as,
        }


@dataclass(frozen=True, slots=True)
class Match:
    """A search hit: the class, its label, the name that matched and how (``LABEL`` or a synonym scope)."""

    id: str
    label: str | None
    matched: str
    scope: str


def _relation_name(iri: str) -> str:
    """``is_a`` for rdfs:subClassOf, the OBO name of a standard relation, else the IRI."""
    if iri == RDFS.subClassOf:
        return "is_a"
    for name, known in RELATION_IRIS.items():
        if known == iri:
            return name
    return iri


class TermLookup:
    """Lookups over one :class:`~craftrdf.ontology.model.OntologyModel` of a store (see the module docstring)."""

    def __init__(self, model: OntologyModel) -> None:
        self.model = model

    @classmethod
    def of(cls, store: ReadableStore, *, ontology: str | None = None, classify_extensions: bool = False) -> TermLookup:
        """The lookups of ``ontology`` (a graph name, e.g. ``UBERON+extensions``; None: every one merged)."""
        model = read_store_model(store, ontology)
        if classify_extensions:
            placed = {(c, RDFS.subClassOf, p) for c, p in place_extensions(model).edges()}
            # a copy with the union pass's edges: its edge indexes start empty, its names are the model's
            model = dataclasses.replace(model, edges=model.edges | placed, _up={}, _down={}, _find=None)
        return cls(model)

    # -- structure ------------------------------------------------------------------

    def resolve(self, term: str) -> str:
        """The class a CURIE (or IRI) names: a parallel extension class gives its base; UnknownTermError otherwise."""
        curie = self.model.curies.compress(term) if term.startswith(("http://", "https://")) else term
        base = self.model.base(curie)
        if base not in self.model.classes:
            raise UnknownTermError(term)
        return base

    def ancestors(self, term: str, relations: Sequence[str] = ("is_a",)) -> list[str]:
        """Every class reachable upwards over ``relations`` (OBO names, CURIEs or IRIs), the class excluded, sorted."""
        return sorted(self.model.ancestors(self.resolve(term), relations))

    def descendants(self, term: str, relations: Sequence[str] = ("is_a",)) -> list[str]:
        """Every class reachable downwards over ``relations``, the class excluded, sorted."""
        return sorted(self.model.descendants(self.resolve(term), relations))

    def label(self, term: str) -> str | None:
        """The class's label (its base's, for a parallel extension class), or None."""
        return self.model.labels.get(self.model.base(term))

    # -- names ----------------------------------------------------------------------

    def info(self, term: str) -> TermInfo:
        """The record of one class; UnknownTermError when no ontology graph of the lookup declares it."""
        record = self.model.get(self.resolve(term))
        if record is None:  # resolve() checked the class: only a model changed under us gets here
            raise UnknownTermError(term)
        parents: dict[str, list[str]] = {}
        for rel, parent in record.relations:
            parents.setdefault(_relation_name(rel), []).append(parent)
        return TermInfo(
            id=record.curie,
            iri=record.iri,
            label=record.label,
            synonyms=tuple(sorted({(s.text, s.scope) for s in record.synonyms}, key=lambda ts: (ts[1], ts[0]))),
            definition=record.definition,
            logical_definition=record.logical_definition,
            deprecated=record.deprecated,
            parents={r: sorted(ps) for r, ps in sorted(parents.items())},
            asked_as=term if term in self.model.parallel else None,
        )

    def search(self, text: str, *, limit: int = 20, scopes: Iterable[str] | None = None) -> list[Match]:
        """Classes whose label or synonym matches ``text`` ignoring case: equal first, then starting with it,
        then containing it (labels before synonyms, then by CURIE); at most ``limit``.

        ConfigError for empty text.
        """
        needle = " ".join(text.split()).casefold()
        if not needle:
            raise ConfigError("search needs some text")
        allowed = {s.upper() for s in scopes} if scopes is not None else None
        best: dict[str, tuple[tuple[int, int, str], Match]] = {}
        word = re.compile(re.escape(needle))
        for cls, name, scope in self.model.names():
            if allowed is not None and scope not in allowed:
                continue
            folded = " ".join(name.split()).casefold()
            if folded == needle:
                rank = 0
            elif folded.startswith(needle):
                rank = 1
            elif word.search(folded):
                rank = 2
            else:
                continue
            key = (rank, 0 if scope == "LABEL" else 1, cls)
            held = best.get(cls)
            if held is None or key < held[0]:
                best[cls] = (key, Match(cls, self.model.labels.get(cls), name, scope))
        return [m for _, m in sorted(best.values(), key=lambda km: km[0])[:limit]]
