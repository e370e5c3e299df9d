"""`port audit`: porting hazards that hipify cannot fix, in C/C++/CUDA/HIP and Rust sources.

Python API::

    from porting.audit.scan import audit_paths
    result = audit_paths(["native/"], disable=(), baseline=None, jobs=None)
    result.findings   # list[Finding]: path, line, col, rule, severity, message, suggestion, snippet
    result.counts()   # {"error": n, "warning": n, "note": n}

    from porting.audit.sarif import to_sarif        # SARIF 2.1.0 log (dict)
    from porting.audit.tokenize import tokenize     # shared C/C++/CUDA/Rust tokenizer
    from porting.audit.rules import RULES           # rule id -> Rule(id, severity, title, help, default)
    from porting.audit.symbols import symbol_sets   # CUDA / ROCm 7 names read from the headers
    from porting.audit.evaluate import evaluate     # precision/recall against a labelled corpus

Opt-in rules (``Rule.default`` False) run with ``audit_paths(..., enable=[...])``.
"""
