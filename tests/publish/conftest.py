"""Fixtures of the publish tests: an independent reader of the sample's raw files (the sample store is tests/conftest.py's, one per module)."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from dataclasses import dataclass
from pathlib import Path

import pytest

from craftrdf.demo import sample_dir


@dataclass(frozen=True)
class RawAnnotation:
    """One annotation as a Knowtator file has it: mention id, class, spans in file order, covered text."""

    id: str
    cls: str
    spans: tuple[tuple[int, int], ...]
    text: str | None


def read_raw_knowtator(path: Path) -> list[RawAnnotation]:
    """Annotations of a (trusted) CRAFT Knowtator file, read with ElementTree, not with craftrdf."""
    root = ET.parse(path).getroot()
    classes = {cm.get("id"): cm.find("mentionClass").get("id") for cm in root.iter("classMention")}
    out = []
    for a in root.iter("annotation"):
        mention = a.find("mention").get("id")
        spans = tuple((int(s.get("start")), int(s.get("end"))) for s in a.findall("span"))
        text = a.find("spannedText")
        out.append(RawAnnotation(mention, classes[mention], spans, text.text if text is not None else None))
    return out


def raw_set(folder: str) -> dict[str, list[RawAnnotation]]:
    """PMID -> raw annotations, for one knowtator folder of the bundled sample (e.g. "UBERON/UBERON+extensions")."""
    base = sample_dir() / "concept-annotation" / folder / "knowtator"
    return {p.name.split(".")[0]: read_raw_knowtator(p) for p in sorted(base.glob("*.knowtator.xml"))}


def article_text(pmid: str) -> str:
    return (sample_dir() / "articles" / "txt" / f"{pmid}.txt").read_text(encoding="utf-8")


@pytest.fixture(scope="session")
def raw() -> object:
    """The raw-file readers, for tests: ``raw.set(folder)``, ``raw.text(pmid)``, ``raw.knowtator(path)``."""

    class Raw:
        set = staticmethod(raw_set)
        text = staticmethod(article_text)
        knowtator = staticmethod(read_raw_knowtator)

    return Raw()


