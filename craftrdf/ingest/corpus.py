"""The documents of a CRAFT distribution: texts, PubMed/PMC ids and splits."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from ..core.errors import InputError
from ..core.model import Document

SPLITS = ("train", "dev", "test")


def _read_ids(path: Path) -> list[str]:
    ids = []
    with open(path, encoding="utf-8") as fh:
        for n, line in enumerate(fh, 1):
            value = line.strip()
            if not value or value.startswith("#"):
                continue
            if not value.isdigit():
                raise InputError(f"expected a PubMed id, found {value!r}", source=str(path), line=n)
            ids.append(value)
    return ids


def read_splits(craft_dir: Path) -> dict[str, str]:
    """PMID -> split name, from ``articles/ids/craft-ids-{train,dev,test}.txt`` (absent files skipped).

    A PMID listed in two splits is an error.
    """
    split_of: dict[str, str] = {}
    for split in SPLITS:
        path = craft_dir / "articles" / "ids" / f"craft-ids-{split}.txt"
        if not path.is_file():
            continue
        for pmid in _read_ids(path):
            if pmid in split_of:
                raise InputError(f"PMID {pmid} is in both {split_of[pmid]} and {split}", source=str(path))
            split_of[pmid] = split
    return split_of


def read_pmcids(craft_dir: Path) -> dict[str, str]:
    """PMID -> PMCID from ``articles/ids/craft-idmappings.txt`` (file name, PMCID, PMID)."""
    path = craft_dir / "articles" / "ids" / "craft-idmappings.txt"
    out: dict[str, str] = {}
    if not path.is_file():
        return out
    with open(path, encoding="utf-8") as fh:
        for n, line in enumerate(fh, 1):
            if not line.strip() or line.startswith("#"):
                continue
            fields = line.rstrip("\r\n").split("\t")
            if len(fields) != 3 or not fields[1].startswith("PMC") or not fields[2].strip().isdigit():
                raise InputError("expected FILE<TAB>PMCID<TAB>PMID", source=str(path), line=n)
            out[fields[2].strip()] = fields[1].strip()
    return out


def read_documents(craft_dir: Path, pmids: Iterable[str] | None = None) -> list[Document]:
    """The articles of a CRAFT directory (all, or the given PMIDs), sorted by PMID.

    Texts are read as UTF-8, exactly (annotation offsets index their characters).
    """
    txt = craft_dir / "articles" / "txt"
    if not txt.is_dir():
        raise InputError("no articles/txt folder: is this a CRAFT directory?", source=str(craft_dir))
    splits = read_splits(craft_dir)
    pmcids = read_pmcids(craft_dir)
    wanted = sorted(pmids) if pmids is not None else sorted(p.stem for p in txt.glob("*.txt"))
    docs = []
    for pmid in wanted:
        path = txt / f"{pmid}.txt"
        try:
            text = path.read_text(encoding="utf-8")
        except FileNotFoundError:
            raise InputError(f"article text of PMID {pmid} is missing", source=str(path)) from None
        except UnicodeDecodeError as exc:
            raise InputError(f"not UTF-8 at byte {exc.start}", source=str(path)) from None
        docs.append(Document(pmid=pmid, text=text, pmcid=pmcids.get(pmid), split=splits.get(pmid)))
    return docs
