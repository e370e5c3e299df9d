"""The build record: what `port build` did for one path, written as JSON in the build dir."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from ..errors import InputError

BUILD_RECORD_SCHEMA = 1
RECORD_NAME = "build-record.json"


@dataclass
class Step:
    kind: str  # "hipify" | "compile" | "link"
    source: str  # input (a source file, or the object list for link)
    output: str
    command: list[str]
    cached: bool = False  # up to date: not rerun
    seconds: float = 0.0
    returncode: int = 0

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Step:
        return cls(**{k: data[k] for k in ("kind", "source", "output", "command", "cached", "seconds",
                                           "returncode")})


@dataclass
class BuildRecord:
    path: str  # a build path declared in porting.registry
    ok: bool
    compiler: str | None
    compiler_version: str | None
    gpu_archs: list[str]
    source_dir: str
    build_dir: str
    library: str | None  # relative to the record's directory
    seconds: float = 0.0
    steps: list[Step] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    error: str | None = None  # one line: the failing command and its exit status
    error_output: str = ""  # the failing tool's stderr/stdout (tail)
    toolchain: str | None = None  # the declared toolchain (porting.registry) that compiled it
    headers: str | None = None  # GPU paths: the headers compiled against, and where they came from
    runnable: bool = True  # False: built by a compile-only toolchain, nothing in it can run here
    code_objects: list[dict[str, Any]] = field(default_factory=list)  # HIP: one per arch in the bundle
    schema: int = BUILD_RECORD_SCHEMA

    @property
    def rebuilt(self) -> list[Step]:
        return [s for s in self.steps if not s.cached]

    def to_json(self) -> dict[str, Any]:
        return {"schema": self.schema, "path": self.path, "ok": self.ok, "compiler": self.compiler,
                "compiler_version": self.compiler_version, "gpu_archs": list(self.gpu_archs),
                "source_dir": self.source_dir, "build_dir": self.build_dir, "library": self.library,
                "seconds": round(self.seconds, 3), "steps": [s.to_json() for s in self.steps],
                "notes": list(self.notes), "error": self.error, "error_output": self.error_output,
                "toolchain": self.toolchain, "headers": self.headers, "runnable": self.runnable,
                "code_objects": [dict(c) for c in self.code_objects]}

    @classmethod
    def from_json(cls, data: Any, where: str = "build record") -> BuildRecord:
        if not isinstance(data, dict) or data.get("schema") != BUILD_RECORD_SCHEMA:
            raise InputError(f"{where}: not a schema-{BUILD_RECORD_SCHEMA} build record")
        try:
            return cls(path=data["path"], ok=bool(data["ok"]), compiler=data["compiler"],
                       compiler_version=data["compiler_version"], gpu_archs=list(data["gpu_archs"]),
                       source_dir=data["source_dir"], build_dir=data["build_dir"], library=data["library"],
                       seconds=float(data["seconds"]), steps=[Step.from_json(s) for s in data["steps"]],
                       notes=list(data["notes"]), error=data["error"], error_output=data.get("error_output", ""),
                       toolchain=data.get("toolchain"), headers=data.get("headers"),
                       runnable=bool(data.get("runnable", True)), code_objects=list(data.get("code_objects", [])))
        except (KeyError, TypeError, ValueError) as exc:
            raise InputError(f"{where}: malformed build record ({exc})") from None
