"""Parameter sweeps of the matcher against gold (issue 7); being written."""
