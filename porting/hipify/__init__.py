"""Out-of-tree, incremental, parallel hipify (``port hipify``), built on torch.utils.hipify.

Python API (used by ``port build --path hipified-cuda``)::

    from porting.hipify import convert_tree, HipifyOptions, Manifest

    manifest = convert_tree(src, out, jobs=None, options=HipifyOptions(), manifest_path=None)
    manifest.ok            # False if any file failed
    manifest.summary       # {"converted": n, "unchanged": n, "skipped": n, "failed": n, "non_utf8": n, "files": n}
    for entry in manifest.files:   # FileEntry: source, output, status, why, ...
        ...

- ``src`` is never written to. ``out`` receives what plain ``hipify(project_directory=src,
  output_directory=out, ...)`` would produce: a copy of every file plus the hipified files
  under hipify's own names (``x.cu`` -> ``x.hip``, ``y.cpp`` -> ``y_hip.cpp`` in PyTorch-extension
  mode), byte for byte the same.
- ``jobs``: worker processes (None: number of cores). Header-include rewriting, which plain
  hipify decides through global state in processing order, is decided once for the whole
  tree (``porting.hipify.includes``), so results do not depend on ``jobs``.
- Incremental: the manifest (default ``out/.port-hipify-manifest.json``) records each
  source's size, mtime and SHA-256 plus a key made of the options, the source/output roots
  and the hipify version + a hash of its code and mapping tables. A re-run reprocesses only
  changed sources (and files whose include rewriting changed); a key change rebuilds all;
  outputs of deleted sources are removed.
- Robust: non-UTF-8 sources are converted losslessly (undecodable bytes pass through),
  binary and oversized files are copied unchanged and reported ``skipped``, symlink loops are
  reported ``skipped``, unreadable files ``failed``; the run always finishes.
- Raises ``porting.errors.InputError``/``UsageError`` only for a bad ``src``/``out``.
"""

from .convert import MANIFEST_NAME, HipifyOptions, convert_tree
from .manifest import FileEntry, Manifest

__all__ = ["convert_tree", "HipifyOptions", "Manifest", "FileEntry", "MANIFEST_NAME"]
