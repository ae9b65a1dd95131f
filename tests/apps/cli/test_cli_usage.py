"""The command line's own surface: --version, usage errors as one line with exit 1, a missing extra named."""

from __future__ import annotations

import subprocess
import sys
from importlib.metadata import version

import pytest

from craftrdf.apps.cli import main


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    """``craftrdf ARGS`` in this process: (exit status, stdout, stderr)."""
    try:
        code = main(list(args))
    except SystemExit as exc:  # argparse's --help, --version and usage errors
        code = exc.code if isinstance(exc.code, int) else 1
    out, err = capsys.readouterr()
    return code, out, err


def test_version_is_the_installed_distributions(capsys):
    code, out, _ = run(capsys, "--version")
    assert code == 0 and out == f"craftrdf {version('craftrdf')}\n"


@pytest.mark.parametrize(
    ("args", "says"),
    [
        ([], "the following arguments are required: command"),
        (["no-such-command"], "invalid choice: 'no-such-command'"),
        (["export"], "craftrdf export: error: the following arguments are required: --format, --out"),
        (
            ["query", "annotation-counts", "--store", "s", "--format", "yaml"],
            "argument --format: invalid choice: 'yaml'",
        ),
        (["build", "--craft", "c"], "one of the arguments --store --endpoint is required"),
        (["query", "sets", "--store", "s", "--timeout", "soon"], "argument --timeout: invalid float value: 'soon'"),
        (["serve", "--store", "s", "--max-body", "0"], "argument --max-body: must be positive, got 0"),
        (["view", "--store", "s", "--sets", "A", "--no-such-option"], "unrecognized arguments: --no-such-option"),
    ],
)
def test_usage_errors_are_one_line_and_exit_1(capsys, args, says):
    code, out, err = run(capsys, *args)
    assert code == 1 and out == ""
    assert err.count("\n") == 1 and says in err, err
    assert err.startswith("craftrdf") and "usage:" not in err and err.rstrip().endswith("--help)")


def test_help_still_prints_the_usage_and_exits_0(capsys):
    code, out, err = run(capsys, "query", "--help")
    assert code == 0 and out.startswith("usage: craftrdf query") and "--param" in out and err == ""


# a Python without the server or the dask extra: their modules cannot be imported
_WITHOUT = (
    "import sys; sys.modules[{module!r}] = None; from craftrdf.apps.cli import main; raise SystemExit(main({argv!r}))"
)


@pytest.mark.parametrize(
    ("module", "argv", "extra"),
    [
        ("starlette", ["serve", "--store", "STORE"], "server"),
        (
            "distributed",
            ["sweep", "--store", "STORE", "--set", "UBERON", "--out", "OUT", "--scheduler", "tcp://127.0.0.1:1"],
            "dask",
        ),
    ],
)
def test_a_command_whose_extra_is_missing_names_it_in_one_line(tmp_path, module, argv, extra):
    argv = [a.replace("STORE", str(tmp_path / "s.store")).replace("OUT", str(tmp_path / "out")) for a in argv]
    r = subprocess.run(
        [sys.executable, "-c", _WITHOUT.format(module=module, argv=argv)], capture_output=True, text=True, timeout=120
    )
    assert r.returncode == 1, r.stderr
    assert r.stderr == (
        f"craftrdf: error: {module} is not installed: this needs the {extra} extra: pip install 'craftrdf[{extra}]'\n"
    )


def test_a_missing_module_of_no_extra_keeps_its_traceback():
    # numpy is a base dependency: without it the install is broken, and the traceback says where
    code = "import sys; sys.modules['numpy'] = None; from craftrdf.apps.cli import main; main(['demo'])"
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert r.returncode == 1 and "Traceback" in r.stderr and "ModuleNotFoundError" in r.stderr
