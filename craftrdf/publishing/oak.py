"""An OAK (oaklib) adapter over a craftrdf store: ``runoak -i craftrdf:PATH info UBERON:0000955``.

oaklib finds it through the ``oaklib.plugins`` entry point ``craftrdf`` (pyproject.toml), so the
selector ``craftrdf:PATH`` (a store directory, or a SPARQL endpoint URL) opens the store read-only
and answers OAK's basic, graph and search interfaces from craftrdf's ontology read model
(:class:`~craftrdf.analysis.terms.TermLookup` over every ontology graph merged, or one graph:
``craftrdf:PATH#UBERON+extensions``, or ``get_adapter("craftrdf:PATH", ontology="UBERON+extensions")``).
What that gives OAK:

- entities are the declared classes (obsolete ones only when asked), labels, text definitions,
  synonyms by scope (``oio:hasExactSynonym``...); a parallel extension class (``SO_EXT:0000704``)
  answers as its base class, as everywhere in craftrdf;
- relationships are the direct edges of the store's relations graphs: ``is_a`` and an
  ``intersection_of`` genus as ``rdfs:subClassOf``, ``relationship:`` lines and ``intersection_of``
  differentiae under their relation (``BFO:0000050``...), plus the placements ``craftrdf classify``
  stored (``classify_extensions=True`` adds those of the union pass, as ``craftrdf similarity
  --classify-extensions``); ancestors and descendants walk them, reflexive by default as OAK's are;
- search: the default (exact) match is case-insensitive over labels and synonyms; ``~`` (partial),
  ``^`` (starts with) and ``/`` (regular expression) work over the same names.

Everything is read once per process (the read model is cached per store). Importing this module
without oaklib raises a one-line :class:`~craftrdf.core.errors.MissingExtraError` naming the ``oak``
extra. Heavy craftrdf modules are imported when an adapter is made, not when OAK loads its plugins
(it loads every plugin for every selector).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..core._extras import needs_extra
from ..core.vocab import RDFS

with needs_extra():
    from oaklib.datamodels.obograph import DefinitionPropertyValue, Meta, Node, SynonymPropertyValue
    from oaklib.datamodels.search import SearchConfiguration
    from oaklib.datamodels.search_datamodel import SearchProperty
    from oaklib.datamodels.vocabulary import (
        HAS_DEFINITION_CURIE,
        IS_A,
        LABEL_PREDICATE,
        OWL_CLASS,
        SCOPE_TO_SYNONYM_PRED_MAP,
    )
    from oaklib.interfaces.obograph_interface import OboGraphInterface
    from oaklib.interfaces.search_interface import SearchInterface

if TYPE_CHECKING:
    from ..analysis.terms import TermLookup
    from ..ontology.model import NameScope, OntologyModel
    from ..store.local import ReadableStore

#: OAK's ``(subject, predicate, object)`` CURIE triple.
Relationship = tuple[str, str, str]
#: a synonym scope as OBO Graphs' synonym predicate
_SCOPE_PRED = {
    "EXACT": "hasExactSynonym",
    "BROAD": "hasBroadSynonym",
    "NARROW": "hasNarrowSynonym",
    "RELATED": "hasRelatedSynonym",
}


@dataclass
class CraftrdfImplementation(OboGraphInterface, SearchInterface):
    """OAK's view of a craftrdf store's ontology graphs (see the module docstring).

    Made by oaklib from a ``craftrdf:PATH[#ONTOLOGY]`` selector (``resource.slug`` is the part after the
    scheme); keyword
    arguments of ``get_adapter`` set ``ontology`` (one ontology graph's name) and
    ``classify_extensions``, or pass a ready ``lookup``. A missing or empty store is a
    :class:`~craftrdf.core.errors.StoreError`, an unknown ontology graph a ConfigError.
    """

    ontology: str | None = None
    classify_extensions: bool = False
    lookup: TermLookup | None = None

    def __post_init__(self) -> None:
        if self.lookup is None:
            # deferred, like RELATION_IRIS below: OAK imports every plugin for every selector
            from ..analysis.terms import TermLookup
            from ..core.errors import ConfigError

            location = self.resource.slug if self.resource is not None else None
            if location and "#" in location:  # craftrdf:PATH#UBERON+extensions: that ontology graph alone
                location, _, name = location.rpartition("#")
                self.ontology = self.ontology or name
            if not location:
                raise ConfigError("the craftrdf adapter needs a store: craftrdf:PATH (a directory or an endpoint URL)")
            # held open for the adapter's life: the model reads its names (synonyms, definitions) on first use
            if location.startswith(("http://", "https://")):
                from ..store.remote import RemoteStore

                self._store: ReadableStore = RemoteStore(location)
            else:
                from ..store.local import AnnotationStore

                self._store = AnnotationStore.open(location, mode="read")
            self.lookup = TermLookup.of(
                self._store, ontology=self.ontology, classify_extensions=self.classify_extensions
            )
        from ..ingest.ontology import RELATION_IRIS  # here: OAK imports every plugin for every selector

        self._all_predicates = tuple(sorted({rel for _, rel, _ in self.model.edges}))
        # OAK's label of a predicate: its OBO name (``part of``)
        self._relation_names = {RDFS.subClassOf: "subClassOf"} | {
            i: n.replace("_", " ") for n, i in RELATION_IRIS.items()
        }

    @property
    def model(self) -> OntologyModel:
        """The read model the adapter answers from."""
        assert self.lookup is not None  # set by __post_init__
        return self.lookup.model

    # -- identifiers ------------------------------------------------------------------

    def _predicate_iri(self, predicate: str) -> str:
        return RDFS.subClassOf if predicate == IS_A else self.model.curies.expand(predicate)

    def _predicate_curie(self, iri: str) -> str:
        return IS_A if iri == RDFS.subClassOf else self.model.curies.compress(iri)

    def _predicates(self, predicates: Iterable[str] | None) -> tuple[str, ...]:
        return self._all_predicates if predicates is None else tuple(self._predicate_iri(p) for p in predicates)

    def curie_to_uri(self, curie: str, strict: bool = False) -> str | None:
        """The IRI of a CURIE, as the store spells it (OBO PURLs, ``UBERON_EXT_...`` included)."""
        if curie == IS_A:
            return RDFS.subClassOf
        return self.model.curies.expand(curie) if self.model.curies.is_curie(curie) else None

    def uri_to_curie(self, uri: str, strict: bool = True, use_uri_fallback: bool = False) -> str | None:
        """The CURIE of an IRI (an IRI outside the OBO PURL space comes back unchanged)."""
        return self._predicate_curie(uri)

    # -- basic ------------------------------------------------------------------------

    def entities(self, filter_obsoletes: bool = True, owl_type: str | None = None) -> Iterator[str]:
        """Every declared class, sorted (obsolete ones too when ``filter_obsoletes`` is False)."""
        if owl_type not in (None, OWL_CLASS):
            return
        deprecated = self.model.deprecated if filter_obsoletes else frozenset()
        yield from (c for c in sorted(self.model.classes) if c not in deprecated)

    def obsoletes(self, include_merged: bool = True) -> Iterator[str]:
        """The classes marked obsolete (``owl:deprecated``), sorted."""
        yield from sorted(self.model.deprecated)

    def owl_types(self, entities: Iterable[str]) -> Iterator[tuple[str, str | None]]:
        """``owl:Class`` for a class of the store, None for anything else."""
        for e in entities:
            yield e, OWL_CLASS if e in self.model else None

    def label(self, curie: str, lang: str | None = None) -> str | None:
        """The class's label (a parallel extension class's is its base's), a relation's OBO name, or None."""
        found = self.model.labels.get(self.model.base(curie))
        if found is None and self.model.curies.is_curie(curie):
            found = self._relation_names.get(self._predicate_iri(curie))
        return found

    def node(
        self, curie: str, strict: bool = False, include_metadata: bool = False, expand_curies: bool = False
    ) -> Node | None:
        """The class as an OBO Graphs node (label, and with ``include_metadata`` definition, synonyms,
        deprecation); None for an unknown CURIE (ValueError when ``strict``)."""
        record = self.model.get(curie)
        if record is None:
            if strict:
                raise ValueError(f"no class {curie} in the store")
            return None
        meta = None
        if include_metadata:
            meta = Meta(
                definition=DefinitionPropertyValue(val=record.definition) if record.definition else None,
                synonyms=[SynonymPropertyValue(pred=_SCOPE_PRED[s.scope], val=s.text) for s in record.synonyms],
                deprecated=True if record.deprecated else None,
            )
        return Node(id=record.iri if expand_curies else curie, lbl=record.label, type="CLASS", meta=meta)

    def simple_mappings_by_curie(self, curie: str) -> Iterator[tuple[str, str]]:
        """None: the read model keeps no xrefs (the SSSOM export has the extension classes' mappings)."""
        yield from ()

    def logical_definitions(
        self, subjects: Iterable[str] | None = None, predicates: Iterable[str] | None = None, **kwargs: Any
    ) -> Iterator[Any]:
        """None as OBO Graphs axioms: the ``intersection_of`` parts are edges here (genus ``rdfs:subClassOf``,
        differentiae under their relation), and an extension class's definition is text (its ``definition``)."""
        yield from ()

    def curies_by_label(self, label: str) -> list[str]:
        """The classes whose label equals ``label`` ignoring case."""
        return list(self.model.find(label, scopes=("LABEL",)))

    def definition(self, curie: str, lang: str | None = None) -> str | None:
        """The text definition, or None."""
        return self.model.definitions.get(self.model.base(curie))

    def definitions(
        self, curies: Iterable[str], include_metadata: bool = False, include_missing: bool = False, lang: Any = None
    ) -> Iterator[tuple[str, str | None, dict[str, Any]]]:
        """``(curie, definition, metadata)`` for each class that has one (each asked for, ``include_missing``)."""
        for c in curies:
            text = self.definition(c)
            if text is not None or include_missing:
                yield c, text, {}

    def entity_alias_map(self, curie: str) -> dict[str, list[str]]:
        """The label (``rdfs:label``) and the synonyms under OAK's predicate for their scope."""
        record = self.model.get(curie)
        if record is None:
            return {}
        out: dict[str, list[str]] = {LABEL_PREDICATE: [record.label]} if record.label else {}
        for s in record.synonyms:
            out.setdefault(SCOPE_TO_SYNONYM_PRED_MAP[s.scope], []).append(s.text)
        return out

    def entity_metadata_map(self, curie: str) -> dict[str, list[str]]:
        """The record's id, definition and deprecation, as OAK's metadata keys."""
        record = self.model.get(curie)
        if record is None:
            return {}
        out: dict[str, list[str]] = {"id": [curie]}
        if record.definition:
            out[HAS_DEFINITION_CURIE] = [record.definition]
        if record.deprecated:
            out["owl:deprecated"] = ["true"]
        return out

    # -- relationships ----------------------------------------------------------------

    def relationships(
        self,
        subjects: Iterable[str] | None = None,
        predicates: Iterable[str] | None = None,
        objects: Iterable[str] | None = None,
        include_tbox: bool = True,
        include_abox: bool = True,
        include_entailed: bool = False,
        exclude_blank: bool = True,
        invert: bool = False,
    ) -> Iterator[Relationship]:
        """The direct edges matching the filters; ``include_entailed`` adds each subject's ancestors
        over each predicate (``rdfs:subClassOf`` ones under is_a alone, the others through is_a too)."""
        if invert:
            flipped = self.relationships(objects, predicates, subjects, include_entailed=include_entailed)
            yield from ((o, p, s) for s, p, o in flipped)
            return
        rels = self._predicates(predicates)
        if subjects is None and objects is not None and not include_entailed:
            # incoming edges: the children index, not a scan of every subject
            for o in objects:
                for rel in rels:
                    yield from ((c, self._predicate_curie(rel), o) for c in self.model.children(o, [rel]))
            return
        wanted = None if objects is None else set(objects)
        if subjects is None:
            subjects = sorted({c for c, _, _ in self.model.edges})
        for s in subjects:
            for rel in rels:
                targets = self._targets(s, rel, include_entailed)
                p = self._predicate_curie(rel)
                yield from ((s, p, o) for o in targets if wanted is None or o in wanted)

    def _targets(self, subject: str, rel: str, entailed: bool) -> list[str]:
        if not entailed:
            return list(self.model.parents(subject, [rel]))
        # R some X entails R some (every is_a ancestor of X) and is inherited from every is_a ancestor
        above = [subject, *sorted(self.model.ancestors(subject, [RDFS.subClassOf]))]
        direct = {t for a in above for t in self.model.parents(a, [rel])}
        if rel == RDFS.subClassOf:
            return sorted(direct)
        return sorted(direct | {u for t in direct for u in self.model.ancestors(t, [RDFS.subClassOf])})

    def outgoing_relationship_map(self, curie: str) -> dict[str, list[str]]:
        """The class's direct parents by predicate CURIE."""
        out: dict[str, list[str]] = {}
        for rel, parent in self.model.relations(curie):
            out.setdefault(self._predicate_curie(rel), []).append(parent)
        return out

    def incoming_relationship_map(self, curie: str) -> dict[str, list[str]]:
        """The class's direct children by predicate CURIE."""
        out: dict[str, list[str]] = {}
        for rel in self._all_predicates:
            children = self.model.children(curie, [rel])
            if children:
                out[self._predicate_curie(rel)] = list(children)
        return out

    def ancestors(
        self,
        start_curies: str | list[str],
        predicates: list[str] | None = None,
        reflexive: bool = True,
        method: Any = None,
    ) -> Iterator[str]:
        """Every class reachable upwards over ``predicates`` (all when None), the start classes when ``reflexive``."""
        yield from self._closure(start_curies, predicates, reflexive, self.model.ancestors)

    def descendants(
        self,
        start_curies: str | list[str],
        predicates: list[str] | None = None,
        reflexive: bool = True,
        method: Any = None,
    ) -> Iterator[str]:
        """Every class reachable downwards over ``predicates`` (all when None), the start classes when ``reflexive``."""
        yield from self._closure(start_curies, predicates, reflexive, self.model.descendants)

    def _closure(
        self,
        start: str | list[str],
        predicates: list[str] | None,
        reflexive: bool,
        walk: Callable[[str, Iterable[str]], frozenset[str]],
    ) -> Iterator[str]:
        starts = [start] if isinstance(start, str) else list(start)
        rels = self._predicates(predicates)
        found: dict[str, None] = dict.fromkeys(starts) if reflexive else {}
        for s in starts:
            found.update(dict.fromkeys(sorted(walk(s, rels))))
        yield from found

    # -- search -----------------------------------------------------------------------

    def basic_search(self, search_term: str, config: SearchConfiguration | None = None) -> Iterator[str]:
        """Classes whose label (or synonym, unless only labels are asked) matches ``search_term``.

        Exact matching ignores case; ``is_partial`` is :meth:`TermLookup.search`'s ranked
        containment; ``STARTS_WITH`` and ``REGULAR_EXPRESSION`` test each name as OAK's own
        adapters do (case-sensitive unless ``force_case_insensitive``).
        """
        config = config or SearchConfiguration(properties=[SearchProperty.LABEL, SearchProperty.ALIAS])
        props = {str(p) for p in config.properties or ()}
        scopes: tuple[NameScope, ...] | None = ("LABEL",) if props == {"LABEL"} else None
        syntax = str(config.syntax) if config.syntax is not None else None
        if syntax in ("STARTS_WITH", "REGULAR_EXPRESSION"):
            yield from self._scan(search_term, syntax == "STARTS_WITH", bool(config.force_case_insensitive), scopes)
        elif config.is_partial:
            assert self.lookup is not None  # set by __post_init__
            yield from (m.id for m in self.lookup.search(search_term, limit=len(self.model), scopes=scopes))
        else:
            yield from self.model.find(search_term, scopes=scopes)

    def _scan(self, term: str, prefix: bool, fold: bool, scopes: tuple[NameScope, ...] | None) -> Iterator[str]:
        pattern = re.compile(re.escape(term) if prefix else term, re.IGNORECASE if fold else 0)
        test = pattern.match if prefix else pattern.search
        seen: set[str] = set()
        for cls, name, scope in self.model.names():
            if cls not in seen and (scopes is None or scope in scopes) and test(name):
                seen.add(cls)
                yield cls
