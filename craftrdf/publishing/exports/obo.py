"""An ontology graph of the store written as an OBO 1.4 flat file that pronto and fastobo read.

Escaping follows the OBO 1.4 specification (oboformat.org, "OBO flat file format 1.4",
section 2.1 and the grammar of QuotedString and identifiers): inside a quoted string
``\\`` and ``"`` are escaped and a newline is ``\\n``; in an identifier or xref, whitespace
and the characters that end or open a token (``\\ " ! { } [ ] ,``) are escaped with a
backslash. An xref that is an IRI (``http://...``) is written as the IRI itself, with the
characters an IRI cannot hold percent-encoded (a space as ``%20``), so a
CRAFT xref such as ``http://en.wikipedia.org/wiki/File\\:Gray793.png`` (a ``\\:`` the
IRI grammar does not allow) comes out as ``http://en.wikipedia.org/wiki/File:Gray793.png``.

Every ``def:`` gets an xref list, empty when the store has none (the reader does not keep
def xrefs; CRAFT's extension classes have none, which is what pronto and fastobo reject).
A class's logical definition is written as ``intersection_of`` lines when it is a
named genus and ``R some X`` differentiae with named fillers, as ``union_of`` lines when it
is a union of named classes; anything else (``(manus or pes) and part_of some Mammalia``,
classes outside the file) cannot be said in OBO 1.4 and is listed in a header ``remark``
and in :attr:`OboWriteReport.unwritten` (the OWL export has it).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TextIO, TypeGuard

from ...core.classexpr import And, Expr, Or, Restriction
from ...core.curie import CurieMap
from ...core.vocab import CRAFT, IAO, OBO, OBOINOWL, OWL, RDFS
from ...ontology.owlread import ClassAxioms, OntologyAxioms

_ID_SPECIAL = re.compile(r'([\\"!{}\[\],])')
_WS = {" ": "\\ ", "\t": "\\t", "\n": "\\n", "\r": "\\r"}
_URL = re.compile(r"^https?://")
# characters an xref IRI cannot hold as is (RFC 3987), or that OBO reads as syntax
_URL_UNSAFE = re.compile(r'[\s"!{}\[\]\\<>^`|]')


@dataclass(frozen=True, slots=True)
class OboWriteReport:
    """What :func:`write_obo` wrote: terms, typedefs, and ``(class id, reason)`` it could not write."""

    terms: int
    typedefs: int
    unwritten: tuple[tuple[str, str], ...]


def escape_quoted(text: str) -> str:
    """A QuotedString's content: ``\\`` and ``"`` escaped, newlines as ``\\n``.

    >>> escape_quoted('say "hi"\\\\ now\\nthen')
    'say \\\\"hi\\\\"\\\\\\\\ now\\\\nthen'
    """
    return text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n").replace("\r", "\\r")


def escape_id(value: str) -> str:
    """An identifier or xref as OBO 1.4 writes it: an IRI as is, else specials and spaces escaped.

    >>> escape_id("isbn 0080923437")
    'isbn\\\\ 0080923437'
    >>> escape_id("http://en.wikipedia.org/wiki/File:Gray793.png")
    'http://en.wikipedia.org/wiki/File:Gray793.png'
    """
    if _URL.match(value):
        return _URL_UNSAFE.sub(lambda m: "".join(f"%{b:02X}" for b in m.group().encode()), value)
    value = _ID_SPECIAL.sub(r"\\\1", value)
    return "".join(_WS.get(c, c) for c in value)


class _Names:
    """OBO ids of classes and relations."""

    def __init__(self, onto: OntologyAxioms, curies: CurieMap) -> None:
        self.curies = curies
        self.classes = {c.iri: c.id or curies.compress(c.iri) for c in onto.classes.values()}
        self.props: dict[str, str] = {}
        for p in onto.properties.values():
            self.props[p.iri] = p.id or self._fallback(p.iri)
        self.external = {c.iri for c in onto.classes.values() if CRAFT.ExternalReference in c.types}

    def _fallback(self, iri: str) -> str:
        """A relation without a Typedef id: the name after ``#``, or its CURIE (``BFO:0000051``)."""
        return iri.rsplit("#", 1)[1] if "#" in iri else self.curies.compress(iri)

    def cls(self, iri: str) -> str:
        hit = self.classes.get(iri)
        return hit if hit is not None else self.curies.compress(iri)

    def prop(self, iri: str) -> str:
        hit = self.props.get(iri)
        if hit is None:
            hit = self.props[iri] = self._fallback(iri)
        return hit

    def named(self, e: Expr) -> TypeGuard[str]:
        """True for a class IRI of the file (not an external reference)."""
        return isinstance(e, str) and e not in self.external


def _some(e: Expr, names: _Names) -> tuple[str, str] | None:
    """``(relation id, target id)`` of ``R some X`` with a named X."""
    if isinstance(e, Restriction) and e.quantifier == "some" and names.named(e.filler):
        return names.prop(e.prop), names.cls(e.filler)
    return None


def _intersection_parts(e: And, names: _Names) -> list[str] | None:
    """``intersection_of`` values (a named genus, ``R X`` differentiae), or None if OBO cannot say it."""
    parts: list[str] = []
    for item in e.items:
        if isinstance(item, str) and names.named(item):
            parts.append(escape_id(names.cls(item)))
        elif (some := _some(item, names)) is not None:
            parts.append(f"{escape_id(some[0])} {escape_id(some[1])}")
        else:
            return None
    return parts


def _logical_lines(cls: ClassAxioms, names: _Names) -> tuple[list[str], list[str]]:
    """OBO lines for the class's equivalence axioms, and the reasons for those not writable."""
    lines: list[str] = []
    problems: list[str] = []
    used = {"intersection_of": False, "union_of": False}
    for e in cls.equivalents:
        if names.named(e):
            lines.append(f"equivalent_to: {escape_id(names.cls(e))}")
            continue
        if isinstance(e, And) and not used["intersection_of"]:
            parts = _intersection_parts(e, names)
            if parts is not None:
                used["intersection_of"] = True
                lines.extend(f"intersection_of: {p}" for p in parts)
                continue
        members = [i for i in e.items if names.named(i)] if isinstance(e, Or) else []
        if isinstance(e, Or) and not used["union_of"] and len(members) == len(e.items):
            used["union_of"] = True
            lines.extend(f"union_of: {escape_id(names.cls(i))}" for i in members)
            continue
        problems.append("a nested expression or a class outside the file (OBO 1.4 has no tag for it)")
    return lines, problems


def _term(cls: ClassAxioms, names: _Names) -> tuple[list[str], list[str]]:
    v = cls.values
    out = ["[Term]", f"id: {escape_id(names.cls(cls.iri))}"]
    if cls.label:
        out.append(f"name: {_unquoted(cls.label)}")
    out += [f"namespace: {_unquoted(x)}" for x in v.get(OBOINOWL.hasOBONamespace, ())[:1]]
    out += [f"alt_id: {escape_id(x)}" for x in v.get(OBOINOWL.hasAlternativeId, ())]
    defs = v.get(CRAFT.logicalDefinition, ()) or v.get(OBO.definition, ())
    out += [f'def: "{escape_quoted(d)}" []' for d in defs[:1]]
    out += [f"comment: {_unquoted(c)}" for c in v.get(RDFS.comment, ())[:1]]
    out += [f"subset: {escape_id(s)}" for s in v.get(OBOINOWL.inSubset, ())]
    out += [f'synonym: "{escape_quoted(t)}" {scope} []' for scope, t in cls.synonyms]
    out += [f"xref: {escape_id(x)}" for x in v.get(OBOINOWL.hasDbXref, ())]
    out += [f"is_a: {escape_id(names.cls(p))}" for p in cls.parents if names.named(p)]
    logical, problems = _logical_lines(cls, names)
    out += logical
    out += [f"disjoint_from: {escape_id(names.cls(d))}" for d in cls.disjoint]
    out += [
        f"relationship: {escape_id(r)} {escape_id(t)}" for r, t in filter(None, (_some(p, names) for p in cls.parents))
    ]
    if "true" in v.get(OWL.deprecated, ()):
        out.append("is_obsolete: true")
    out += [f"replaced_by: {escape_id(names.cls(x))}" for x in v.get(IAO.replaced_by, ())]
    out += [f"consider: {escape_id(names.cls(x))}" for x in v.get(OBOINOWL.consider, ())]
    return out, problems


def _unquoted(text: str) -> str:
    """An UnquotedString value: one line, ``!`` and ``{`` escaped so they are not a comment or modifiers."""
    return escape_quoted(text).replace("!", "\\!").replace("{", "\\{")


def _typedefs(onto: OntologyAxioms, names: _Names) -> Iterator[list[str]]:
    for iri in sorted(names.props, key=names.props.__getitem__):
        p = onto.properties.get(iri)
        out = ["[Typedef]", f"id: {escape_id(names.props[iri])}"]
        if p is None:
            yield out
            continue
        if p.label:
            out.append(f"name: {_unquoted(p.label)}")
        out += [f"domain: {escape_id(names.cls(d))}" for d in p.domain[:1]]
        out += [f"range: {escape_id(names.cls(r))}" for r in p.range[:1]]
        out += [f"xref: {escape_id(x)}" for x in p.xrefs]
        out += [f"is_a: {escape_id(names.prop(x))}" for x in p.parents]
        out += [f"inverse_of: {escape_id(names.prop(x))}" for x in p.inverse[:1]]
        flags = (
            (OWL.TransitiveProperty, "is_transitive"),
            (OWL.SymmetricProperty, "is_symmetric"),
            (OWL.AnnotationProperty, "is_metadata_tag"),
        )
        out += [f"{tag}: true" for t, tag in flags if t in p.types]
        yield out


def write_obo(onto: OntologyAxioms, out: TextIO, *, name: str, curies: CurieMap) -> OboWriteReport:
    """Write ``onto`` as OBO 1.4 to ``out``; the report lists the definitions OBO cannot hold.

    ``name`` is the header's ``ontology:`` value. Classes typed ``craft:ExternalReference``
    (named only by extension definitions) are not written as terms.
    """
    names = _Names(onto, curies)
    stanzas: list[list[str]] = []
    unwritten: list[tuple[str, str]] = []
    classes = sorted((c for c in onto.classes.values() if c.iri not in names.external), key=lambda c: names.cls(c.iri))
    for cls in classes:
        lines, problems = _term(cls, names)
        stanzas.append(lines)
        unwritten.extend((names.cls(cls.iri), p) for p in problems)
    typedefs = list(_typedefs(onto, names))  # after the terms: they register the relations they use
    header = ["format-version: 1.4"]
    if onto.version:
        header.append(f"data-version: {_unquoted(onto.version)}")
    header.append(f"ontology: {escape_id(name)}")
    if unwritten:
        header.append(
            f"remark: craftrdf export: {len(unwritten)} logical definition(s) OBO 1.4 cannot express are in "
            "the OWL export only: " + _unquoted(", ".join(c for c, _ in unwritten))
        )
    out.write("\n".join(header) + "\n")
    for stanza in [*stanzas, *typedefs]:
        out.write("\n" + "\n".join(stanza) + "\n")
    return OboWriteReport(len(stanzas), len(typedefs), tuple(unwritten))
