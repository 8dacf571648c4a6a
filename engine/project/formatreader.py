"""What the ``.radioplay`` file's section readers are handed: typed access to
JSON values that names the JSON path in every problem
(:class:`engine.project.fileformat._Reader` implements it). Its own module so
that the section readers (sound, staging, design...) can share it without
importing one another.
"""

from __future__ import annotations

from typing import Any, Protocol


class Reader(Protocol):
    """What :class:`engine.project.fileformat._Reader` offers (typed access with paths)."""

    def fail(self, path: str, problem: str) -> ValueError: ...
    def obj(self, value: Any, path: str) -> dict[str, Any]: ...
    def items(self, value: Any, path: str) -> list[Any]: ...
    def text(self, d: dict[str, Any], key: str, path: str, default: Any = ..., *, empty: bool = True) -> str: ...
    def num(self, d: dict[str, Any], key: str, path: str, default: Any = ..., *, lo: float = ..., hi: float = ...,
            optional: bool = False) -> Any: ...
    def choice(self, d: dict[str, Any], key: str, path: str, default: str, allowed: dict[str, str],
               what: str) -> str: ...
    def flag(self, d: dict[str, Any], key: str, path: str, default: Any = ...) -> bool: ...
