"""Train on some splits, score on others: the trained matcher's row in ``craftrdf reproduce`` section 4.

The score is the Shared Task's slot error rate as ``craftrdf evaluate`` computes it
(official pairing, Jaccard boundaries, Wang over the ontology's OWL graph: :mod:`.scoring`),
or with exact class matches only for a set the store has no ontology for. The false
positives and negatives that cost most are counted by text and class, to say where a set
falls short.
"""

from __future__ import annotations

import logging
import time
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from ..matcher.annotate import MatchingSession
from ..model import Annotation
from ..registry import Registry
from ..store import ReadableStore
from ..webanno import document_texts
from .data import Corpus, parse_on, read_corpora, read_set, split_documents
from .train import NoGoldError, TrainReport, score_on, train_set

__all__ = ["TestScore", "costly", "train_and_test"]

logger = logging.getLogger(__name__)

#: (text as written, class, count)
Costly = tuple[tuple[str, str, int], ...]


@dataclass(frozen=True, slots=True)
class TestScore:
    """A set trained on some splits and scored on others."""

    set_key: str
    ser: float
    exact_only: bool
    train: TrainReport
    false_positives: Costly
    false_negatives: Costly
    seconds: float


def costly(
    corpus: Corpus, predictions: Mapping[str, Sequence[Annotation]], set_key: str, top: int = 5
) -> tuple[Costly, Costly]:
    """The most frequent false positives and negatives (exact spans, class as the scorer compares it)."""
    from .select import comparer

    compare = comparer(set_key)
    fp: Counter[tuple[str, str]] = Counter()
    fn: Counter[tuple[str, str]] = Counter()
    for doc, gold_anns in corpus.gold.items():
        text = corpus.texts[doc]
        gold = {(tuple(sorted(a.spans)), compare(a.class_id)) for a in gold_anns}
        pred = {(tuple(sorted(a.spans)), compare(a.class_id)) for a in predictions.get(doc, ())}
        for side, counter in ((pred - gold, fp), (gold - pred, fn)):
            for spans, cls in side:
                counter[(" ... ".join(text[s.start : s.end] for s in spans), cls)] += 1
    return (
        tuple((t, c, n) for (t, c), n in fp.most_common(top)),
        tuple((t, c, n) for (t, c), n in fn.most_common(top)),
    )


def train_and_test(
    store: ReadableStore,
    keys: Sequence[str],
    *,
    registry: Registry,
    on: str = "train,dev",
    test: str = "test",
    quick: bool = False,
    cache_dir: Path | None = None,
    out_dir: Path | None = None,
) -> dict[str, TestScore]:
    """Train each set on ``on`` and score it on ``test``; models in ``out_dir/<KEY>`` when given.

    One matching session is shared by all sets, so each document is split and normalized
    once for all of them. A set with no gold annotations in ``on`` is left out (logged).
    """
    train_splits, test_splits = parse_on(on), parse_on(test)
    train_docs, test_docs = split_documents(store, train_splits), split_documents(store, test_splits)
    session = MatchingSession(document_texts(store, train_docs + test_docs), {}, cache_dir=cache_dir)
    out: dict[str, TestScore] = {}
    for key in keys:
        t = time.perf_counter()
        data = read_set(store, key, registry=registry, cache_dir=cache_dir)
        train_corpus, test_corpus = read_corpora(store, data.key, [train_docs, test_docs])
        try:
            report, model = train_set(
                store,
                key,
                on=train_splits,
                registry=registry,
                out=out_dir / data.key if out_dir is not None else None,
                quick=quick,
                cache_dir=cache_dir,
                data=data,
                session=session,
                corpus=train_corpus,
            )
        except NoGoldError as exc:
            logger.warning("not trained: %s", exc)
            continue
        ser, corpus, predictions = score_on(
            store,
            data,
            model,
            test_splits,
            registry=registry,
            cache_dir=cache_dir,
            session=session,
            corpus=test_corpus,
        )
        fp, fn = costly(corpus, predictions, data.key)
        out[data.key] = TestScore(data.key, ser, data.exact_only, report, fp, fn, time.perf_counter() - t)
        logger.info("trained %s: test SER %.3f in %.1f s", data.key, ser, time.perf_counter() - t)
    return out
