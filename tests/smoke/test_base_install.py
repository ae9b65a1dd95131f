"""The base-install smoke run's judgement (the run itself is a step of .ci/run: it needs its own virtualenv)."""

from __future__ import annotations

from pathlib import Path

from tests.smoke.base_install import Step, cmd, verdict

TRACEBACK = "Traceback (most recent call last):\n  File \"x.py\", line 1\nModuleNotFoundError: No module named 'x'\n"


def test_a_command_that_must_work_passes_only_on_exit_0_without_a_traceback():
    step = Step(cmd("query sets --store s"))
    assert verdict(step, 0, "") is None
    assert verdict(step, 0, "INFO: build: started, 55 batches\n") is None
    assert verdict(step, 1, "craftrdf: error: no store at s\n") == "exit 1: craftrdf: error: no store at s"
    assert verdict(step, 1, TRACEBACK) == "a traceback: ModuleNotFoundError: No module named 'x'"
    assert verdict(step, 0, TRACEBACK) is not None  # a traceback logged by a command that still exits 0


def test_a_command_that_needs_an_extra_must_name_it_in_one_line():
    step = Step(cmd("serve --store s"), extra="server")
    assert verdict(step, 1, "craftrdf: error: starlette is not installed: pip install 'craftrdf[server]'\n") is None
    assert verdict(step, 1, TRACEBACK) is not None
    assert verdict(step, 0, "") is not None  # it cannot have worked without the extra
    assert "does not name" in verdict(step, 1, "craftrdf: error: pip install 'craftrdf[dask]'\n")
    assert "2 lines" in verdict(step, 1, "craftrdf: error: pip install 'craftrdf[server]'\nand more\n")


def test_command_lines_split_words_and_keep_paths_whole():
    assert cmd("view --sets *_EXT", Path("/a b/c"), "--quick") == ("view", "--sets", "*_EXT", "/a b/c", "--quick")
