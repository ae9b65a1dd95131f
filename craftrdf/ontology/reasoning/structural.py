"""A told-subsumption reasoner over an ontology's OWL axioms, in pure Python.

It is sound for the axioms it reads (named superclasses, ``R some X`` superclasses,
``owl:equivalentClass`` to a named class, an intersection or a union) and deliberately
incomplete: no negation, no ``only``/cardinality reasoning, no property hierarchy. Four
rules, applied until nothing changes:

1. *union members*: ``C ≡ A or B`` gives ``A ⊑ C`` and ``B ⊑ C``;
2. *definitions upward*: ``C ≡ E`` gives ``C ⊑ X`` for every named X that E is told to be
   under (``A and B``: the supers of A and of B; ``A or B``: the supers A and B share);
3. *domains*: ``C ⊑ R some X`` and ``R rdfs:domain D`` give ``C ⊑ D``;
4. *recognition*: ``D ⊑ C`` when ``C ≡ E`` and D's told superclasses and restrictions
   (inherited, with transitive properties followed) satisfy every conjunct of E; a union
   is satisfied by D when D satisfies a member, or D is itself a union whose members
   all satisfy it.

:func:`classify` returns the subsumptions between named classes that the told ``is_a``
hierarchy (with intersection genus edges) does not already entail, as direct edges.

The named-superclass closure is computed for all classes at once over strongly connected
components (:func:`ancestor_closure`): rule 1 makes a union and its members' ancestors
cyclic, and a per-class recursion that caches a cycle guard's partial answer gave a union
class no ancestors when a member was asked first (CL+extensions' neural crest cell, 18
of UBERON+extensions' extension placements).
"""

from __future__ import annotations

import logging
from collections import defaultdict

from ...core.classexpr import And, Expr, Or, Restriction
from ...core.vocab import OWL
from ...ingest.cycles import strongly_connected_components
from ..owlread import OntologyAxioms

logger = logging.getLogger(__name__)

Edge = tuple[str, str]


class StructuralReasoner:
    """The told axioms of one ontology, indexed for the three rules (see the module docstring)."""

    def __init__(self, onto: OntologyAxioms) -> None:
        self.told: dict[str, list[Expr]] = defaultdict(list)  # C ⊑ each expression
        self.definitions: dict[str, list[Expr]] = defaultdict(list)  # C ≡ each (non-named) expression
        self.equivalent_names: dict[str, set[str]] = defaultdict(set)  # C ≡ each named class
        for c in onto.classes.values():
            self.told[c.iri].extend(c.parents)
            for e in c.equivalents:
                self.told[c.iri].append(e)
                if isinstance(e, str):
                    self.equivalent_names[c.iri].add(e)
                else:
                    self.definitions[c.iri].append(e)
        self.transitive = {p.iri for p in onto.properties.values() if OWL.TransitiveProperty in p.types}
        self.domains = {p.iri: p.domain for p in onto.properties.values() if p.domain}
        self.extra: dict[str, set[str]] = defaultdict(set)  # inferred named parents
        self._reset()

    def _reset(self) -> None:
        self._anc: dict[str, frozenset[str]] | None = None
        self._rest: dict[str, tuple[Restriction, ...]] = {}

    # -- told closure ------------------------------------------------------------------

    def ancestors(self, c: str) -> frozenset[str]:
        """Every named class ``c`` is told (or already inferred) to be under, ``c`` excluded."""
        if self._anc is None:
            self._anc = ancestor_closure(self._named_parents())
        return self._anc.get(c, frozenset())

    def _named_parents(self) -> dict[str, set[str]]:
        """Each class's named superclasses read off its axioms without the closure.

        Named parents, an intersection's named conjuncts, the domains of a ``some``
        restriction's property, both sides of a named equivalence, and the inferred
        parents so far. A union's shared superclasses need the closure of its members:
        rule 2 adds them to the inferred parents, round by round.
        """
        parents: dict[str, set[str]] = defaultdict(set)
        for c, told in self.told.items():
            for e in told:
                parents[c] |= self._direct(e)
            parents[c] |= self.extra.get(c, set())
        for c, defs in self.equivalent_names.items():
            for d in defs:
                parents[d].add(c)
        return parents

    def _direct(self, e: Expr) -> set[str]:
        if isinstance(e, str):
            return {e}
        if isinstance(e, And):
            return set().union(*(self._direct(i) for i in e.items))
        if isinstance(e, Restriction) and e.quantifier == "some":
            return set(self.domains.get(e.prop, ()))
        return set()

    def supers(self, e: Expr) -> set[str]:
        """The named classes an expression is told to be under (itself included when named)."""
        if isinstance(e, str):
            return {e} | self.ancestors(e)
        if isinstance(e, And):
            return set().union(*(self.supers(i) for i in e.items))
        if isinstance(e, Or) and e.items:
            return set.intersection(*(self.supers(i) for i in e.items))
        if isinstance(e, Restriction) and e.quantifier == "some":
            # rdfs:domain D of R: whatever is R some X is a D
            return set().union(*({d} | self.ancestors(d) for d in self.domains.get(e.prop, ())))
        return set()

    def restrictions(self, c: str) -> tuple[Restriction, ...]:
        """The ``some`` restrictions ``c`` has, its own and inherited."""
        hit = self._rest.get(c)
        if hit is not None:
            return hit
        self._rest[c] = ()
        found: dict[Restriction, None] = {}
        for e in [*self.told.get(c, ()), *self.extra.get(c, ())]:
            for r in _conjunct_restrictions(e):
                found[r] = None
        for a in self.ancestors(c):
            for e in self.told.get(a, ()):
                for r in _conjunct_restrictions(e):
                    found[r] = None
        self._rest[c] = tuple(found)
        return self._rest[c]

    # -- satisfaction ------------------------------------------------------------------

    def satisfies(self, d: str, e: Expr, depth: int = 0) -> bool:
        """True when the told axioms entail ``d ⊑ e`` by the rules above."""
        if depth > 12:
            return False
        if isinstance(e, str):
            return e == d or e in self.ancestors(d)
        if isinstance(e, And):
            return all(self.satisfies(d, i, depth + 1) for i in e.items)
        if isinstance(e, Or):
            if any(self.satisfies(d, i, depth + 1) for i in e.items):
                return True
            return any(self.below(u, e, depth + 1) for u in self.definitions.get(d, ()))
        if isinstance(e, Restriction) and e.quantifier == "some":
            return any(
                r.prop == e.prop and self.below(r.filler, e.filler, depth + 1, e.prop) for r in self.restrictions(d)
            )
        return False

    def below(self, f: Expr, x: Expr, depth: int, prop: str | None = None) -> bool:
        """``f ⊑ x`` for two expressions (a filler under a filler, a union member under a union)."""
        if f == x:
            return True
        if depth > 12:
            return False
        if isinstance(f, str):
            if self.satisfies(f, x, depth):
                return True
            # R transitive: f R some y and y ⊑ R some x... gives f ⊑ R some x (followed once more)
            return (
                prop in self.transitive
                and depth < 8
                and any(
                    r.prop == prop and self.below(r.filler, x, depth + 1, prop)
                    for r in self.restrictions(f)
                    if r.quantifier == "some"
                )
            )
        if isinstance(f, Or):
            return all(self.below(i, x, depth + 1, prop) for i in f.items)
        if isinstance(x, And):
            return all(self.below(f, i, depth + 1, prop) for i in x.items)
        if isinstance(x, Or) and any(self.below(f, i, depth + 1, prop) for i in x.items):
            return True
        if isinstance(f, And):
            return any(self.below(i, x, depth + 1, prop) for i in f.items)
        if isinstance(f, Restriction) and isinstance(x, Restriction):
            same = f.prop == x.prop and f.quantifier == x.quantifier == "some"
            return same and self.below(f.filler, x.filler, depth + 1, f.prop)
        return False

    # -- the rules ---------------------------------------------------------------------

    def _round(self, children: dict[str, set[str]]) -> set[Edge]:
        new: set[Edge] = set()
        index: dict[tuple[str, str], set[str]] = defaultdict(set)  # (P, X) -> classes with P some X
        for c, told in self.told.items():
            for e in told:
                for r in _conjunct_restrictions(e):
                    if isinstance(r.filler, str):
                        index[(r.prop, r.filler)].add(c)
        # a class defined with a union anywhere in its definition may fall under a union
        unions = {d for d, defs in self.definitions.items() if any(_has_union(x) for x in defs)}
        below: dict[str, set[str]] = {}
        for c, told in self.told.items():  # rule 2 for a union among the told superclasses
            for e in told:
                if not isinstance(e, str) and _has_union(e):
                    new |= {(c, x) for x in self.supers(e) if x != c and x not in self.ancestors(c)}
        for c, defs in self.definitions.items():
            for e in defs:
                if isinstance(e, Or):  # rule 1
                    new |= {(m, c) for m in e.items if isinstance(m, str) and c not in self.ancestors(m)}
                new |= {(c, x) for x in self.supers(e) if x != c and x not in self.ancestors(c)}  # rule 2
                if isinstance(e, Or):
                    members = (m for m in e.items if not isinstance(m, str))
                    candidates = unions.union(*(self._candidates(m, children, index, below) for m in members))
                else:
                    candidates = self._candidates(e, children, index, below)
                for d in candidates:  # rule 3
                    if d != c and c not in self.ancestors(d) and self.satisfies(d, e):
                        new.add((d, c))
        return new

    def _candidates(
        self,
        e: Expr,
        children: dict[str, set[str]],
        index: dict[tuple[str, str], set[str]],
        below: dict[str, set[str]],
    ) -> set[str]:
        """Classes that may fall under a definition: those with a restriction it needs, else
        those below its first named conjunct, else every defined class."""
        items = e.items if isinstance(e, And) else (e,)
        found: list[set[str]] = []
        for i in items:
            if isinstance(i, Restriction) and i.quantifier == "some" and isinstance(i.filler, str):
                fillers = {i.filler} | _descendants(i.filler, children, below)
                holders = set().union(*(index.get((i.prop, f), set()) for f in fillers))
                found.append(holders.union(*(_descendants(h, children, below) for h in holders)))
        if found:
            return set.intersection(*found)
        named = [i for i in items if isinstance(i, str)]
        if named:
            return _descendants(named[0], children, below)
        return set(self.definitions)

    def run(self, max_rounds: int = 50) -> set[Edge]:
        """Apply the rules until nothing new follows; the inferred ``(child, parent)`` pairs."""
        inferred: set[Edge] = set()
        for _ in range(max_rounds):
            children: dict[str, set[str]] = defaultdict(set)
            for c in self.told:
                for a in self.ancestors(c):
                    children[a].add(c)
            new = self._round(children) - inferred
            if not new:
                break
            inferred |= new
            for d, c in new:
                self.extra[d].add(c)
            self._reset()
        return inferred


def ancestor_closure(parents: dict[str, set[str]]) -> dict[str, frozenset[str]]:
    """Every node's ancestors in a directed graph that may have cycles (equivalent classes).

    Tarjan's strongly connected components, iteratively: a component is finished after
    every component above it, so its ancestors are its parents' ancestors plus, for a
    cycle, its own members.
    """
    out: dict[str, frozenset[str]] = {}
    for members in strongly_connected_components(parents):
        _finish(members, parents, out)
    return out


def _finish(members: list[str], parents: dict[str, set[str]], out: dict[str, frozenset[str]]) -> None:
    """The ancestors of one strongly connected component, its parents' being known."""
    group = set(members)
    found: set[str] = set(group) if len(members) > 1 else set()
    for m in members:
        for p in parents.get(m, ()):
            if p not in group:
                found.add(p)
                found |= out[p]
            elif p == m:
                found.add(p)
    for m in members:
        out[m] = frozenset(found - {m})


def _conjunct_restrictions(e: Expr) -> list[Restriction]:
    if isinstance(e, Restriction) and e.quantifier == "some":
        return [e]
    if isinstance(e, And):
        return [r for i in e.items for r in _conjunct_restrictions(i)]
    return []


def _has_union(e: Expr) -> bool:
    if isinstance(e, Or):
        return True
    return isinstance(e, And) and any(_has_union(i) for i in e.items)


def _descendants(c: str, children: dict[str, set[str]], memo: dict[str, set[str]]) -> set[str]:
    """Every class under ``c`` (``children`` maps a class to all classes below it already)."""
    hit = memo.get(c)
    if hit is None:
        hit = memo[c] = set(children.get(c, ()))
    return hit


def classify_structural(onto: OntologyAxioms) -> set[Edge]:
    """The subsumptions ``(child IRI, parent IRI)`` of ``onto`` its relations graph lacks, as direct edges.

    The relations graph has the named ``is_a`` parents and, for classes other than CRAFT's
    extension classes, the genus of their intersections; every named class the
    reasoner puts a class under beyond that is new. Only direct edges are kept (one
    not implied by another new or told edge); between equivalent classes only the edge
    a told named ``equivalent_to`` states (one direction), so Wang similarity's graph
    stays a DAG without redundant edges.
    """
    reasoner = StructuralReasoner(onto)
    reasoner.run()
    reasoner._reset()
    base = _BaseHierarchy(onto)
    told = reasoner.equivalent_names
    direct: set[Edge] = set()
    for c in onto.classes:
        above = reasoner.ancestors(c)
        same = {b for b in above if c in reasoner.ancestors(b)}
        # of two classes told equivalent, the edge the axiom states (one, if both state it)
        kept = {a for a in same & told.get(c, set()) if not (c in told.get(a, set()) and a < c)}
        blockers = (above - same) | kept
        for a in above - base.ancestors(c):
            if a in same:
                if a in kept:
                    direct.add((c, a))
                continue
            if not any(a in reasoner.ancestors(b) and b not in reasoner.ancestors(a) for b in blockers if b != a):
                direct.add((c, a))
    logger.info("structural: %d direct inferred subsumptions", len(direct))
    return direct


class _BaseHierarchy:
    """The ancestors the relations graph gives: named is_a and non-extension intersection genus."""

    def __init__(self, onto: OntologyAxioms) -> None:
        self.parents: dict[str, set[str]] = {}
        for c in onto.classes.values():
            ps = {p for p in c.parents if isinstance(p, str)}
            if not c.extension:
                for e in c.equivalents:
                    if isinstance(e, And):
                        ps |= {i for i in e.items if isinstance(i, str)}
            self.parents[c.iri] = ps
        self._memo: dict[str, frozenset[str]] = {}

    def ancestors(self, c: str) -> frozenset[str]:
        hit = self._memo.get(c)
        if hit is None:
            self._memo[c] = frozenset()
            out: set[str] = set()
            for p in self.parents.get(c, ()):
                out.add(p)
                out |= self.ancestors(p)
            hit = self._memo[c] = frozenset(out - {c})
        return hit
