"""A pickle reader that refuses every global, so a data pickle can never run code.

SummEval's BARTScore mirror is a protocol-3 pickle of builtin containers and strings only. The
restricted unpickler below builds those and raises on any GLOBAL / STACK_GLOBAL opcode (which is
what REDUCE, BUILD and friends would need to call anything).
"""

from __future__ import annotations

import io
import pickle
from typing import Any, NoReturn

__all__ = ["RestrictedUnpickler", "UnsafePickleError", "safe_load"]


class UnsafePickleError(pickle.UnpicklingError):
    """The pickle references a global (a class or function); it is refused."""


class RestrictedUnpickler(pickle.Unpickler):
    """An unpickler whose ``find_class`` always raises: only builtin data types can be loaded."""

    def find_class(self, module: str, name: str) -> NoReturn:
        raise UnsafePickleError(f"refusing to load global {module}.{name} from a data pickle")

    def persistent_load(self, pid: Any) -> NoReturn:
        raise UnsafePickleError("refusing a persistent id in a data pickle")


def safe_load(data: bytes) -> Any:
    """Unpickle ``data`` with :class:`RestrictedUnpickler`."""
    return RestrictedUnpickler(io.BytesIO(data)).load()
