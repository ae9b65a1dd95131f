"""OBO records -> N-Quads lines, following the OBO-to-OWL conventions.

One streaming pass over what :func:`craftrdf.ingest.obo.iter_obo` yields. A class is
``curies.expand(id)`` (the OBO PURL) and gets ``owl:Class``, ``oboInOwl:id``, label,
definition (``obo:IAO_0000115``), comment, synonyms by scope (plain literals; synonym
types and all xref lists of defs and synonyms are dropped), ``rdfs:subClassOf`` per
``is_a``, and oboInOwl literals for namespace (the header's ``default-namespace`` when
the term has none), alt_id, xref and subset. Obsolete classes get
``owl:deprecated true``, ``obo:IAO_0100001`` (replaced_by) and ``oboInOwl:consider``.
Typedefs become ``owl:ObjectProperty`` (``owl:AnnotationProperty`` for metadata tags) with
label, ``oboInOwl:id``, xrefs, ``rdfs:subPropertyOf`` per ``is_a``, their characteristics,
``owl:inverseOf``, ``rdfs:domain`` and ``rdfs:range``.

The logical tags (``relationship``, ``intersection_of``, ``union_of``, ``disjoint_from``,
``equivalent_to``) follow the OBO 1.4 -> OWL mapping (:mod:`craftrdf.ingest.axioms`,
:mod:`craftrdf.ingest.owl`); with ``relations=`` the direct class-to-class edges (is_a,
relationships, intersection genus and differentiae) go to that derived graph in the same
pass, so SPARQL can walk ``rdfs:subClassOf|obo:BFO_0000050`` there (docs/rdf-model.md).
Typedef stanzas come after the terms, so relation IRIs cannot wait for them:
:func:`relation_iri` resolves a relation from its name alone (see there).

CRAFT extension classes (prefix ending in ``_EXT``) are also typed
``craft:ExtensionClass`` and keep their ``def:`` text verbatim as
``craft:logicalDefinition``; the definition is also written as OWL once the file is read.
"""

from __future__ import annotations

import logging
import warnings
from collections.abc import Iterable, Iterator, Mapping
from types import MappingProxyType
from urllib.parse import quote

from ..core.curie import CurieMap, is_extension_curie
from ..core.errors import ConfigError, DataWarning, InputError
from ..core.model import Term, Typedef
from ..core.rdf import bool_literal, check_iri, iri, literal, quad
from ..core.vocab import CRAFT, IAO, OBO, OBOINOWL, OWL, RDF, RDFS
from .axioms import AxiomContext, class_axioms, class_iri, closing_axioms, targets
from .obo import OboHeader
from .owl import BlankNodes

logger = logging.getLogger(__name__)

_RO = OBO.NS + "RO_"
_BFO = OBO.NS + "BFO_"

#: Standard OBO relation names -> RO/BFO IRIs. Each entry is attested in CRAFT's own
#: files (a Typedef ``xref:`` in UBERON or the GO_MF stub, or a Typedef whose id is the
#: RO/BFO CURIE and whose name is the key, in CL and MOP); the tests check them against
#: those files. Sequence relations that SO defines for itself (``derives_from``,
#: ``has_quality``, ``contains``, ``adjacent_to``, ``overlaps``, ...) are deliberately
#: absent and stay in SO's own namespace; ``part_of``/``has_part`` are mapped everywhere.
#: ``has_participant`` is BFO_0000057 because MOP, its only user, declares it so (RO now
#: has RO_0000057 for it).
RELATION_IRIS: Mapping[str, str] = MappingProxyType({
    "part_of": _BFO + "0000050",
    "has_part": _BFO + "0000051",
    "has_participant": _BFO + "0000057",
    "occurs_in": _BFO + "0000066",
    "starts_during": _RO + "0002091",
    "happens_during": _RO + "0002092",
    "ends_during": _RO + "0002093",
    "never_in_taxon": _RO + "0002161",
    "mutually_spatially_disjoint_with": _RO + "0002171",
    "ambiguous_for_taxon": _RO + "0002173",
    "dubious_for_taxon": _RO + "0002174",
    "present_in_taxon": _RO + "0002175",
    "develops_from": _RO + "0002202",
    "develops_into": _RO + "0002203",
    "regulates": _RO + "0002211",
    "negatively_regulates": _RO + "0002212",
    "positively_regulates": _RO + "0002213",
    "capable_of": _RO + "0002215",
    "has_no_connections_with": _RO + "0002475",
    "transformation_of": _RO + "0002494",
    "immediate_transformation_of": _RO + "0002495",
})  # fmt: skip

_SYNONYM_PREDICATES = {
    "EXACT": iri(OBOINOWL.hasExactSynonym),
    "BROAD": iri(OBOINOWL.hasBroadSynonym),
    "NARROW": iri(OBOINOWL.hasNarrowSynonym),
    "RELATED": iri(OBOINOWL.hasRelatedSynonym),
}
_TYPE = iri(RDF.type)
_LABEL = iri(RDFS.label)
_COMMENT = iri(RDFS.comment)
_SUBCLASS = iri(RDFS.subClassOf)
_SUBPROPERTY = iri(RDFS.subPropertyOf)
_CLASS = iri(OWL.Class)
_OBJECT_PROPERTY = iri(OWL.ObjectProperty)
_TRANSITIVE = iri(OWL.TransitiveProperty)
_DEPRECATED = iri(OWL.deprecated)
_TRUE = bool_literal(True)
_DEFINITION = iri(OBO.definition)
_ID = iri(OBOINOWL.id)
_NAMESPACE = iri(OBOINOWL.hasOBONamespace)
_ALT_ID = iri(OBOINOWL.hasAlternativeId)
_XREF = iri(OBOINOWL.hasDbXref)
_SUBSET = iri(OBOINOWL.inSubset)
_CONSIDER = iri(OBOINOWL.consider)
_REPLACED_BY = iri(IAO.replaced_by)
_EXTENSION = iri(CRAFT.ExtensionClass)
_LOGICAL_DEFINITION = iri(CRAFT.logicalDefinition)


def relation_iri(name: str, *, ontology: str, curies: CurieMap) -> str:
    """The IRI of a relation as written in ``relationship:``, ``is_a`` of a Typedef, or its id.

    A CURIE (``BFO:0000050``) or an IRI is expanded; a standard name is looked up in
    :data:`RELATION_IRIS`; any other name becomes
    ``http://purl.obolibrary.org/obo/{ontology}#{name}`` (``ontology`` is the header's
    ``ontology:`` value, e.g. ``uberon/basic``), percent-encoded where an IRI needs it.

    >>> relation_iri("part_of", ontology="so", curies=CurieMap())
    'http://purl.obolibrary.org/obo/BFO_0000050'
    >>> relation_iri("has_origin", ontology="so", curies=CurieMap())
    'http://purl.obolibrary.org/obo/so#has_origin'
    """
    if curies.is_curie(name) or name.startswith(("http://", "https://")):
        return curies.expand(name)
    known = RELATION_IRIS.get(name)
    if known is not None:
        return known
    return f"{OBO.NS}{quote(ontology, safe='/')}#{quote(name, safe=':')}"


def ontology_nquads(
    items: Iterable[OboHeader | Term | Typedef],
    *,
    graph: str,
    curies: CurieMap,
    ontology: str | None = None,
    source: str | None = None,
    relations: str | None = None,
) -> Iterator[str]:
    """N-Quads lines (no trailing newline) for an OBO header, terms and typedefs, in ``graph``.

    ``relations`` names the derived graph of direct edges written in the same pass
    (``is_a``, ``relationship`` and ``intersection_of`` targets as class-to-class triples,
    see the module docstring); None writes the OWL graph only.
    ``ontology`` names the ontology for relation IRIs when the header has no
    ``ontology:`` tag; if neither is available when a plain relation name needs it,
    :class:`ConfigError` is raised. ``source`` (the file) only serves in messages.
    A term whose id is not a CURIE or IRI is skipped with a :class:`DataWarning` naming
    ``source`` and the stanza's line; so is a single bad target of ``is_a``,
    ``relationship``, ``replaced_by`` or ``consider`` (only that triple is dropped); an
    axiom with a bad target (``intersection_of``, ``union_of``) is dropped whole.
    Raises ValueError if ``graph`` is not an absolute IRI.
    """
    g = iri(check_iri(graph))
    where = source or "<input>"
    names: dict[str, str] = {}  # relation name -> IRI, per call
    header: list[str | None] = [None, None]  # ontology, default-namespace

    def rel(name: str) -> str:
        hit = names.get(name)
        if hit is None:
            onto = header[0] or ontology
            if onto is None and not (curies.is_curie(name) or name in RELATION_IRIS or "://" in name):
                raise ConfigError(f"{where}: no ontology name to build an IRI for relation {name!r}; pass ontology=")
            hit = names[name] = check_iri(relation_iri(name, ontology=onto or "", curies=curies))
        return hit

    ctx = AxiomContext(g, iri(check_iri(relations)) if relations else None, curies, rel, where, BlankNodes(graph))
    for item in items:
        if isinstance(item, OboHeader):
            header[:] = [item.ontology, item.default_namespace]
            yield quad(g, _TYPE, iri(OWL.Ontology), g)
            if item.data_version:
                yield quad(g, iri(OWL.versionInfo), literal(item.data_version), g)
            if ctx.r is not None:
                yield quad(g, iri(CRAFT.relationsGraph), ctx.r, g)
                yield quad(ctx.r, _TYPE, iri(CRAFT.RelationsGraph), ctx.r)
                yield quad(ctx.r, iri(CRAFT.derivedFrom), g, ctx.r)
        elif isinstance(item, Term):
            yield from _term(item, ctx, header[1])
        elif isinstance(item, Typedef):
            yield from _typedef(item, ctx)
        else:
            raise TypeError(f"expected OboHeader, Term or Typedef, got {type(item).__name__}")
    yield from closing_axioms(ctx)


def _term(term: Term, ctx: AxiomContext, default_namespace: str | None) -> Iterator[str]:
    """The quads of one class (nothing, and a DataWarning, if its id is unusable)."""
    g, curies, where = ctx.g, ctx.curies, ctx.where
    try:
        s = class_iri(term.id, curies, where, term.line)
    except InputError as exc:
        warnings.warn(f"{exc}; [Term] stanza skipped", DataWarning, stacklevel=3)
        return
    yield quad(s, _TYPE, _CLASS, g)
    yield quad(s, _ID, literal(term.id), g)
    if term.name:
        yield quad(s, _LABEL, literal(term.name), g)
        ctx.note_label(term.id, term.name)
    if term.definition:
        yield quad(s, _DEFINITION, literal(term.definition), g)
    if term.comment:
        yield quad(s, _COMMENT, literal(term.comment), g)
    namespace = term.namespace or default_namespace
    if namespace:
        yield quad(s, _NAMESPACE, literal(namespace), g)
    for syn in term.synonyms:
        yield quad(s, _SYNONYM_PREDICATES[syn.scope], literal(syn.text), g)
    yield from class_axioms(term, s, ctx)
    for predicate, values in ((_ALT_ID, term.alt_ids), (_XREF, term.xrefs), (_SUBSET, term.subsets)):
        for value in values:
            yield quad(s, predicate, literal(value), g)
    if term.obsolete:
        yield quad(s, _DEPRECATED, _TRUE, g)
    for o in targets(term.replaced_by, curies, where, term.line):
        yield quad(s, _REPLACED_BY, o, g)
    for o in targets(term.consider, curies, where, term.line):
        yield quad(s, _CONSIDER, o, g)
    if is_extension_curie(term.id):
        yield quad(s, _TYPE, _EXTENSION, g)
        if term.definition:
            yield quad(s, _LOGICAL_DEFINITION, literal(term.definition), g)
            ctx.definitions.append((term.id, s, term.definition, term.line))


def _typedef(typedef: Typedef, ctx: AxiomContext) -> Iterator[str]:
    """The quads of one relation at :func:`relation_iri` of its id.

    An ``owl:ObjectProperty`` (``owl:AnnotationProperty`` for ``is_metadata_tag``), with
    its characteristics, ``owl:inverseOf``, ``rdfs:domain`` and ``rdfs:range``.
    """
    g = ctx.g
    p = iri(ctx.rel(typedef.id))
    ctx.declared_properties.add(p)
    yield quad(p, _TYPE, iri(OWL.AnnotationProperty) if typedef.metadata else _OBJECT_PROPERTY, g)
    yield quad(p, _ID, literal(typedef.id), g)
    if typedef.name:
        yield quad(p, _LABEL, literal(typedef.name), g)
    if typedef.transitive:
        yield quad(p, _TYPE, _TRANSITIVE, g)
    if typedef.symmetric:
        yield quad(p, _TYPE, iri(OWL.SymmetricProperty), g)
    if typedef.obsolete:
        yield quad(p, _DEPRECATED, _TRUE, g)
    for parent in typedef.is_a:
        yield quad(p, _SUBPROPERTY, iri(ctx.rel(parent)), g)
    if typedef.inverse_of:
        yield quad(p, iri(OWL.inverseOf), iri(ctx.rel(typedef.inverse_of)), g)
    for predicate, value in ((RDFS.domain, typedef.domain), (RDFS.range, typedef.range)):
        for o in targets((value,) if value else (), ctx.curies, ctx.where, typedef.line):
            yield quad(p, iri(predicate), o, g)
    for xref in typedef.xrefs:
        yield quad(p, _XREF, literal(xref), g)
    _check_table(typedef, ctx.curies, ctx.where)


def _check_table(typedef: Typedef, curies: CurieMap, where: str) -> None:
    """Warn when a Typedef's RO/BFO xref contradicts :data:`RELATION_IRIS` for its id."""
    known = RELATION_IRIS.get(typedef.id)
    said = [x for x in typedef.xrefs if x.startswith(("RO:", "BFO:")) and curies.is_curie(x)]
    if known is not None and said and known not in (curies.expand(x) for x in said):
        warnings.warn(
            f"{where}, line {typedef.line}: relation {typedef.id!r} has xref {said[0]} but is written as <{known}>",
            DataWarning,
            stacklevel=4,
        )
