"""Annotation sets (and ontology graphs) as the store describes them: a key a user typed, resolved once.

Every set graph describes itself (``<set> craft:key "UBERON_EXT" ; craft:module "UBERON" ;
craft:variant "extensions" ; craft:ontology <graph> ; craft:mappings <graph>``, written by
:func:`craftrdf.querying.webanno.set_nquads`). Commands resolve the key they are given once, with
:func:`resolve_set`, and pass the :class:`SetRef` down, so the spelling rules and the error a
user sees for an unknown set live here and nowhere else. :func:`resolve_ontology` does the
same for an ontology graph's name (``--ontology UBERON+extensions``).
"""

from __future__ import annotations

import fnmatch
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import pyoxigraph as ox

from ..core.errors import ConfigError
from ..core.iris import ontology_graph, ontology_name
from ..core.vocab import CRAFT
from ..store.local import ReadableStore

_FIELDS = {CRAFT.module: "module", CRAFT.variant: "variant", CRAFT.ontology: "ontology", CRAFT.mappings: "mappings"}


@dataclass(frozen=True, slots=True)
class SetRef:
    """An annotation set in the store: its key as stored, its graph, and what its description names.

    ``ontology`` and ``mappings`` are graph IRIs (None when the set names none); ``module``
    and ``variant`` (``proper`` or ``extensions``) come from the CRAFT registry at build time,
    or from ``craftrdf load --module``.
    """

    key: str
    graph: str
    module: str | None = None
    variant: str | None = None
    ontology: str | None = None
    mappings: str | None = None

    @property
    def extensions(self) -> bool:
        """True for a set annotated with extension classes (variant ``extensions``, or a key ending ``_EXT``)."""
        if self.variant is not None:
            return self.variant == "extensions"
        return self.key.upper().endswith("_EXT")

    def require_ontology(self) -> str:
        """The ontology graph IRI; ConfigError saying how to get one when the set names none."""
        if self.ontology is None:
            raise ConfigError(
                f"set {self.key!r} has no ontology in this store (craft:ontology): build it with its ontology "
                "file, or give the dictionary directly"
            )
        return self.ontology


def _describe(store: ReadableStore, graph: str, key: str) -> SetRef:
    g = ox.NamedNode(graph)
    values: dict[str, str] = {}
    for q in store.quads_for_pattern(g, None, None, g):
        name = _FIELDS.get(q.predicate.value)
        if name is not None and isinstance(q.object, (ox.NamedNode, ox.Literal)):
            values.setdefault(name, q.object.value)
    return SetRef(key, graph, **values)


def _keys(store: ReadableStore) -> list[tuple[str, str]]:
    """(key, graph) of every set graph: a named graph that names itself with ``craft:key``."""
    out = []
    for q in store.quads_for_pattern(None, ox.NamedNode(CRAFT.key), None, None):
        g = q.graph_name
        if isinstance(g, ox.NamedNode) and q.subject == g and isinstance(q.object, ox.Literal):
            out.append((q.object.value, g.value))
    return sorted(out)


def list_sets(store: ReadableStore) -> list[SetRef]:
    """Every annotation set of the store, sorted by key."""
    return [_describe(store, graph, key) for key, graph in _keys(store)]


def resolve_set(store: ReadableStore, key: str) -> SetRef:
    """The set whose key is ``key``: an exact match, else the one match ignoring case.

    Raises :class:`~craftrdf.core.errors.ConfigError` (a ``ValueError``) naming the known keys
    when no set matches, or when several match only ignoring case.

    >>> from craftrdf.store.local import AnnotationStore
    >>> resolve_set(AnnotationStore.memory(), "UBERON_EXT")
    Traceback (most recent call last):
    ...
    craftrdf.core.errors.ConfigError: no annotation set 'UBERON_EXT' in the store; sets: none
    """
    keys = _keys(store)
    exact = [(k, g) for k, g in keys if k == key]
    folded = exact or [(k, g) for k, g in keys if k.casefold() == key.casefold()]
    if len(folded) == 1:
        return _describe(store, folded[0][1], folded[0][0])
    if folded:
        raise ConfigError(
            f"annotation set key {key!r} is ambiguous: {', '.join(k for k, _ in folded)}; give it exactly"
        )
    known = ", ".join(sorted({k for k, _ in keys})) or "none"
    raise ConfigError(f"no annotation set {key!r} in the store; sets: {known}")


def resolve_sets(store: ReadableStore, patterns: Iterable[str]) -> tuple[str, ...]:
    """Store set keys for user patterns: exact keys (any case) or ``*`` wildcards (``*_EXT``), in pattern order.

    ConfigError names a pattern that matches nothing.
    """
    keys = sorted({k for k, _ in _keys(store)})
    chosen: list[str] = []
    for pattern in patterns:
        hits = [k for k in keys if fnmatch.fnmatchcase(k.lower(), pattern.lower())]
        if not hits:
            raise ConfigError(f"no annotation set in the store matches {pattern!r}; sets: {', '.join(keys)}")
        chosen.extend(h for h in hits if h not in chosen)
    return tuple(chosen)


def set_graphs(store: ReadableStore, keys: Sequence[str]) -> list[str]:
    """The graph IRIs of the sets ``keys`` (exact store keys, as :func:`resolve_sets` gives them).

    ConfigError names the keys the store has no set of.
    """
    known = dict(_keys(store))
    missing = [k for k in keys if k not in known]
    if missing:
        raise ConfigError(f"no annotation set {', '.join(missing)} in the store; sets: {', '.join(sorted(known))}")
    return [known[k] for k in keys]


def ontology_names(store: ReadableStore) -> list[str]:
    """The names of the store's ontology graphs (``UBERON+extensions``, ...), sorted."""
    names = []
    for graph in store.batches():
        try:
            names.append(ontology_name(graph))
        except ConfigError:  # a set, documents, mappings or derived graph
            continue
    return sorted(names)


def resolve_ontology(store: ReadableStore, name: str) -> str:
    """The graph IRI of the store's ontology graph ``name`` (exactly as loaded: ``UBERON+extensions``).

    Raises :class:`~craftrdf.core.errors.ConfigError` listing the ontology graphs the store has
    when it has no graph of that name.

    >>> from craftrdf.store.local import AnnotationStore
    >>> resolve_ontology(AnnotationStore.memory(), "UBERON")
    Traceback (most recent call last):
    ...
    craftrdf.core.errors.ConfigError: no ontology graph 'UBERON' in the store; ontology graphs: none
    """
    graph = ontology_graph(name)
    if store.contains_named_graph(graph):
        return graph
    known = ", ".join(ontology_names(store)) or "none"
    raise ConfigError(f"no ontology graph {name!r} in the store; ontology graphs: {known}")
