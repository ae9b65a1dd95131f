"""Maintainer script: where a set's cross-validated errors are, on the training documents alone.

    python tools/cv_errors.py STORE SET [SET...] [--top 25]

Trains each set on train+dev as ``craftrdf train`` does (nothing is written) and prints the
cross-validated slot error rate of both decisions, then the most frequent false positives and
false negatives (exact spans, class as the scorer compares it) of the decision the model uses,
each false negative marked with whether any candidate had its spans (``cand``) and the fold's
best confidence for it. Only the documents of train and dev are read: the test split is never
opened, so what this shows can be used to choose (docs/training.md, "Blind").
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import Counter
from pathlib import Path

from craftrdf.core.context import RunContext
from craftrdf.matching.matcher.annotate import MatchingSession
from craftrdf.matching.matcher.config import Synonyms, TextNormalization
from craftrdf.matching.matcher.dictionary import Dictionary, load_dictionary
from craftrdf.matching.training.data import Corpus, SetData, read_corpus, read_set, split_documents
from craftrdf.matching.training.learn import select_learned
from craftrdf.matching.training.select import Pairs, Prepared, comparer, cross_validated, select
from craftrdf.store.local import AnnotationStore

TOP_TRIED = 8


def cv_pairs(store: AnnotationStore, key: str, *, verbose: bool = True) -> tuple[SetData, Corpus, Prepared, Pairs]:
    """Train ``key`` on train+dev as ``craftrdf train`` does; its decision's out-of-fold (cross-validated) pairs."""
    t0 = time.perf_counter()
    ctx = RunContext.create()
    docs = split_documents(store, ("train", "dev"))
    data = read_set(store, key, ctx)
    corpus = read_corpus(store, data.key, docs)
    session = MatchingSession(corpus.texts, {})
    source = None
    if data.terms:

        def source(normalization: TextNormalization, synonyms: Synonyms) -> Dictionary:
            return load_dictionary(store, data.ref, normalization, synonyms, ctx)

    sel, prepared = select(session, corpus, data, source)
    learned = select_learned(prepared, corpus, data, sel)
    if verbose:
        print(f"== {key}: {len(docs)} documents, {corpus.annotations} gold, {time.perf_counter() - t0:.0f} s")
        print(f"configuration {sel.config.label()}; decision {sel.decision}; rules {sel.rules.label()}")
        print(f"threshold decision: cv SER {sel.cv_ser:.4f} exact tp/fp/fn {sel.cv_exact[1:]}")
        for config, decision, rules, err in sel.tried[:TOP_TRIED]:
            print(f"  exact error {err:.4f}: {config.stemmer} {config.caseMatch} {decision} {rules.label()}")
        if learned is not None:
            lw = learned.learned
            print(
                f"learned decision: cv SER {learned.cv_ser:.4f} exact tp/fp/fn {learned.cv_exact[1:]}"
                f" C={lw.strength} t={lw.threshold} window {lw.window.label}"
                f" chosen={learned.chosen}; cv SER per window {learned.spans}"
            )
    if learned is not None and learned.chosen:
        pairs: Pairs = {d: [(s, c) for s, c, _ in kept] for d, kept in learned.cv_scored.items()}
    else:
        pairs = cross_validated(prepared, corpus, sel.decision, sel.rules)
    return data, corpus, prepared, pairs


def report(store: AnnotationStore, key: str, top: int) -> None:
    """Print one set's cross-validated scores and errors."""
    data, corpus, prepared, pairs = cv_pairs(store, key)
    compare = comparer(data.key)
    fp: Counter[tuple[str, str]] = Counter()
    fn: Counter[tuple[str, str]] = Counter()
    for doc, anns in corpus.gold.items():
        text = corpus.texts[doc]
        found = {tuple(sorted(c.spans)) for c in prepared.candidates[doc]}
        gold = {(tuple(sorted(a.spans)), compare(a.class_id)) for a in anns}
        pred = {(tuple(sorted(s)), compare(c)) for s, c in pairs.get(doc, ())}
        for spans, cls in pred - gold:
            fp[(" ... ".join(text[s.start : s.end] for s in spans), cls)] += 1
        for spans, cls in gold - pred:
            seen = "cand" if spans in found else "    "
            fn[(f"{seen} " + " ... ".join(text[s.start : s.end] for s in spans), cls)] += 1
    for name, counter in (("false positives", fp), ("false negatives", fn)):
        print(f"-- {name}: {sum(counter.values())}")
        for (t, c), n in counter.most_common(top):
            print(f"  {n:4d}  {t!r:45s} {c}")


def main(argv: list[str]) -> None:
    """Parse the arguments and report each set."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("store", type=Path)
    parser.add_argument("sets", nargs="+")
    parser.add_argument("--top", type=int, default=25)
    args = parser.parse_args(argv)
    with AnnotationStore.open(args.store, mode="read") as store:
        for key in args.sets:
            report(store, key, args.top)


if __name__ == "__main__":
    main(sys.argv[1:])
