"""The two sides of an evaluation, read: store set keys, a Shared Task directory, or a folder of ``.bionlp`` files.

A side maps set keys to documents to annotations (:data:`Side`). :func:`load_side` reads
one from a store (keys, comma-separated, wildcards) or from a directory
(:func:`load_directory`); :func:`check_against_texts` holds a side against the article
texts: offsets past the end are errors, a text column that differs from the article is
counted (the official scorer reads only the offsets; docs/evaluation.md).
"""

from __future__ import annotations

import fnmatch
import warnings
from collections.abc import Iterable, Mapping
from pathlib import Path

from ...core.errors import ConfigError, DataWarning, InputError, ValidationError
from ...core.model import Annotation
from ...ingest.bionlp import read_bionlp
from ...ingest.validate import text_problem
from ...querying.webanno import document_texts, fetch_annotations
from ...store.local import ReadableStore
from ..views import resolve_sets

Side = dict[str, dict[str, list[Annotation]]]  # set key -> document -> annotations


def _bionlp_files(folder: Path) -> list[Path]:
    return sorted(p for p in folder.glob("*.bionlp") if p.is_file())


def _set_folders(root: Path) -> list[Path]:
    """The subdirectories of ``root`` that hold ``.bionlp`` files, sorted."""
    return [p for p in sorted(root.iterdir()) if p.is_dir() and _bionlp_files(p)]


def load_directory(root: str | Path, *, texts: Mapping[str, str] | None = None) -> Side:
    """A Shared Task directory (one subdirectory per set key, any case, of ``<PMID>.bionlp``
    files), or one folder of ``<PMID>.bionlp`` files, which is one set named after the folder.

    Keys come back upper-case. ``texts`` (PMID -> article text), when given, bounds the
    offsets of each file (:func:`~craftrdf.ingest.bionlp.read_bionlp`: ValidationError
    naming the file and line of a span past the end). InputError when ``root`` holds no
    ``.bionlp`` file in either layout, or holds both.
    """
    root = Path(root)
    texts = texts or {}

    def read(folder: Path) -> dict[str, list[Annotation]]:
        return {f.stem: read_bionlp(f, document=f.stem, text=texts.get(f.stem)) for f in _bionlp_files(folder)}

    flat, folders = _bionlp_files(root), _set_folders(root)
    if flat and folders:
        raise InputError(
            f"holds both .bionlp files and set subdirectories of them ({', '.join(p.name for p in folders)}); "
            "give the folder of one set, or a directory of set subdirectories",
            source=str(root),
        )
    if flat:
        return {root.resolve().name.upper(): read(root)}
    if not folders:
        raise InputError(
            "no .bionlp files, and no subdirectory holding them (a Shared Task directory: <SET>/<PMID>.bionlp)",
            source=str(root),
        )
    return {sub.name.upper(): read(sub) for sub in folders}


def load_side(spec: str, store: ReadableStore | None, *, texts: Mapping[str, str] | None = None) -> Side:
    """Annotations of a directory (:func:`load_directory`), or of set keys (comma-separated, wildcards) in the store.

    A store set lists every document of ``texts`` (default: the store's documents), those
    without annotations as empty.
    """
    if Path(spec).is_dir():
        return load_directory(spec, texts=texts)
    if store is None:
        raise ConfigError(f"{spec!r} is not a directory, and no store is given to look it up as a set key")

    # a set covers every document of the store: one without annotations is an empty gold document
    corpus = sorted(texts if texts is not None else document_texts(store))
    out: Side = {}
    for key in resolve_sets(store, spec.split(",")):
        docs: dict[str, list[Annotation]] = {d: [] for d in corpus}
        for a in fetch_annotations(store, key):
            docs.setdefault(a.document, []).append(a)
        out[key] = docs
    return out


def set_keys(spec: str, known: Iterable[str]) -> list[str]:
    """The set keys a side names: a Shared Task directory's subdirectories, or keys/wildcards.

    A folder of ``.bionlp`` files names none (its set is the other side's).
    """
    if Path(spec).is_dir():
        root = Path(spec)
        return [] if _bionlp_files(root) else [p.name for p in _set_folders(root)]
    keys = []
    for pattern in (x.strip() for x in spec.split(",") if x.strip()):
        hits = [k for k in known if fnmatch.fnmatchcase(k.lower(), pattern.lower())]
        if not hits:
            raise ConfigError(f"{pattern!r} is neither a directory nor a CRAFT annotation set key")
        keys.extend(hits)
    return keys


def check_against_texts(side: Side, texts: Mapping[str, str]) -> dict[str, int]:
    """Hold every annotation of ``side`` against its article's text; the text mismatches per set key.

    A span past the end of the text raises ValidationError naming the set, document and
    annotation. An annotation whose covered text (the BioNLP text column) differs from what
    its offsets cover (pieces joined by ``" ... "`` as CRAFT writes them, or by a space as
    plain brat does) is counted, and each set with such annotations gives one
    :class:`~craftrdf.core.errors.DataWarning` with the count and the first of them: the
    official scorer scores by offsets and never reads that column, and so does craftrdf.
    Documents missing from ``texts`` are not checked.
    """
    counts: dict[str, int] = {}
    for key, docs in side.items():
        first: str | None = None
        n = 0
        for doc in sorted(docs):
            text = texts.get(doc)
            if text is None:
                continue
            for a in docs[doc]:
                for span in a.spans:
                    if span.end > len(text):
                        raise ValidationError(
                            f"span [{span.start}, {span.end}) ends past the end of the article "
                            f"({len(text)} characters)",
                            source=f"{key}/{doc}",
                            element=f"annotation {a.id}",
                        )
                problem = text_problem(a, text, brat_joins=True)
                if problem is not None:
                    n += 1
                    first = first or f"{doc} {a.id}: {problem}"
        counts[key] = n
        if n:
            warnings.warn(
                f"set {key}: {n} annotation(s) whose text column differs from the article (first: {first}); "
                "scored by their offsets, as the official scorer does",
                DataWarning,
                stacklevel=2,
            )
    return counts
