"""A small CRAFT sample bundled for `craftrdf demo` (see LICENSE-SAMPLE.md here)."""
