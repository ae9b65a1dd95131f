"""The README's commands on the bundled sample, from a virtualenv holding only ``pip install .`` (no extras).

``.ci/run`` makes that virtualenv and runs this script, from the repository's root, with any Python 3
(it uses the standard library only)::

    python -m tests.smoke.base_install --venv .venv-base [--oxigraph PATH] [--virtuoso PATH]

Each command must exit 0, or, when it needs an extra, exit 1 with one line on stderr naming that
extra; a traceback, another exit status or a timeout fails. The sample is the one installed
from the wheel, the commands run in a temporary directory with a fresh HOME and XDG_CACHE_HOME
(a cold cache, and the user's left alone). With ``--oxigraph`` (the ``oxigraph`` server the
test extra installs elsewhere) the remote commands build into and query an Oxigraph server; with
``--virtuoso`` (Debian's ``virtuoso-t``) they build into a Virtuoso 7 of their own through its
Graph Store Protocol, and read it back.
Prints one line per command and a closing ``N passed, N failed``; exits 1 when any failed.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from tests.helpers.oxigraph import free_port, oxigraph_server
from tests.helpers.virtuoso import virtuoso_server

REPO = Path(__file__).resolve().parents[2]
TIMEOUT = 600  # seconds per command; reproduce --quick on the sample takes about 25 s


@dataclass(frozen=True)
class Step:
    """One command line; ``extra``: the extra it needs (None: it must succeed); ``check``: a look at the result."""

    args: tuple[str, ...]
    extra: str | None = None
    check: Callable[[Path, str], str | None] = field(default=lambda _work, _out: None)


def verdict(step: Step, code: int, stderr: str) -> str | None:
    """None when the command behaved as a base install must; else what went wrong, in a few words."""
    if "Traceback (most recent call last)" in stderr:
        return "a traceback: " + stderr.strip().splitlines()[-1][:200]
    if step.extra is None:
        return None if code == 0 else f"exit {code}: {stderr.strip()[-300:]}"
    lines = stderr.strip().splitlines()
    if code != 1 or len(lines) != 1:
        return (
            f"exit {code} with {len(lines)} lines on stderr, expected exit 1 and one line naming the {step.extra} extra"
        )
    return (
        None if f"craftrdf[{step.extra}]" in lines[0] else f"the error does not name the {step.extra} extra: {lines[0]}"
    )


def _has(*words: str) -> Callable[[Path, str], str | None]:
    return lambda _work, out: None if all(w in out for w in words) else f"the output lacks {words}"


def _exists(*paths: str) -> Callable[[Path, str], str | None]:
    def check(work: Path, _out: str) -> str | None:
        absent = [
            p for p in paths if not (work / p).exists() or ((work / p).is_file() and not (work / p).stat().st_size)
        ]
        return f"not written: {absent}" if absent else None

    return check


def cmd(*parts: str | Path) -> tuple[str, ...]:
    """A command line from words as the README writes them (split on spaces) and paths (kept whole)."""
    return tuple(w for part in parts for w in ([str(part)] if isinstance(part, Path) else part.split()))


def local_steps(sample: Path, obo: Path) -> list[Step]:
    """The README's Usage block (and the set-up's demo) against a store of the sample, in a work directory."""
    st = "--store craft.store"
    knowtator = sample / "concept-annotation" / "UBERON" / "UBERON" / "knowtator"
    return [
        Step(cmd("--version"), check=_has("craftrdf ")),
        Step(cmd("demo"), check=_has("annotation-counts")),
        Step(cmd("build --craft", sample, st), check=_exists("craft.store")),
        Step(cmd("query --list"), check=_has("annotation-counts")),
        Step(cmd("query annotation-counts", st, "--format csv"), check=_has("UBERON_EXT,test")),
        Step(cmd("query annotations-of-class", st, "--param cls=UBERON:0000955 --format table")),
        Step(cmd("query my.rq", st, "--param set=UBERON_EXT"), check=_has("UBERON_EXT")),
        Step(
            cmd("export", st, "--ontology UBERON+extensions --format owl --out other.owl"), check=_exists("other.owl")
        ),
        Step(cmd("load", obo, "other.owl", knowtator, st, "--set MINE")),
        Step(cmd("view", st, "--sets *_EXT --classes proper --nesting outermost --format count")),
        Step(cmd("view", st, "--sets UBERON_EXT,CL_EXT --nesting outermost --materialize CORE")),
        Step(cmd("postprocess", st, "--set MINE --mappings UBERON_EXT --rules substitute --into MINE_PP")),
        Step(
            cmd("export", st, "--set UBERON_EXT --format jsonld --out uberon_ext.jsonld"),
            check=_exists("uberon_ext.jsonld"),
        ),
        Step(cmd("similarity UBERON:0000955 UBERON:0002435", st)),
        Step(cmd("similarity UBERON:0000955 UBERON:0002435", st, "--classify-extensions")),
        Step(cmd("classify", st, "--ontology UBERON+extensions")),
        Step(cmd("classify", st, "--ontology UBERON+extensions --reasoner hermit"), extra="owl"),
        Step(
            cmd("annotate", st, "--set UBERON_EXT", sample, "--split test --out run/")
            + cmd("--param caseMatch=CASE_INSENSITIVE --param stemmer=PORTER"),
            check=_exists("run/11319941.bionlp"),
        ),
        Step(cmd("evaluate --gold UBERON_EXT --pred run/", st, "--out scores/"), check=_exists("scores")),
        Step(cmd("evaluate --gold UBERON_EXT --pred run/ --craft", sample, "--apply-craft-rules --out scores-craft/")),
        Step(cmd("annotate", st, "--set UBERON_EXT", sample, "--out stream/ --stream --into-store RUN")),
        Step(
            cmd("annotate", st, "--set UBERON_EXT", sample, "--out dask/ --stream --scheduler tcp://127.0.0.1:1"),
            extra="dask",
        ),
        Step(
            cmd("sweep", st, "--set UBERON --select-on train,dev --report-on test --term-filter --out sweep/"),
            check=_exists("sweep"),
        ),
        Step(cmd("sweep", st, "--set UBERON --out sweep-dask/ --scheduler tcp://127.0.0.1:1"), extra="dask"),
        Step(cmd("train", st, "--set GO_MF --on train,dev --out models/GO_MF/"), check=_exists("models/GO_MF")),
        Step(
            cmd("annotate", st, "--set GO_MF --model models/GO_MF/", sample, "--split test --out run/GO_MF"),
            check=_exists("run/GO_MF"),
        ),
        Step(cmd("serve", st, f"--port {free_port()}"), extra="server"),
        Step(cmd("reproduce --craft", sample, "--out report/ --quick"), check=_exists("report/report.md")),
    ]


def remote_steps(sample: Path, base: str) -> list[Step]:
    """Building into and reading from a SPARQL server (the Graph Store Protocol writes go through httpx)."""
    endpoint = f"--endpoint {base}/query"
    return [
        Step(cmd("build --craft", sample, endpoint, f"--graph-store {base}/store --sets UBERON_EXT")),
        Step(cmd("query annotation-counts", endpoint), check=_has("UBERON_EXT")),
    ]


def virtuoso_steps(sample: Path, endpoint: str, graph_store: str) -> list[Step]:
    """Building into Virtuoso 7 and reading it back, both ways of Wang included (no httpx traceback: issue 27)."""
    at = f"--endpoint {endpoint}"
    return [
        Step(cmd("build --craft", sample, at, f"--graph-store {graph_store} --sets UBERON_EXT")),
        Step(cmd("query annotation-counts", at), check=_has("UBERON_EXT")),
        Step(cmd("similarity UBERON:0000955 UBERON:0002435", at), check=_has("0.")),
        Step(cmd("similarity --materialize --ontology UBERON+extensions", at, f"--graph-store {graph_store}")),
    ]


def run(craftrdf: Path, steps: Sequence[Step], work: Path, env: dict[str, str]) -> list[str]:
    """Run each step in ``work``; prints one line per step; returns the failures."""
    failures = []
    for step in steps:
        t = time.perf_counter()
        try:
            r = subprocess.run(
                [str(craftrdf), "-q", *step.args],
                cwd=work,
                env=env,
                capture_output=True,
                text=True,
                timeout=TIMEOUT,
                check=False,
            )
            problem = verdict(step, r.returncode, r.stderr) or (step.check(work, r.stdout) if not step.extra else None)
        except subprocess.TimeoutExpired:
            problem = f"no answer within {TIMEOUT} s"
        shown = " ".join(a if len(a) < 60 else "…" + a[-40:] for a in step.args)
        print(f"{'FAIL' if problem else 'ok  '} {time.perf_counter() - t:6.1f} s  craftrdf {shown}", flush=True)
        if problem:
            print(f"     {problem}", flush=True)
            failures.append(f"craftrdf {shown}: {problem}")
    return failures


def main(argv: Sequence[str] | None = None) -> int:
    """Run every step against the base install in ``--venv``; exit 1 when any failed."""
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--venv", type=Path, required=True, help="a virtualenv with only `pip install .`")
    p.add_argument("--oxigraph", help="an `oxigraph` server executable, for the remote commands")
    p.add_argument("--virtuoso", help="a `virtuoso-t` executable (Virtuoso 7), for the remote commands")
    args = p.parse_args(argv)
    venv = args.venv.absolute()  # the commands run in a temporary directory
    craftrdf, python = venv / "bin" / "craftrdf", venv / "bin" / "python"
    with tempfile.TemporaryDirectory(prefix="craftrdf-smoke-") as tmp:
        work = Path(tmp)
        env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "CRAFT", "VIRTUAL_ENV"))}
        env |= {"HOME": str(work / "home"), "XDG_CACHE_HOME": str(work / "home" / ".cache")}
        env["PATH"] = f"{craftrdf.parent}{os.pathsep}{env.get('PATH', '')}"  # as with the virtualenv activated
        sample = Path(
            subprocess.check_output(
                [python, "-c", "from craftrdf.apps.demo import sample_dir; print(sample_dir())"],
                cwd=work,
                env=env,
                text=True,
            ).strip()
        )
        if venv.resolve() not in sample.resolve().parents:
            print(f"FAIL the sample is not the installed one: {sample}")
            return 1
        shutil.copy(sample.parents[1] / "querying" / "queries" / "annotation-counts.rq", work / "my.rq")
        failures = run(craftrdf, local_steps(sample, REPO / "tests" / "data" / "obo" / "valid.obo"), work, env)
        count = len(local_steps(sample, work))
        if args.oxigraph:
            with oxigraph_server(args.oxigraph, work) as base:
                failures += run(craftrdf, remote_steps(sample, base), work, env)
            count += len(remote_steps(sample, ""))
        else:
            print("skipped: the remote commands (no --oxigraph server given)")
        if args.virtuoso:
            with virtuoso_server(args.virtuoso, work / "virtuoso") as server:
                failures += run(craftrdf, virtuoso_steps(sample, server.endpoint, server.graph_store), work, env)
            count += len(virtuoso_steps(sample, "", ""))
        else:
            print("skipped: the Virtuoso commands (no --virtuoso server given)")
    print(f"smoke: {count - len(failures)} passed, {len(failures)} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
