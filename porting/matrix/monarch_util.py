"""Helpers for matrix packs that drive Monarch (imported by test_matrix/ files)."""

from __future__ import annotations


def load_by_value(path, name: str):
    """Import a helper module of the matrix by file path so that Monarch's pickler ships its
    classes and functions by value (the proc processes cannot import test_matrix files)."""
    import importlib.util
    import sys

    import cloudpickle

    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    cloudpickle.register_pickle_by_value(module)
    return module


def stop_mesh(procs) -> None:
    """Stop a proc mesh; a mesh with dead procs may report the failure while stopping."""
    try:
        procs.stop().get()
    except Exception:
        pass
