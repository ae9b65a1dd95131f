"""Write docs/guide.md and docs/queries.md by running every command and Python cell they show.

    python tools/make_guide.py            # rewrite both pages (about two minutes)
    python tools/make_guide.py --check    # run the commands, fail if the pages would change

The guide's commands run on the bundled sample in a scratch directory, so their output
is real and the same on every machine (timings aside: lines with seconds are
normalised). The guide ends with a notebook-style Python session (:data:`NOTEBOOK`): its
cells run in one namespace, in this process, after the commands, and a cell's output is
what it prints plus, as in a notebook, the value of its last expression. docs/queries.md is
generated from the header comments of querying/queries/*.rq.
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import io
import os
import pprint
import re
import shlex
import subprocess
import sys
import tempfile
import warnings
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
SAMPLE = REPO / "craftrdf" / "sample" / "craft"

#: (heading, prose, command, lines of output kept: the first N, or the first and the last (N, M)).
#: ``$SAMPLE`` is the bundled sample.
STEPS: list[tuple[str, str, str, int | tuple[int, int]]] = [
    (
        "Install and try it",
        "One command installs craftrdf and runs the demo: the bundled sample (three CRAFT articles, all "
        "their annotation sets and the ontology files that fit) is built into an in-memory store and "
        "queried; then the classes most similar to brain are listed, the dictionary matcher annotates "
        "the three articles and is scored against their gold annotations as the CRAFT Shared Task did, and "
        "one gold set is written as W3C Web Annotation JSON-LD into the `--out` folder (a new temporary "
        "folder without it). It ends with the next steps.",
        "craftrdf demo --out demo",
        (12, 22),
    ),
    (
        "Build a store",
        "`build` reads a CRAFT directory (a clone of UCDenver-ccp/CRAFT, or the sample) into a persistent "
        "store. Ontology files that are absent are skipped and named. Re-running adds nothing.",
        "craftrdf -q build --craft $SAMPLE --store craft.store",
        30,
    ),
    (
        "Query the annotations",
        "Every query of the library (`querying/queries/*.rq`, listed in [queries.md](queries.md)) runs by name; "
        "`--param` binds a variable, never pasting text into the query.",
        "craftrdf query annotation-counts --store craft.store --param set=UBERON_EXT --format table",
        20,
    ),
    (
        "",
        "Annotations of a class and all its subclasses, in every set:",
        "craftrdf query annotations-of-class --store craft.store --param cls=UBERON:0000955 --format csv",
        12,
    ),
    (
        "Views: proper or extension classes, outermost or nested annotations",
        "The Uberon paper's four annotation sets are views; nesting is decided across the chosen sets.",
        "craftrdf view --store craft.store --sets '*_EXT' --classes proper --nesting outermost --format count",
        30,
    ),
    (
        "Semantic similarity",
        "Wang similarity over the ontology graph in the store (is_a 0.8, part_of 0.6 by default; "
        "`--method bossy` is the Shared Task's variant):",
        "craftrdf similarity UBERON:0000955 UBERON:0001017 --store craft.store",
        10,
    ),
    (
        "",
        "The most similar classes to a class:",
        "craftrdf similarity --store craft.store --top-k 5 UBERON:0000955",
        12,
    ),
    (
        "Run the dictionary matcher",
        "A ConceptMapper-like matcher with its seven parameters, here on the sample's test article:",
        "craftrdf annotate --store craft.store --set UBERON_EXT $SAMPLE --split test --out run/UBERON_EXT",
        12,
    ),
    (
        "Score it as the CRAFT Shared Task did",
        "Slot error rate with Jaccard boundaries and Wang similarity, plus the NER matching criteria:",
        "craftrdf evaluate --gold UBERON_EXT --pred run/ --store craft.store --criteria exact,partial --out scores/",
        20,
    ),
    (
        "Sweep the matcher's parameters",
        "Every configuration of a grid (`all` = 576), scored against gold; resumable; `--workers` or "
        "`--scheduler` for more cores or a Dask cluster.",
        "craftrdf -q sweep --store craft.store --set UBERON --split train,dev --grid quick --workers 1 --out sweep/",
        20,
    ),
    (
        "Export",
        "RDF dumps, Web Annotation JSON-LD, PubAnnotation JSON and BioNLP standoff:",
        "craftrdf export --store craft.store --set UBERON_EXT --format pubannotation --out uberon_ext.json",
        10,
    ),
    (
        "Reproduce the papers' tables",
        "One command rebuilds the corpus papers' tables from a store and writes `report.md` with figures; "
        "`--quick` uses a reduced grid. On the sample the numbers are small, of course; the report of the "
        "full corpus is [reproduce.md](reproduce.md).",
        "craftrdf -q reproduce --craft $SAMPLE --out report/ --store craft.store --quick",
        10,
    ),
]

#: The notebook session at the end of the guide: (prose, cell). Only names of ``import craftrdf``
#: (the README says it calls load, view, annotate, sweep, train, export and serve; tests/test_guide.py checks).
NOTEBOOK: list[tuple[str, str]] = [
    (
        "A writer (one at a time: it holds the store's lock) adds the matcher's BioNLP files of the `annotate` "
        "step above as a set, and takes a view: the outermost annotations of two sets together (a writer "
        "brings the nesting links the view reads up to date after the load).",
        """import craftrdf

with craftrdf.open("craft.store", mode="write") as store:
    loaded = craftrdf.load(store, ["run/UBERON_EXT"], set_key="MATCHER").loaded
    outermost = craftrdf.view(store, ["UBERON_EXT", "CL_EXT"], nesting="outermost")
print(loaded)
print(len(outermost), "outermost annotations; the first:")
outermost[0]""",
    ),
    (
        "Open the store again for reading (readers share it) and run a library query with a bound parameter; "
        "`records()` gives each row as `{column: Python value}`, counts as `int`.",
        """store = craftrdf.open("craft.store")
counts = craftrdf.query(store, "annotation-counts", set="UBERON_EXT")
counts.records()[:3]""",
    ),
    (
        "`strings` gives chosen columns as text (an unbound cell is an error there, not a `None` to test for):",
        """craftrdf.query(store, "sets").strings("set", "annotations")[:4]""",
    ),
    (
        "A similarity matrix: Wang similarity (is_a 0.8, part_of 0.6) of every pair of some classes, as numpy.",
        """index = craftrdf.similarity_index(store)
terms = ["UBERON:0000955", "UBERON:0001017", "UBERON:0000454", "UBERON:0002616"]
print([index.labels.get(t) for t in terms])
index.matrix(terms).round(3)""",
    ),
    (
        "The dictionary matcher on any text, with the names of a set's ontology (default configuration):",
        """text = "The granule cell layer of the dentate gyrus lies below the molecular layer of the brain."
found = craftrdf.annotate(store, "UBERON_EXT", {"s1": text})
[(a.class_id, a.spans[0].start, a.spans[0].end, a.text) for a in found["s1"]]""",
    ),
    (
        "An evaluation table: the matcher's output of the `annotate` step above scored against the gold set, "
        "the Shared Task's slot error rate and the NER criteria (exact classes).",
        """(report,) = craftrdf.evaluate(store, "UBERON_EXT", "run/")
total = report.total
print(f"{report.key}: SER {total.ser:.3f}, P {total.precision:.3f}, R {total.recall:.3f}, F1 {total.f1:.3f}")
print(f"{'criterion':<14}{'TP':>5}{'ref':>6}{'pred':>6}{'P':>8}{'R':>8}{'F1':>8}")
for c in report.criteria:
    if c.classes == "exact":
        row = f"{c.criterion:<14}{c.tp:>5}{c.ref_count:>6}{c.pred_count:>6}"
        print(f"{row}{c.precision:>8.3f}{c.recall:>8.3f}{c.f1:>8.3f}")""",
    ),
    (
        "The sweep of the command above, from Python, into the same folder: `results.csv` already holds "
        "every configuration of the grid, so it resumes with nothing left to run and reports the best.",
        """swept = craftrdf.sweep(store, "UBERON", "sweep/", grid="quick", split="train,dev")
best = swept.best["f1"]
print(best.config.label())
{"tp": best.tp, "fp": best.fp, "fn": best.fn, "SER": round(best.ser, 3)}""",
    ),
    (
        "A matcher learned from gold (`quick`: a reduced selection; UBERON_EXT has two training and development "
        "documents in the sample, so the figures only show the shape of the report); `craftrdf annotate "
        "--model models/UBERON_EXT` applies it.",
        """trained = craftrdf.train(store, "UBERON_EXT", "models/UBERON_EXT", quick=True)
print(trained.selection.config.label())
{"documents": trained.documents, "gold": trained.gold, "cv SER": round(trained.selection.cv_ser, 3)}""",
    ),
    (
        "Export a set as W3C Web Annotation JSON-LD (the context is in the file: any JSON-LD processor reads it "
        "without a network) and read its first annotation back:",
        """import json

exported = craftrdf.export(store, "UBERON_EXT", "uberon_ext.jsonld", format="jsonld")
store.close()
with open(exported.out, encoding="utf-8") as fh:
    collection = json.load(fh)
print(collection["type"], collection["total"])
collection["first"]["items"][0]""",
    ),
    (
        "Serve the store (the `server` extra) from a child process, query it over HTTP as any SPARQL endpoint, "
        "and stop it. `craftrdf.serve` runs until interrupted, as `craftrdf serve` does; a notebook keeps it "
        "in a process of its own.",
        """import multiprocessing
import socket
import time

with socket.socket() as s:  # a free port
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
server = multiprocessing.Process(target=craftrdf.serve, args=("craft.store",), kwargs={"port": port, "workers": 1})
server.start()
for _ in range(150):  # until it answers
    try:
        remote = craftrdf.open(f"http://127.0.0.1:{port}/sparql")
        print(craftrdf.query(remote, "annotation-counts", set="UBERON_EXT").records()[:1])
        break
    except craftrdf.CraftrdfError:
        time.sleep(0.2)
server.terminate()
server.join()""",
    ),
]

_SECONDS = re.compile(r"\b\d+(\.\d+)? ?(s|ms|seconds)\b")


def run(command: str, cwd: Path) -> str:
    """Run one guide command; its combined output, timings normalised. Exits on failure."""
    argv = [sys.executable, "-m", "craftrdf", *shlex.split(command.replace("$SAMPLE", str(SAMPLE)))[1:]]
    env = dict(os.environ, PYTHONWARNINGS="ignore", COLUMNS="100")
    proc = subprocess.run(argv, cwd=cwd, capture_output=True, text=True, env=env, timeout=900)
    if proc.returncode != 0:
        sys.exit(f"guide command failed ({proc.returncode}): {command}\n{proc.stderr}")
    out = (proc.stdout + proc.stderr).replace(str(cwd), ".").replace(str(SAMPLE), "$SAMPLE")
    return _SECONDS.sub("<time>", out).rstrip()


def run_cells(cells: list[str], cwd: Path) -> list[str]:
    """Run notebook cells in one namespace, in ``cwd``; each cell's output (prints, then its last value)."""
    namespace: dict[str, object] = {"__name__": "__guide__"}
    outputs = []
    old = Path.cwd()
    os.chdir(cwd)
    try:
        for cell in cells:
            tree = ast.parse(cell)
            end = tree.body[-1] if tree.body else None
            last = end if isinstance(end, ast.Expr) else None
            if last is not None:
                tree.body.pop()
            buf = io.StringIO()
            with contextlib.redirect_stdout(buf), warnings.catch_warnings():
                warnings.simplefilter("ignore")
                exec(compile(tree, "<guide>", "exec"), namespace)
                if last is not None:
                    value = eval(compile(ast.Expression(last.value), "<guide>", "eval"), namespace)
                    if value is not None:
                        print(value if hasattr(value, "shape") else pprint.pformat(value, width=100, sort_dicts=False))
            outputs.append(_SECONDS.sub("<time>", buf.getvalue().replace(str(cwd), ".")).rstrip())
    finally:
        os.chdir(old)
    return outputs


def guide(cwd: Path) -> str:
    """The whole guide page."""
    parts = [
        "# craftrdf user guide",
        "",
        "Every command below was run by `tools/make_guide.py` on the bundled sample (three CRAFT articles); "
        "the output shown is what it printed, with timings replaced by `<time>`. `$SAMPLE` stands for "
        "the sample's directory (`craftrdf/sample/craft` in the source tree); use `../shared/craft` or a "
        "clone of the CRAFT repository for the real thing.",
        "",
        "Set up: `pip install .` (Python ≥ 3.11). The RDF model is described in [rdf-model.md](rdf-model.md), "
        "the query library in [queries.md](queries.md).",
        "",
    ]
    for heading, prose, command, keep in STEPS:
        if heading:
            parts += [f"## {heading}", ""]
        out = run(command, cwd).splitlines()
        head, tail = keep if isinstance(keep, tuple) else (keep, 0)
        if len(out) > head + tail:
            shown = [*out[:head], f"... ({len(out) - head - tail} more lines)", *out[len(out) - tail :]]
        else:
            shown = out
        parts += [prose, "", "```console", f"$ {command}", *shown, "```", ""]
    parts += [
        "## From Python: a notebook session",
        "",
        "The same store from Python, with only the names of `import craftrdf` (its `__all__`). Each cell "
        "is followed by its output, as a notebook shows it.",
        "",
    ]
    # the cells are written as ruff formats them: `ruff format` checks Python blocks in Markdown too
    for (prose, cell), printed in zip(NOTEBOOK, run_cells([c for _, c in NOTEBOOK], cwd)):
        parts += [prose, "", "```python", cell, "```", ""]
        if printed:
            parts += ["```text", printed, "```", ""]
    parts += [
        "## More",
        "",
        "- Serve the store as linked data (SPARQL 1.1 endpoint, dereferenceable IRIs, the article viewer): "
        "`craftrdf serve --store craft.store`, see [server.md](server.md) and [viewer.md](viewer.md).",
        "- Work against a store someone else runs: `--endpoint URL` on every read command, see [remote.md](remote.md).",
        "- The matcher ([matcher.md](matcher.md)), sweeps ([sweep.md](sweep.md)), similarity "
        "([similarity.md](similarity.md)), evaluation ([evaluation.md](evaluation.md)), views and CRAFT's "
        "post-processing rules ([views.md](views.md)), exports ([exports.md](exports.md)), and every "
        "benchmark with its command ([benchmarks.md](benchmarks.md)).",
        "",
    ]
    return "\n".join(parts)


def queries_page() -> str:
    """docs/queries.md from the header comments of querying/queries/*.rq."""
    parts = [
        "# The query library",
        "",
        "Generated by `tools/make_guide.py` from the header comment of each file in `craftrdf/querying/queries/`. "
        "Run one with "
        "`craftrdf query NAME --store S [--param VAR=VALUE]`, or from Python with "
        "`craftrdf.query(store, NAME, VAR=VALUE)`. Parameters are bound as values "
        "(`Store.query(substitutions=...)`), never pasted into the text. A library query's `?set` is a set key "
        "resolved as every command resolves one (any case; an unknown key is an error listing the store's sets, "
        "not an empty table). The RDF the queries read is described in [rdf-model.md](rdf-model.md).",
        "",
    ]
    headers: dict[bool, list[tuple[str, list[str]]]] = {False: [], True: []}
    for path in sorted((REPO / "craftrdf" / "querying" / "queries").glob("*.rq")):
        header = []
        for line in path.read_text(encoding="utf-8").splitlines():
            if not line.startswith("#"):
                break
            header.append(line[1:].removeprefix(" "))
        headers[any(h.startswith("Internal:") for h in header)].append((path.stem, header))
    sections = [
        (False, "Queries for users", "What `craftrdf query --list` shows."),
        (
            True,
            "Internal queries",
            "Run by craftrdf's own commands (each header says which); `craftrdf query --list --all` shows them "
            "too. They run by hand like the others, but their columns serve their caller.",
        ),
    ]
    for internal, title, intro in sections:
        parts += [f"## {title}", "", intro, ""]
        for name, header in headers[internal]:
            parts += [f"### `{name}`", "", "```text", *header, "```", ""]
    return "\n".join(parts)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--check", action="store_true", help="fail if docs/guide.md or docs/queries.md would change")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        pages = {REPO / "docs" / "guide.md": guide(Path(tmp)), REPO / "docs" / "queries.md": queries_page()}
    stale = [p for p, text in pages.items() if not p.is_file() or p.read_text(encoding="utf-8") != text + "\n"]
    if args.check:
        if stale:
            sys.exit(
                "out of date: "
                + ", ".join(str(p.relative_to(REPO)) for p in stale)
                + " (run python tools/make_guide.py)"
            )
        return
    for p, text in pages.items():
        p.write_text(text + "\n", encoding="utf-8")
        print(f"wrote {p.relative_to(REPO)}")


if __name__ == "__main__":
    main()
