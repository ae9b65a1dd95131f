"""The ``craftrdf`` command: parse options, call one library function, format the result.

One module per command group adds its subcommands. Errors a user can fix, usage errors
included, come out as one line on stderr and exit status 1; a command that needs an extra
which is not installed names it.

Where craftrdf imports its own modules (the rule for the whole package, stated here only): a command
module imports the library inside its handler, and ``craftrdf/_api.py`` and ``craftrdf/__init__.py``
(through ``core/_lazy.py``) import on first use, so ``craftrdf --help`` and ``import craftrdf`` load only
what they use. Measured (Python 3.11, load 7 on 2 cores, medians of 9 runs): ``craftrdf --help`` 163 ms
against 1,289 ms for the CLI plus every module its handlers import (x7.9); ``import craftrdf`` 121 ms
against 742 ms with every module it exports from (x6.1). Everywhere else (apps/reproduce and apps/demo
too may import in functions, as commands do) an own-module import is at the top of the module, unless
it breaks an import cycle or defers an optional or heavy dependency; then a one-line comment says which.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import NoReturn

from ... import __version__
from ...core._extras import missing_extra
from ...core.errors import CraftrdfError
from . import annotate, classify, evaluate, export, reproduce, serve, similarity, store, sweep, term, train, views
from ._common import setup_logging

GROUPS = (store, views, similarity, term, annotate, export, evaluate, serve, sweep, reproduce, train, classify)


class _Parser(argparse.ArgumentParser):
    """An argument parser whose usage errors are one line on stderr and exit status 1, like every error.

    Subcommand parsers are of this class too (``add_subparsers`` makes them with the class of its parser).
    """

    def error(self, message: str) -> NoReturn:
        one_line = " ".join(message.split())
        self.exit(1, f"{self.prog}: error: {one_line} (see {self.prog} --help)\n")


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of the ``craftrdf`` command."""
    p = _Parser(prog="craftrdf", description="CRAFT's ontologies and annotations as an RDF store.")
    p.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    p.add_argument("-v", "--verbose", action="count", default=0, help="more log output (-vv for debug)")
    p.add_argument("-q", "--quiet", action="store_true", help="no progress bars")
    sub = p.add_subparsers(dest="command", required=True)
    for group in GROUPS:
        group.add_commands(sub)
    return p


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point: run one command; CraftrdfError becomes one line on stderr and exit 1."""
    parser = build_parser()
    args = parser.parse_args(argv)
    setup_logging(args.verbose)
    try:
        return int(args.func(args))
    except CraftrdfError as exc:
        return _fail(str(exc))
    except ModuleNotFoundError as exc:
        missing = missing_extra(exc)
        if missing is None:  # not a module of an extra: a broken install or a bug, keep the traceback
            raise
        return _fail(str(missing))
    except KeyboardInterrupt:
        print("craftrdf: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # output piped into `head` and the like
        sys.stderr.close()
        return 0
    except OSError as exc:
        if exc.filename is None:  # not about a file the user named: a bug, keep the traceback
            raise
        # a path the user gave cannot be read or written (exists as a file, no permission, disk full)
        return _fail(f"{exc.filename}: {exc.strerror or exc}")


def _fail(message: str) -> int:
    print(f"craftrdf: error: {message}", file=sys.stderr)
    return 1
