"""Shared fixtures: where the real CRAFT corpus is, and the tiny fixtures in tests/data.

The tests run against the installed craftrdf (docs/testing.md): child Pythons the tests start
get PYTHONSAFEPATH=1, so the checkout (their working directory) does not shadow it. Every cache
goes to a temporary XDG_CACHE_HOME; the user's own cache is snapshotted here and compared by
tests/test_user_cache.py, which runs last.

The full-corpus store (``corpus_store``) takes about a minute and a half of CPU to build. Its build
starts in a child process as soon as the tests are collected, and the modules that use it run last,
so on CI's two cores it is built beside the rest of the suite instead of before its first user.

Under pytest-xdist (the README's test command runs ``-n 2``), one build serves every worker: the first
worker to collect claims it in a directory the controller made, the others wait for its exit status
file. The modules that use the corpus store form one xdist group (one worker, in order: a test there
reopens the store for writing), scheduled first so that worker waits for the build while the other
runs the rest; every other module is a group of its own, so its module fixtures are set up once.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import pyoxigraph as ox
import pytest

from craftrdf.building.loader import load_files
from craftrdf.store.local import AnnotationStore
from tests.helpers.corpus import DATA, REPO, find_craft_dir, find_go_obo
from tests.helpers.sample import sample_store as build_sample
from tests.helpers.usercache import snapshot, user_cache_dir

os.environ["PYTHONSAFEPATH"] = "1"
# Worker processes started with "spawn" import what a test sends them (helpers of tests/) by module
# name: the checkout goes on sys.path after site-packages, so its tests package is found and its
# craftrdf does not shadow the installed one.
if str(REPO) not in sys.path:
    sys.path.append(str(REPO))
# xdist workers inherit the controller's environment, whose XDG_CACHE_HOME is already a temporary one:
# the user's own cache directory is passed down by name.
USER_CACHE = Path(os.environ.get("CRAFTRDF_TEST_USER_CACHE") or user_cache_dir())
os.environ["CRAFTRDF_TEST_USER_CACHE"] = str(USER_CACHE)
USER_CACHE_AT_START = snapshot(USER_CACHE)
os.environ["XDG_CACHE_HOME"] = tempfile.mkdtemp(prefix="craftrdf-test-cache-")
LAST_TEST = "test_user_cache.py::test_the_suite_leaves_the_users_cache_as_it_found_it"
# One directory per test run, shared by the controller and its xdist workers (the corpus build's claim)
_SHARED = "CRAFTRDF_TEST_RUN_DIR"
_OWNS_SHARED = pytest.StashKey[Path]()


def pytest_configure(config: pytest.Config) -> None:
    if _is_xdist_worker(config):
        config.pluginmanager.register(_XdistGroups(), "craftrdf-xdist-groups")
    if _SHARED not in os.environ:  # the xdist controller, or a run without xdist: workers inherit it
        run_dir = Path(tempfile.mkdtemp(prefix="craftrdf-test-run-"))
        os.environ[_SHARED] = str(run_dir)
        config.stash[_OWNS_SHARED] = run_dir


def _is_xdist_worker(config: pytest.Config) -> bool:
    return hasattr(config, "workerinput")


class _XdistGroups:
    """Under xdist, one group per module and one for every module that uses the corpus store (docstring)."""

    @pytest.hookimpl(tryfirst=True)  # before xdist's worker hook reads the groups into the node ids
    def pytest_collection_modifyitems(self, items: list[pytest.Item]) -> None:
        corpus = {i.path for i in items if "corpus_store" in getattr(i, "fixturenames", ())}
        for item in items:
            item.add_marker(
                pytest.mark.xdist_group("corpus_store" if item.path in corpus else item.nodeid.split("::")[0])
            )


@pytest.hookimpl(trylast=True)  # after -k/-m deselection: no build for a corpus test deselected
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Skip the ``long`` tests unless CRAFTRDF_LONG_TESTS=1; run the corpus store's modules last, its build started."""
    long_tests = os.environ.get("CRAFTRDF_LONG_TESTS") == "1"
    if not long_tests:
        default = "a whole-corpus verification of minutes"
        for item in items:
            marker = item.get_closest_marker("long")
            if marker is not None:  # ``@pytest.mark.long("why")`` says why in the skip reason
                why = marker.args[0] if marker.args else default
                item.add_marker(pytest.mark.skip(reason=f"{why}: run with CRAFTRDF_LONG_TESTS=1"))
    users = [i for i in items if "corpus_store" in getattr(i, "fixturenames", ())]
    # whole modules move (their module-scoped fixtures are set up once), in their own order:
    # test_corpus_build's rebuild, a writer, still runs after the readers before it
    modules = {i.path for i in users}
    rest, corpus = [i for i in items if i.path not in modules], [i for i in items if i.path in modules]
    # under xdist the corpus group goes first (see the module docstring); alone, the build overlaps the rest
    items[:] = corpus + rest if _is_xdist_worker(config) else rest + corpus
    # stable: only the cache check moves, to the end (an xdist nodeid ends in @group)
    items.sort(key=lambda i: i.nodeid.split("@", 1)[0].endswith(LAST_TEST))
    if not config.option.collectonly and any(long_tests or i.get_closest_marker("long") is None for i in users):
        _start_corpus_build(config)


@dataclass
class _CorpusBuild:
    """``craftrdf build`` of the full corpus in a child process, which records its exit status in ``rc``."""

    work: Path

    @property
    def store(self) -> Path:
        return self.work / "craft.store"

    def wait(self) -> Path:
        """The built store; fails the fixture with the build's last log lines when it failed."""
        rc = self.work / "rc"
        while not rc.exists():  # the child may belong to another xdist worker: its status file is the signal
            time.sleep(0.5)
        status = rc.read_text().strip()
        if status != "0":
            log = self.work / "build.log"
            tail = log.read_text(encoding="utf-8", errors="replace").splitlines()[-20:]
            pytest.fail(f"building the corpus store failed (exit {status}):\n" + "\n".join(tail))
        return self.store


_CORPUS_BUILD = pytest.StashKey[_CorpusBuild]()
# The shell puts the build in the background and exits at once (waited for: no child left running in this
# process); the build writes rc.tmp then renames it, so a reader never sees a half-written status. The shell
# leads its own process group, which the run's owner kills if the session stops before the build ends.
_RUN_AND_RECORD = (
    'cd "$1" && shift && echo $$ >pid && { "$@" >build.log 2>&1; echo $? >rc.tmp && mv rc.tmp rc; } </dev/null &'
)


def _start_corpus_build(config: pytest.Config) -> None:
    craft = find_craft_dir()
    prebuilt = os.environ.get("CRAFTRDF_CORPUS_STORE")
    if craft is None or (prebuilt and Path(prebuilt).is_dir()) or _CORPUS_BUILD in config.stash:
        return
    work = Path(os.environ[_SHARED]) / "corpus"
    config.stash[_CORPUS_BUILD] = build = _CorpusBuild(work)
    try:
        work.mkdir()
    except FileExistsError:  # another xdist worker claimed it first
        return
    cmd = [sys.executable, "-m", "craftrdf", "-q", "build", "--craft", str(craft), "--store", str(build.store)]
    # its own session: the run's owner stops it by process group at the end (pytest_unconfigure)
    subprocess.run(["sh", "-c", _RUN_AND_RECORD, "sh", str(work), *cmd], start_new_session=True, check=True)


def pytest_unconfigure(config: pytest.Config) -> None:
    shutil.rmtree(os.environ["XDG_CACHE_HOME"], ignore_errors=True)
    run_dir = config.stash.get(_OWNS_SHARED, None)
    if run_dir is None:  # an xdist worker: the controller cleans up after every worker has stopped
        return
    pid = run_dir / "corpus" / "pid"
    if pid.exists() and not (run_dir / "corpus" / "rc").exists():  # stopped before needing it (-x, Ctrl-C)
        with contextlib.suppress(ProcessLookupError):
            os.killpg(int(pid.read_text()), signal.SIGKILL)
    shutil.rmtree(run_dir, ignore_errors=True)


@pytest.fixture(scope="session")
def craft_dir() -> Path:
    d = find_craft_dir()
    if d is None:
        pytest.skip("full CRAFT corpus not found: set CRAFT_DIR or put it at ../shared/craft")
    return d


@pytest.fixture(scope="session")
def go_obo() -> Path:
    p = find_go_obo()
    if p is None:
        pytest.skip("go-2022-07-01.obo.gz not found beside the corpus (../shared/ontologies)")
    return p


@pytest.fixture(scope="session")
def user_cache_at_start() -> tuple[Path, dict[str, tuple[int, int]]]:
    """The user's cache directory and its snapshot taken when the session started (before any test)."""
    return USER_CACHE, USER_CACHE_AT_START


@pytest.fixture
def data_dir() -> Path:
    return DATA


@pytest.fixture(scope="session")
def corpus_store(craft_dir: Path, request: pytest.FixtureRequest) -> Path:
    """A store built once per test session from the full corpus with ``craftrdf build``; open it with mode="read".

    The build was started at collection (see the module docstring); this waits for it.
    For development only, CRAFTRDF_CORPUS_STORE names an already built store to reuse
    (CI leaves it unset, so the suite always builds from the raw files there).
    """
    prebuilt = os.environ.get("CRAFTRDF_CORPUS_STORE")
    if prebuilt and Path(prebuilt).is_dir():
        return Path(prebuilt)
    build = request.config.stash.get(_CORPUS_BUILD, None)
    if build is None:  # asked for by name (request.getfixturevalue): collection did not see it coming
        _start_corpus_build(request.config)
        build = request.config.stash[_CORPUS_BUILD]
    return build.wait()


class _SharedReader:
    """The corpus store opened read-only once, for tests that share what the library caches per store object."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._store: AnnotationStore | None = None

    def get(self) -> AnnotationStore:
        if self._store is None:
            self._store = AnnotationStore.open(self.path, mode="read")
        return self._store

    def close(self) -> None:
        if self._store is not None:
            self._store.close()
            self._store = None


@pytest.fixture(scope="session")
def _shared_corpus_reader(corpus_store: Path) -> Iterator[_SharedReader]:
    reader = _SharedReader(corpus_store)
    yield reader
    reader.close()


@pytest.fixture
def corpus_reader(_shared_corpus_reader: _SharedReader) -> AnnotationStore:
    """The session's corpus store, open read-only and shared between tests: term graphs and similarity
    indexes, cached per store object, are then read once (the all-ontology ``bossy`` index of the
    evaluation and of the sweep). Never write to it."""
    return _shared_corpus_reader.get()


@pytest.fixture
def corpus_store_for_writing(_shared_corpus_reader: _SharedReader) -> Path:
    """The corpus store's path for a test that opens it for writing: the shared reader is closed first
    (one writer, no reader beside it), and reopened by the next test that asks for it."""
    _shared_corpus_reader.close()
    return _shared_corpus_reader.path


@pytest.fixture(scope="session")
def _pristine_sample() -> AnnotationStore:
    """The bundled sample built in memory once per session; tests get copies (sample_store)."""
    return build_sample()


@pytest.fixture(scope="module")
def sample_store(_pristine_sample: AnnotationStore) -> AnnotationStore:
    """The bundled sample in memory, a fresh copy per test module (modules may add sets to it).

    Copying the session's build is a quarter of the CPU of building it again from the sample's files.
    """
    copy = ox.Store()
    copy.bulk_extend(_pristine_sample.raw.quads_for_pattern(None, None, None, None))
    return AnnotationStore(copy)


@pytest.fixture(scope="session")
def sample_store_copy(tmp_path_factory: pytest.TempPathFactory) -> Callable[..., Path]:
    """``copy(path, sets=None)``: the bundled sample (``sets`` of it) as a closed on-disk store at ``path``.

    Each ``sets`` is built once per session (tests/helpers/sample.py) and its directory copied, so a
    module may write to its copy.
    """
    from tests.helpers.sample import sample_store_path

    built: dict[tuple[str, ...] | None, Path] = {}

    def copy(path: Path, *, sets: Sequence[str] | None = None) -> Path:
        key = tuple(sets) if sets is not None else None
        if key not in built:
            built[key] = sample_store_path(tmp_path_factory.mktemp("pristine") / "sample.store", sets=sets)
        shutil.copytree(built[key], path)
        return path

    return copy


@pytest.fixture(scope="module")
def sample_store_dir(sample_store_copy: Callable[..., Path], tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The bundled sample as an on-disk store (closed), one copy per test module, for commands and servers."""
    return sample_store_copy(tmp_path_factory.mktemp("sample") / "sample.store")


@pytest.fixture
def toy_store() -> AnnotationStore:
    """An in-memory store holding Wang's Figure 1 DAG (graph ``wang2007_fig1``) and the toy
    anatomy with extension classes (graph ``toy_extensions``), from tests/data/similarity."""
    store = AnnotationStore.memory()
    load_files(store, [DATA / "similarity" / "wang2007_fig1.obo", DATA / "similarity" / "toy_extensions.obo"])
    return store
