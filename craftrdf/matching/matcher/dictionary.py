"""The matcher's dictionary: class names read from the store, normalized, cached on disk.

Two levels:

1. **Terms** (:class:`DictionaryTerm`): every name of every class of a set's ontology
   with its scope (``LABEL``, ``EXACT``, ``BROAD``, ``NARROW``, ``RELATED``), made from the
   ontology graph's names (:func:`~craftrdf.ontology.store_model.ontology_names`, the read the
   ontology model's synonyms share) and filtered as the module registry says:
   obsolete classes out, class-id prefixes outside ``keep_prefixes`` out
   (extension classes, whose prefixes end in ``_EXT``, always in), classes outside the
   module's OBO ``namespace`` out (extension classes exempt), and every class under an
   ``exclude_subtrees`` root out (query ``matcher-subtree``). Terms depend on the store's
   content only.
2. **A dictionary** (:class:`Dictionary`): the names the synonym policy keeps
   (``EXACT_ONLY``: labels and exact synonyms; ``ALL``: every scope), each tokenized
   and normalized like text (:class:`~craftrdf.matching.matcher.normalize.Normalizer`), mapped to
   the classes that have it. Names of several classes that normalize alike become one
   entry with all those classes, so a match emits every one of them.

:func:`load_dictionary` caches both on disk, as JSON in ``cache_dir``: terms keyed by
the digest of the ontology batch they were read from (``AnnotationStore.batches()``)
and the registry filters, dictionaries by the terms' digest and the four parameters
that shape them. A rebuilt ontology batch gets a new digest, so stale entries are
never used. Without a store, build a dictionary from your own names with
:func:`terms_from_names` and :meth:`Dictionary.build`.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import tempfile
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import pyoxigraph as ox

from ...core.context import RunContext
from ...core.curie import CurieMap
from ...core.errors import ConfigError
from ...core.registry import ModuleSpec, Registry
from ...ontology.store_model import NAME_KINDS, ontology_names
from ...querying.library import resolve_query
from ...querying.sets import SetRef
from ...store.local import ReadableStore, solutions
from .config import CaseMatch, Stemmer, StopWords, Synonyms, TextNormalization
from .normalize import Normalizer

logger = logging.getLogger(__name__)

Scope = Literal["LABEL", "EXACT", "BROAD", "NARROW", "RELATED"]

#: The name scopes each synonym policy keeps.
SCOPES: Mapping[Synonyms, frozenset[str]] = {
    Synonyms.EXACT_ONLY: frozenset({"LABEL", "EXACT"}),
    Synonyms.ALL: frozenset({"LABEL", "EXACT", "BROAD", "NARROW", "RELATED"}),
}

#: Bumped when what the cache holds, or how it is computed, changes.
CACHE_VERSION = "craftrdf-matcher-dictionary-2"


@dataclass(frozen=True, slots=True, order=True)
class DictionaryTerm:
    """One name of one class: class CURIE, the name as written, and its scope."""

    class_id: str
    name: str
    scope: str = "LABEL"


def terms_from_names(
    names: Mapping[str, str | Iterable[str]] | Iterable[tuple[str, str]], *, scope: Scope = "LABEL"
) -> list[DictionaryTerm]:
    """Terms from your own names: ``{class_id: name or names}`` or ``(class_id, name)`` pairs.

    >>> terms_from_names({"UBERON:0000955": ["brain", "encephalon"]})[1]
    DictionaryTerm(class_id='UBERON:0000955', name='encephalon', scope='LABEL')
    """
    pairs: Iterable[tuple[str, str | Iterable[str]]] = names.items() if isinstance(names, Mapping) else names
    out = []
    for cls, value in pairs:
        for name in [value] if isinstance(value, str) else value:
            out.append(DictionaryTerm(cls, name, scope))
    return out


@dataclass(frozen=True, slots=True, eq=False)
class Dictionary:
    """Normalized entries: a tuple of normalized tokens -> the classes named by it.

    ``entries`` keep the tokens in the name's order; search structures derived from
    it (order-independent ones among them) are built by :mod:`craftrdf.matching.matcher.search`.
    """

    entries: Mapping[tuple[str, ...], frozenset[str]]
    normalization: TextNormalization
    synonyms: Synonyms

    def __len__(self) -> int:
        return len(self.entries)

    @classmethod
    def build(
        cls,
        terms: Iterable[DictionaryTerm],
        normalization: TextNormalization,
        synonyms: Synonyms | str = Synonyms.EXACT_ONLY,
        *,
        normalizer: Normalizer | None = None,
        prefer_labels: bool = False,
    ) -> Dictionary:
        """Normalize the names the synonym policy keeps; names left empty (all stop words) are dropped.

        ``prefer_labels`` (not ConceptMapper's behaviour, off by default): when an entry is the
        label of some of its classes and only a synonym of others, keep the classes it labels
        ("lung", UBERON:0002048's label, and "lungs", an exact synonym of UBERON:0000170
        *pair of lungs*, stem alike: the entry keeps UBERON:0002048 only).

        >>> from craftrdf.matching.matcher.config import TextNormalization
        >>> d = Dictionary.build(terms_from_names({"X:1": "Brain", "X:2": "brains"}),
        ...                      TextNormalization("CASE_IGNORE", "PORTER", "NONE"))
        >>> {k: sorted(v) for k, v in d.entries.items()}
        {('brain',): ['X:1', 'X:2']}
        """
        synonyms = Synonyms(synonyms)
        normalizer = normalizer or Normalizer(normalization)
        keep = SCOPES[synonyms]
        entries: dict[tuple[str, ...], set[str]] = {}
        labels: dict[tuple[str, ...], set[str]] = {}
        for t in terms:
            if t.scope not in keep:
                continue
            key = normalizer.phrase(t.name)
            if key:
                entries.setdefault(key, set()).add(t.class_id)
                if prefer_labels and t.scope == "LABEL":
                    labels.setdefault(key, set()).add(t.class_id)
        for key, labelled in labels.items():
            entries[key] = labelled
        return cls({k: frozenset(v) for k, v in entries.items()}, normalizer.normalization, synonyms)


# -- reading terms from the store ---------------------------------------------------------


def _module(ref: SetRef, registry: Registry) -> ModuleSpec | None:
    """The registry's module of a set (its filters), None for a module the registry does not know."""
    if ref.module is None:
        return None
    try:
        return registry.module(ref.module)
    except ConfigError:
        return None


def fetch_terms(store: ReadableStore, ref: SetRef, ctx: RunContext) -> list[DictionaryTerm]:
    """Every name of the classes of the set's ontology that the module's filters keep, sorted.

    ``ref`` is the set (:func:`craftrdf.querying.sets.resolve_set`); ConfigError when it names no ontology.
    ``ctx`` gives the registry (the module's filters) and the CURIE map.
    """
    registry, curies = ctx.registry, ctx.curies
    graph = ref.require_ontology()
    key = ref.key
    module = _module(ref, registry)
    read = ontology_names(store, graph)
    classes = read.classes - read.deprecated
    namespaces = {iri: values[-1] for iri, values in read.of("NAMESPACE").items()}
    names = [
        (iri, value, kind)
        for kind in NAME_KINDS
        for iri, values in read.of(kind).items()
        for value in values
        if value.strip()
    ]
    excluded = _excluded(store, key, module, curies) if module else set()
    keep_prefixes = set(module.keep_prefixes) if module else set()
    namespace = module.namespace if module else None
    out: set[DictionaryTerm] = set()
    kept: dict[str, str | None] = {}
    for cls_iri, name, scope in names:
        if cls_iri not in kept:
            kept[cls_iri] = _keep(cls_iri, classes, namespaces, excluded, keep_prefixes, namespace, curies)
        curie = kept[cls_iri]
        if curie is not None:
            out.add(DictionaryTerm(curie, name, scope))
    logger.info(
        "dictionary terms for %s: %d names of %d classes", key, len(out), sum(v is not None for v in kept.values())
    )
    return sorted(out, key=lambda t: (t.class_id, t.name, t.scope))


def _keep(
    cls_iri: str,
    classes: frozenset[str],
    namespaces: Mapping[str, str],
    excluded: set[str],
    keep_prefixes: set[str],
    namespace: str | None,
    curies: CurieMap,
) -> str | None:
    """The class's CURIE if the filters keep it, else None."""
    if cls_iri not in classes or cls_iri in excluded:
        return None
    curie = curies.compress(cls_iri)
    prefix = curie.partition(":")[0]
    if prefix.endswith("_EXT"):
        return curie
    if keep_prefixes and prefix not in keep_prefixes:
        return None
    if namespace is not None and namespaces.get(cls_iri) != namespace:
        return None
    return curie


def _excluded(store: ReadableStore, key: str, module: ModuleSpec, curies: CurieMap) -> set[str]:
    out: set[str] = set()
    query = resolve_query("matcher-subtree").text
    for root in module.exclude_subtrees:
        subs: dict[str, ox.NamedNode | ox.Literal] = {"set": ox.Literal(key), "root": ox.NamedNode(curies.expand(root))}
        out.update(
            row[2].value
            for row in solutions(store.query(query, substitutions=subs))
            if isinstance(row[2], ox.NamedNode)
        )
    return out


# -- the disk cache ----------------------------------------------------------------------


def default_cache_dir() -> Path:
    """``$XDG_CACHE_HOME/craftrdf/matcher`` (``~/.cache/craftrdf/matcher``)."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "craftrdf" / "matcher"


def _digest(*parts: str) -> str:
    h = hashlib.sha256(CACHE_VERSION.encode())
    for p in parts:
        h.update(p.encode("utf-8"))
        h.update(b"\0")
    return h.hexdigest()


def read_json(path: Path) -> object | None:
    try:
        with open(path, encoding="utf-8") as fh:
            data: object = json.load(fh)
            return data
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as exc:  # a damaged entry is rebuilt, never trusted
        logger.warning("ignoring unreadable matcher cache file %s: %s", path, exc)
        return None


def write_json(path: Path, data: object) -> None:
    """Write atomically (temporary file, then rename) so readers never see half a file."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-", suffix=".json")
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            json.dump(data, fh, ensure_ascii=False, separators=(",", ":"))
        os.replace(tmp, path)
    except OSError as exc:
        logger.warning("could not write matcher cache file %s: %s", path, exc)


def _terms_key(store: ReadableStore, ref: SetRef, registry: Registry) -> str:
    key, graph = ref.key, ref.require_ontology()
    batch = store.batches().get(graph)
    if batch is None:
        raise ConfigError(f"ontology graph {graph} of set {key} is not a batch of this store")
    module = _module(ref, registry)
    filters = json.dumps([module.keep_prefixes, module.namespace, module.exclude_subtrees] if module else None)
    return _digest("terms", key, graph, batch.digest, filters)


def load_terms(
    store: ReadableStore,
    ref: SetRef,
    ctx: RunContext,
) -> tuple[list[DictionaryTerm], str]:
    """The set's terms (:func:`fetch_terms`) and their digest, read from ``ctx.cache_dir`` when there.

    The digest identifies the terms' content (ontology batch digest and filters); it keys
    the normalized dictionaries built from them.
    """
    digest = _terms_key(store, ref, ctx.registry)
    path = ctx.cache_dir / f"terms-{digest}.json" if ctx.cache_dir is not None else None
    if path is not None:
        data = read_json(path)
        if isinstance(data, dict) and data.get("digest") == digest:
            logger.info("dictionary terms of %s from cache %s", ref.key, path)
            return [DictionaryTerm(*t) for t in data["terms"]], digest
    terms = fetch_terms(store, ref, ctx)
    if path is not None:
        write_json(path, {"digest": digest, "set": ref.key, "terms": [[t.class_id, t.name, t.scope] for t in terms]})
    return terms, digest


def load_dictionary(
    store: ReadableStore,
    ref: SetRef,
    normalization: TextNormalization,
    synonyms: Synonyms | str,
    ctx: RunContext,
    *,
    normalizer: Normalizer | None = None,
) -> Dictionary:
    """The normalized dictionary of a set for one normalization and synonym policy, cached on disk.

    ``ctx.cache_dir=None`` disables the cache (everything is read from the store and built).
    """
    cache_dir = ctx.cache_dir
    synonyms = Synonyms(synonyms)
    normalization = TextNormalization(
        CaseMatch(normalization.caseMatch), Stemmer(normalization.stemmer), StopWords(normalization.stopWords)
    )
    terms_digest = _terms_key(store, ref, ctx.registry)
    digest = _digest(
        "dictionary",
        terms_digest,
        normalization.caseMatch.value,
        normalization.stemmer.value,
        normalization.stopWords.value,
        synonyms.value,
    )
    path = cache_dir / f"dictionary-{digest}.json" if cache_dir is not None else None
    if path is not None:
        data = read_json(path)
        if isinstance(data, dict) and data.get("digest") == digest:
            logger.info("dictionary of %s from cache %s", ref.key, path)
            entries = {tuple(k): frozenset(v) for k, v in data["entries"]}
            return Dictionary(entries, normalization, synonyms)
    terms, _ = load_terms(store, ref, ctx)
    dictionary = Dictionary.build(terms, normalization, synonyms, normalizer=normalizer)
    if path is not None:
        write_json(
            path,
            {
                "digest": digest,
                "set": ref.key,
                "entries": [[list(k), sorted(v)] for k, v in dictionary.entries.items()],
            },
        )
    return dictionary
