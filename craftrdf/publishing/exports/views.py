"""Write the annotations of a view (or any list of set-tagged annotations) as BioNLP, CSV or counts."""

from __future__ import annotations

import csv
import io
from collections import Counter, defaultdict
from collections.abc import Sequence
from pathlib import Path
from typing import Literal

from ...analysis.views import ViewRow
from ...core.errors import ConfigError
from ...core.model import Annotation
from ...ingest.bionlp import write_bionlp
from ...querying.webanno import document_texts
from ...store.local import ReadableStore

ViewFormat = Literal["bionlp", "csv", "count"]


def count_rows(rows: Sequence[ViewRow]) -> dict[str, int]:
    """Annotations per set, plus ``TOTAL``."""
    counts = Counter(r.set for r in rows)
    return {**dict(sorted(counts.items())), "TOTAL": len(rows)}


def _csv(rows: Sequence[ViewRow]) -> str:
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(["set", "document", "id", "class", "spans", "text"])
    for r in rows:
        a = r.annotation
        w.writerow([r.set, a.document, a.id, a.class_id, ";".join(f"{s.start} {s.end}" for s in a.spans), a.text or ""])
    return buf.getvalue()


def write_view_rows(store: ReadableStore, rows: Sequence[ViewRow], fmt: ViewFormat, out: Path | None) -> str:
    """Write rows; returns a short summary line (or, for ``count``/``csv`` without ``out``, the content).

    ``bionlp`` writes one ``<PMID>.bionlp`` per document into the folder ``out`` (created),
    with the covered text taken from the article text in the store.
    """
    if fmt == "count":
        return "\n".join(f"{k}\t{v}" for k, v in count_rows(rows).items()) + "\n"
    if fmt == "csv":
        text = _csv(rows)
        if out is None:
            return text
        out.write_text(text, encoding="utf-8")
        return f"wrote {len(rows)} annotations to {out}\n"
    if fmt != "bionlp":
        raise ConfigError(f"unknown view format {fmt!r}: use bionlp, csv or count")
    if out is None:
        raise ConfigError("--format bionlp needs --out DIR")
    out.mkdir(parents=True, exist_ok=True)
    by_doc: dict[str, list[Annotation]] = defaultdict(list)
    for r in rows:
        if r.annotation.spans:
            by_doc[r.annotation.document].append(r.annotation)
    texts = document_texts(store, list(by_doc))
    for doc, anns in sorted(by_doc.items()):
        (out / f"{doc}.bionlp").write_text(write_bionlp(anns, text=texts.get(doc)), encoding="utf-8")
    return f"wrote {sum(map(len, by_doc.values()))} annotations in {len(by_doc)} files to {out}\n"
