"""``python -m craftrdf``: the same as the ``craftrdf`` command."""

from .apps.cli import main

raise SystemExit(main())
