"""Benchmark: one matcher configuration over the CRAFT texts, against pyahocorasick as the floor.

    python bench/bench_matcher.py --store /tmp/craft.store --craft ../shared/craft [--set UBERON_EXT]
                                  [--param caseMatch=CASE_IGNORE ...] [--repeat 5] [--end-to-end 3]

The store must hold the set and its ontology (``craftrdf build --sets UBERON,UBERON_EXT``).
Measured in one process, each stage on its own, medians of ``--repeat`` runs:

- one-time work: reading the dictionary's names from the store (SPARQL), normalizing
  them into the dictionary, building the search structures, splitting sentences,
  tokenizing, normalizing the texts;
- matching: the search over every sentence and the annotation records it yields,
  once the texts are tokenized and normalized (what each of a sweep's configurations
  costs after sharing);
- the floor: a pyahocorasick automaton of the same dictionary's surface forms (the
  names the synonym policy keeps, as written) iterated over the same texts (building
  the automaton is reported apart).

Then ``--end-to-end`` runs of ``craftrdf annotate`` in fresh processes (imports, store,
dictionary, sentences, matching, BioNLP files), without cache and with a warm cache.
Prints a table and a JSON line. Not part of the test suite.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from craftrdf.core.context import RunContext
from craftrdf.core.registry import load_registry
from craftrdf.ingest.corpus import read_documents
from craftrdf.matching.matcher.annotate import MatchingSession
from craftrdf.matching.matcher.config import MatcherConfig
from craftrdf.matching.matcher.dictionary import SCOPES, Dictionary, fetch_terms
from craftrdf.matching.matcher.normalize import Normalizer, normalize_text
from craftrdf.matching.matcher.tokenize import analyze, split_sentences
from craftrdf.querying.sets import resolve_set
from craftrdf.store.local import AnnotationStore


def timed(fn: Callable[[], object], repeat: int) -> tuple[float, object]:
    """Median seconds of ``repeat`` calls, and the last result."""
    times = []
    result: object = None
    for _ in range(repeat):
        t = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times), result


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--store", required=True)
    ap.add_argument("--craft", required=True)
    ap.add_argument("--set", default="UBERON_EXT")
    ap.add_argument("--param", action="append", default=[])
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--end-to-end", type=int, default=3)
    args = ap.parse_args()

    import ahocorasick

    config = MatcherConfig.from_params(dict(p.split("=", 1) for p in args.param))
    docs = read_documents(Path(args.craft))
    texts = {d.pmid: d.text for d in docs}
    chars = sum(len(t) for t in texts.values())
    registry = load_registry()
    rows: dict[str, float] = {}

    with AnnotationStore.open(args.store, mode="read") as store:
        rows["names from store (SPARQL)"], terms = timed(
            lambda: fetch_terms(store, resolve_set(store, args.set), RunContext(registry)), args.repeat
        )
    normalization = config.normalization
    rows["dictionary (normalize names)"], dictionary = timed(
        lambda: Dictionary.build(terms, normalization, config.synonyms), args.repeat
    )  # type: ignore[arg-type]
    rows["sentence splitting (syntok)"], sentences = timed(
        lambda: {d: split_sentences(t) for d, t in texts.items()}, max(1, args.repeat // 2)
    )
    rows["tokenization"], tokenized = timed(
        lambda: {d: analyze(t, sentences[d]) for d, t in texts.items()}, args.repeat
    )  # type: ignore[index]

    def normalize_all() -> dict[str, object]:
        n = Normalizer(normalization)  # a fresh memo each run: the cost of a new normalization
        return {d: normalize_text(t, n) for d, t in tokenized.items()}  # type: ignore[union-attr]

    rows["text normalization"], _ = timed(normalize_all, args.repeat)

    session = MatchingSession(texts, lambda *_: dictionary)  # type: ignore[arg-type,return-value]
    session._tokenized.update(tokenized)  # type: ignore[arg-type]  # reuse the work measured above
    for d in texts:
        session.normalized(d, normalization)

    def build_index() -> object:
        session._indexes.clear()
        return session.index(config).prepare(config.search_key)

    rows["search structures (this configuration's)"], _ = timed(build_index, args.repeat)
    rows["matching"], annotations = timed(lambda: session.annotate(config), args.repeat)
    n_ann = sum(len(v) for v in annotations.values())  # type: ignore[union-attr]

    keep = SCOPES[config.synonyms]
    surface = sorted({t.name for t in terms if t.scope in keep})  # type: ignore[union-attr]

    def build_automaton() -> object:
        a = ahocorasick.Automaton()
        for i, name in enumerate(surface):
            a.add_word(name, i)
        a.make_automaton()
        return a

    rows["floor: automaton build"], automaton = timed(build_automaton, args.repeat)

    def scan() -> int:
        n = 0
        for text in texts.values():
            for _ in automaton.iter(text):  # type: ignore[attr-defined]
                n += 1
        return n

    rows["floor: pyahocorasick matching"], hits = timed(scan, args.repeat)

    e2e: dict[str, float] = {}
    if args.end_to_end:
        with tempfile.TemporaryDirectory() as tmp:
            base = [
                sys.executable,
                "-m",
                "craftrdf",
                "-q",
                "annotate",
                "--store",
                args.store,
                "--set",
                args.set,
                args.craft,
                "--out",
                str(Path(tmp) / "out"),
            ] + [x for p in args.param for x in ("--param", p)]
            cold = []
            for _ in range(args.end_to_end):
                t = time.perf_counter()
                subprocess.run([*base, "--no-cache"], check=True, capture_output=True)
                cold.append(time.perf_counter() - t)
            cache = ["--cache-dir", str(Path(tmp) / "cache")]
            subprocess.run(base + cache, check=True, capture_output=True)  # fill the cache
            warm = []
            for _ in range(args.end_to_end):
                t = time.perf_counter()
                subprocess.run(base + cache, check=True, capture_output=True)
                warm.append(time.perf_counter() - t)
            e2e = {
                "end to end, no cache (craftrdf annotate)": statistics.median(cold),
                "end to end, warm cache (craftrdf annotate)": statistics.median(warm),
            }

    print(
        f"{len(texts)} texts, {chars:,} characters; set {args.set}; {len(terms):,} names, "  # type: ignore[arg-type]
        f"{len(dictionary):,} entries; {n_ann:,} annotations; floor hits {hits:,}"
    )  # type: ignore[arg-type]
    print(f"configuration: {config.label()}")
    print(f"load average (1, 5, 15 min) at the end: {os.getloadavg()}")
    one_time = sum(v for k, v in rows.items() if not k.startswith(("matching", "floor")))
    for k, v in [*rows.items(), ("one-time work, total", one_time), *e2e.items()]:
        print(f"  {k:<45} {v:8.3f} s")
    ratio = rows["matching"] / rows["floor: pyahocorasick matching"]
    print(f"  matching / floor: {ratio:.2f}x")
    print(
        json.dumps(
            {
                "seconds": rows,
                "end_to_end": e2e,
                "ratio": ratio,
                "annotations": n_ann,
                "loadavg": os.getloadavg(),
                "config": config.params(),
                "texts": len(texts),
                "characters": chars,
            }
        )
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
