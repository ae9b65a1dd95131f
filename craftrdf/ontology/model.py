"""The ontology read model: one ontology's classes, names and edges, read once.

Every consumer of an ontology (similarity's DAG, the official scorer's graph, the matcher's
names, term lookups) works on an :class:`OntologyModel`, read either from an ontology graph
of a store (:func:`craftrdf.ontology.store_model.read_store_model`, cached per store) or from
an OBO file through ingest's one OBO reader (:func:`read_obo_model`). Both give the same
fields, as CURIEs:

- ``classes``: the declared classes (``[Term]`` stanzas; ``owl:Class`` subjects of the graph,
  the placeholder classes under ``https://w3id.org/craftrdf/ref/`` left out);
- ``labels``: one label per class (the first); ``deprecated``: obsolete classes;
- ``logical_definitions``: the ``def:`` text of extension classes (prefix ending ``_EXT``),
  their Manchester-like definition (``craft:logicalDefinition`` in the store);
- ``edges``: ``(child, relation IRI, parent)``, the direct edges of the relations graph:
  ``is_a`` and the genus of an ``intersection_of`` as ``rdfs:subClassOf``, ``relationship:
  R X`` and the differentia ``R X`` of an ``intersection_of`` as ``R`` (store: also the
  subclass edges a current ``craftrdf classify`` inferred);
- ``parallel``: parallel extension classes (``SO_EXT:0000704``) mapped to their base class
  (store: ``craft:parallelOf`` of the mapping graphs; none from an OBO file);
- names, read on first use (a separate, cached read in the store): ``synonyms`` (per class,
  :class:`~craftrdf.core.model.Synonym` with scope; the synonym type only from OBO) and
  ``definitions`` (the text definition, ``def:`` / ``obo:IAO_0000115``).

The read API (what ``craftrdf term`` and adapters build on):

- :meth:`OntologyModel.get` -- an :class:`OntologyClass` record by CURIE (a parallel class
  gives its base's record; None for an unknown CURIE);
- :meth:`OntologyModel.parents` / :meth:`~OntologyModel.children` by relation (``is_a``,
  an OBO relation name such as ``part_of``, a CURIE or an IRI; :func:`relation_iri`), and
  :meth:`~OntologyModel.relations` for every ``(relation IRI, parent)`` of a class;
- :meth:`OntologyModel.ancestors` / :meth:`~OntologyModel.descendants` over chosen relations;
- :meth:`OntologyModel.names` -- every ``(curie, text, scope)`` (scope ``LABEL`` for labels),
  the input of a search index, and :meth:`~OntologyModel.find`, an exact, case-insensitive
  label/synonym lookup built from it.

Projections of the model (similarity's :class:`~craftrdf.analysis.similarity.graph.TermGraph`,
the official scorer's graph) are built by their consumers from these fields; none re-reads
the ontology.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Literal

from ..core.classexpr import And, Expr, Or, Restriction
from ..core.curie import CurieMap, is_extension_curie
from ..core.errors import ConfigError
from ..core.model import Synonym, Term
from ..core.rdf import check_iri
from ..core.vocab import RDFS
from ..ingest.obo import OboHeader, iter_obo
from ..ingest.ontology import RELATION_IRIS
from ..ingest.ontology import relation_iri as obo_relation_iri

logger = logging.getLogger(__name__)

#: A name's scope: a label, or a synonym's OBO scope.
NameScope = Literal["LABEL", "EXACT", "BROAD", "NARROW", "RELATED"]

#: ``(synonyms by class, text definitions by class, OBO namespaces by class)``, the names part of a model.
Names = tuple[Mapping[str, tuple[Synonym, ...]], Mapping[str, str], Mapping[str, str]]
#: ``(told superclass expressions by class, told equivalent expressions by class)``, the axioms part.
Axioms = tuple[Mapping[str, tuple[Expr, ...]], Mapping[str, tuple[Expr, ...]]]


def relation_iri(name: str, curies: CurieMap | None = None) -> str:
    """The predicate IRI of a relation named as in OBO: ``is_a``, a standard name, a CURIE or an IRI.

    >>> relation_iri("is_a")
    'http://www.w3.org/2000/01/rdf-schema#subClassOf'
    >>> relation_iri("part_of")
    'http://purl.obolibrary.org/obo/BFO_0000050'
    >>> relation_iri("RO:0002202")
    'http://purl.obolibrary.org/obo/RO_0002202'

    ConfigError for any other name (a relation an ontology defines for itself is named by its IRI).
    """
    if name == "is_a":
        return RDFS.subClassOf
    known = RELATION_IRIS.get(name)
    if known is not None:
        return known
    cm = curies or CurieMap()
    if name.startswith(("http://", "https://")) or cm.is_curie(name):
        return cm.expand(name)
    raise ConfigError(
        f"unknown relation {name!r}: use is_a, an OBO relation name "
        f"({', '.join(sorted(RELATION_IRIS)[:4])}, ...), a CURIE or an IRI"
    )


@dataclass(frozen=True, slots=True)
class OntologyClass:
    """One class of an :class:`OntologyModel`, as :meth:`OntologyModel.get` returns it.

    ``relations`` holds the class's direct edges ``(relation IRI, parent CURIE)`` in a stable
    (sorted) order; ``parents`` the is_a ones alone.
    """

    curie: str
    iri: str
    label: str | None
    synonyms: tuple[Synonym, ...]
    definition: str | None
    logical_definition: str | None
    deprecated: bool
    parents: tuple[str, ...]
    relations: tuple[tuple[str, str], ...]


@dataclass(slots=True)
class OntologyModel:
    """An ontology's classes, labels, edges by relation, and (on first use) synonyms and definitions.

    See the module docstring for each field. ``ontology`` is the name the model was read under
    (``UBERON+extensions``; None for every ontology graph of a store merged); ``source`` says
    where it came from; ``obo_ontology`` is an OBO file's header ``ontology:`` tag (None from a
    store). Build it with a read function, not by hand: ``names_loader`` and ``axioms_loader`` are
    how the store defers its further reads.
    """

    ontology: str | None
    source: str
    classes: frozenset[str]
    edges: frozenset[tuple[str, str, str]]
    labels: Mapping[str, str] = field(default_factory=dict)
    logical_definitions: Mapping[str, str] = field(default_factory=dict)
    parallel: Mapping[str, str] = field(default_factory=dict)
    deprecated: frozenset[str] = frozenset()
    curies: CurieMap = field(default_factory=CurieMap, repr=False)
    obo_ontology: str | None = None
    names_loader: Callable[[], Names] | None = field(default=None, repr=False)
    axioms_loader: Callable[[], Axioms] | None = field(default=None, repr=False)
    _names: Names | None = field(default=None, repr=False)
    _axioms: Axioms | None = field(default=None, repr=False)
    _up: dict[str, dict[str, tuple[str, ...]]] = field(default_factory=dict, repr=False)
    _down: dict[str, dict[str, tuple[str, ...]]] = field(default_factory=dict, repr=False)
    _find: dict[str, tuple[str, ...]] | None = field(default=None, repr=False)

    # -- names ---------------------------------------------------------------------------

    def _loaded(self) -> Names:
        if self._names is None:
            self._names = self.names_loader() if self.names_loader is not None else ({}, {}, {})
        return self._names

    @property
    def subclass_of(self) -> Mapping[str, tuple[Expr, ...]]:
        """Each class's told superclasses as class expressions, class IRIs as leaves (read on first use).

        From OBO: ``is_a: X`` is the IRI of X, ``relationship: R X`` a ``Restriction((R,), "some", X)``;
        from the store, the ``rdfs:subClassOf`` axioms the OWL reader resolves.
        """
        return self._told()[0]

    @property
    def equivalents(self) -> Mapping[str, tuple[Expr, ...]]:
        """Each class's told equivalent class expressions (read on first use).

        From OBO: the ``intersection_of`` lines as one ``And`` (genus IRI, ``R some X``
        restrictions), the ``union_of`` lines as one ``Or``, each ``equivalent_to`` as an IRI (an
        extension class's definition is only text there, in ``logical_definitions``); from the
        store, the ``owl:equivalentClass`` axioms, extension definitions included as ingest wrote
        them (a name it could not resolve as a ``https://w3id.org/craftrdf/ref/`` placeholder).
        """
        return self._told()[1]

    def _told(self) -> Axioms:
        if self._axioms is None:
            self._axioms = self.axioms_loader() if self.axioms_loader is not None else ({}, {})
        return self._axioms

    @property
    def synonyms(self) -> Mapping[str, tuple[Synonym, ...]]:
        """Synonyms by class CURIE (read on first use)."""
        return self._loaded()[0]

    @property
    def definitions(self) -> Mapping[str, str]:
        """Text definitions by class CURIE (read on first use)."""
        return self._loaded()[1]

    @property
    def namespaces(self) -> Mapping[str, str]:
        """The OBO namespace of each class (``namespace:``, else the header's ``default-namespace``).

        Read on first use.
        """
        return self._loaded()[2]

    def names(self) -> Iterator[tuple[str, str, NameScope]]:
        """Every ``(curie, text, scope)``: each class's label (scope ``LABEL``), then its synonyms.

        The input of a search index: classes in sorted order, a class's synonyms in source order.
        """
        synonyms = self.synonyms
        for curie in sorted(self.classes):
            label = self.labels.get(curie)
            if label is not None:
                yield curie, label, "LABEL"
            for s in synonyms.get(curie, ()):
                yield curie, s.text, s.scope

    def find(self, text: str, *, scopes: Iterable[NameScope] | None = None) -> tuple[str, ...]:
        """The classes with a label or synonym equal to ``text`` ignoring case, sorted.

        ``scopes`` limits the match to those scopes (``("LABEL", "EXACT")``); the index is built
        on first use.
        """
        wanted = None if scopes is None else frozenset(scopes)
        if self._find is None:
            index: dict[str, dict[str, None]] = {}
            for curie, name, scope in self.names():
                index.setdefault(name.casefold(), {})[f"{scope} {curie}"] = None
            self._find = {k: tuple(v) for k, v in index.items()}
        hits = (h.split(" ", 1) for h in self._find.get(text.casefold(), ()))
        return tuple(sorted({c for s, c in hits if wanted is None or s in wanted}))

    # -- classes -------------------------------------------------------------------------

    def base(self, curie: str) -> str:
        """The class a CURIE stands for: a parallel extension class's base, else the CURIE itself."""
        return self.parallel.get(curie, curie)

    def get(self, curie: str) -> OntologyClass | None:
        """The record of a class by CURIE (a parallel class gives its base's), or None."""
        c = self.base(curie)
        if c not in self.classes:
            return None
        relations = tuple(sorted((rel, p) for rel, ps in self._index(up=True).items() for p in ps.get(c, ())))
        return OntologyClass(
            curie=c,
            iri=self.curies.expand(c),
            label=self.labels.get(c),
            synonyms=self.synonyms.get(c, ()),
            definition=self.definitions.get(c),
            logical_definition=self.logical_definitions.get(c),
            deprecated=c in self.deprecated,
            parents=tuple(p for rel, p in relations if rel == RDFS.subClassOf),
            relations=relations,
        )

    def __contains__(self, curie: object) -> bool:
        return isinstance(curie, str) and self.base(curie) in self.classes

    def __len__(self) -> int:
        return len(self.classes)

    # -- edges ---------------------------------------------------------------------------

    def _index(self, *, up: bool) -> dict[str, dict[str, tuple[str, ...]]]:
        """``relation IRI -> node -> neighbours`` (parents when ``up``, children otherwise), built once."""
        held = self._up if up else self._down
        if not held:
            lists: dict[str, dict[str, list[str]]] = {}
            for child, rel, parent in self.edges:
                a, b = (child, parent) if up else (parent, child)
                lists.setdefault(rel, {}).setdefault(a, []).append(b)
            for rel, rows in lists.items():
                held[rel] = {node: tuple(sorted(ns)) for node, ns in rows.items()}
        return held

    def _step(self, curie: str, relations: Iterable[str], up: bool) -> tuple[str, ...]:
        index = self._index(up=up)
        found: dict[str, None] = {}
        for name in relations:
            found.update(dict.fromkeys(index.get(relation_iri(name, self.curies), {}).get(curie, ())))
        return tuple(sorted(found))

    def relations(self, curie: str) -> tuple[tuple[str, str], ...]:
        """Every direct edge ``(relation IRI, parent)`` of a class, sorted."""
        c = self.base(curie)
        return tuple(sorted((rel, p) for rel, ps in self._index(up=True).items() for p in ps.get(c, ())))

    def parents(self, curie: str, relations: Iterable[str] = ("is_a",)) -> tuple[str, ...]:
        """The direct parents of a class by the named relations (:func:`relation_iri` names), sorted."""
        return self._step(self.base(curie), relations, up=True)

    def children(self, curie: str, relations: Iterable[str] = ("is_a",)) -> tuple[str, ...]:
        """The direct children of a class by the named relations, sorted."""
        return self._step(self.base(curie), relations, up=False)

    def ancestors(self, curie: str, relations: Iterable[str] = ("is_a",)) -> frozenset[str]:
        """Every class reachable upward by the named relations, the class itself excluded."""
        return self._walk(self.base(curie), tuple(relations), up=True)

    def descendants(self, curie: str, relations: Iterable[str] = ("is_a",)) -> frozenset[str]:
        """Every class reachable downward by the named relations, the class itself excluded."""
        return self._walk(self.base(curie), tuple(relations), up=False)

    def _walk(self, start: str, relations: tuple[str, ...], up: bool) -> frozenset[str]:
        seen: set[str] = set()
        stack = [start]
        while stack:
            for n in self._step(stack.pop(), relations, up):
                if n not in seen:
                    seen.add(n)
                    stack.append(n)
        seen.discard(start)
        return frozenset(seen)


# -- from an OBO file ------------------------------------------------------------------------

#: The stanza tags a model's structure comes from (``read_obo_model(names=False)``).
_STRUCTURE_TAGS = frozenset({"is_obsolete", "is_a", "relationship", "intersection_of", "union_of", "equivalent_to"})


def read_obo_model(
    path: str | os.PathLike[str], *, curies: CurieMap | None = None, ontology: str | None = None, names: bool = True
) -> OntologyModel:
    """The :class:`OntologyModel` of one OBO file (plain, ``.gz`` or ``.zip``), read by ingest's OBO reader.

    Edges are those the store's relations graph gets from the same file (see the module
    docstring); relation names resolve as :func:`craftrdf.ingest.ontology.relation_iri` does
    with the header's ``ontology:`` (or ``ontology``). Malformed stanzas are skipped with a
    DataWarning as the reader does; OboSyntaxError for a file that is not OBO.

    ``names=False`` reads the structure only (classes, deprecation, edges, told axioms: the
    official scorer's needs), leaving labels, synonyms and definitions empty; about three times
    faster on a large file.
    """
    ids = _Ids(curies or CurieMap(), str(path), ontology)
    cm, curie, rel, where = ids.curies, ids.curie, ids.rel, ids.where
    header = OboHeader()
    classes: set[str] = set()
    edges: set[tuple[str, str, str]] = set()
    labels: dict[str, str] = {}
    logical: dict[str, str] = {}
    deprecated: set[str] = set()
    synonyms: dict[str, tuple[Synonym, ...]] = {}
    definitions: dict[str, str] = {}
    namespaces: dict[str, str] = {}
    subclass_of: dict[str, tuple[Expr, ...]] = {}
    equivalents: dict[str, tuple[Expr, ...]] = {}
    for item in iter_obo(path, tags=None if names else _STRUCTURE_TAGS):
        if isinstance(item, OboHeader):
            header = ids.header = item
            continue
        c = curie(item.id) if isinstance(item, Term) else None
        if not isinstance(item, Term) or c is None:
            continue
        classes.add(c)
        if item.name:
            labels.setdefault(c, item.name)
        if item.obsolete:
            deprecated.add(c)
        if item.synonyms:
            synonyms[c] = item.synonyms
        namespace = (item.namespace or header.default_namespace) if names else None
        if namespace:
            namespaces[c] = namespace
        if item.definition:
            definitions[c] = item.definition
            if is_extension_curie(item.id):
                logical[c] = item.definition
        edges.update(_term_edges(c, item, curie, rel))
        told, same = _term_axioms(item, ids.iri, rel)
        if told:
            subclass_of[c] = told
        if same:
            equivalents[c] = same
    logger.info("%s: ontology model of %d classes, %d edges", where, len(classes), len(edges))
    return OntologyModel(
        ontology=ontology,
        source=where,
        classes=frozenset(classes),
        edges=frozenset(edges),
        labels=labels,
        logical_definitions=logical,
        deprecated=frozenset(deprecated),
        curies=cm,
        obo_ontology=header.ontology,
        _names=(synonyms, definitions, namespaces),
        _axioms=(subclass_of, equivalents),
    )


class _Ids:
    """Class ids and relation names of one OBO file as the store has them, memoised."""

    def __init__(self, curies: CurieMap, where: str, ontology: str | None) -> None:
        self.curies, self.where, self.ontology = curies, where, ontology
        self.header = OboHeader()
        self._curies: dict[str, str | None] = {}
        self._rels: dict[str, str] = {}

    def curie(self, value: str) -> str | None:
        """The CURIE ingest's IRI of an id compresses to; None for an id ingest skips (not a CURIE or IRI)."""
        if value in self._curies:
            return self._curies[value]
        try:
            c: str | None = self.curies.compress(check_iri(self.curies.expand(value, source=self.where)))
        except ValueError:  # InputError or a bad IRI: ingest skips it (with a warning)
            c = None
        self._curies[value] = c
        return c

    def iri(self, value: str) -> str | None:
        """The IRI of an id (as the store has it), or None."""
        c = self.curie(value)
        return None if c is None else self.curies.expand(c)

    def rel(self, name: str) -> str:
        """A relation's IRI, as ingest names it (the header's ``ontology:`` for a name of the file's own)."""
        hit = self._rels.get(name)
        if hit is None:
            space = self.header.ontology or self.ontology or ""
            hit = self._rels[name] = obo_relation_iri(name, ontology=space, curies=self.curies)
        return hit


def _term_edges(
    c: str, term: Term, curie: Callable[[str], str | None], rel: Callable[[str], str]
) -> Iterator[tuple[str, str, str]]:
    """A stanza's direct edges, as ingest writes them to the relations graph.

    A target that is not a CURIE or IRI drops its edge; in an ``intersection_of`` it drops the
    whole intersection, as ingest does.
    """
    told: list[tuple[str | None, str]] = [*((None, t) for t in term.is_a), *term.relationships]
    for name, target in told:
        o = curie(target)
        if o is not None:
            yield c, RDFS.subClassOf if name is None else rel(name), o
    parts = [(name, curie(target)) for name, target in term.intersection_of]
    if all(o is not None for _, o in parts):
        for name, o in parts:
            assert o is not None
            yield c, RDFS.subClassOf if name is None else rel(name), o


def _term_axioms(
    term: Term, iri: Callable[[str], str | None], rel: Callable[[str], str]
) -> tuple[tuple[Expr, ...], tuple[Expr, ...]]:
    """A stanza's told superclasses and equivalents as class expressions, as ingest writes them as OWL.

    A bad target drops its ``is_a``/``relationship``/``equivalent_to`` line, or the whole
    intersection or union.
    """
    told: list[Expr] = [o for o in map(iri, term.is_a) if o is not None]
    for name, target in term.relationships:
        o = iri(target)
        if o is not None:
            told.append(Restriction((rel(name),), "some", o))
    same: list[Expr] = []
    parts = [(name, iri(target)) for name, target in term.intersection_of]
    if parts and all(o is not None for _, o in parts):
        same.append(And(tuple(o if name is None else Restriction((rel(name),), "some", o) for name, o in parts if o)))
    members = [iri(m) for m in term.union_of]
    if members and all(m is not None for m in members):
        same.append(Or(tuple(m for m in members if m)))
    same.extend(o for o in map(iri, term.equivalent_to) if o is not None)
    return tuple(told), tuple(same)
