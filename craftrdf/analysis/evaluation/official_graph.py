"""The class graph and the Wang similarity of the official CRAFT Shared Task scorer.

The official scorer (ccp-nlp ``BossyMetric``, driven by craft-shared-tasks
``CraftConceptEvaluationUtil``) loads the set's OBO file with the OWL API and walks it
with owltools' ``OWLGraphWrapper``. This module rebuilds the same graph in Python, either
from the OBO file (:func:`read_official_graph`) or from the OWL axioms of an ontology
graph in the store (:func:`store_official_graph`), and computes the same similarity in
exact decimal arithmetic (:class:`OfficialWang`). ``docs/evaluation.md`` cites the source
file of every rule.

- **Classes** are IRIs, as the OWL API makes them from OBO ids (``UBERON:0000955`` ->
  ``http://purl.obolibrary.org/obo/UBERON_0000955``; a local id holding ``_`` gets ``#_``:
  ``UBERON_EXT:bone_element`` -> ``.../UBERON_EXT#_bone_element``). Only ``[Term]``
  stanzas are declared classes; an annotation's class is found by the scorer's three
  tries (the id as an IRI, the OBO PURL, the PURL with ``_EXT#_``), else it is unknown.
- **Edges** are owltools' subClassOf edges to a named class: ``is_a``; the named classes of
  an ``intersection_of`` (the genus: ``A EquivalentTo G and R some X`` gives ``A -> G``);
  ``equivalent_to`` both ways; every member of a ``union_of`` gets the union class as a
  parent. ``relationship:`` and the differentiae carry a property and are not followed;
  ``owl:Thing`` and ``http://www.ifomis.org/bfo`` targets are dropped.
- **S-values** are a breadth-first walk from the class: an ancestor at ``d`` steps has
  ``0.65**d`` (the shortest path; every edge weighs the same). The similarity is
  ``sum over common ancestors of (S_a + S_b) / (sum S_a + sum S_b)``, rounded half-up to
  10 decimals, as ``BigDecimal.divide(x, 10, ROUND_HALF_UP)`` does.
"""

from __future__ import annotations

import logging
import warnings
from collections import deque
from collections.abc import Callable, Container, Iterable, Mapping
from dataclasses import dataclass, field
from decimal import Decimal
from fractions import Fraction
from pathlib import Path
from typing import TYPE_CHECKING

from ...core.classexpr import And, Expr, Or
from ...core.errors import ConfigError, DataWarning, InputError
from ...core.iris import ontology_graph
from ...ontology.cache import DEFAULT_CACHE
from ...ontology.model import OntologyModel, read_obo_model

if TYPE_CHECKING:
    from ...core.registry import Registry
    from ...store.local import ReadableStore

logger = logging.getLogger(__name__)

#: Bossy et al. 2013's distance weight, ``BigDecimal.valueOf(0.65)`` in ``BossyMetric``.
BOSSY_WEIGHT = Fraction(13, 20)
OBO_PURL = "http://purl.obolibrary.org/obo/"
_THING = "http://www.w3.org/2002/07/owl#Thing"
_BFO_IFOMIS = "http://www.ifomis.org/bfo"
_IRI_SCHEMES = ("http:", "https:", "ftp:", "urn:")
_URL_SAFE = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-*_")
_ONTOLOGY_GRAPHS = "https://w3id.org/craftrdf/ontology/"


def round_half_up(value: Fraction, places: int = 10) -> Decimal:
    """``value`` rounded half away from zero to ``places`` decimals (``BigDecimal`` HALF_UP).

    >>> round_half_up(Fraction(2, 3)), round_half_up(Fraction(1, 8), 2), round_half_up(Fraction(-1, 8), 2)
    (Decimal('0.6666666667'), Decimal('0.13'), Decimal('-0.13'))
    """
    # floor(|n/d| * 10**places + 1/2) in integers: the same digits as Fraction arithmetic, several times faster
    n, d = abs(value.numerator), value.denominator
    whole = (2 * n * 10**places + d) // (2 * d)
    return Decimal(-whole if value < 0 else whole).scaleb(-places)


def _url_encode(text: str) -> str:
    """``java.net.URLEncoder.encode(text, "US-ASCII")``: a non-ASCII character becomes ``%3F``."""
    out = []
    for ch in text:
        if ch in _URL_SAFE:
            out.append(ch)
        elif ch == " ":
            out.append("+")
        elif ord(ch) < 128:
            out.append(f"%{ord(ch):02X}")
        else:
            out.append("%3F")
    return "".join(out)


def obo_iri(obo_id: str, *, default_space: str | None = None) -> str | None:
    """The IRI the OWL API's OBO parser gives an OBO id (``Obo2Owl.oboIdToIRI``); None for an id with a space.

    >>> obo_iri("UBERON:0000955")
    'http://purl.obolibrary.org/obo/UBERON_0000955'
    >>> obo_iri("UBERON_EXT:bone_element_or_tissue")
    'http://purl.obolibrary.org/obo/UBERON_EXT#_bone_element_or_tissue'
    >>> obo_iri("part_of", default_space="uberon")
    'http://purl.obolibrary.org/obo/uberon#part_of'
    """
    if " " in obo_id:
        return None
    if obo_id.startswith(_IRI_SCHEMES):
        return obo_id
    prefix, sep, local = obo_id.partition(":")
    if sep:
        space = prefix + ("#_" if "_" in local else "_")
    else:
        space, local = f"{default_space or ''}#", obo_id
    return OBO_PURL + space + _url_encode(local)


def _lookup_tries(class_id: str) -> tuple[str, ...]:
    """The IRIs ``BossyMetric.getOWLClass`` tries for an annotation's class, in order."""
    tries = [class_id]
    local = class_id.replace(":", "_")
    tries.append(OBO_PURL + local)
    if "_EXT" in local:
        tries.append(OBO_PURL + local.replace("_EXT_", "_EXT#_"))
    return tuple(tries)


@dataclass(frozen=True, slots=True)
class OfficialGraph:
    """The official scorer's class graph: declared class IRIs and named parents by IRI.

    ``parents`` maps a class IRI to the IRIs of its subClassOf targets; a target need not
    be declared (it is then a leaf). ``source`` says where the graph came from.
    """

    declared: frozenset[str]
    parents: Mapping[str, tuple[str, ...]]
    source: str = ""

    def lookup(self, class_id: str) -> str | None:
        """The declared class IRI an annotation's class id names, or None (the scorer drops it).

        >>> g = OfficialGraph(frozenset({"http://purl.obolibrary.org/obo/UBERON_EXT#_bone"}), {})
        >>> g.lookup("UBERON_EXT:bone")
        'http://purl.obolibrary.org/obo/UBERON_EXT#_bone'
        >>> g.lookup("UBERON:0000955") is None
        True
        """
        for iri in _lookup_tries(class_id):
            if iri in self.declared:
                return iri
        return None

    def __contains__(self, class_id: object) -> bool:
        return isinstance(class_id, str) and self.lookup(class_id) is not None


def _edges_to_graph(declared: Iterable[str], edges: Iterable[tuple[str, str]], source: str) -> OfficialGraph:
    parents: dict[str, list[str]] = {}
    for child, parent in edges:
        if parent in (_THING, child) or parent.startswith(_BFO_IFOMIS):
            continue
        row = parents.setdefault(child, [])
        if parent not in row:
            row.append(parent)
    return OfficialGraph(frozenset(declared), {c: tuple(p) for c, p in parents.items()}, source)


# -- from an OBO file ----------------------------------------------------------------------


def read_official_graph(path: str | Path) -> OfficialGraph:
    """The official scorer's graph of one OBO file (plain, ``.gz`` or ``.zip``).

    The projection (:func:`official_graph`) of the file's ontology model, read by ingest's OBO
    reader (:func:`craftrdf.ontology.model.read_obo_model`). InputError when the file has no ``[Term]``.
    """
    path = Path(path)
    with warnings.catch_warnings():
        # the file is read as the official scorer reads it; what it holds that craftrdf's reader
        # reports (skipped stanzas, odd values) is the build's to say, not each evaluation's
        warnings.simplefilter("ignore", DataWarning)
        model = read_obo_model(path, names=False)
    if not model.classes:
        raise InputError("no [Term] stanza: not an OBO ontology", source=str(path))
    graph = official_graph(model, str(path))
    logger.info("%s: official graph of %d classes", path.name, len(graph.declared))
    return graph


def official_graph(model: OntologyModel, source: str) -> OfficialGraph:
    """The official scorer's graph as a projection of an ontology model read from an OBO file.

    Classes and targets get the OWL API's IRIs (:func:`obo_iri`, the header's ``ontology:`` as
    the default space). Edges (see the module docstring): ``is_a`` (the named told superclasses),
    the named parts of an ``intersection_of``, ``equivalent_to`` both ways, and every member of a
    ``union_of`` to the union class; restrictions are not followed.
    """
    cm, space = model.curies, model.obo_ontology
    seen: dict[str, str | None] = {}

    def owl_api(value: str) -> str | None:
        hit = seen.get(value, "")
        if hit == "":
            hit = seen[value] = obo_iri(cm.compress(value) if "://" in value else value, default_space=space)
        return hit

    declared = {i for i in map(owl_api, model.classes) if i is not None}
    return _edges_to_graph(declared, _named_edges(model.classes, model.subclass_of, model.equivalents, owl_api), source)


def _named_edges(
    classes: Iterable[str],
    subclass_of: Mapping[str, tuple[Expr, ...]],
    equivalents: Mapping[str, tuple[Expr, ...]],
    iri: Callable[[str], str | None],
    derived: Container[str] = (),
) -> list[tuple[str, str]]:
    """The scorer's edges ``(child, parent)`` from told axioms, classes and leaves mapped by ``iri``.

    ``is_a`` (a named superclass), the named parts of an intersection the class is equivalent to
    (or a subclass of), ``equivalent_to`` both ways, and every member of a union to the union
    class; restrictions are not followed. The equivalents of ``derived`` classes (those ingest
    wrote from an extension class's def: text) and the intersections they are subclasses of are
    left out: the official scorer reads that text as a definition, not an axiom.
    """
    edges: list[tuple[str, str]] = []
    for c in sorted(classes):
        child = iri(c)
        if child is None:
            continue
        told = c not in derived
        for e in subclass_of.get(c, ()):
            if isinstance(e, str) and (target := iri(e)) is not None:
                edges.append((child, target))
            elif isinstance(e, And) and told:
                edges += [(child, t) for t in (iri(i) for i in e.items if isinstance(i, str)) if t is not None]
        for e in equivalents.get(c, ()) if told else ():
            if isinstance(e, str) and (target := iri(e)) is not None:
                edges += [(child, target), (target, child)]
            elif isinstance(e, And):
                edges += [(child, t) for t in (iri(i) for i in e.items if isinstance(i, str)) if t is not None]
            elif isinstance(e, Or):
                edges += [(m, child) for m in (iri(i) for i in e.items if isinstance(i, str)) if m is not None]
    return edges


# -- from the store ---------------------------------------------------------------------------


def store_official_graph(store: ReadableStore, ontology: str | None) -> OfficialGraph:
    """The official scorer's graph read from the OWL axioms of ``/ontology/<ontology>`` in the store.

    ``ontology`` None reads every ontology graph of the store, merged. The projection of each
    graph's told axioms, the ontology model's (:func:`craftrdf.ontology.store_model.told_axioms`,
    read once per store and graph): classes are the graph's ``owl:Class`` IRIs, edges as
    :func:`official_graph`'s, class IRIs as the store has them, the equivalents ingest wrote from
    an extension class's definition left out. A store whose ontology graph holds only is_a triples
    gives the is_a graph. ConfigError when the store has no such ontology graph.
    """
    # the store model loads here, not with the module: the scorer itself (an OBO file's graph,
    # the pair scores) needs neither pyoxigraph nor the query library
    from ...ontology.store_model import told_axioms

    graph = ontology_graph(ontology) if ontology is not None else "every ontology graph"
    names = [graph] if ontology is not None else sorted(g for g in store.batches() if g.startswith(_ONTOLOGY_GRAPHS))
    declared: set[str] = set()
    edges: list[tuple[str, str]] = []
    for name in names:
        told = told_axioms(store, name)
        declared |= told.classes
        edges += _named_edges(told.classes, told.subclass_of, told.equivalents, _same, told.derived)
    if not declared:
        raise ConfigError(f"the store has no classes in ontology graph {graph}")
    return _edges_to_graph(declared, edges, f"store graph {graph}")


def _same(iri: str) -> str:
    return iri


def store_wang(store: ReadableStore, ontology: str) -> OfficialWang:
    """The official scorer's Wang similarity over the ontology graph ``ontology`` (an IRI) of the store.

    The graph is read once per store and ontology (kept in the similarity cache, dropped when the
    store's batches change): a sweep and the training of one set, in one process, share it.
    """
    from urllib.parse import unquote

    prefix = ontology_graph("")
    name = unquote(ontology[len(prefix) :]) if ontology.startswith(prefix) else ontology
    entries = DEFAULT_CACHE.entries(store)
    graph = entries.get(("official-graph", name))
    if not isinstance(graph, OfficialGraph):
        graph = entries[("official-graph", name)] = store_official_graph(store, name)
    return OfficialWang(graph)


# -- the similarity ---------------------------------------------------------------------------


@dataclass(slots=True)
class OfficialWang:
    """``BossyMetric``'s Wang similarity over an :class:`OfficialGraph`, exact, with caches.

    >>> g = OfficialGraph(frozenset({"a", "b", "r"}), {"a": ("r",), "b": ("r",)})
    >>> OfficialWang(g).similarity("a", "b")  # (0.65 + 0.65) / (1.65 + 1.65)
    Decimal('0.3939393939')
    """

    graph: OfficialGraph
    weight: Fraction = BOSSY_WEIGHT
    _svalues: dict[str, dict[str, Fraction]] = field(default_factory=dict)
    _pairs: dict[tuple[str, str], Decimal] = field(default_factory=dict)

    def svalues(self, iri: str) -> dict[str, Fraction]:
        """S-value of each ancestor (the class itself 1) by breadth-first distance."""
        hit = self._svalues.get(iri)
        if hit is not None:
            return hit
        distance = {iri: 0}
        queue = deque([iri])
        while queue:
            node = queue.popleft()
            for parent in self.graph.parents.get(node, ()):
                if parent not in distance:
                    distance[parent] = distance[node] + 1
                    queue.append(parent)
        out = {node: self.weight**d for node, d in distance.items()}
        self._svalues[iri] = out
        return out

    def similarity(self, a: str, b: str) -> Decimal:
        """Wang similarity of two class IRIs (or ids the graph can look up), to 10 decimals."""
        key = (a, b)
        hit = self._pairs.get(key)
        if hit is not None:
            return hit
        ia, ib = self.graph.lookup(a) or a, self.graph.lookup(b) or b
        sa, sb = self.svalues(ia), self.svalues(ib)
        common = sum((sa[t] + sb[t] for t in sa.keys() & sb.keys()), Fraction(0))
        value = round_half_up(common / (sum(sa.values()) + sum(sb.values())))
        self._pairs[key] = value
        return value


def set_scorers(
    store: ReadableStore | None, craft: str | Path | None, registry: Registry
) -> Callable[[str], OfficialWang]:
    """For a set key, the :class:`OfficialWang` of that set's ontology, built once per ontology.

    As the official scorer, from the set's OBO file in the CRAFT directory ``craft`` when it is
    there; otherwise from the OWL axioms of the store's graph of that ontology
    (:func:`store_official_graph`; the is_a graph on a store built before ontologies kept
    their logical axioms). ConfigError for a set key ``registry`` does not know, or one with
    neither source.
    """
    built: dict[str, OfficialWang] = {}

    def scorer(key: str) -> OfficialWang:
        spec = registry.set(key)
        name = spec.ontology_name
        if spec.ontology is None or name is None:
            raise ConfigError(f"set {key}: the registry names no ontology file for it")
        hit = built.get(name)
        if hit is not None:
            return hit
        path = registry.locate_ontology(Path(craft), spec.ontology) if craft is not None else None
        if path is not None:
            graph = read_official_graph(path)
        elif store is not None:
            logger.info("set %s: no %s in a CRAFT directory; reading the store's graph", key, spec.ontology)
            graph = store_official_graph(store, name)
        else:
            raise ConfigError(f"set {key}: ontology file {spec.ontology} not found and no store given")
        built[name] = OfficialWang(graph)
        return built[name]

    return scorer


def official_related(wang: OfficialWang) -> Callable[[str, str], bool]:
    """The hierarchy test of the NER criteria over the official graph: equal, ancestor or descendant."""

    def related(ref: str, pred: str) -> bool:
        a, b = wang.graph.lookup(ref), wang.graph.lookup(pred)
        if a is None or b is None:
            return ref == pred
        return a == b or b in wang.svalues(a) or a in wang.svalues(b)

    return related
