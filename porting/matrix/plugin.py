"""pytest plugin for the certification matrix (filled in by the matrix issue)."""
