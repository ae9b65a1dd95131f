"""What similarity reads of a store's annotations: each document's classes, and IC from annotation counts.

:func:`document_classes` gives the classes a set annotates each document with (CURIEs,
once per annotation); :func:`annotation_counts` counts them over a set, or over the
documents of some splits; :func:`ic_index` builds an :class:`~craftrdf.analysis.similarity.ic.ICIndex`
over the store's ontology graph whose information content comes from those counts
(``ic="corpus"``: how often CRAFT's annotators used each class, propagated to its ancestors)
or from the graph's shape (``ic="intrinsic"``, Seco et al. 2004).
"""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Iterable, Mapping
from typing import Literal

import pyoxigraph as ox

from ...core.context import RunContext
from ...core.curie import CurieMap
from ...core.errors import ConfigError
from ...core.iris import DOCUMENTS_GRAPH, annotation_document
from ...core.vocab import BASE, OA
from ...ingest.corpus import SPLITS
from ...ontology.cache import DEFAULT_CACHE, SimilarityCache
from ...querying.sets import resolve_set
from ...querying.webanno import document_splits
from ...store.local import ReadableStore
from .graph import DEFAULT_SPEC, IndexSpec, method_weights, wang_index
from .ic import ICIndex
from .persist import ic_key, index_key, load_ic, save_index

logger = logging.getLogger(__name__)

ICSource = Literal["corpus", "intrinsic"]


def document_classes(
    store: ReadableStore, set_key: str, *, documents: Iterable[str] | None = None, curies: CurieMap | None = None
) -> dict[str, list[str]]:
    """Document id -> the classes of its annotations in set ``set_key`` (CURIEs, one per annotation body).

    Sorted by document, each document's classes in the order of its annotations' IRIs;
    ``documents`` limits the answer to those (one that the set does not annotate maps to an
    empty list). ConfigError, listing the store's sets, for an unknown set. One scan of the
    set's ``oa:hasBody`` triples: the document is in the annotation's IRI
    (:func:`craftrdf.core.iris.annotation_iri`), or else found through its target's source. Cached per store (the
    similarity cache: emptied when its batches change).
    """
    ref = resolve_set(store, set_key)
    entries = DEFAULT_CACHE.entries(store)  # emptied when the store's batches change
    key = ("document classes", ref.key)
    hit = entries.get(key) if curies is None else None
    if not isinstance(hit, dict):
        hit = _read_document_classes(store, ref.graph, curies or CurieMap())
        if curies is None:
            entries[key] = hit
    if documents is None:
        return {d: list(cs) for d, cs in hit.items()}
    return {d: list(hit.get(d, [])) for d in documents}


def _read_document_classes(store: ReadableStore, set_graph: str, cm: CurieMap) -> dict[str, list[str]]:
    graph = ox.NamedNode(set_graph)
    rows: list[tuple[str, str, str]] = []
    unplaced: list[tuple[ox.NamedNode | ox.BlankNode, str]] = []
    for q in store.quads_for_pattern(None, ox.NamedNode(OA.hasBody), None, graph):
        if not isinstance(q.object, ox.NamedNode):
            continue
        ann = q.subject
        if not isinstance(ann, (ox.NamedNode, ox.BlankNode)):
            continue
        doc = annotation_document(ann.value) if isinstance(ann, ox.NamedNode) else None
        if doc is None:
            unplaced.append((ann, q.object.value))
        else:
            rows.append((doc, ann.value, q.object.value))
    if unplaced:  # annotations whose IRIs craftrdf did not mint: through oa:hasTarget / oa:hasSource
        target = {q.subject: q.object for q in store.quads_for_pattern(None, ox.NamedNode(OA.hasTarget), None, graph)}
        source = {q.subject: q.object for q in store.quads_for_pattern(None, ox.NamedNode(OA.hasSource), None, graph)}
        prefix = BASE + "doc/"
        for ann, cls in unplaced:
            src = source.get(target.get(ann))  # type: ignore[arg-type]
            if isinstance(src, ox.NamedNode) and src.value.startswith(prefix):
                rows.append((src.value[len(prefix) :], str(ann), cls))
    rows.sort()
    names: dict[str, str] = {}
    out: dict[str, list[str]] = {}
    for doc, _ann, cls in rows:
        c = names.get(cls)
        if c is None:
            c = names[cls] = cm.compress(cls)
        out.setdefault(doc, []).append(c)
    return out


def annotation_counts(store: ReadableStore, set_key: str, *, splits: Iterable[str] | None = None) -> Counter[str]:
    """How many annotations of set ``set_key`` use each class, over all its documents or those of ``splits``.

    ``splits``: names among train, dev, test (None: every document). ConfigError for an
    unknown set, an unknown split, or no annotation left.
    """
    by_doc = document_classes(store, set_key)
    if splits is not None:
        wanted = set(splits)
        bad = sorted(wanted - set(SPLITS))
        if bad:
            raise ConfigError(f"unknown split {bad[0]!r}: use {', '.join(SPLITS)}")
        of = document_splits(store)
        by_doc = {d: cs for d, cs in by_doc.items() if of.get(d) in wanted}
    counts = Counter(c for cs in by_doc.values() for c in cs)
    if not counts:
        where = f" in split {','.join(sorted(splits))}" if splits is not None else ""
        raise ConfigError(f"set {set_key!r} has no annotation{where} to take information content from")
    return counts


def ic_index(
    store: ReadableStore,
    spec: IndexSpec = DEFAULT_SPEC,
    ctx: RunContext | None = None,
    *,
    ic: ICSource = "corpus",
    set_key: str | None = None,
    splits: Iterable[str] | None = None,
    counts: Mapping[str, float] | None = None,
    cache: SimilarityCache | None = DEFAULT_CACHE,
) -> ICIndex:
    """An :class:`ICIndex` over the store's ontology graph (``spec.ontology``, all merged by default).

    The ancestors are those of :func:`~craftrdf.analysis.similarity.graph.wang_index` with the
    same ``spec`` (the relations of its weights: is_a and part_of by default; the weights themselves
    play no part; ``classify_extensions``). ``ic="corpus"`` takes the information content
    from ``counts`` (class -> annotations), or else from :func:`annotation_counts` of set
    ``set_key`` (and ``splits``); ``ic="intrinsic"`` from the graph alone. Cached with the
    Wang index, per store; ``ctx`` (its ``cache_dir``) as :func:`~craftrdf.analysis.similarity.graph.wang_index`'s.
    """
    if ic not in ("corpus", "intrinsic"):
        raise ConfigError(f"unknown information content {ic!r}: use corpus or intrinsic")
    engine = spec.engine
    ancestry = wang_index(store, spec, ctx, cache=cache)
    if ic == "intrinsic":
        key: tuple[object, ...] = ("ic", id(ancestry), "intrinsic")
    elif counts is not None:
        key = ("ic", id(ancestry), "counts", tuple(sorted(counts.items())))
    elif set_key is not None:
        key = ("ic", id(ancestry), "set", set_key, None if splits is None else tuple(sorted(splits)))
    else:
        raise ConfigError("information content from the corpus needs an annotation set (set_key) or counts")
    entries = cache.entries(store) if cache is not None else {}
    hit = entries.get(key)
    if isinstance(hit, ICIndex) and hit.ancestry is ancestry:
        return hit
    cache_dir = ctx.cache_dir if ctx is not None else None
    persist = cache_dir is not None and counts is None  # given counts are not the store's: not kept
    disk = _ic_disk_key(store, key, spec) if persist else None
    if cache_dir is not None and disk is not None:
        loaded = load_ic(cache_dir, disk, ancestry)
        if loaded is not None:
            entries[key] = loaded
            return loaded
    if ic == "intrinsic":
        index = ICIndex.intrinsic(ancestry, engine=engine)
    else:
        n = counts if counts is not None else annotation_counts(store, set_key or "", splits=splits)
        index = ICIndex.from_counts(ancestry, n, engine=engine)
    entries[key] = index
    # saved only if nothing it was read from changed meanwhile: never a stale entry
    unchanged = disk is not None and disk == _ic_disk_key(store, key, spec)
    if cache_dir is not None and disk is not None and unchanged:
        save_index(cache_dir, disk, index)
    return index


def _ic_disk_key(store: ReadableStore, key: tuple[object, ...], spec: IndexSpec) -> str | None:
    """The on-disk key of the IC index whose in-memory ``key`` is ``("ic", id, "intrinsic")`` or
    ``("ic", id, "set", set_key, splits)`` (``persist.ic_key``: the Wang index's key, then the set's batch
    and, with splits, the documents' batch)."""
    # the key wang_index stores its index under for the same spec
    w = method_weights(spec.method, spec.weights)
    wang = index_key(
        store, ontology=spec.ontology, weights=w, classify_extensions=spec.classify_extensions, engine=spec.engine
    )
    if key[2] == "intrinsic":
        return ic_key(store, index=wang, source={"ic": "intrinsic"}, graphs=())
    set_key, splits = key[3], key[4]
    graphs = [resolve_set(store, str(set_key)).graph, *([DOCUMENTS_GRAPH] if splits is not None else [])]
    source = {"ic": "corpus", "set": set_key, "splits": splits}
    return ic_key(store, index=wang, source=source, graphs=graphs)
