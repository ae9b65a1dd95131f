"""Where work runs: executors (this process, a process pool, Dask) and the payloads workers keep."""
