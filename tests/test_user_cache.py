"""The suite leaves the user's cache (``~/.cache``) as it found it; conftest moves the check to the end."""

from __future__ import annotations

import os
from pathlib import Path

from tests.helpers.usercache import changes, snapshot


def test_the_suite_leaves_the_users_cache_as_it_found_it(user_cache_at_start):
    root, before = user_cache_at_start
    assert os.environ["XDG_CACHE_HOME"] != str(root)  # the session's caches went elsewhere
    diff = changes(before, snapshot(root))
    assert not diff, f"the tests wrote into {root}:\n" + "\n".join(diff[:20])


def test_a_change_to_the_cache_is_seen(tmp_path: Path):
    # what the check above would report, on a cache made here
    (tmp_path / "craftrdf" / "matcher").mkdir(parents=True)
    (tmp_path / "craftrdf" / "matcher" / "old.json").write_text("{}")
    (tmp_path / "pip").mkdir()
    before = snapshot(tmp_path)
    assert changes(before, snapshot(tmp_path)) == []
    (tmp_path / "craftrdf" / "matcher" / "new.json").write_text("{}")
    os.utime(tmp_path / "craftrdf" / "matcher" / "old.json", ns=(1, 1))
    (tmp_path / "pip" / "wheel").write_text("pip's own")  # not compared
    assert changes(before, snapshot(tmp_path)) == [
        "added craftrdf/matcher/new.json",
        "modified craftrdf/matcher",
        "modified craftrdf/matcher/old.json",
    ]


def test_the_matcher_cache_follows_the_xdg_base_directory_spec(monkeypatch, tmp_path: Path):
    from craftrdf.matching.matcher.dictionary import default_cache_dir

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert default_cache_dir() == tmp_path / "xdg" / "craftrdf" / "matcher"
    monkeypatch.delenv("XDG_CACHE_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert default_cache_dir() == tmp_path / "home" / ".cache" / "craftrdf" / "matcher"
