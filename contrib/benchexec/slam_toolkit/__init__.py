"""BenchExec tool-info modules of slam-toolkit (see slam_run)."""
