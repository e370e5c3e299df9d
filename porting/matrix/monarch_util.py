"""Helpers for the matrix packs: loading their helper files, driving Monarch (imported by test_matrix/ files)."""

from __future__ import annotations

import contextlib


def load_file(path, name: str):
    """Import a helper file of the matrix as module ``name``, once per process (the packs run
    under ``--import-mode=importlib``, where test files cannot import their neighbours)."""
    import importlib.util
    import sys

    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise ImportError(f"{path}: not a loadable Python module")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def load_by_value(path, name: str):
    """``load_file``, and Monarch's pickler ships the module's classes and functions by value
    (the proc processes cannot import test_matrix files)."""
    import cloudpickle

    module = load_file(path, name)
    cloudpickle.register_pickle_by_value(module)
    return module


def stop_mesh(procs) -> None:
    """Stop a proc mesh; a mesh with dead procs may report the failure while stopping."""
    try:
        procs.stop().get()
    except Exception:
        pass


@contextlib.contextmanager
def tensor_engine_on_cpu(n_hosts: int, per_host: int, rename: dict[str, str] | None = None):
    """A Monarch tensor engine over ``n_hosts`` local host processes (a ProcessJob, as
    monarch._testing does) with ``per_host`` CPU procs each, dims renamed by ``rename``; exited,
    its procs stopped and the job killed however the body ends."""
    from monarch._src.job.process import ProcessJob
    from monarch.mesh_controller import spawn_tensor_engine

    job = ProcessJob({"hosts": n_hosts})
    try:
        procs = job.state(cached_path=None).hosts.spawn_procs(per_host={"gpus": per_host})
        dm = spawn_tensor_engine(procs)
        dm = dm.rename(**rename) if rename else dm
        try:
            yield dm
        finally:
            try:
                dm.exit()
            finally:
                stop_mesh(procs)
    finally:
        job.kill()
