"""Files of document ids (``--ids FILE``): train on, annotate or score any list of documents, not only a split.

The format is CRAFT's own ``articles/ids/craft-ids-*.txt``: one id per line; blank lines and
lines starting with ``#`` are skipped. An id given twice, or one the documents at hand do not
have, is refused with one message naming the file and line, before anything is written.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from pathlib import Path
from typing import TypeVar

from ..core.errors import InputError

T = TypeVar("T")


def read_ids(path: Path, known: Collection[str]) -> list[str]:
    """The ids listed in ``path``, in file order; each must be one of ``known``.

    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "ids.txt"
    >>> _ = p.write_text("# mine\\n11532192\\n\\n17696610\\n")
    >>> read_ids(p, {"11532192", "17696610", "1"})
    ['11532192', '17696610']
    """
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(
            f"cannot read the ids file: {getattr(exc, 'strerror', None) or exc}", source=str(path)
        ) from None
    out: list[str] = []
    seen: dict[str, int] = {}
    for n, line in enumerate(lines, start=1):
        doc = line.strip()
        if not doc or doc.startswith("#"):
            continue
        if doc in seen:
            raise InputError(f"document {doc} is listed twice (first on line {seen[doc]})", source=str(path), line=n)
        if doc not in known:
            raise InputError(
                f"unknown document {doc!r}: not among the {len(known)} documents at hand", source=str(path), line=n
            )
        seen[doc] = n
        out.append(doc)
    if not out:
        raise InputError("no document id in the file", source=str(path))
    return out


def only_documents(side: Mapping[str, Mapping[str, T]], path: Path) -> dict[str, dict[str, T]]:
    """An evaluation side (set key -> document -> annotations) kept to the documents listed in ``path``.

    Every listed id must be a document of the side (InputError naming the file and line otherwise).
    """
    wanted = set(read_ids(path, {d for docs in side.values() for d in docs}))
    return {key: {d: anns for d, anns in docs.items() if d in wanted} for key, docs in side.items()}
