"""One file per document: BioNLP and PubAnnotation JSON (discontinuous annotations as chained fragments)."""

from __future__ import annotations

import json
import warnings
from collections.abc import Iterable
from pathlib import Path
from urllib.parse import unquote

import pyoxigraph as ox

from ...core.curie import CurieMap
from ...core.errors import ConfigError, DataWarning
from ...core.iris import DOCUMENTS_GRAPH
from ...core.model import Annotation
from ...core.vocab import FABIO
from ...ingest.bionlp import write_bionlp
from ...querying.sets import SetRef
from ...store.local import ReadableStore
from ._base import Ann, ExportFormat, annotations_by_document, atomic, document_info, file_stem

#: PubAnnotation's names for the pieces of a discontinuous denotation.
_FRAGMENT = "_FRAGMENT"
_CHAINED = "_lexicallyChainedTo"


def export_per_document(
    store: ReadableStore, ref: SetRef, fmt: ExportFormat, folder: Path, doc: ox.NamedNode | None, curies: CurieMap
) -> tuple[int, int, int, int, int]:
    if folder.exists() and not folder.is_dir():
        raise ConfigError(f"--out {folder} exists and is not a folder: {fmt.value} writes one file per document")
    folder.mkdir(parents=True, exist_ok=True)
    suffix = ".bionlp" if fmt is ExportFormat.BIONLP else ".json"
    documents = annotations = skipped = 0
    groups = annotations_by_document(store, ref, doc)
    if doc is not None and not groups:
        groups = [(doc.value, [])]  # a document without annotations in the set: an empty file
    elif doc is None:
        # a set covers every document of the store, as evaluate reads it, and a CRAFT set has a file,
        # empty or not, for every document: so has the export
        annotated = {d for d, _ in groups}
        corpus = ox.NamedNode(DOCUMENTS_GRAPH)
        empty = {
            q.subject.value
            for q in store.quads_for_pattern(None, ox.NamedNode(FABIO.hasPubMedId), None, corpus)
            if isinstance(q.subject, ox.NamedNode) and q.subject.value not in annotated
        }
        groups = sorted(groups + [(d, []) for d in empty])
    for doc_iri, anns in groups:
        pmid, text = document_info(store, doc_iri)
        spanless = [a for a in anns if not a.spans]
        written = [a for a in anns if a.spans]
        if spanless:
            ids = ", ".join(a.iri.rsplit("/", 1)[1] for a in spanless[:5])
            warnings.warn(
                f"{ref.key}, document {pmid}: left out {len(spanless)} annotation(s) without spans "
                f"({ids}): {fmt.value} cannot carry them",
                DataWarning,
                stacklevel=3,
            )
        if fmt is ExportFormat.BIONLP:
            records = [
                Annotation(unquote(a.iri.rsplit("/", 1)[1]), pmid, curies.compress(a.cls), a.spans, a.text)
                for a in written
            ]
            content = write_bionlp(records, text=text)
        else:
            content = (
                json.dumps(_pubannotation_document(written, doc_iri, pmid, text, curies), ensure_ascii=False, indent=1)
                + "\n"
            )
        with atomic(folder / (file_stem(pmid, doc_iri) + suffix)) as fh:
            fh.write(content.encode("utf-8"))
        documents += 1
        annotations += len(written)
        skipped += len(spanless)
    return documents, annotations, skipped, documents, 0


def _pubannotation_document(
    anns: Iterable[Ann], doc_iri: str, pmid: str, text: str | None, curies: CurieMap
) -> dict[str, object]:
    """One document in PubAnnotation JSON; discontinuous annotations as chained fragments.

    Denotation ids are ``T1``, ``T2``, ... in the order of the BioNLP export; the pieces of
    a discontinuous ``Tn`` are ``Tn-0``, ``Tn-1``, ... (in the annotation's own order), all
    but the last with ``obj`` ``"_FRAGMENT"``, and relation ``C-Tn-<i-1>`` says
    ``Tn-<i> _lexicallyChainedTo Tn-<i-1>``: the form PubAnnotation's own ``chain_spans``
    gives a denotation with several spans. A trained matcher's confidence is an attribute
    ``{"subj": "Tn", "pred": "confidence", "obj": 0.87}`` (of the last piece's denotation,
    the one carrying the class, for a discontinuous one).
    """
    denotations: list[dict[str, object]] = []
    relations: list[dict[str, object]] = []
    attributes: list[dict[str, object]] = []
    for n, ann in enumerate(anns, start=1):
        obj = curies.compress(ann.cls)
        tid = f"T{n}"
        if ann.confidence is not None:  # PubAnnotation's attribute of a denotation: subj, pred, obj
            subj = tid if len(ann.spans) <= 1 else f"{tid}-{len(ann.spans) - 1}"
            attributes.append(
                {"id": f"A{len(attributes) + 1}", "subj": subj, "pred": "confidence", "obj": ann.confidence}
            )
        if len(ann.spans) == 1:
            s = ann.spans[0]
            denotations.append({"id": tid, "span": {"begin": s.start, "end": s.end}, "obj": obj})
            continue
        last = len(ann.spans) - 1
        for i, s in enumerate(ann.spans):
            denotations.append(
                {"id": f"{tid}-{i}", "span": {"begin": s.start, "end": s.end}, "obj": obj if i == last else _FRAGMENT}
            )
            if i > 0:
                relations.append(
                    {"id": f"C-{tid}-{i - 1}", "pred": _CHAINED, "subj": f"{tid}-{i}", "obj": f"{tid}-{i - 1}"}
                )
    out: dict[str, object] = {"target": doc_iri, "sourcedb": "PubMed", "sourceid": pmid}
    if text is not None:
        out["text"] = text
    out["denotations"] = denotations
    if relations:
        out["relations"] = relations
    if attributes:
        out["attributes"] = attributes
    return out
