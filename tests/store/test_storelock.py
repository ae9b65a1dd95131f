"""Who holds a store's lock: the processes that hold it now, never the stale record of one that has gone.

The holders are started here as child processes, so the pids the messages must name are known
independently of the code under test.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import textwrap
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from craftrdf.apps.cli import main
from craftrdf.core.errors import StoreLockedError
from craftrdf.store import _storelock
from craftrdf.store.local import AnnotationStore

linux_locks = pytest.mark.skipif(
    not Path("/proc/locks").is_file(), reason="the kernel lock table /proc/locks is Linux's"
)

# open the store argv[1] in mode argv[2] in `workers` forked copies of this process (0: in itself)
_HOLD = textwrap.dedent("""
    import os, sys, time
    from craftrdf.store.local import AnnotationStore
    path, mode, workers = sys.argv[1], sys.argv[2], int(sys.argv[3])
    if workers == 0:
        st = AnnotationStore.open(path, mode=mode)
    for _ in range(workers):
        r, w = os.pipe()
        if os.fork() == 0:
            st = AnnotationStore.open(path, mode=mode)
            os.write(w, b"x")
            time.sleep(60)
            os._exit(0)
        os.read(r, 1)
    print("ready", flush=True)
    time.sleep(60)
""")


@contextlib.contextmanager
def holding(path: Path, mode: str, *, workers: int = 0) -> Iterator[subprocess.Popen[str]]:
    """A child process (and ``workers`` forked copies) holding the store at ``path`` for ``mode``."""
    p = subprocess.Popen(
        [sys.executable, "-c", _HOLD, str(path), mode, str(workers)],
        stdout=subprocess.PIPE,
        text=True,
        start_new_session=True,  # its forked workers are killed with it, by the group's id
    )
    try:
        assert p.stdout is not None and p.stdout.readline().strip() == "ready"
        yield p
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(p.pid, signal.SIGKILL)
        p.wait()
        assert p.stdout is not None
        p.stdout.close()


def _refusal(path: Path, mode: str = "write") -> str:
    with pytest.raises(StoreLockedError) as err:
        AnnotationStore.open(path, mode=mode)  # type: ignore[arg-type]
    return str(err.value)


def _names(message: str, pid: int) -> bool:
    return re.search(rf"\bpid {pid}\b", message) is not None


@linux_locks
def test_a_reader_is_named_and_not_the_writer_recorded_before_it(tmp_path):
    store = tmp_path / "s"
    AnnotationStore.open(store).close()
    with holding(store, "write") as writer:
        pass  # killed with SIGKILL: its record stays in the lock file
    assert json.loads((store / _storelock.LOCK_FILE).read_text())["pid"] == writer.pid
    with holding(store, "read") as reader:
        message = _refusal(store)
    assert _names(message, reader.pid) and "reading since" in message
    assert not _names(message, writer.pid)


@linux_locks
def test_a_copied_store_does_not_name_the_writer_of_its_source(tmp_path):
    source, copy = tmp_path / "a.store", tmp_path / "b.store"
    AnnotationStore.open(source).close()
    with holding(source, "write") as writer:
        shutil.copytree(source, copy)  # the copy's lock file names the writer, alive, of the source
        assert json.loads((copy / _storelock.LOCK_FILE).read_text())["pid"] == writer.pid
        with holding(copy, "read") as reader:
            message = _refusal(copy)
            assert _names(message, reader.pid) and not _names(message, writer.pid)
        assert _names(_refusal(source), writer.pid)


def test_without_a_lock_table_the_record_is_believed_only_when_true(tmp_path, monkeypatch):
    # another system: no /proc/locks, so the writer's record is all there is; it must be this
    # directory's, and its process alive and started when the record says
    monkeypatch.setattr(_storelock, "_LOCKS_TABLE", tmp_path / "no-such-table")
    source, copy = tmp_path / "a.store", tmp_path / "b.store"
    AnnotationStore.open(source).close()
    with holding(source, "write") as writer:
        assert _names(_refusal(source, "read"), writer.pid)
        shutil.copytree(source, copy)
        with holding(copy, "read"):
            message = _refusal(copy)
    assert not _names(message, writer.pid) and "could not be identified" in message
    # a record whose pid now belongs to a later process (this one) is not believed either
    record = json.loads((copy / _storelock.LOCK_FILE).read_text())
    record.update(pid=os.getpid(), store=os.path.realpath(copy), started=record["started"] - 3600)
    assert _storelock._recorded_holder(copy / _storelock.LOCK_FILE, copy) == []
    (copy / _storelock.LOCK_FILE).write_text(json.dumps(record))
    assert _storelock._recorded_holder(copy / _storelock.LOCK_FILE, copy) == []
    record.update(started=_storelock._process_start(os.getpid()))
    (copy / _storelock.LOCK_FILE).write_text(json.dumps(record))
    (holder,) = _storelock._recorded_holder(copy / _storelock.LOCK_FILE, copy)
    assert holder.pid == os.getpid()


def test_a_writer_empties_its_record_when_it_lets_go(tmp_path):
    with AnnotationStore.open(tmp_path / "s"):
        record = json.loads((tmp_path / "s" / _storelock.LOCK_FILE).read_text())
        assert record["pid"] == os.getpid() and record["store"] == os.path.realpath(tmp_path / "s")
    assert (tmp_path / "s" / _storelock.LOCK_FILE).read_text() == ""


@linux_locks
def test_forked_workers_are_named_by_the_program_that_started_them(tmp_path):
    store = tmp_path / "s"
    AnnotationStore.open(store).close()
    with holding(store, "read", workers=2) as server:
        message = _refusal(store)
    assert f"(pid {server.pid} and 2 worker processes, reading since" in message
    assert message.count("pid ") == 1


@linux_locks
def test_a_second_opener_in_the_same_process_is_told_it_is_this_process(tmp_path):
    with AnnotationStore.open(tmp_path / "s"):
        message = _refusal(tmp_path / "s", "read")
    assert f"this process (pid {os.getpid()}, writing since" in message


def _free_port() -> int:
    from tests.helpers.server import free_port

    return free_port()


@linux_locks
def test_a_served_store_is_read_beside_the_server_and_a_writer_is_told_who_serves_it(
    tmp_path, sample_store_copy, capsys
):
    pytest.importorskip("uvicorn", reason="the server extra (craftrdf[server]) is not installed")
    path = tmp_path / "s.store"
    sample_store_copy(path, sets=["UBERON_EXT", "CL_EXT"])
    serve = [sys.executable, "-m", "craftrdf", "-q", "serve", "--store", str(path), "--port", str(_free_port())]
    server = subprocess.Popen([*serve, "--workers", "1"], stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        deadline = time.monotonic() + 60
        while not _storelock.lock_holders(path / _storelock.LOCK_FILE):  # its workers have opened the store
            assert server.poll() is None and time.monotonic() < deadline, "the server did not start"
            time.sleep(0.2)
        # a view only reads: it runs beside the server
        assert main(["view", "--store", str(path), "--sets", "UBERON_EXT,CL_EXT", "--nesting", "nested"]) == 0
        assert re.search(r"^TOTAL\t[1-9]\d*$", capsys.readouterr().out, re.M)
        code = main(["postprocess", "--store", str(path), "--set", "UBERON_EXT", "--rules", "unused", "--into", "X"])
        err = capsys.readouterr().err
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        server.wait(30)
    assert code == 1 and err.count("\n") == 1
    assert f"`craftrdf -q serve --store {path}" in err
    assert re.search(rf"\(pid {server.pid} and \d+ worker process(es)?, reading since \d\d:\d\d\)", err), err


@linux_locks
def test_a_process_holding_the_store_without_craftrdf_is_named_too(tmp_path):
    # another Oxigraph program (an `oxigraph serve`, a notebook's pyoxigraph.Store) holds RocksDB's own lock
    store = tmp_path / "s"
    AnnotationStore.open(store).close()
    script = (
        "import sys, time, pyoxigraph; s = pyoxigraph.Store(sys.argv[1]); print('ready', flush=True); time.sleep(60)"
    )
    p = subprocess.Popen([sys.executable, "-c", script, str(store)], stdout=subprocess.PIPE, text=True)
    try:
        assert p.stdout is not None and p.stdout.readline().strip() == "ready"
        message = _refusal(store)
    finally:
        p.kill()
        p.wait()
        assert p.stdout is not None
        p.stdout.close()
    assert _names(message, p.pid) and "did not open it through craftrdf" in message
