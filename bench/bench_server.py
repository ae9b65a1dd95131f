"""Benchmark: the SPARQL endpoint under load, against the same queries run in-process (the floor).

    python bench/bench_server.py --store ./craft.store [--seconds 30] [--clients 8] [--workers 2]
    python bench/bench_server.py --sample [--seconds 10]        # the bundled sample, built into a temp dir

Starts ``craftrdf serve`` on a free loopback port (read-only, a subprocess), then drives it with
--clients threads (httpx, one connection each) for --seconds in two halves:

1. *simple*: only the cheap queries (an ASK, a small SELECT, the set list);
2. *mixed*: the same, plus one heavy library query in twenty (sets with counts, top classes,
   annotation counts).

It prints, per phase and per query kind, the count, throughput, p50/p99 latency and errors
(any status other than 200), then the floor: each query's median time run directly on the
embedded store in this process (result serialized as SPARQL JSON, as the server does), and the
ratio of the HTTP p50 to it. Goal: zero errors, at least 200 queries/s in the simple phase.

Then the *heavy-load* phase (issue 17), against ``craftrdf serve`` and ``oxigraph
serve-read-only`` (the ``oxigraph`` PyPI package) on the same store in the same run: two
clients keep sending a three-way cross join of every graph (it would run for hours), each with
the server's time limit --heavy-timeout, while --probe-clients clients send ``ASK {}`` and
small SELECTs for --heavy-seconds. Reported: the probes' p50/p99 and errors (goal: p99 under
250 ms, no errors), and how the cross joins ended (status, seconds). Loopback only; bounded in time.

``--attack`` (issue 28): the same with the join's text changing each time (a comment counter) and
the probes in a closed loop, so use ``--probe-clients 8``; goal as above, nothing lost.
``--compare`` (issue 28): simple-query throughput of ``craftrdf serve`` against ``oxigraph
serve-read-only`` on the same store with --clients clients, alternating, two runs each; the
ratio of the medians (goal >= 0.7).

    python bench/bench_server.py --store ./craft.store --skip-simple --skip-heavy --attack --probe-clients 8
    python bench/bench_server.py --store ./craft.store --skip-simple --skip-heavy --compare --seconds 20
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import random
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections import defaultdict
from pathlib import Path

import httpx
import pyoxigraph as ox

from craftrdf.querying.library import library
from craftrdf.store.local import AnnotationStore

DOCS = "https://w3id.org/craftrdf/documents"
SIMPLE = {
    "ask": f"ASK {{ GRAPH <{DOCS}> {{ ?d a <http://purl.org/spar/fabio/ResearchPaper> }} }}",
    "small-select": f"SELECT ?d ?pmid WHERE {{ GRAPH <{DOCS}> {{ ?d <http://purl.org/spar/fabio/hasPubMedId> ?pmid }} }} "
    "ORDER BY ?pmid LIMIT 10",
    "set-list": library()["viewer-sets"].text,
}
HEAVY = {name: library()[name].text for name in ("sets", "top-classes", "annotation-counts")}


def free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def start_server(store: Path, port: int, workers: int, timeout: float) -> subprocess.Popen[bytes]:
    cmd = [
        sys.executable,
        "-m",
        "craftrdf",
        "serve",
        "--store",
        str(store),
        "--port",
        str(port),
        "--workers",
        str(workers),
        "--timeout",
        str(timeout),
        "--max-results",
        "1000000",
    ]
    return wait_ready(subprocess.Popen(cmd), f"http://127.0.0.1:{port}/sparql")


CROSS = "SELECT (COUNT(*) AS ?n) WHERE { GRAPH ?g { ?a ?b ?c } GRAPH ?h { ?d ?e ?f } GRAPH ?i { ?x ?y ?z } }"
PROBES = {"ASK {}": "ASK {}", "small-select": SIMPLE["small-select"]}


def start_oxigraph(store: Path, port: int, timeout: float) -> subprocess.Popen[bytes]:
    """``oxigraph serve-read-only`` on the same store directory (read-only, beside craftrdf's readers)."""
    import shutil

    exe = shutil.which("oxigraph") or str(Path(sys.executable).with_name("oxigraph"))
    cmd = [exe, "serve-read-only", "--location", str(store), "--bind", f"127.0.0.1:{port}"]
    proc = subprocess.Popen([*cmd, "--timeout-s", str(int(timeout))], stderr=subprocess.DEVNULL)
    return wait_ready(proc, f"http://127.0.0.1:{port}/query")


def wait_ready(proc: subprocess.Popen[bytes], endpoint: str) -> subprocess.Popen[bytes]:
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        try:
            if httpx.get(endpoint, params={"query": "ASK {}"}, timeout=2).status_code == 200:
                return proc
        except httpx.HTTPError:
            pass
        if proc.poll() is not None:
            raise SystemExit(f"the server exited with status {proc.returncode}")
        time.sleep(0.2)
    proc.terminate()
    raise SystemExit("the server did not answer within 120 s")


def heavy_phase(
    endpoint: str, probes: int, seconds: float, limit: float, *, changing: bool = False, pause: float = 0.02
) -> tuple[list[tuple[float, int]], list[tuple[float, int]]]:
    """Two clients loop on the cross join while ``probes`` clients send simple queries; (probe, heavy) results.

    With ``changing`` the join's text changes each time (a comment counter), as issue 28's attack
    did. Each client has an address of its own (``X-Forwarded-For``, which ``craftrdf serve`` trusts
    from loopback as from a proxy; oxigraph ignores it). A client gives up on an answer after
    ``limit`` + 30 s (status 0: the server did not stop the query).
    """
    stop = threading.Event()
    heavy: list[tuple[float, int]] = []
    probe: list[tuple[float, int]] = []
    lock = threading.Lock()

    def run(results: list[tuple[float, int]], queries: list[str], pause: float, client: str, counter: bool) -> None:
        headers = {"Accept": "application/sparql-results+json", "X-Forwarded-For": client}
        with httpx.Client(timeout=limit + 30) as http:
            i = 0
            while not stop.is_set():
                t = time.perf_counter()
                retry = 0.0
                query = queries[i % len(queries)] + (f" # {client} {i}" if counter else "")
                try:
                    r = http.post(endpoint, data={"query": query}, headers=headers)
                    status = r.status_code
                    retry = min(float(r.headers.get("Retry-After", 0)), 1.0)  # a polite client waits (at most 1 s)
                    if retry and status == 200:
                        retry = 0.0
                except httpx.HTTPError:
                    status = 0
                with lock:  # a refusal with Retry-After is recorded as status -503
                    results.append((time.perf_counter() - t, -status if retry else status))
                i += 1
                time.sleep(pause + retry)

    hammers = [threading.Thread(target=run, args=(heavy, [CROSS], 0.0, f"192.0.2.{i}", changing)) for i in range(2)]
    for t in hammers:
        t.start()
    time.sleep(2.0)  # both joins are running before the probes start
    probers = [
        threading.Thread(target=run, args=(probe, list(PROBES.values()), pause, f"198.51.100.{i}", False))
        for i in range(probes)
    ]
    for t in probers:
        t.start()
    time.sleep(seconds)
    stop.set()
    for t in probers:
        t.join()
    for t in hammers:
        t.join()
    return probe, heavy


def report_heavy(name: str, probe: list[tuple[float, int]], heavy: list[tuple[float, int]], limit: float) -> None:
    lat = [dt for dt, _ in probe]
    errors = sum(1 for _, s in probe if s != 200)
    kinds = {
        "answered": [dt for dt, s in heavy if s == 200],
        "cut at the limit": [dt for dt, s in heavy if s in (503, 500) and dt >= 0.9 * limit],
        "refused (Retry-After)": [dt for dt, s in heavy if s == -503],
        "other": [dt for dt, s in heavy if s not in (200, -503, 0) and not (s in (503, 500) and dt >= 0.9 * limit)],
        "no answer by limit+30 s": [dt for dt, s in heavy if s == 0],
    }
    joins = "; ".join(f"{len(v)} {k} (median {statistics.median(v):.1f} s)" for k, v in kinds.items() if v)
    print(
        f"  {name:<10}{len(probe):>7}{pct(lat, 0.5) * 1e3:>9.1f}{pct(lat, 0.99) * 1e3:>9.1f}{max(lat) * 1e3:>9.1f}"
        f"{errors:>8}\n    cross joins: {joins}"
    )


def client_loop(
    url: str, path: str, window: tuple[float, float], heavy_share: float, seed: int
) -> list[tuple[str, float, int]]:
    """One client (a process of its own): queries from ``window[0]`` to ``window[1]`` (monotonic clock); results."""
    rng = random.Random(seed)
    local: list[tuple[str, float, int]] = []
    headers = {"Accept": "application/sparql-results+json", "X-Forwarded-For": f"203.0.113.{seed % 250}"}
    time.sleep(max(window[0] - time.monotonic(), 0))
    with httpx.Client(base_url=url, timeout=120, headers=headers) as http:
        while time.monotonic() < window[1]:
            pool = HEAVY if rng.random() < heavy_share else SIMPLE
            kind = rng.choice(sorted(pool))
            t = time.perf_counter()
            try:
                status = http.post(path, data={"query": pool[kind]}).status_code
            except httpx.HTTPError:
                status = 0
            local.append((kind, time.perf_counter() - t, status))
    return local


def drive(
    url: str, clients: int, seconds: float, heavy_share: float, seed: int, path: str = "sparql"
) -> dict[str, list[tuple[float, int]]]:
    """Run the clients for ``seconds`` against ``url + path``; (latency, status) per query kind.

    Each client is a process of its own (one Python client in threads is bound by its GIL before
    a fast server is) and has an address of its own (``X-Forwarded-For``, trusted by ``craftrdf
    serve`` from loopback as from a proxy), so each has its own query-time budget, as distinct
    clients would. The clients start together once every process has started.
    """
    results: dict[str, list[tuple[float, int]]] = defaultdict(list)
    start = time.monotonic() + 3.0 + 0.5 * clients  # the processes' start-up is not counted
    window = (start, start + seconds)
    with mp.get_context("spawn").Pool(clients) as pool:
        per_client = pool.starmap(
            client_loop, [(url, path, window, heavy_share, seed * 1000 + i) for i in range(clients)]
        )
    for local in per_client:
        for kind, dt, status in local:
            results[kind].append((dt, status))
    return results


def pct(values: list[float], q: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(q * len(values)))] if values else float("nan")


def report(phase: str, results: dict[str, list[tuple[float, int]]], seconds: float) -> dict[str, float]:
    total = sum(len(v) for v in results.values())
    errors = sum(1 for v in results.values() for _, s in v if s != 200)
    simple = sum(len(results[k]) for k in SIMPLE)
    print(
        f"\n{phase}: {total} queries in {seconds:.0f} s = {total / seconds:.0f}/s "
        f"(simple ones {simple / seconds:.0f}/s), errors {errors}"
    )
    print(f"  {'kind':<18}{'count':>7}{'per s':>8}{'p50 ms':>9}{'p99 ms':>9}{'errors':>8}")
    p50s = {}
    for kind in [*SIMPLE, *HEAVY]:
        v = results.get(kind, [])
        if not v:
            continue
        lat = [dt for dt, _ in v]
        p50s[kind] = pct(lat, 0.5)
        print(
            f"  {kind:<18}{len(v):>7}{len(v) / seconds:>8.1f}{pct(lat, 0.5) * 1e3:>9.1f}{pct(lat, 0.99) * 1e3:>9.1f}"
            f"{sum(1 for _, s in v if s != 200):>8}"
        )
    return p50s


def floor(store_path: Path, repeat: int) -> dict[str, float]:
    """Median in-process time of each query (engine plus SPARQL JSON serialization)."""
    out = {}
    with AnnotationStore.open(store_path, mode="read") as store:
        for kind, text in [*SIMPLE.items(), *HEAVY.items()]:
            times = []
            for _ in range(repeat if kind in SIMPLE else max(1, repeat // 10)):
                t = time.perf_counter()
                store.raw.query(text).serialize(format=ox.QueryResultsFormat.JSON)
                times.append(time.perf_counter() - t)
            out[kind] = statistics.median(times)
    return out


def build_sample(tmp: Path) -> Path:
    import warnings

    from craftrdf.apps.demo import sample_dir
    from craftrdf.building.builder import build_store
    from craftrdf.core.context import RunContext
    from craftrdf.core.errors import DataWarning

    path = tmp / "sample.store"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DataWarning)
        with AnnotationStore.open(path) as store:
            build_store(sample_dir(), store, RunContext.create())
    return path


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    src = ap.add_mutually_exclusive_group(required=True)
    src.add_argument("--store", type=Path, help="a built store (opened read-only)")
    src.add_argument("--sample", action="store_true", help="build the bundled sample into a temporary store")
    ap.add_argument("--seconds", type=float, default=30.0, help="total driving time, split over two phases")
    ap.add_argument("--clients", type=int, default=8)
    ap.add_argument("--workers", type=int, default=2, help="server query workers")
    ap.add_argument("--timeout", type=float, default=60.0, help="server time limit per query")
    ap.add_argument("--heavy-share", type=float, default=0.05, help="share of heavy queries in the mixed phase")
    ap.add_argument("--repeat", type=int, default=50, help="in-process runs per simple query for the floor")
    ap.add_argument("--heavy-seconds", type=float, default=60.0, help="length of the heavy-load phase per server")
    ap.add_argument("--heavy-timeout", type=float, default=20.0, help="both servers' time limit in that phase")
    ap.add_argument("--probe-clients", type=int, default=2, help="clients sending simple queries in that phase")
    ap.add_argument("--skip-simple", action="store_true", help="skip the simple and mixed phases")
    ap.add_argument("--skip-heavy", action="store_true", help="skip the heavy-load phase")
    ap.add_argument(
        "--attack",
        action="store_true",
        help="issue 28's starvation attack: the heavy-load phase with the join's text changing each time and "
        "--probe-clients polite clients in a closed loop (use --probe-clients 8)",
    )
    ap.add_argument(
        "--compare",
        action="store_true",
        help="simple-query throughput of craftrdf serve against oxigraph serve-read-only, same store, "
        "--clients clients, --seconds each, same run",
    )
    ap.add_argument(
        "--pages",
        action="store_true",
        help="ASK's latency alone, then beside 60 clients reading distinct /class/ pages (issue 28)",
    )
    ap.add_argument("--dumps", action="store_true", help="six different dumps at once, ASK probed meanwhile")
    args = ap.parse_args()

    with tempfile.TemporaryDirectory() as tmp:
        store = build_sample(Path(tmp)) if args.sample else args.store
        if not args.skip_simple:
            simple_phases(store, args)
        if args.compare:
            compare_phase(store, args)
        if not args.skip_heavy:
            heavy_phases(store, args, changing=False, pause=0.02)
        if args.attack:
            heavy_phases(store, args, changing=True, pause=0.0)
        if args.pages:
            pages_phase(store, args)
        if args.dumps:
            dumps_phase(store, args)


DUMPS = ("UBERON_EXT.ttl", "CL.trig", "GO_MF.nq", "SO.jsonld", "MOP.ttl", "CHEBI.ttl")


def dumps_phase(store: Path, args: argparse.Namespace) -> None:
    """Six different dumps requested at once (none cached), while one client sends ``ASK {}``."""
    port = free_port()
    server = start_server(store, port, args.workers, args.timeout)
    base = f"http://127.0.0.1:{port}/"
    took: dict[str, tuple[float, int, int]] = {}
    probes: list[tuple[float, int]] = []
    done = threading.Event()

    def fetch(name: str) -> None:
        t = time.perf_counter()
        try:
            r = httpx.get(base + "dump/" + name, timeout=900)
            took[name] = (time.perf_counter() - t, r.status_code, len(r.content))
        except httpx.HTTPError:
            took[name] = (time.perf_counter() - t, 0, 0)

    try:
        print(
            f"\ndumps: {len(DUMPS)} different dumps requested at once, ASK {{}} probed meanwhile; load {load_average()}"
        )
        threads = [threading.Thread(target=fetch, args=(n,)) for n in DUMPS]
        for t in threads:
            t.start()
        waiter = threading.Thread(target=lambda: ([t.join() for t in threads], done.set()))
        waiter.start()
        with httpx.Client(base_url=base, timeout=60, headers={"Accept": "application/sparql-results+json"}) as http:
            while not done.is_set():
                t0 = time.perf_counter()
                status = http.get("sparql", params={"query": "ASK {}"}).status_code
                probes.append((time.perf_counter() - t0, status))
                time.sleep(0.05)
        waiter.join()
    finally:
        server.terminate()
        server.wait(60)
    for name in DUMPS:
        seconds, status, size = took[name]
        print(f"  {name:<16} status {status}  {seconds:7.1f} s  {size / 1e6:8.1f} MB")
    lat = [dt for dt, _ in probes]
    errors = sum(1 for _, st in probes if st != 200)
    print(
        f"  ASK meanwhile: {len(probes)} probes, p50 {pct(lat, 0.5) * 1e3:.1f} ms, p99 {pct(lat, 0.99) * 1e3:.1f} ms, "
        f"errors {errors}; load average after: {load_average()}"
    )


UBERON_CLASSES = (
    "SELECT DISTINCT ?c WHERE { GRAPH ?g { ?c a <http://www.w3.org/2002/07/owl#Class> } "
    'FILTER(STRSTARTS(STR(?c), "http://purl.obolibrary.org/obo/UBERON_")) } LIMIT 600'
)


def pages_phase(store: Path, args: argparse.Namespace, readers: int = 60) -> None:
    """One client sends ``ASK {}`` for --heavy-seconds alone, then as long beside ``readers`` clients reading pages."""
    with AnnotationStore.open(store, mode="read") as st:
        curies = [
            "UBERON:" + row[0].value.rsplit("_", 1)[1]  # type: ignore[union-attr]
            for row in st.raw.query(UBERON_CLASSES)  # type: ignore[union-attr]
        ]
    port = free_port()
    server = start_server(store, port, args.workers, args.timeout)
    base = f"http://127.0.0.1:{port}/"
    stop = threading.Event()
    pages: list[tuple[float, int]] = []
    lock = threading.Lock()

    def reader(i: int) -> None:
        headers = {"Accept": "text/html", "X-Forwarded-For": f"198.18.0.{i}"}
        with httpx.Client(base_url=base, timeout=120, headers=headers) as http:
            j = i
            while not stop.is_set():
                t = time.perf_counter()
                try:
                    status = http.get(f"class/{curies[j % len(curies)]}").status_code
                except httpx.HTTPError:
                    status = 0
                with lock:
                    pages.append((time.perf_counter() - t, status))
                j += readers

    def probe(seconds: float) -> list[tuple[float, int]]:
        out: list[tuple[float, int]] = []
        end = time.monotonic() + seconds
        with httpx.Client(base_url=base, timeout=60, headers={"Accept": "application/sparql-results+json"}) as http:
            while time.monotonic() < end:
                t = time.perf_counter()
                status = http.get("sparql", params={"query": "ASK {}"}).status_code
                out.append((time.perf_counter() - t, status))
                time.sleep(0.02)
        return out

    try:
        print(
            f"\npages: ASK {{}} alone, then beside {readers} clients on distinct /class/ pages; load {load_average()}"
        )
        alone = probe(args.heavy_seconds / 2)
        threads = [threading.Thread(target=reader, args=(i,)) for i in range(readers)]
        for t in threads:
            t.start()
        time.sleep(2.0)
        beside = probe(args.heavy_seconds / 2)
        stop.set()
        for t in threads:
            t.join()
    finally:
        server.terminate()
        server.wait(60)
    for name, res in (("ASK alone", alone), ("ASK beside pages", beside), ("the pages", pages)):
        lat = [dt for dt, _ in res]
        errors = sum(1 for _, st in res if st != 200)
        print(
            f"  {name:<18}{len(res):>7}  p50 {pct(lat, 0.5) * 1e3:8.1f} ms  p99 {pct(lat, 0.99) * 1e3:8.1f} ms  errors {errors}"
        )
    print(f"  load average after: {load_average()}")


def load_average() -> str:
    """The machine's 1, 5 and 15 minute load averages, as /proc/loadavg gives them ("?" elsewhere)."""
    return " ".join(Path("/proc/loadavg").read_text().split()[:3]) if Path("/proc/loadavg").exists() else "?"


def start_named(name: str, store: Path, port: int, workers: int, timeout: float) -> tuple[subprocess.Popen[bytes], str]:
    """``craftrdf`` or ``oxigraph`` serving ``store`` on ``port``, and the path of its SPARQL endpoint."""
    if name == "craftrdf":
        return start_server(store, port, workers, timeout), "sparql"
    return start_oxigraph(store, port, timeout), "query"


def heavy_phases(store: Path, args: argparse.Namespace, *, changing: bool, pause: float) -> None:
    """The heavy-load phase (or, ``changing``, the attack) against craftrdf and then oxigraph."""
    what = "the attack" if changing else "heavy-load phase"
    texts = "a changing text" if changing else "the same text"
    print(
        f"\n{what}: 2 clients looping on a cross join ({texts}, limit {args.heavy_timeout:g} s), "
        f"{args.probe_clients} clients probing for {args.heavy_seconds:g} s; load average {load_average()}"
    )
    print(f"  {'server':<10}{'probes':>7}{'p50 ms':>9}{'p99 ms':>9}{'max ms':>9}{'errors':>8}")
    for name in ("craftrdf", "oxigraph"):
        port = free_port()
        server, path = start_named(name, store, port, args.workers, args.heavy_timeout)
        try:
            endpoint = f"http://127.0.0.1:{port}/{path}"
            probe, heavy = heavy_phase(
                endpoint, args.probe_clients, args.heavy_seconds, args.heavy_timeout, changing=changing, pause=pause
            )
            report_heavy(name, probe, heavy, args.heavy_timeout)
        finally:
            server.terminate()
            server.wait(60)
    print(f"  load average after: {load_average()}")


def compare_phase(store: Path, args: argparse.Namespace) -> None:
    """Simple queries only, ``--clients`` clients: craftrdf serve, then oxigraph serve-read-only, twice each."""
    half = args.seconds / 2
    print(
        f"\ncompare: simple queries, {args.clients} clients, {half:g} s per run, craftrdf ({args.workers} workers) "
        f"and oxigraph serve-read-only alternating, two runs each; load average {load_average()}"
    )
    rates: dict[str, list[float]] = {"craftrdf": [], "oxigraph": []}
    for _ in range(2):
        for name in rates:
            port = free_port()
            server, path = start_named(name, store, port, args.workers, args.timeout)
            try:
                url = f"http://127.0.0.1:{port}/"
                drive(url, args.clients, 1.0, 0.0, 99, path)  # warm-up, not counted
                results = drive(url, args.clients, half, 0.0, 1, path)
            finally:
                server.terminate()
                server.wait(60)
            total = sum(len(v) for v in results.values())
            errors = sum(1 for v in results.values() for _, st in v if st != 200)
            lat = [dt for v in results.values() for dt, _ in v]
            rates[name].append(total / half)
            print(
                f"  {name:<10}{total / half:>8.0f}/s  p50 {pct(lat, 0.5) * 1e3:6.1f} ms  "
                f"p99 {pct(lat, 0.99) * 1e3:6.1f} ms  errors {errors}"
            )
    ratio = statistics.median(rates["craftrdf"]) / statistics.median(rates["oxigraph"])
    print(f"  craftrdf / oxigraph (medians of the runs): {ratio:.2f}x; load average after: {load_average()}")


def simple_phases(store: Path, args: argparse.Namespace) -> None:
    """The simple and mixed phases against craftrdf, and the in-process floor."""
    port = free_port()
    print(
        f"store {store}; {args.clients} clients, {args.workers} workers, {args.seconds:.0f} s, "
        f"heavy share {args.heavy_share:.0%} in the mixed phase"
    )
    server = start_server(store, port, args.workers, args.timeout)
    try:
        url = f"http://127.0.0.1:{port}/"
        drive(url, args.clients, 1.0, 0.0, 99)  # warm-up, not counted
        half = args.seconds / 2
        simple = drive(url, args.clients, half, 0.0, 1)
        p50 = report("simple phase", simple, half)
        mixed = drive(url, args.clients, half, args.heavy_share, 2)
        p50_mixed = report("mixed phase", mixed, half)
    finally:
        server.terminate()
        server.wait(30)
    fl = floor(store, args.repeat)
    print("\nfloor (same query in-process, median) and HTTP p50 / floor:")
    for kind, t in fl.items():
        http = p50.get(kind) or p50_mixed.get(kind)
        ratio = f"{http / t:8.1f}x" if http else "       -"
        print(f"  {kind:<18}{t * 1e3:9.2f} ms   http p50 {http * 1e3 if http else float('nan'):9.2f} ms {ratio}")
    simple_floor = len(SIMPLE) / sum(fl[k] for k in SIMPLE)
    print(f"\nin-process floor, one thread, simple mix: {simple_floor:.0f} queries/s")


if __name__ == "__main__":
    main()
