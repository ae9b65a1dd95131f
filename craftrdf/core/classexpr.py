"""The one class-expression tree: what a logical definition, an OWL axiom and an OBO logical tag say.

A leaf is a class: a ``str`` is a resolved class IRI (what the OWL reader gives), a :class:`Named`
an unresolved reference as a definition's text writes it (``UBERON:'bone element'``; the
definition parser's leaves, resolved against the ontology's ids and labels when written as OWL).
Nodes are :class:`And` (``owl:intersectionOf``), :class:`Or` (``owl:unionOf``), :class:`Not`
(``owl:complementOf``) and :class:`Restriction` (``chain quantifier [count] filler``; a chain of
several properties comes only from a definition's ``p o q``, OWL gives one property IRI).

Used by the definition parser (:mod:`craftrdf.ingest.logicaldef`), the OWL writer
(:mod:`craftrdf.ingest.owl`) and reader (:mod:`craftrdf.ontology.owlread`), the structural
reasoner, extension placement and the OBO export.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Named:
    """A class reference: ``prefix`` (None for a bare quoted label) and the id or label after it."""

    prefix: str | None
    name: str
    quoted: bool = False

    def __str__(self) -> str:
        text = f"'{self.name}'" if self.quoted else self.name
        return f"{self.prefix}:{text}" if self.prefix else text


@dataclass(frozen=True, slots=True)
class Or:
    """A union (``owl:unionOf``)."""

    items: tuple[Expr, ...]


@dataclass(frozen=True, slots=True)
class And:
    """An intersection (``owl:intersectionOf``)."""

    items: tuple[Expr, ...]


@dataclass(frozen=True, slots=True)
class Not:
    """A complement (``owl:complementOf``)."""

    item: Expr


@dataclass(frozen=True, slots=True)
class Restriction:
    """``chain quantifier [count] filler``, e.g. ``derives_from o proper_part_of some X``.

    ``quantifier`` is ``some``, ``only``, ``value``, ``exactly``, ``min`` or ``max``; ``count`` is
    set for the last three. The chain holds relation names as a definition writes them, or one
    property IRI as OWL holds it.
    """

    chain: tuple[str, ...]
    quantifier: str
    filler: Expr
    count: int | None = None

    @property
    def prop(self) -> str:
        """The (first) property: for a restriction read from OWL, its only one."""
        return self.chain[0]


#: A class expression: a class IRI, an unresolved reference, or one of the nodes above.
Expr = str | Named | Or | And | Not | Restriction
