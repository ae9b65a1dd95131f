"""A Virtuoso 7 of its own (Debian's ``virtuoso-opensource-7-bin``): a temporary directory, free ports.

Standard library only: ``tests/smoke/base_install.py`` uses it from a Python without craftrdf.
:func:`virtuoso_server` writes a ten-line ``virtuoso.ini`` into the directory, starts
``virtuoso-t -f`` on two free loopback ports (SQL and HTTP), lets the anonymous SPARQL user
write (``grant SPARQL_UPDATE to "SPARQL"``, so the Graph Store Protocol takes PUTs), and stops
the server at the end. The limits are raised above the defaults a packaged ``virtuoso.ini``
sets (``ResultSetMaxRows`` 10,000 silently truncates), as docs/remote.md tells users to do.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from .oxigraph import free_port

_INI = """\
[Database]
DatabaseFile = {dir}/virtuoso.db
TransactionFile = {dir}/virtuoso.trx
ErrorLogFile = {dir}/virtuoso.log
xa_persistent_file = {dir}/virtuoso.pxa
[Parameters]
ServerPort = 127.0.0.1:{sql}
DirsAllowed = ., {dir}
NumberOfBuffers = {buffers}
MaxDirtyBuffers = {dirty}
[HTTPServer]
ServerPort = 127.0.0.1:{http}
[SPARQL]
ResultSetMaxRows = {max_rows}
MaxQueryExecutionTime = {max_seconds}
MaxQueryCostEstimationTime = 0
"""


@dataclass(frozen=True)
class Virtuoso:
    """A running Virtuoso: its SPARQL endpoint, Graph Store Protocol URL, SQL port and directory."""

    endpoint: str
    graph_store: str
    sql_port: int
    directory: Path

    def isql(self, statement: str) -> str:
        """Run one SQL statement as dba through ``isql-vt``; its output (RuntimeError if it fails)."""
        exe = shutil.which("isql-vt") or shutil.which("isql")
        if exe is None:
            raise RuntimeError("isql-vt is not installed")
        done = subprocess.run(
            [exe, str(self.sql_port), "dba", "dba", f"exec={statement}"], capture_output=True, text=True, timeout=600
        )
        if done.returncode != 0 or "*** Error" in done.stdout:
            raise RuntimeError(f"isql failed: {done.stdout[-500:]} {done.stderr[-500:]}")
        return done.stdout

    def bulk_load(self, files: list[Path]) -> float:
        """Load N-Quads files with Virtuoso's bulk loader (``ld_dir``, ``rdf_loader_run``, ``checkpoint``); seconds.

        Each quad keeps its graph. The files are linked (or copied) into a folder of the server's
        directory, which ``DirsAllowed`` lists. RuntimeError naming the file when the loader
        records an error for one (it skips such a file and goes on).
        """
        folder = self.directory / f"load{time.monotonic_ns()}"
        folder.mkdir()
        for i, f in enumerate(files):
            target = folder / f"{i:04d}-{f.name}"
            try:
                os.link(f, target)
            except OSError:  # another file system
                shutil.copyfile(f, target)
        started = time.perf_counter()
        self.isql(f"ld_dir('{folder}', '*.nq', 'http://example.org/unused');")
        self.isql("rdf_loader_run();")
        self.isql("checkpoint;")
        seconds = time.perf_counter() - started
        errors = self.isql(
            f"select ll_file, ll_error from DB.DBA.load_list where ll_file like '{folder}/%' and ll_error is not null;"
        )
        if "0 Rows." not in errors:
            raise RuntimeError(f"the bulk loader failed: {errors[-1000:]}")
        shutil.rmtree(folder)
        return seconds


def virtuoso_command() -> str | None:
    """The ``virtuoso-t`` executable, or None when Virtuoso is not installed."""
    return shutil.which("virtuoso-t")


@contextlib.contextmanager
def virtuoso_server(
    exe: str,
    workdir: Path,
    *,
    max_rows: int = 10_000_000,
    max_seconds: int = 0,
    buffers: int = 20_000,
    start_timeout: float = 300,
) -> Iterator[Virtuoso]:
    """``exe`` (virtuoso-t) over ``workdir`` on free loopback ports until the block ends.

    ``max_rows`` and ``max_seconds`` are ``ResultSetMaxRows`` and ``MaxQueryExecutionTime``
    (0: none); ``buffers`` is ``NumberOfBuffers`` (8 kB pages of cache: 20,000 is 160 MB;
    OpenLink's RDF performance tuning page, VOS wiki VirtRDFPerformanceTuning, gives 170,000 for
    2 GB of memory to spare).
    RuntimeError when it exits or does not answer ``ASK {}`` within ``start_timeout`` seconds
    (it starts in seconds; on a machine at load 40 it took over a minute). Its log is
    ``workdir/virtuoso.log``.
    """
    workdir.mkdir(parents=True, exist_ok=True)
    sql, http = free_port(), free_port()
    ini = workdir / "virtuoso.ini"
    ini.write_text(
        _INI.format(
            dir=workdir,
            sql=sql,
            http=http,
            max_rows=max_rows,
            max_seconds=max_seconds,
            buffers=buffers,
            dirty=buffers * 3 // 4,
        )
    )
    base = f"http://127.0.0.1:{http}"
    with open(workdir / "virtuoso.out", "wb") as out:  # the child keeps its own descriptor
        proc = subprocess.Popen([exe, "-f", "-c", str(ini)], cwd=workdir, stdout=out, stderr=subprocess.STDOUT)
    server = Virtuoso(f"{base}/sparql", f"{base}/sparql-graph-crud", sql, workdir)
    try:
        ask = f"{base}/sparql?" + urllib.parse.urlencode({"query": "ASK {}"})
        deadline = time.monotonic() + start_timeout
        while True:
            if proc.poll() is not None:
                log = workdir / "virtuoso.log"
                raise RuntimeError(f"virtuoso-t exited: {log.read_text()[-500:] if log.exists() else ''}")
            with contextlib.suppress(urllib.error.URLError, ConnectionError), urllib.request.urlopen(ask, timeout=2):
                break
            if time.monotonic() > deadline:
                raise RuntimeError(f"virtuoso-t did not answer within {start_timeout:g} s")
            time.sleep(0.2)
        server.isql('grant SPARQL_UPDATE to "SPARQL";')
        yield server
    finally:
        proc.terminate()  # virtuoso-t checkpoints and exits on SIGTERM
        try:
            proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
