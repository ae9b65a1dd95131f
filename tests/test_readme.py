"""The README's Usage block, run as written on the bundled sample: build, annotate, then evaluate.

The commands are read out of README.md, so the README cannot drift from what works: only the
corpus path (``../shared/craft``) becomes the bundled sample, and an optional ``[...]`` part is kept.
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from craftrdf.apps.demo import sample_dir

README = Path(__file__).resolve().parents[1] / "README.md"


def usage_commands() -> list[list[str]]:
    """The ``craftrdf`` commands of the README's Usage block, as argument lists (continuations joined)."""
    text = README.read_text(encoding="utf-8")
    block = text.split("\n## Usage\n", 1)[1].split("```sh\n", 1)[1].split("\n```", 1)[0]
    lines = block.replace("\\\n", " ").splitlines()
    sample = str(sample_dir())
    commands = []
    for line in lines:
        if line.startswith("craftrdf "):
            line = re.sub(r"\[([^\]]*)\]", r"\1", line).replace("../shared/craft", sample)
            commands.append(shlex.split(line))
    return commands


def option(args: list[str], name: str) -> str:
    return args[args.index(name) + 1]


def first(commands: list[list[str]], command: str) -> list[str]:
    return next(c for c in commands if c[1] == command)


def run(args: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "XDG_CACHE_HOME": str(cwd / "cache")}  # the matcher's cache stays in tmp_path
    r = subprocess.run(
        [sys.executable, "-m", "craftrdf", *args[1:]], cwd=cwd, env=env, capture_output=True, text=True, timeout=300
    )
    assert r.returncode == 0 and "Traceback" not in r.stderr, f"{shlex.join(args)}\n{r.stderr}"
    return r


def results(path: Path) -> dict[str, list[str]]:
    """The rows of a ``<key>_results.tsv`` by document id (and TOTAL), header left out."""
    rows = [line.split("\t") for line in path.read_text(encoding="utf-8").splitlines()[1:]]
    return {row[0]: row[1:] for row in rows}


def test_the_usage_block_has_the_annotate_then_evaluate_workflow():
    commands = usage_commands()
    annotate = first(commands, "annotate")
    evaluations = [c for c in commands if c[1] == "evaluate"]
    assert len(evaluations) == 2
    for evaluate in evaluations:
        # the gold set is the set whose dictionary made the predictions, and the folder is the one written
        assert option(evaluate, "--gold") == option(annotate, "--set")
        assert Path(option(evaluate, "--pred")) == Path(option(annotate, "--out"))


@pytest.mark.slow
def test_build_annotate_evaluate_as_the_readme_says(tmp_path):
    commands = usage_commands()
    build, annotate = first(commands, "build"), first(commands, "annotate")
    with_store, with_craft = (c for c in commands if c[1] == "evaluate")
    for args in (build, annotate):
        run(args, tmp_path)
    # annotate --split test writes one file per test article of the sample
    split = option(annotate, "--split")
    ids = (sample_dir() / "articles" / "ids" / f"craft-ids-{split}.txt").read_text().split()
    out = tmp_path / option(annotate, "--out")
    assert sorted(p.stem for p in out.glob("*.bionlp")) == sorted(ids)
    predicted = sum(1 for p in out.glob("*.bionlp") for line in p.read_text().splitlines() if line.startswith("T"))
    # the gold annotations of those articles, counted in the sample's Knowtator files
    key = option(with_store, "--gold")
    module = key.removesuffix("_EXT")
    folder = sample_dir() / "concept-annotation" / module / (f"{module}+extensions" if key.endswith("_EXT") else module)
    gold = sum((folder / "knowtator" / f"{d}.txt.knowtator.xml").read_text().count("<annotation>") for d in ids)
    assert predicted > 0 and gold > 0

    table = run(with_store, tmp_path).stdout
    assert table.splitlines()[1].split()[:4] == [key, str(len(ids)), str(gold), str(predicted)]
    scores = results(tmp_path / option(with_store, "--out") / f"{key}_results.tsv")
    assert sorted(scores) == sorted([*ids, "TOTAL"])
    assert scores["TOTAL"][4:6] == [str(gold), str(predicted)]  # ref-count, prediction-count

    run(with_craft, tmp_path)
    scores = results(tmp_path / option(with_craft, "--out") / f"{key}_results.tsv")
    assert sorted(scores) == sorted([*ids, "TOTAL"]) and scores["TOTAL"][4] == str(gold)
