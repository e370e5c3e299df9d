"""CUDA -> HIP aliases from one table: hipify's maps + ``hip_aliases/overrides.toml``.

- ``table``: ``build_table()`` -> ``AliasTable`` (CUDA name -> ``Alias``: HIP name, kind, const type,
  HIP version guard, origin).
- ``scan``: ``scan(paths, table)`` -> the CUDA names Rust sources use, and unknown ones.
- ``rust_gen``: the ``#[cfg(use_rocm)]`` alias block (``port aliases scan``) and the
  ``rocm_compat!`` macro table of the ``hip-aliases`` crate.
- ``cpp_gen``: the CUDA/HIP rename part and API list of ``hip_aliases/gpu_runtime.h``.
- ``generate``: compute, write or check all checked-in generated files.
"""
