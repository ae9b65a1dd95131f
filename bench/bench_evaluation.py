"""Benchmark: the Shared Task score of the 30 test documents, every set whose ontology is present.

    python bench/bench_evaluation.py --store ./craft.store --craft ../shared/craft [--repeat 3]

The prediction is a perturbed copy of gold, written once as a Shared Task directory
(one subdirectory per set of <PMID>.bionlp files): with a fixed seed, of every gold
annotation 10% are dropped, 10% have their spans shifted by 1-3 characters, 10% their
class moved to an is_a parent and 5% to another class of the same set (a sibling or
stranger), and 5% more annotations are invented at random places with random classes.
Timed: ``evaluate_store`` end to end (gold from the store, the prediction from the files,
the bossy Wang index, the scores and the criteria), median of --repeat runs. The floor,
measured in the same run, is the input alone: reading gold from the store and the
prediction from the files. Goal (issue 5): all sets together under 20 s.
Not part of the test suite.
"""

from __future__ import annotations

import argparse
import random
import statistics
import tempfile
import time
import warnings
from dataclasses import replace
from pathlib import Path

from craftrdf import similarity_index
from craftrdf.analysis.evaluation.inputs import load_side
from craftrdf.analysis.evaluation.run import evaluate_store
from craftrdf.core.model import Annotation, Span
from craftrdf.core.registry import load_registry
from craftrdf.ingest.bionlp import write_bionlp
from craftrdf.querying.webanno import fetch_annotations
from craftrdf.store.local import AnnotationStore

SETS = ("CL", "CL_EXT", "GO_MF", "GO_MF_EXT", "MOP", "MOP_EXT", "SO", "SO_EXT", "UBERON", "UBERON_EXT")


def perturb(gold: list[Annotation], parent_of, rng: random.Random, text_len: dict[str, int]) -> list[Annotation]:
    classes = sorted({a.class_id for a in gold})
    out: list[Annotation] = []
    for a in gold:
        r = rng.random()
        if r < 0.10:
            continue
        if r < 0.20:
            d = rng.choice((-3, -2, -1, 1, 2, 3))
            limit = text_len[a.document]
            spans = tuple(Span(min(max(s.start + d, 0), limit), min(max(s.end + d, 0), limit)) for s in a.spans)
            a = replace(a, spans=spans)
        elif r < 0.30:
            a = replace(a, class_id=parent_of(a.class_id) or a.class_id)
        elif r < 0.35:
            a = replace(a, class_id=rng.choice(classes))
        out.append(a)
    for k in range(len(gold) // 20):
        doc = rng.choice(sorted(text_len))
        start = rng.randrange(max(text_len[doc] - 30, 1))
        out.append(Annotation(f"X{k}", doc, rng.choice(classes), (Span(start, start + rng.randint(3, 25)),)))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--store", type=Path, required=True)
    ap.add_argument("--craft", type=Path, required=True, help="CRAFT directory (for the test split's ids)")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--seed", type=int, default=2019)
    args = ap.parse_args()
    test_ids = set((args.craft / "articles" / "ids" / "craft-ids-test.txt").read_text().split())
    texts = {d: (args.craft / "articles" / "txt" / f"{d}.txt").read_text(encoding="utf-8") for d in test_ids}
    rng = random.Random(args.seed)
    warnings.simplefilter("ignore")
    with AnnotationStore.open(args.store, mode="read") as store, tempfile.TemporaryDirectory() as tmp:
        index = similarity_index(store, method="bossy")

        def parent_of(c: str) -> str | None:
            if c not in index:
                return None
            ps = sorted(t for t, s in index.semantic_values(c).items() if abs(s - 0.65) < 1e-12)
            return ps[0] if ps else None

        pred_dir = Path(tmp) / "pred"
        n_gold = n_pred = 0
        for key in SETS:
            gold = [a for a in fetch_annotations(store, key) if a.document in test_ids]
            pred = perturb(gold, parent_of, rng, {d: len(t) for d, t in texts.items()})
            n_gold, n_pred = n_gold + len(gold), n_pred + len(pred)
            d = pred_dir / key.lower()
            d.mkdir(parents=True)
            for doc in sorted(test_ids):
                (d / f"{doc}.bionlp").write_text(
                    write_bionlp([a for a in pred if a.document == doc], text=texts[doc]), encoding="utf-8"
                )
        print(f"{len(SETS)} sets, {len(test_ids)} test documents: {n_gold:,} gold and {n_pred:,} predicted annotations")
        spec = ",".join(SETS)
        floor, full = [], []
        reports = []
        for _ in range(args.repeat):
            t = time.perf_counter()
            load_side(spec, store)
            load_side(str(pred_dir), store)
            floor.append(time.perf_counter() - t)
            t = time.perf_counter()
            reports = evaluate_store(store, spec, str(pred_dir), load_registry())
            full.append(time.perf_counter() - t)
    for r in reports:
        t = r.total
        print(f"  {r.key:<11} N={t.ref_count:>6,} P={t.pred_count:>6,}  SER {t.ser:.3f}  F1 {t.f1:.3f}")
    f, e = statistics.median(floor), statistics.median(full)
    print(f"evaluate_store, all sets (median of {args.repeat}): {e:.2f} s   (goal < 20 s)")
    print(f"floor, reading gold and prediction only:        {f:.2f} s   ratio {e / f:.2f}x")


if __name__ == "__main__":
    main()
