"""A copy of CRAFT with the test split's texts and gold scrambled: what no model trained on train+dev may see."""

from __future__ import annotations

import random
import shutil
import string
import xml.etree.ElementTree as ET
from pathlib import Path


def _letters(seed: int) -> dict[int, str]:
    """A letter-for-letter substitution (case kept): lengths unchanged, so every span stays in the text."""
    rng = random.Random(seed)
    low = list(string.ascii_lowercase)
    rng.shuffle(low)
    table = dict(zip(string.ascii_lowercase, low)) | dict(zip(string.ascii_uppercase, (c.upper() for c in low)))
    return str.maketrans(table)


def scrambled_copy(craft: Path, out: Path, sets: list[str], seed: int = 7) -> list[str]:
    """Copy ``craft`` (the articles and the concept annotations of ``sets``) to ``out``; scramble the test split.

    Each test article's letters are substituted, and each of its gold annotations gets the class of
    another annotation of the same set (classes rotated over the whole test split), its spanned text
    re-read from the scrambled article. Returns the test ids.
    """
    test = (craft / "articles/ids/craft-ids-test.txt").read_text().split()
    shutil.copytree(craft / "articles/ids", out / "articles/ids")
    (out / "articles/txt").mkdir(parents=True)
    table = _letters(seed)
    texts: dict[str, str] = {}
    for f in sorted((craft / "articles/txt").glob("*.txt")):
        pmid = f.name.split(".")[0]
        if pmid in test:
            texts[pmid] = f.read_text(encoding="utf-8").translate(table)
            (out / "articles/txt" / f.name).write_text(texts[pmid], encoding="utf-8")
        else:
            shutil.copy(f, out / "articles/txt" / f.name)
    for key in sets:
        src, dst = craft / "concept-annotation" / key, out / "concept-annotation" / key
        shutil.copytree(src, dst, ignore=shutil.ignore_patterns("knowtator"))
        for folder in sorted(src.glob("*/knowtator")):
            target = dst / folder.relative_to(src)
            target.mkdir(parents=True)
            classes = []
            trees = {}
            for f in sorted(folder.glob("*.xml")):
                pmid = f.name.split(".")[0]
                if pmid not in test:
                    shutil.copy(f, target / f.name)
                    continue
                trees[f.name] = (pmid, ET.parse(f))
                classes += [m.get("id") for m in trees[f.name][1].getroot().iter("mentionClass")]
            rotated = iter(classes[1:] + classes[:1])
            for name, (pmid, tree) in trees.items():
                root = tree.getroot()
                for m in root.iter("mentionClass"):
                    m.set("id", next(rotated))
                for a in root.iter("annotation"):
                    spans = [(int(s.get("start")), int(s.get("end"))) for s in a.iter("span")]
                    st = a.find("spannedText")
                    if st is not None and spans:
                        st.text = " ... ".join(texts[pmid][s:e] for s, e in spans)
                tree.write(target / name, encoding="UTF-8", xml_declaration=True)
    return test
