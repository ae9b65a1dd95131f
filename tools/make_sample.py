"""Maintainer script: cut the bundled demo sample out of a full CRAFT directory.

    python tools/make_sample.py ../shared/craft craftrdf/sample/craft

Keeps three articles (one per split), every annotation set's files for them, the
mapping-file lines that mention classes those annotations use, and for each ontology
file present only the stanzas of used classes, their is_a / relationship ancestors,
and all [Typedef] stanzas, copied verbatim so the sample exercises the real syntax.
"""

from __future__ import annotations

import io
import re
import shutil
import sys
import zipfile
from pathlib import Path

DOCS = {"11597317": "train", "17244351": "dev", "11319941": "test"}
CLASS_ID = re.compile(r'(?:mentionClass|class) id="([^"]+)"')
PARENT = re.compile(r"^(?:is_a|relationship: \S+|intersection_of: \S+|intersection_of:)\s*:?\s*(\S+)", re.M)


def obo_text(path: Path) -> str:
    with zipfile.ZipFile(path) as z:
        name = next(n for n in z.namelist() if n.endswith(".obo") and not n.startswith("__MACOSX"))
        return z.read(name).decode("utf-8")


def cut_obo(text: str, used: set[str]) -> str:
    chunks = re.split(r"\n(?=\[)", text)
    header, stanzas = chunks[0], chunks[1:]
    by_id: dict[str, str] = {}
    typedefs = []
    for st in stanzas:
        m = re.search(r"^id: (\S+)", st, re.M)
        if st.startswith("[Typedef]"):
            typedefs.append(st)
        elif st.startswith("[Term]") and m:
            by_id[m.group(1)] = st
    keep: set[str] = set()
    todo = [u for u in used if u in by_id]
    while todo:
        c = todo.pop()
        if c in keep:
            continue
        keep.add(c)
        for line in by_id[c].splitlines():
            if line.startswith("is_a:"):
                todo.append(line.split()[1])
            elif line.startswith("relationship:"):
                parts = line.split()
                if len(parts) >= 3:
                    todo.append(parts[2])
        todo = [t for t in todo if t in by_id]
    body = [by_id[c] for c in by_id if c in keep] + typedefs
    return header.rstrip("\n") + "\n\n" + "\n".join(s.rstrip("\n") + "\n" for s in body)


def main(src: Path, dst: Path) -> None:
    if dst.exists():
        shutil.rmtree(dst)
    (dst / "articles" / "txt").mkdir(parents=True)
    (dst / "articles" / "ids").mkdir(parents=True)
    for pmid in DOCS:
        shutil.copy(src / "articles" / "txt" / f"{pmid}.txt", dst / "articles" / "txt")
    for split in ("train", "dev", "test"):
        ids = [p for p, s in DOCS.items() if s == split]
        (dst / "articles" / "ids" / f"craft-ids-{split}.txt").write_text("".join(f"{p}\n" for p in ids))
    mapping = (src / "articles" / "ids" / "craft-idmappings.txt").read_text().splitlines(keepends=True)
    (dst / "articles" / "ids" / "craft-idmappings.txt").write_text(
        "".join(line for line in mapping if line.startswith("#") or line.rstrip().split("\t")[-1] in DOCS)
    )
    shutil.copy(src / "LICENSE.txt", dst / "LICENSE.txt")
    ca_src, ca_dst = src / "concept-annotation", dst / "concept-annotation"
    for folder in sorted(p for p in ca_src.glob("*/*") if p.is_dir()):
        rel = folder.relative_to(ca_src)
        used: set[str] = set()
        for sub in ("knowtator", "knowtator-2"):
            if not (folder / sub).is_dir():
                continue
            (ca_dst / rel / sub).mkdir(parents=True, exist_ok=True)
            for pmid in DOCS:
                for f in (folder / sub).glob(f"{pmid}.*"):
                    shutil.copy(f, ca_dst / rel / sub)
                    used.update(CLASS_ID.findall(f.read_text(encoding="utf-8")))
        used |= {u.replace("http://purl.obolibrary.org/obo/", "").replace("_", ":", 1) for u in used}
        for f in folder.glob("*.txt"):
            lines = f.read_text(encoding="utf-8").splitlines(keepends=True)
            kept = [line for line in lines if set(line.split()) & used]
            (ca_dst / rel).mkdir(parents=True, exist_ok=True)
            (ca_dst / rel / f.name).write_text("".join(kept), encoding="utf-8")
            used |= {t for line in kept for t in line.split()}
        for z in folder.glob("*.obo.zip"):
            cut = cut_obo(obo_text(z), used)
            buf = io.BytesIO()
            with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as out:
                out.writestr(z.name[: -len(".zip")], cut)
            (ca_dst / rel / z.name).write_bytes(buf.getvalue())
    (dst / "README.md").write_text(
        "# craftrdf demo sample\n\n"
        "Cut from the CRAFT corpus v5.0.2 (github.com/UCDenver-ccp/CRAFT) by tools/make_sample.py:\n"
        f"articles {', '.join(f'{p} ({s})' for p, s in DOCS.items())}, their concept annotations in every set,\n"
        "the mapping-file lines about classes they use, and the stanzas of those classes and their ancestors\n"
        "from the ontology files CRAFT ships (UBERON, CL, SO, MOP, GO_MF stub).\n\n"
        "Licences: CRAFT annotations CC BY 3.0 (LICENSE.txt); article texts from the PubMed Central Open Access\n"
        "subset under their own open licences; UBERON, CL, SO, MOP and GO are CC BY (3.0 or 4.0) ontologies.\n"
    )


if __name__ == "__main__":
    main(Path(sys.argv[1]), Path(sys.argv[2]))
