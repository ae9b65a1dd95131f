"""Reading a sweep's inputs from the store, once, in the parent process.

Store-bound objects do not pickle, so everything a worker needs is read here into a
:class:`~craftrdf.matching.sweeps.run.SweepInputs`: the documents of the chosen splits (texts and
sentence spans), the dictionary's names (:func:`~craftrdf.matching.matcher.dictionary.load_terms`,
cached on disk), the set's gold annotations, the official scorer's Wang similarity over the
set's ontology (as ``craftrdf evaluate`` and ``craftrdf train`` use it) and, for
``apply_craft_rules``, the set's mapping data.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

from ...analysis.evaluation.official_graph import store_wang
from ...analysis.rules import craft_rules, set_mappings
from ...core.context import RunContext
from ...core.errors import ConfigError
from ...core.model import Annotation
from ...ingest.corpus import SPLITS
from ...querying.sets import resolve_set
from ...querying.webanno import document_splits, document_texts, fetch_annotations
from ...store.local import ReadableStore
from ..matcher.annotate import MatchingSession
from ..matcher.dictionary import load_terms
from ..matcher.run import parse_splits
from .run import SweepInputs

logger = logging.getLogger(__name__)


def prepare_inputs(
    store: ReadableStore,
    set_key: str,
    ctx: RunContext,
    *,
    split: str | Sequence[str] | None,
    apply_craft_rules: bool = False,
    prefer_labels: bool = False,
) -> SweepInputs:
    """The inputs of a sweep of set ``set_key`` over the documents of ``split``.

    ``split``: ``train``, ``dev``, ``test``, a comma list or sequence of them, or
    ``all``/None. ``prefer_labels``: see :class:`SweepInputs`. ``ctx.cache_dir`` keeps dictionary names and
    sentence spans (the matcher's
    cache). Raises ConfigError for an unknown set, a set without ontology, or a split
    with no documents in the store.
    """
    return prepare_split_inputs(
        store,
        set_key,
        ctx,
        splits=[split],
        apply_craft_rules=apply_craft_rules,
        prefer_labels=prefer_labels,
    )[0]


def prepare_split_inputs(
    store: ReadableStore,
    set_key: str,
    ctx: RunContext,
    *,
    splits: Sequence[str | Sequence[str] | None],
    apply_craft_rules: bool = False,
    prefer_labels: bool = False,
    annotations: Sequence[Annotation] | None = None,
) -> list[SweepInputs]:
    """:func:`prepare_inputs` for several splits (select on one, report on another), reading the set once.

    The set's annotations, dictionary, mappings and similarity index are read from the
    store a single time and shared by the inputs returned, one per entry of ``splits``.
    ``annotations``: the set's annotations read beforehand (:func:`~craftrdf.querying.webanno.fetch_annotations`
    with ``ctx.curies``), so that a caller reading the set for other work reads it once.
    """
    curies, cache_dir = ctx.curies, ctx.cache_dir
    ref = resolve_set(store, set_key)
    key = ref.key
    by_doc = document_splits(store)
    chosen = []
    for split in splits:
        names = parse_splits(split if isinstance(split, str) or split is None else ",".join(split))
        pmids = sorted(d for d, s in by_doc.items() if names is None or s in names)
        if not pmids:
            raise ConfigError(f"the store has no documents of split {split!r} (splits: {', '.join(SPLITS)})")
        chosen.append((names, pmids))
    terms, _ = load_terms(store, ref, ctx)
    if annotations is None:
        annotations = fetch_annotations(store, key, curies=curies)
    # the official scorer's graph of the set's own ontology (None: exact classes only, as training)
    wang = store_wang(store, ref.ontology) if ref.ontology is not None and ref.ontology in store.batches() else None
    rules = craft_rules(key, ref.variant) if apply_craft_rules else ()
    mappings = set_mappings(store, key, curies=curies) if rules else None
    out = []
    for names, pmids in chosen:
        texts = document_texts(store, pmids)
        gold: dict[str, list[Annotation]] = {d: [] for d in texts}
        for a in annotations:
            if a.document in gold:
                gold[a.document].append(a)
        session = MatchingSession(texts, {}, cache_dir=cache_dir)
        sentences = {d: tuple(session.sentences(d)) for d in sorted(texts)}
        label = f"{'all' if names is None else ','.join(names)} ({len(texts)} documents)"
        logger.info(
            "sweep inputs for %s: %s, %d names, %d gold annotations",
            key,
            label,
            len(terms),
            sum(len(v) for v in gold.values()),
        )
        out.append(
            SweepInputs(
                key,
                texts,
                sentences,
                tuple(terms),
                {d: tuple(v) for d, v in gold.items()},
                wang,
                rules,
                mappings,
                label,
                prefer_labels,
            )
        )
    return out
