"""``python -m craftrdf.cli``: the same as the ``craftrdf`` command."""

from . import main

raise SystemExit(main())
