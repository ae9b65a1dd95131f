"""Building a store: a CRAFT directory (builder) or loose files (loader), as batches."""
