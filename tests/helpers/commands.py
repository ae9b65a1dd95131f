"""The commands a remote store must answer as the embedded one does: run on one side, compared across two."""

from __future__ import annotations

import filecmp
import shutil
from pathlib import Path

import pytest

from craftrdf.apps.cli import main
from craftrdf.apps.demo import sample_dir


def run_cli(argv: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    """``craftrdf ARGV``'s standard output; the test fails with its standard error if it does not exit 0."""
    capsys.readouterr()
    assert main(argv) == 0, capsys.readouterr().err
    return capsys.readouterr().out


def command_outputs(where: list[str], out: Path, capsys: pytest.CaptureFixture[str]) -> dict[str, str]:
    """query, view, export, similarity, annotate and evaluate on the sample store ``where`` names.

    ``where`` is ``--store DIR`` or ``--endpoint URL``; the files go under ``out`` (``bionlp/``,
    ``annotate/``); what the commands print (and evaluate's totals) is returned by name.
    """
    o = {"query": run_cli(["-q", "query", "annotation-counts", *where, "--format", "csv"], capsys)}
    view = ["--sets", "UBERON_EXT,CL_EXT", "--classes", "proper", "--nesting", "outermost", "--split", "test"]
    o["view"] = run_cli(["-q", "view", *where, *view, "--format", "csv"], capsys)
    o["view-count"] = run_cli(["-q", "view", *where, "--sets", "*_EXT", "--nesting", "nested"], capsys)
    run_cli(["-q", "export", *where, "--set", "UBERON_EXT", "--format", "bionlp", "--out", str(out / "bionlp")], capsys)
    o["similarity"] = run_cli(["-q", "similarity", *where, "--top-k", "5", "UBERON:0000955"], capsys)
    o["pair"] = run_cli(["-q", "similarity", *where, "UBERON:0000955", "UBERON:0002435"], capsys)
    annotate = ["--set", "UBERON_EXT", str(sample_dir()), "--out", str(out / "annotate"), "--no-cache", "--jobs", "1"]
    run_cli(["-q", "annotate", *where, *annotate], capsys)
    shutil.copytree(out / "annotate", out / "pred" / "UBERON_EXT")  # a Shared Task directory: one folder per set
    evaluate = ["--gold", "UBERON_EXT", "--pred", str(out / "pred"), "--criteria", "exact"]
    run_cli(["-q", "evaluate", *where, *evaluate, "--out", str(out / "evaluate")], capsys)
    o["evaluate"] = (out / "evaluate" / "UBERON_EXT_results.tsv").read_text()
    return o


def assert_same_outputs(store: dict[str, str], endpoint: dict[str, str], store_dir: Path, endpoint_dir: Path) -> None:
    """Both sides printed the same and wrote the same files (of :func:`command_outputs`), and not nothing."""
    assert store.keys() == endpoint.keys()
    for k in store:
        assert store[k] == endpoint[k], k
    assert len(store["view"].splitlines()) > 10
    assert store["evaluate"].splitlines()[-1].startswith("TOTAL\t")
    for folder in ("bionlp", "annotate"):
        a, b = store_dir / folder, endpoint_dir / folder
        names = sorted(p.name for p in a.iterdir())
        assert names and names == sorted(p.name for p in b.iterdir())
        _, mismatch, errors = filecmp.cmpfiles(a, b, names, shallow=False)
        assert not mismatch and not errors, (folder, mismatch)
