"""Applications over the library: the ``craftrdf`` command, ``craftrdf reproduce`` and the demo."""
