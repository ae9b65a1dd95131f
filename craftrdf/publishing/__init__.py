"""What leaves the store: exports to files, the HTTP server and viewer, SHACL shapes."""
