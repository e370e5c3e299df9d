"""``Record``: the typed, JSON-able base of the detection records (probe, plan, config).

It does what ``@dataclass`` does for these plain records (fields from class annotations,
keyword or positional construction, defaults, ``==``, ``repr``, ``asdict``) without importing
``dataclasses``, whose ``import inspect`` alone costs `port detect` about 8 ms of its 60 ms
budget. Mutable defaults (``[]``, ``{}``) are copied per instance, like ``default_factory``.
Stages off the detection path use ``dataclasses`` as usual.
"""

from __future__ import annotations

TYPE_CHECKING = False  # neither typing nor copy is imported at run time: `port detect` must start fast
if TYPE_CHECKING:
    from typing import Any


class Record:
    _fields: tuple[str, ...] = ()
    _frozen = False

    def __init_subclass__(cls, frozen: bool = False, **kwargs: object) -> None:
        super().__init_subclass__(**kwargs)
        names: list[str] = []
        for klass in reversed(cls.__mro__):
            for name in vars(klass).get("__annotations__", {}):
                if not name.startswith("_") and name not in names:
                    names.append(name)
        cls._fields = tuple(names)
        cls._frozen = frozen

    def __init__(self, *args: object, **kwargs: object) -> None:
        if len(args) > len(self._fields):
            raise TypeError(f"{type(self).__name__}() takes at most {len(self._fields)} positional arguments")
        values = dict(zip(self._fields, args))
        for name, value in kwargs.items():
            if name not in self._fields:
                raise TypeError(f"{type(self).__name__}() got an unexpected keyword argument {name!r}")
            if name in values:
                raise TypeError(f"{type(self).__name__}() got multiple values for argument {name!r}")
            values[name] = value
        for name in self._fields:
            if name in values:
                value = values[name]
            elif hasattr(type(self), name):
                default = getattr(type(self), name)
                value = type(default)(default) if isinstance(default, (list, dict, set)) else default  # a shallow copy
            else:
                raise TypeError(f"{type(self).__name__}() missing required argument {name!r}")
            object.__setattr__(self, name, value)

    def __setattr__(self, name: str, value: object) -> None:
        if self._frozen:
            raise AttributeError(f"{type(self).__name__} is frozen: cannot set {name!r}")
        object.__setattr__(self, name, value)

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        return all(getattr(self, n) == getattr(other, n) for n in self._fields)

    def __hash__(self) -> int:
        if not self._frozen:
            raise TypeError(f"unhashable type: {type(self).__name__!r}")
        return hash(tuple(getattr(self, n) for n in self._fields))

    def __repr__(self) -> str:
        inner = ", ".join(f"{n}={getattr(self, n)!r}" for n in self._fields)
        return f"{type(self).__name__}({inner})"


def asdict(value: object) -> Any:
    """Records, lists, tuples and dicts converted recursively to plain JSON-able values."""
    if isinstance(value, Record):
        return {n: asdict(getattr(value, n)) for n in value._fields}
    if isinstance(value, (list, tuple)):
        return [asdict(v) for v in value]
    if isinstance(value, dict):
        return {k: asdict(v) for k, v in value.items()}
    return value
