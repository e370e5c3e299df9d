"""The certification-matrix pytest plugin (see porting.matrix.plugin)."""
