"""The store: atomic batches, idempotent reloads, one writer, orphan cleanup, kill -9."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time

import pyoxigraph as ox
import pytest

from craftrdf.core.errors import InputError, StoreError, StoreLockedError
from craftrdf.store.local import AnnotationStore


def _lines(graph: str, n: int, tag: str = "x"):
    return (f'<http://ex.org/{tag}/{i}> <http://ex.org/p> "{i}" <{graph}> .' for i in range(n))


def _count(store: AnnotationStore, graph: str) -> int:
    return sum(1 for _ in store.raw.quads_for_pattern(None, None, None, ox.NamedNode(graph)))


def test_batch_carries_its_manifest():
    st = AnnotationStore.memory()
    n = st.load_batch("http://ex.org/g", _lines("http://ex.org/g", 10), digest="d1")
    assert n == 11  # 10 quads + the digest
    assert _count(st, "http://ex.org/g") == 11
    assert st.batches()["http://ex.org/g"].digest == "d1"


def test_same_digest_is_not_loaded_twice():
    st = AnnotationStore.memory()
    st.load_batch("http://ex.org/g", _lines("http://ex.org/g", 10), digest="d1")
    assert st.load_batch("http://ex.org/g", _lines("http://ex.org/g", 10, "y"), digest="d1") == 0
    assert len(st) == 11


def test_changed_input_replaces_the_batch():
    st = AnnotationStore.memory()
    st.load_batch("http://ex.org/g", _lines("http://ex.org/g", 10), digest="d1")
    st.load_batch("http://ex.org/g", _lines("http://ex.org/g", 3, "y"), digest="d2")
    assert _count(st, "http://ex.org/g") == 4
    assert st.batches()["http://ex.org/g"].digest == "d2"


def _failing(graph: str, n: int):
    yield from _lines(graph, n, "bad")
    raise InputError("span outside text", source="doc.xml", element="annotation T9")


@pytest.mark.parametrize("existing", [False, True])
def test_failed_input_leaves_store_as_it_was(tmp_path, existing):
    with AnnotationStore.open(tmp_path / "s") as st:
        st.load_batch("http://ex.org/keep", _lines("http://ex.org/keep", 5), digest="k")
        if existing:
            st.load_batch("http://ex.org/g", _lines("http://ex.org/g", 7), digest="old")
        before = sorted(map(str, st.raw))
        with pytest.raises(InputError, match="annotation T9"):
            st.load_batch("http://ex.org/g", _failing("http://ex.org/g", 50_000), digest="new")
        assert sorted(map(str, st.raw)) == before


_HOLD = textwrap.dedent("""
    import sys, time
    from craftrdf.store.local import AnnotationStore
    st = AnnotationStore.open(sys.argv[1])
    print("ready", flush=True)
    time.sleep(60)
""")


def test_second_writer_fails_fast_naming_the_holder(tmp_path):
    p = subprocess.Popen([sys.executable, "-c", _HOLD, str(tmp_path / "s")], stdout=subprocess.PIPE, text=True)
    try:
        assert p.stdout.readline().strip() == "ready"
        t = time.monotonic()
        with pytest.raises(StoreLockedError, match=rf"\(pid {p.pid}, writing since \d\d:\d\d\)"):
            AnnotationStore.open(tmp_path / "s")
        with pytest.raises(StoreLockedError):
            AnnotationStore.open(tmp_path / "s", mode="read")
        assert time.monotonic() - t < 5
    finally:
        p.kill()
        p.wait()
        p.stdout.close()
    # the lock dies with its holder
    AnnotationStore.open(tmp_path / "s").close()


@pytest.mark.parametrize(("mode", "create"), [("read", True), ("write", False)])
@pytest.mark.parametrize("there", ["absent", "empty directory", "other files"])
def test_a_path_without_a_store_is_one_error_and_nothing_is_created(tmp_path, mode, create, there):
    path = tmp_path / "craft.stor"  # a mistyped craft.store
    if there != "absent":
        path.mkdir()
    if there == "other files":
        (path / "notes.txt").write_text("mine")
    before = sorted(p.name for p in tmp_path.rglob("*"))
    with pytest.raises(StoreError) as err:
        AnnotationStore.open(path, mode=mode, create=create)
    assert str(err.value) == (
        f"{path}: no craftrdf store here; build one with `craftrdf build --craft CRAFT_DIR --store {path}`"
    )
    assert sorted(p.name for p in tmp_path.rglob("*")) == before  # no directory, no lock file


def test_reading_writes_nothing(tmp_path):
    AnnotationStore.open(tmp_path / "s").close()
    files = {p: (p.stat().st_mtime_ns, p.stat().st_size) for p in (tmp_path / "s").iterdir()}
    with AnnotationStore.open(tmp_path / "s", mode="read") as st:
        assert len(st) == 0
    assert {p: (p.stat().st_mtime_ns, p.stat().st_size) for p in (tmp_path / "s").iterdir()} == files


def test_refuses_a_foreign_directory(tmp_path):
    (tmp_path / "notes.txt").write_text("mine")
    with pytest.raises(StoreError, match="not an Oxigraph store"):
        AnnotationStore.open(tmp_path)
    assert (tmp_path / "notes.txt").read_text() == "mine"


_BATCHES = textwrap.dedent("""
    import sys
    from craftrdf.store.local import AnnotationStore
    st = AnnotationStore.open(sys.argv[1])
    for b in range(int(sys.argv[2])):
        g = f"http://ex.org/batch/{b}"
        st.load_batch(g, (f'<http://ex.org/{b}/{i}> <http://ex.org/p> "{i}" <{g}> .' for i in range(int(sys.argv[3]))), digest=str(b))
        print(b, flush=True)
""")


def test_kill_9_leaves_each_batch_whole_or_absent(tmp_path):
    store_dir = tmp_path / "s"
    per_batch = 300_000
    p = subprocess.Popen(
        [sys.executable, "-c", _BATCHES, str(store_dir), "6", str(per_batch)], stdout=subprocess.PIPE, text=True
    )
    assert p.stdout.readline().strip() == "0"  # first batch committed
    time.sleep(0.7)  # well inside a later batch's bulk load
    os.kill(p.pid, signal.SIGKILL)
    p.wait()
    p.stdout.close()
    with AnnotationStore.open(store_dir) as st:
        assert not list(store_dir.glob("bulk-*.sst")), "orphan bulk files must be removed on open"
        present = 0
        for b in range(6):
            n = _count(st, f"http://ex.org/batch/{b}")
            assert n in (0, per_batch + 1), f"batch {b} is partial: {n} quads"
            present += n > 0
        assert 1 <= present < 6


def test_orphan_bulk_files_are_removed_on_write_open(tmp_path):
    AnnotationStore.open(tmp_path / "s").close()
    orphan = tmp_path / "s" / "bulk-1234567890.sst"
    orphan.write_bytes(b"\0" * 1024)
    AnnotationStore.open(tmp_path / "s", mode="read").close()
    assert orphan.exists()  # a reader never deletes anything
    AnnotationStore.open(tmp_path / "s").close()
    assert not orphan.exists()


def test_close_closes_the_files_even_while_the_object_lives(tmp_path):
    # a variable outliving the `with` kept RocksDB open: reopening the directory in this
    # process then fails on RocksDB's own lock, and its files could still change
    with AnnotationStore.open(tmp_path / "s.store") as first:
        first.load_batch("http://ex.org/g", _lines("http://ex.org/g", 5), digest="d1")
    with AnnotationStore.open(tmp_path / "s.store") as again:
        assert _count(again, "http://ex.org/g") == 6  # 5 quads + the digest
    first.close()  # a second close is harmless
    assert not hasattr(first, "raw")
