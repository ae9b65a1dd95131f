"""Look classes up in a store's ontology graphs: a class's record, its ancestors and descendants, label search.

What ``runoak info / ancestors / descendants / search`` answer, over the ontology graphs of a
store (one by name, or every one merged). The structure (classes, labels, edges, parallel
extension classes, deprecation, logical definitions) is the similarity term graph
(:func:`craftrdf.analysis.similarity.graph.load_term_graph`: one query, cached per store), so the
extension placements that ``craftrdf classify`` stored are edges here too, and
``classify_extensions=True`` adds those of the union pass (as ``craftrdf similarity
--classify-extensions``). Synonyms and text definitions are read from the same graphs when
first asked for (``oboInOwl:has*Synonym``, ``obo:IAO_0000115``).

>>> # from a store: TermLookup.of(store).info("UBERON:0000955").label == "brain"
"""

from __future__ import annotations

import re
from collections import deque
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import cached_property

import pyoxigraph as ox

from ..core.curie import CurieMap
from ..core.errors import ConfigError
from ..core.iris import ontology_graph
from ..core.vocab import OBO, OBOINOWL, RDFS
from ..ontology.model import relation_iri
from ..store.local import ReadableStore
from .similarity.definition import UnknownTermError
from .similarity.graph import TermGraph, load_term_graph

_ONTOLOGY_PREFIX = "https://w3id.org/craftrdf/ontology/"
#: Synonym predicates and the scope each gives (OBO's names).
SYNONYM_SCOPES = {
    OBOINOWL.hasExactSynonym: "EXACT",
    OBOINOWL.hasBroadSynonym: "BROAD",
    OBOINOWL.hasNarrowSynonym: "NARROW",
    OBOINOWL.hasRelatedSynonym: "RELATED",
}


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
    from ..ingest.ontology import RELATION_IRIS

    if iri == RDFS.subClassOf:
        return "is_a"
    for name, known in RELATION_IRIS.items():
        if known == iri:
            return name
    return iri


class TermLookup:
    """Lookups over one :class:`~craftrdf.analysis.similarity.graph.TermGraph` of a store (see the module docstring)."""

    def __init__(self, store: ReadableStore, graph: TermGraph, *, curies: CurieMap | None = None) -> None:
        self.store = store
        self.graph = graph
        self.curies = curies or CurieMap()

    @classmethod
    def of(cls, store: ReadableStore, *, ontology: str | None = None, classify_extensions: bool = False) -> TermLookup:
        """The lookups of ``ontology`` (a graph name, e.g. ``UBERON+extensions``; None: every one merged)."""
        graph = load_term_graph(store, ontology=ontology)
        if classify_extensions:
            from ..ontology.extensions import place_extensions

            placed = place_extensions(graph).edges()
            graph = TermGraph(
                graph.ontology,
                graph.classes,
                graph.edges | {(c, RDFS.subClassOf, p) for c, p in placed},
                graph.labels,
                graph.definitions,
                graph.parallel,
                graph.deprecated,
            )
        return cls(store, graph)

    # -- structure ------------------------------------------------------------------

    def resolve(self, term: str) -> str:
        """The class a CURIE (or IRI) names: a parallel extension class gives its base; UnknownTermError otherwise."""
        curie = self.curies.compress(term) if term.startswith(("http://", "https://")) else term
        base = self.graph.parallel.get(curie, curie)
        if base not in self.graph.classes:
            raise UnknownTermError(term)
        return base

    @cached_property
    def _up(self) -> dict[str, list[tuple[str, str]]]:
        up: dict[str, list[tuple[str, str]]] = {}
        for child, rel, parent in self.graph.edges:
            up.setdefault(child, []).append((rel, parent))
        return up

    @cached_property
    def _down(self) -> dict[str, list[tuple[str, str]]]:
        down: dict[str, list[tuple[str, str]]] = {}
        for child, rel, parent in self.graph.edges:
            down.setdefault(parent, []).append((rel, child))
        return down

    def _walk(self, term: str, links: dict[str, list[tuple[str, str]]], relations: Sequence[str]) -> list[str]:
        wanted = {relation_iri(r, self.curies) for r in relations}
        start = self.resolve(term)
        seen = {start}
        queue = deque([start])
        while queue:
            for rel, other in links.get(queue.popleft(), ()):
                if rel in wanted and other not in seen:
                    seen.add(other)
                    queue.append(other)
        seen.discard(start)
        return sorted(seen)

    def ancestors(self, term: str, relations: Sequence[str] = ("is_a",)) -> list[str]:
        """Every class reachable upwards over ``relations`` (OBO names, CURIEs or IRIs), the class excluded, sorted."""
        return self._walk(term, self._up, relations)

    def descendants(self, term: str, relations: Sequence[str] = ("is_a",)) -> list[str]:
        """Every class reachable downwards over ``relations``, the class excluded, sorted."""
        return self._walk(term, self._down, relations)

    def label(self, term: str) -> str | None:
        """The class's label (its base's, for a parallel extension class), or None."""
        return self.graph.labels.get(self.graph.parallel.get(term, term))

    # -- names ----------------------------------------------------------------------

    def _values(self, subject: str | None, predicate: str) -> list[tuple[str, str]]:
        """(class CURIE, literal) of ``predicate`` in the ontology graph(s) of this lookup."""
        graphs = [ox.NamedNode(ontology_graph(self.graph.ontology))] if self.graph.ontology else [None]
        s = ox.NamedNode(self.curies.expand(subject)) if subject else None
        out = []
        for g in graphs:
            for q in self.store.quads_for_pattern(s, ox.NamedNode(predicate), None, g):
                if (
                    isinstance(q.subject, ox.NamedNode)
                    and isinstance(q.object, ox.Literal)
                    and isinstance(q.graph_name, ox.NamedNode)
                    and q.graph_name.value.startswith(_ONTOLOGY_PREFIX)
                ):
                    out.append((self.curies.compress(q.subject.value), q.object.value))
        return out

    def info(self, term: str) -> TermInfo:
        """The record of one class; UnknownTermError when no ontology graph of the lookup declares it."""
        cls = self.resolve(term)
        synonyms = sorted(
            {(text, scope) for pred, scope in SYNONYM_SCOPES.items() for _, text in self._values(cls, pred)},
            key=lambda ts: (ts[1], ts[0]),
        )
        definitions = sorted(text for _, text in self._values(cls, OBO.definition))
        parents: dict[str, list[str]] = {}
        for rel, parent in self._up.get(cls, ()):
            parents.setdefault(_relation_name(rel), []).append(parent)
        return TermInfo(
            id=cls,
            iri=self.curies.expand(cls),
            label=self.graph.labels.get(cls),
            synonyms=tuple(synonyms),
            definition=definitions[0] if definitions else None,
            logical_definition=self.graph.definitions.get(cls),
            deprecated=cls in self.graph.deprecated,
            parents={r: sorted(ps) for r, ps in sorted(parents.items())},
            asked_as=term if term in self.graph.parallel else None,
        )

    @cached_property
    def _names(self) -> list[tuple[str, str, str]]:
        """Every (class, name, scope): labels, then synonyms; read once."""
        names = [(c, text, "LABEL") for c, text in self.graph.labels.items() if c in self.graph.classes]
        for pred, scope in SYNONYM_SCOPES.items():
            names.extend((c, text, scope) for c, text in self._values(None, pred) if c in self.graph.classes)
        return names

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
        for cls, name, scope in self._names:
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
                best[cls] = (key, Match(cls, self.graph.labels.get(cls), name, scope))
        return [m for _, m in sorted(best.values(), key=lambda km: km[0])[:limit]]
