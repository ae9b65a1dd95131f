"""Grids: the full one, the quick one, GRID.toml files; the plan that folds configurations behaving alike."""

from __future__ import annotations

import pytest

from craftrdf.core.errors import ConfigError
from craftrdf.matching.matcher.config import MatcherConfig, grid
from craftrdf.matching.sweeps.grid import load_grid, plan


def test_full_grid_folds_to_432_runs_in_48_dictionaries():
    groups = plan(load_grid("all"))
    assert len(load_grid("all")) == 576
    assert len(groups) == 4 * 3 * 2 * 2  # caseMatch x stemmer x stopWords x synonyms
    # per dictionary: 2 (find all) x 2 (order) x 3 (strategies) = 12 configurations; SKIP_ANY_MATCH ignores the
    # order (12 -> 10), and SKIP_ANY_MATCH_ALLOW_OVERLAP with YES and ON searches as SKIP_ANY_MATCH (10 -> 9)
    assert all(len(g.runs) == 9 and len(g) == 12 for g in groups)
    covered = [c for g in groups for s in g.stands_for for c in s]
    assert sorted(map(MatcherConfig.label, covered)) == sorted(map(MatcherConfig.label, grid()))


def test_groups_of_one_normalization_are_neighbours():
    groups = plan(grid())
    seen = []
    for g in groups:
        if not seen or seen[-1] != g.normalization:
            assert g.normalization not in seen
            seen.append(g.normalization)
    assert len(seen) == 24


def test_grid_file(tmp_path):
    p = tmp_path / "GRID.toml"
    p.write_text(
        '[grid]\ncaseMatch = ["CASE_IGNORE", "case_sensitive"]\nsynonyms = "ALL"\n'
        'searchStrategy = ["CONTIGUOUS_MATCH", "SKIP_ANY_MATCH"]\n'
    )
    configs = load_grid(p)
    assert len(configs) == 4
    assert {c.synonyms.value for c in configs} == {"ALL"}
    assert {c.stemmer.value for c in configs} == {"PORTER"}  # the default for parameters left out


def test_quick_grid():
    assert len(load_grid("quick")) == 16


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('[grid]\nnoSuchParameter = ["X"]\n', "unknown matcher parameter"),
        ('[grid]\ncaseMatch = ["LOUD"]\n', "invalid value"),
        ("[grid]\ncaseMatch = []\n", "non-empty list"),
        ("caseMatch = [", "cannot read it as TOML"),
    ],
)
def test_bad_grid_files(tmp_path, text, message):
    p = tmp_path / "GRID.toml"
    p.write_text(text)
    with pytest.raises(ConfigError, match=message):
        load_grid(p)


def test_missing_grid_file(tmp_path):
    with pytest.raises(ConfigError, match="no such file"):
        load_grid(tmp_path / "absent.toml")
