"""CRAFT extension classes placed in the hierarchy by their logical definitions.

As shipped, CRAFT's extension classes (``UBERON_EXT:bone_element_or_tissue``, ...) have no
parents, so every similarity involving one is close to 0. Their OBO ``def:`` holds a
logical definition in a Manchester-like syntax, kept by craftrdf as
``craft:logicalDefinition``::

    UBERON:'bone element' or UBERON:'bone tissue'
    CL:cell or GO:cell
    CHEBI:aspartate(1-) or CHEBI:'aspartate residue' or CHEBI_SO_EXT:aspartic_acid
    CL:cell and ((proper_part_of some UBERON:liver) or (derives_from o proper_part_of some UBERON:liver))

:func:`parse_definition` reads that syntax (class references as ``PREFIX:'quoted label'``,
``PREFIX:unquoted_label``, ``PREFIX:id`` or a bare ``'label'``; ``or``, ``and``, ``not``,
parentheses; restrictions ``prop some|only|value X``, ``prop exactly|min|max N X`` with
property chains ``p o q``). :func:`place_extensions` places every extension class whose
definition is a union of named classes and that has no parent yet:

- every member becomes an is_a child of the extension class;
- the extension class becomes an is_a child of each *most specific* common is_a
  ancestor of its members (the members themselves excluded). Every other common
  ancestor is then an ancestor too, so the class is a subclass of each common
  ancestor, as ``A or B`` entails, without redundant edges that would inflate its
  S-values. Only is_a is used: ``A or B`` is a subclass of X exactly when A and B are.

A member is resolved as a class id first, then as an ``rdfs:label`` among the classes
whose CURIE prefix is the reference's (case-insensitively, so ``NCBITAXON:`` finds
``NCBITaxon:`` classes), exactly, then ignoring case, then reading ``_`` as a space. A
reference with a parallel prefix (``SO_EXT:deletion``, also ``CHEBI_EXT``, ``GO_EXT``,
``PR_EXT``) that names no extension class is looked up under the base prefix
(``SO:``): it names the parallel class of that class, which similarity treats as the
base class itself.
Members may be extension classes themselves; those are placed first. Nothing is placed
for a definition that does not parse, is not a union of named classes (intersections,
restrictions), or has a member that cannot be resolved; :class:`ExtensionReport` says
which and why.

Placing a class gives its members a new parent, so with ``--classify-extensions`` their
own S-values (and their similarities to other terms) can change slightly.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Literal, Protocol

from ..core.curie import is_extension_curie
from ..core.vocab import RDFS
from ..ingest.logicaldef import (
    DefinitionSyntaxError,
    LabelIndex,
    parse_definition,
    resolve_reference,
    union_members,
)
from .model import OntologyModel

# -- placement ----------------------------------------------------------------------------

ProblemKind = Literal["syntax", "not-union", "unresolved", "cycle"]


@dataclass(frozen=True, slots=True)
class Placement:
    """An extension class placed: its members (now its children) and its new parents."""

    cls: str
    members: tuple[str, ...]
    parents: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Problem:
    """An extension class left where it was, and why."""

    cls: str
    definition: str
    kind: ProblemKind
    reason: str


@dataclass(frozen=True, slots=True)
class ExtensionReport:
    """What :func:`place_extensions` did.

    ``placed``: classes placed; ``problems``: classes not placed (kind ``syntax``: the
    definition does not parse; ``not-union``: it parses but is not a union of named
    classes; ``unresolved``: a member names no class of the graph; ``cycle``: members
    defined through each other); ``already_placed``: extension classes with a
    definition that already had a parent, left alone.
    """

    placed: tuple[Placement, ...] = ()
    problems: tuple[Problem, ...] = ()
    already_placed: tuple[str, ...] = field(default=())

    def edges(self) -> list[tuple[str, str]]:
        """The is_a edges ``(child, parent)`` the placements add."""
        out: list[tuple[str, str]] = []
        for p in self.placed:
            out.extend((m, p.cls) for m in p.members)
            out.extend((p.cls, a) for a in p.parents)
        return out

    def unparsable(self) -> tuple[Problem, ...]:
        """The problems of kind ``syntax``."""
        return tuple(p for p in self.problems if p.kind == "syntax")


def _ancestors(term: str, parents: Mapping[str, Iterable[str]]) -> set[str]:
    """Strict is_a ancestors of ``term``."""
    seen: set[str] = set()
    stack = list(parents.get(term, ()))
    while stack:
        t = stack.pop()
        if t not in seen:
            seen.add(t)
            stack.extend(parents.get(t, ()))
    return seen


def _members(
    cls: str, text: str, class_set: frozenset[str], label_index: LabelIndex, by_upper: Mapping[str, str]
) -> tuple[str, ...] | Problem:
    """The members of a union-defined class, resolved to CURIEs; a Problem saying why not."""
    try:
        expr = parse_definition(text)
    except DefinitionSyntaxError as exc:
        return Problem(cls, text, "syntax", exc.message)
    refs = union_members(expr)
    if refs is None:
        return Problem(cls, text, "not-union", "not a union of named classes")
    members: list[str] = []
    why: list[str] = []
    for ref in refs:
        curie, reason = resolve_reference(ref, class_set, label_index, by_upper)
        if curie is None:
            why.append(reason)
        elif curie != cls:
            members.append(curie)
    if why or not members:
        return Problem(cls, text, "unresolved", "; ".join(why) or "no member other than itself")
    return tuple(dict.fromkeys(members))


def place_union_classes(
    definitions: Mapping[str, str],
    *,
    classes: Iterable[str],
    is_a: Iterable[tuple[str, str]],
    labels: Mapping[str, str],
) -> ExtensionReport:
    """Place union-defined extension classes, given the graph as plain data.

    ``definitions`` maps extension-class CURIEs to logical definitions; ``is_a`` lists
    ``(child, parent)`` edges; ``labels`` maps CURIEs to labels. Classes that already
    have an is_a parent are left alone. See the module docstring for the rules.

    >>> r = place_union_classes({"X_EXT:ab": "X:a or X:'the b'"}, classes=["X:a", "X:b", "X:r"],
    ...                         is_a=[("X:a", "X:r"), ("X:b", "X:r")], labels={"X:b": "the b"})
    >>> r.placed
    (Placement(cls='X_EXT:ab', members=('X:a', 'X:b'), parents=('X:r',)),)
    """
    class_set = frozenset(classes) | frozenset(definitions)
    parents: dict[str, set[str]] = {}
    for child, parent in is_a:
        parents.setdefault(child, set()).add(parent)
    label_index = LabelIndex(labels)
    by_upper = {c.upper(): c for c in class_set}
    problems: list[Problem] = []
    already = tuple(sorted(c for c in definitions if parents.get(c)))
    todo: dict[str, tuple[str, ...]] = {}
    for cls in sorted(definitions):
        if parents.get(cls):
            continue
        found = _members(cls, definitions[cls], class_set, label_index, by_upper)
        if isinstance(found, Problem):
            problems.append(found)
        else:
            todo[cls] = found
    # Place in dependency order: a member that is itself waiting is placed first.
    placed: list[Placement] = []
    state: dict[str, str] = {}

    def place(cls: str, trail: tuple[str, ...]) -> bool:
        if state.get(cls) == "done":
            return True
        if cls in trail:
            return False
        for m in todo[cls]:
            if m in todo and not place(m, (*trail, cls)):
                return False
        members = todo[cls]
        common = set.intersection(*({m} | _ancestors(m, parents) for m in members)) - set(members) - {cls}
        below = set().union(*(_ancestors(c, parents) for c in common)) if common else set()
        new_parents = tuple(sorted(common - below))
        # Only the class's own parents join the graph placement reads; the member -> class
        # edges do not, so the order of placement cannot change any result.
        parents[cls] = set(new_parents)
        placed.append(Placement(cls, members, new_parents))
        state[cls] = "done"
        return True

    for cls in todo:
        if not place(cls, ()):
            state[cls] = "cycle"
            problems.append(
                Problem(cls, definitions[cls], "cycle", "its members' definitions depend on each other in a cycle")
            )
    return ExtensionReport(tuple(placed), tuple(sorted(problems, key=lambda p: p.cls)), already)


class _TermGraph(Protocol):
    """The shape of similarity's ``TermGraph``: the model's fields, logical definitions as ``definitions``."""

    @property
    def classes(self) -> frozenset[str]: ...
    @property
    def edges(self) -> frozenset[tuple[str, str, str]]: ...
    @property
    def labels(self) -> Mapping[str, str]: ...
    @property
    def definitions(self) -> Mapping[str, str]: ...


def place_extensions(graph: OntologyModel | _TermGraph) -> ExtensionReport:
    """Place the union-defined extension classes of an ontology model (or similarity's ``TermGraph`` of it).

    Candidates are the extension classes (prefix ending in ``_EXT``) that have a logical
    definition; is_a edges are the graph's ``rdfs:subClassOf`` triples.
    """
    logical = graph.logical_definitions if isinstance(graph, OntologyModel) else graph.definitions
    definitions = {c: d for c, d in logical.items() if is_extension_curie(c)}
    is_a = [(c, p) for c, rel, p in graph.edges if rel == RDFS.subClassOf]
    return place_union_classes(definitions, classes=graph.classes, is_a=is_a, labels=graph.labels)
