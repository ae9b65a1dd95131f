"""A term's logical axioms as OWL, and its direct edges for the derived relations graph.

:func:`class_axioms` writes ``is_a``, ``relationship``, ``intersection_of``, ``union_of``,
``disjoint_from`` and ``equivalent_to`` of one stanza per the OBO 1.4 -> OWL mapping
(see :mod:`craftrdf.ingest.owl`) into the ontology graph and, when a relations graph is
named, the direct edges into it:

- ``is_a: X`` -> ``C rdfs:subClassOf X``;
- ``relationship: R X`` -> ``C R X``;
- ``intersection_of: G`` -> ``C rdfs:subClassOf G`` (the genus), and
  ``intersection_of: R X`` -> ``C R X`` (``C ≡ G and R some X`` entails both).

``union_of`` and ``disjoint_from`` give no direct edge of C (a union's members are its
subclasses: that is for a reasoner, ``craftrdf classify``). :func:`extension_axioms`
writes CRAFT extension classes' Manchester-like definitions as ``owl:equivalentClass``
once the whole file is read (their labels can come after them).
"""

from __future__ import annotations

import logging
import warnings
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field

from ..core.classexpr import And, Named, Or
from ..core.curie import CurieMap
from ..core.errors import DataWarning, InputError
from ..core.model import Term
from ..core.rdf import check_iri, iri, literal, mint, quad
from ..core.vocab import BASE, CRAFT, OBO, OWL, RDF, RDFS
from .logicaldef import DefinitionSyntaxError, LabelIndex, parse_definition, resolve_reference
from .owl import EQUIVALENT, SUBCLASS, BlankNodes, NotExpressible, boolean, class_expression, some

logger = logging.getLogger(__name__)

_DISJOINT = iri(OWL.disjointWith)
_TYPE = iri(RDF.type)


@dataclass(slots=True)
class AxiomContext:
    """What one pass over an OBO file shares: graphs, resolvers, blank nodes, labels seen.

    ``definitions`` collects ``(curie, <IRI>, text, line)`` of extension classes, written
    by :func:`extension_axioms` at the end; ``dropped`` says which were not, and why.
    """

    g: str
    r: str | None
    curies: CurieMap
    rel: Callable[[str], str]
    where: str
    nodes: BlankNodes
    labels: dict[str, str] = field(default_factory=dict)
    definitions: list[tuple[str, str, str, int]] = field(default_factory=list)
    dropped: list[tuple[str, str]] = field(default_factory=list)
    used_properties: set[str] = field(default_factory=set)
    declared_properties: set[str] = field(default_factory=set)

    def note_label(self, curie: str, label: str) -> None:
        """Remember a class's label, to resolve references of extension definitions."""
        self.labels.setdefault(curie, label)


def class_iri(value: str, curies: CurieMap, where: str, line: int) -> str:
    """``<IRI>`` of a class id; InputError (naming file and line) if it is neither CURIE nor IRI."""
    try:
        return iri(check_iri(curies.expand(value, source=where)))
    except InputError as exc:
        raise InputError(exc.message, source=where, line=line) from None
    except ValueError as exc:
        raise InputError(str(exc), source=where, line=line) from None


def targets(values: Iterable[str], curies: CurieMap, where: str, line: int, *, depth: int = 4) -> Iterator[str]:
    """``<IRI>`` for each target id; a bad one is warned about and left out.

    ``depth`` is the warning's stacklevel: the generators between this one and the caller
    of :func:`~craftrdf.ingest.ontology.ontology_nquads`, plus one.
    """
    for value in values:
        try:
            yield class_iri(value, curies, where, line)
        except InputError as exc:
            warnings.warn(f"{exc}; that triple skipped", DataWarning, stacklevel=depth)


def class_axioms(term: Term, s: str, ctx: AxiomContext) -> Iterator[str]:
    """The OWL quads of one stanza's logical tags, and its direct edges in the relations graph."""
    g, r = ctx.g, ctx.r
    out: list[str] = []
    for o in targets(term.is_a, ctx.curies, ctx.where, term.line, depth=5):
        yield quad(s, SUBCLASS, o, g)
        if r is not None:
            yield quad(s, SUBCLASS, o, r)
    for name, target in term.relationships:
        for o in targets((target,), ctx.curies, ctx.where, term.line, depth=5):
            p = iri(ctx.rel(name))
            ctx.used_properties.add(p)
            out.clear()
            yield quad(s, SUBCLASS, some(p, o, g, ctx.nodes, out), g)
            yield from out
            if r is not None:
                yield quad(s, p, o, r)
    if term.intersection_of:
        yield from _intersection(term, s, ctx)
    if term.union_of:
        members = _all_targets(term.union_of, term, "union_of", ctx)
        if members:
            out.clear()
            yield quad(s, EQUIVALENT, members[0] if len(members) == 1 else boolean(Or, members, g, ctx.nodes, out), g)
            yield from out
    for o in targets(term.disjoint_from, ctx.curies, ctx.where, term.line, depth=5):
        yield quad(s, _DISJOINT, o, g)
    for o in targets(term.equivalent_to, ctx.curies, ctx.where, term.line, depth=5):
        yield quad(s, EQUIVALENT, o, g)


def _all_targets(values: Iterable[str], term: Term, tag: str, ctx: AxiomContext, depth: int = 5) -> list[str] | None:
    """``<IRI>`` of every target, or None (and one DataWarning) when one is unusable."""
    try:
        return [class_iri(v, ctx.curies, ctx.where, term.line) for v in values]
    except InputError as exc:
        warnings.warn(f"{exc}; the {tag} axiom of {term.id} skipped", DataWarning, stacklevel=depth)
        return None


def _intersection(term: Term, s: str, ctx: AxiomContext) -> Iterator[str]:
    """``C owl:equivalentClass [owl:intersectionOf (genus, R some X, ...)]`` and the direct edges."""
    g, r = ctx.g, ctx.r
    out: list[str] = []
    resolved = _all_targets((t for _, t in term.intersection_of), term, "intersection_of", ctx, 6)
    if not resolved:
        return
    parts: list[str] = []
    for (name, _), o in zip(term.intersection_of, resolved, strict=True):
        if name is None:
            parts.append(o)
            if r is not None:
                yield quad(s, SUBCLASS, o, r)
        else:
            p = iri(ctx.rel(name))
            ctx.used_properties.add(p)
            parts.append(some(p, o, g, ctx.nodes, out))
            if r is not None:
                yield quad(s, p, o, r)
    yield quad(s, EQUIVALENT, parts[0] if len(parts) == 1 else boolean(And, parts, g, ctx.nodes, out), g)
    yield from out


def external_key(ref: Named) -> tuple[str, str]:
    """The identity of a reference to a class the file does not declare: prefix and folded label."""
    return ((ref.prefix or "").upper(), ref.name.replace("_", " ").casefold())


def external_class(ref: Named) -> str:
    """The IRI craftrdf mints for a class outside the file that a definition names by label.

    ``NCBITaxon:'Homo sapiens'`` and ``NCBITAXON:homo_sapiens`` are one class
    (``https://w3id.org/craftrdf/ref/NCBITAXON/homo%20sapiens``), so a reasoner sees that two
    definitions name the same thing; a reference by id (``GO:0005634``) is the OBO PURL.

    >>> external_class(Named("NCBITAXON", "Homo_sapiens"))
    'https://w3id.org/craftrdf/ref/NCBITAXON/homo%20sapiens'
    >>> external_class(Named("GO", "0005634"))
    'http://purl.obolibrary.org/obo/GO_0005634'
    """
    prefix, label = external_key(ref)
    if not ref.quoted and ref.name.isdigit():
        return f"{OBO.NS}{ref.prefix}_{ref.name}"
    return mint(BASE, "ref", prefix, label)


def closing_axioms(ctx: AxiomContext) -> Iterator[str]:
    """What can only be written once the whole file is read: extension classes' definitions,
    then an ``owl:ObjectProperty`` declaration for every relation used in a restriction
    that no ``[Typedef]`` declared (OWL tools read an undeclared one as an annotation)."""
    yield from extension_axioms(ctx)
    for p in sorted(ctx.used_properties - ctx.declared_properties):
        yield quad(p, _TYPE, iri(OWL.ObjectProperty), ctx.g)


def extension_axioms(ctx: AxiomContext) -> Iterator[str]:
    """``owl:equivalentClass`` axioms for the extension classes' logical definitions seen.

    A reference to a class the file does not declare becomes :func:`external_class`
    (typed ``craft:ExternalReference``, with the label written). A definition that does
    not parse, has an ambiguous or unprefixed reference, or uses a property chain or
    ``value`` is left as text only (``craft:logicalDefinition``); those are logged and
    kept in ``ctx.dropped``.
    """
    if not ctx.definitions:
        return
    index = LabelIndex(ctx.labels)
    classes = set(ctx.labels)
    by_upper = {c.upper(): c for c in classes}

    external: dict[tuple[str, str], str] = {}

    def cls(ref: Named) -> str:
        curie, why = resolve_reference(ref, classes, index, by_upper)
        if curie is not None:
            return iri(ctx.curies.expand(curie))
        if ref.prefix is None or "ambiguous" in why:
            raise NotExpressible(why)
        return external.setdefault(external_key(ref), iri(external_class(ref)))

    def prop(name: str) -> str:
        p = iri(ctx.rel(name))
        ctx.used_properties.add(p)
        return p

    for curie, s, text, line in ctx.definitions:
        out: list[str] = []
        try:
            target = class_expression(parse_definition(text), ctx.g, ctx.nodes, out, cls=cls, prop=prop)
        except (DefinitionSyntaxError, NotExpressible, InputError) as exc:
            reason = exc.message if isinstance(exc, InputError) else str(exc)
            ctx.dropped.append((curie, reason))
            logger.debug("%s, line %d: definition of %s kept as text only: %s", ctx.where, line, curie, reason)
            continue
        yield from out
        yield quad(s, EQUIVALENT, target, ctx.g)
    for ref_iri, label in sorted({v: k[1] for k, v in external.items()}.items()):
        yield quad(ref_iri, _TYPE, iri(OWL.Class), ctx.g)
        yield quad(ref_iri, _TYPE, iri(CRAFT.ExternalReference), ctx.g)
        yield quad(ref_iri, iri(RDFS.label), literal(label), ctx.g)
    if ctx.dropped:
        logger.info(
            "%s: %d of %d extension definitions kept as text only (not OWL)",
            ctx.where,
            len(ctx.dropped),
            len(ctx.definitions),
        )
