"""The bundled sample: as a store (in memory or on disk), and read from its raw files without craftrdf."""

from __future__ import annotations

import warnings
import xml.etree.ElementTree as ET
import zipfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from craftrdf.apps.demo import sample_dir
from craftrdf.building.builder import build_store
from craftrdf.core.context import RunContext
from craftrdf.core.errors import DataWarning
from craftrdf.store.local import AnnotationStore

SAMPLE_PMIDS = ("11319941", "11597317", "17244351")


def sample_store(path: Path | None = None, *, sets: Sequence[str] | None = None) -> AnnotationStore:
    """The bundled sample built into a new store: in memory, or on disk at ``path`` (then closed, so no
    writer is left; reopen it with ``AnnotationStore.open``). ``sets`` limits the annotation sets built."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DataWarning)
        if path is None:
            store = AnnotationStore.memory()
            build_store(sample_dir(), store, RunContext.create(), sets=sets)
            return store
        with AnnotationStore.open(path) as store:
            build_store(sample_dir(), store, RunContext.create(), sets=sets)
        return store


def sample_store_path(path: Path, *, sets: Sequence[str] | None = None) -> Path:
    """:func:`sample_store` on disk at ``path``; returns ``path``."""
    sample_store(path, sets=sets)
    return path


@dataclass(frozen=True)
class RawAnnotation:
    """One annotation as a Knowtator file has it: mention id, class, spans in file order, covered text, annotator."""

    id: str
    cls: str
    spans: tuple[tuple[int, int], ...]
    text: str | None
    annotator: str | None = None


def read_raw_knowtator(path: Path) -> list[RawAnnotation]:
    """Annotations of a (trusted) CRAFT Knowtator file, read with ElementTree, not with craftrdf."""
    root = ET.parse(path).getroot()
    classes = {cm.get("id"): cm.find("mentionClass").get("id") for cm in root.iter("classMention")}  # type: ignore[union-attr]
    out = []
    for a in root.iter("annotation"):
        mention = a.find("mention").get("id")  # type: ignore[union-attr]
        spans = tuple((int(s.get("start")), int(s.get("end"))) for s in a.findall("span"))  # type: ignore[arg-type]
        text = a.find("spannedText")
        annotator = a.find("annotator")
        out.append(
            RawAnnotation(
                str(mention),
                str(classes[mention]),
                spans,
                text.text if text is not None else None,
                annotator.text if annotator is not None else None,
            )
        )
    return out


def raw_set(folder: str) -> dict[str, list[RawAnnotation]]:
    """PMID -> raw annotations, for one knowtator folder of the bundled sample (e.g. "UBERON/UBERON+extensions")."""
    base = sample_dir() / "concept-annotation" / folder / "knowtator"
    return {p.name.split(".")[0]: read_raw_knowtator(p) for p in sorted(base.glob("*.knowtator.xml"))}


def article_text(pmid: str) -> str:
    """The sample article's text, read from its file."""
    return (sample_dir() / "articles" / "txt" / f"{pmid}.txt").read_text(encoding="utf-8")


def read_obo(module_folder: str) -> dict[str, dict[str, list[str]]]:
    """id -> tag -> values for every [Term] of a sample OBO file, read from its zip without craftrdf."""
    (zpath,) = (sample_dir() / "concept-annotation" / module_folder).glob("*.obo.zip")
    with zipfile.ZipFile(zpath) as z:
        text = z.read(z.namelist()[0]).decode("utf-8")
    terms: dict[str, dict[str, list[str]]] = {}
    for block in text.split("\n\n"):
        lines = block.strip().splitlines()
        if not lines or lines[0] != "[Term]":
            continue
        tags: dict[str, list[str]] = {}
        for line in lines[1:]:
            tag, _, value = line.partition(": ")
            tags.setdefault(tag, []).append(value)
        terms[tags["id"][0]] = tags
    return terms


def obo_is_a_parents(tags: dict[str, list[str]]) -> set[str]:
    """A stanza's is_a targets and intersection_of genus classes (a line with one class and no relation)."""
    out = {v.split(" !")[0].split()[0] for v in tags.get("is_a", [])}
    out |= {v.split(" !")[0].strip() for v in tags.get("intersection_of", []) if len(v.split(" !")[0].split()) == 1}
    return out


def obo_is_a_closure(raw: dict[str, dict[str, list[str]]], start: str) -> set[str]:
    """Every class of ``raw`` (a :func:`read_obo` result) above ``start`` over is_a and genus lines, ``start`` excluded."""
    seen: set[str] = set()
    todo = [start]
    while todo:
        for p in obo_is_a_parents(raw.get(todo.pop(), {})):
            if p not in seen and p in raw:
                seen.add(p)
                todo.append(p)
    return seen
