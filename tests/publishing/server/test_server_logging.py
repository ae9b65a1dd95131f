"""What the server logs: one INFO start-up line naming its URL once, and an access log that can be switched off."""

from __future__ import annotations

import logging
import re
import subprocess
import sys
from pathlib import Path

import httpx
import pytest
from starlette.testclient import TestClient

from craftrdf.apps.cli import build_parser
from craftrdf.publishing.server.app import create_app
from craftrdf.publishing.server.config import ServerConfig
from craftrdf.publishing.server.workers import StoreOpener, WorkerPool
from tests.helpers.server import free_port, wait_until_serving

LINE = re.compile(r'\S+ "(GET|POST) (/\S*)" (\d{3}) \d+\.\d ms')


@pytest.fixture(scope="module")
def pool(sample_store_dir):
    with WorkerPool(StoreOpener(str(sample_store_dir)), size=1) as p:
        yield p


def test_access_log_is_one_info_line_per_request_without_the_query(pool, tmp_path, caplog):
    def app(**config):
        cfg = ServerConfig(timeout=30, **config)
        return TestClient(create_app(pool, config=cfg, dump_dir=tmp_path / "dumps", viewer=False))

    logged, silent = app(access_log=True), app()
    with caplog.at_level(logging.INFO, logger="craftrdf.publishing.server.access"):
        assert logged.get("/sparql", params={"query": "ASK { ?s ?p ?o }"}).status_code == 200
        assert logged.get("/nothing-here").status_code == 404
        assert silent.get("/sparql", params={"query": "ASK { ?s ?p ?o }"}).status_code == 200
    records = [r for r in caplog.records if r.name == "craftrdf.publishing.server.access"]
    got = [LINE.fullmatch(r.getMessage()) for r in records]
    assert [m.groups() if m else None for m in got] == [("GET", "/sparql", "200"), ("GET", "/nothing-here", "404")]
    assert {r.levelno for r in records} == {logging.INFO}


def test_the_access_log_option_is_on_by_default_and_can_be_switched_off():
    parse = build_parser().parse_args
    assert parse(["serve", "--store", "s"]).access_log is True
    assert parse(["serve", "--store", "s", "--no-access-log"]).access_log is False
    assert parse(["serve", "--store", "s"]).union_default_graph is False
    assert parse(["serve", "--store", "s", "--union-default-graph"]).union_default_graph is True


def test_craftrdf_serve_logs_one_info_start_up_line_and_each_request(sample_store_dir: Path):
    port = free_port()
    cmd = [sys.executable, "-m", "craftrdf", "serve", "--store", str(sample_store_dir), "--port", str(port)]
    proc = subprocess.Popen([*cmd, "--workers", "1", "--heavy-workers", "0"], stderr=subprocess.PIPE, text=True)
    url = f"http://127.0.0.1:{port}/"
    try:
        wait_until_serving(proc, url + "sparql")
        assert httpx.get(url + "sparql", params={"query": "ASK {}"}).status_code == 200
    finally:
        proc.terminate()
        _, err = proc.communicate(timeout=30)
    lines = err.splitlines()
    (start,) = [line for line in lines if "serving" in line]
    assert re.search(r"\bINFO: serving ", start) and "WARNING" not in start, start
    assert start.count(url) == 1 and str(sample_store_dir) in start, start
    assert "read-only" in start and "1+0 worker(s)" in start
    accesses = [m.groups() for m in map(LINE.search, lines) if m]
    assert ("GET", "/sparql", "200") in accesses
    assert not any("ASK" in line for line in lines)  # queries are not logged
