"""quaternity_cp: check, analyse, explain and solve positions of Quaternity, Quantum Go Fish and Quarto.

Quaternity is the blind (quantum) variant of Quartets: nobody's cards are fixed
at the start, every question and answer narrows down the deals that are still
possible, and a set is won when every consistent deal puts it in one hand.

The package's top level is the shared layer, which names no game (the registry
:mod:`.registry`, budgets :mod:`.budget`, errors :mod:`.errors`, the strict
reader :mod:`.jsonio`, files, names, digests, the cluster, the tournament, the
bridges' shells and the web server); each game is a package of the same shape:
:mod:`.quartets` (Quaternity and classic Quartets), :mod:`.gofish`,
:mod:`.quarto`. The first game's core names are given here too, for short:

>>> from quaternity_cp import Game, Position
>>> pos = Position(Game(2, 2, 2))
>>> _ = pos.push_str("0>1:A0+")
>>> pos.claimed
{0: 0}

The first game's modules lived at the top of the package before 0.2
(``quaternity_cp.position``, ``quaternity_cp.engines``, ...). Those names still
import, for this release, as the modules of :mod:`quaternity_cp.quartets` they
became (the same module objects), with a :class:`DeprecationWarning`.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import sys
import warnings
from types import ModuleType
from typing import TYPE_CHECKING, Any, Sequence

if TYPE_CHECKING:  # the names as a type checker sees them; at run time each loads on first use
    from .errors import (
        Illegal,
        IllegalMoveError,
        InvalidMoveError,
        PositionError,
        QuaternityError,
        RulesError,
        SetupError,
    )
    from .quartets.constraints import Constraints
    from .quartets.engines import Analysis, CpSatEngine, Engine, get_engine
    from .quartets.game import Declaration, Game, Move, Question
    from .quartets.position import Position, State
    from .quartets.rules import PRESETS, Rules

__version__ = "0.1.0"

#: name -> the module that defines it. Nothing is imported with the package itself, so that
#: importing one game (``quaternity_cp.quarto``) loads only what that game needs.
_SOURCES = {
    "Constraints": "quartets.constraints", "Analysis": "quartets.engines", "CpSatEngine": "quartets.engines",
    "Engine": "quartets.engines", "get_engine": "quartets.engines", "Illegal": "errors",
    "IllegalMoveError": "errors", "InvalidMoveError": "errors", "PositionError": "errors",
    "QuaternityError": "errors", "RulesError": "errors", "SetupError": "errors",
    "Declaration": "quartets.game", "Game": "quartets.game", "Move": "quartets.game",
    "Question": "quartets.game", "Position": "quartets.position", "State": "quartets.position",
    "PRESETS": "quartets.rules", "Rules": "quartets.rules",
}

#: The first game's modules that lived at the top of the package before 0.2: the old name -> the new one.
#: Importing an old name gives the new module itself (one module object under both names), warned.
MOVED = {name: f"quartets.{name}" for name in (
    "agents", "classic", "constraints", "count", "effects", "engines", "experiments", "explain", "formats",
    "game", "higher", "knowledge", "outcome", "play", "position", "puzzles", "replay", "rules", "solver")}


def _moved_to(fullname: str) -> str | None:
    """The new name of the old module name ``fullname`` (``quaternity_cp.position`` or a submodule of a
    moved package, ``quaternity_cp.engines.cpsat``), or None."""
    prefix = __name__ + "."
    if not fullname.startswith(prefix):
        return None
    head, _, rest = fullname[len(prefix):].partition(".")
    if head not in MOVED:
        return None
    return f"{__name__}.{MOVED[head]}" + (f".{rest}" if rest else "")


def _warn(old: str, new: str) -> None:
    warnings.warn(f"{old} moved to {new} (the old name goes away in the next release)", DeprecationWarning,
                  stacklevel=3)


class _Alias(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Imports an old module name as the module of its new name (see :data:`MOVED`)."""

    def find_spec(self, fullname: str, path: Sequence[str] | None,
                  target: ModuleType | None = None) -> importlib.machinery.ModuleSpec | None:
        new = _moved_to(fullname)
        if new is None:
            return None
        return importlib.machinery.ModuleSpec(fullname, self, is_package=False)

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType:
        new = _moved_to(spec.name)
        assert new is not None
        _warn(spec.name, new)
        return importlib.import_module(new)

    def exec_module(self, module: ModuleType) -> None:
        """Nothing to run: the module is the new one, already run."""


if not any(isinstance(finder, _Alias) for finder in sys.meta_path):
    sys.meta_path.insert(0, _Alias())  # before the path finder, which would run a moved file again


def __getattr__(name: str) -> Any:
    """The Quaternity core's names, loaded on first use together with the game built on them
    (:mod:`quaternity_cp.quartets`: its pictures give a Position its notebook display); an old module
    name (``from quaternity_cp import position``), the module it became, warned."""
    if name in MOVED:
        new = f"{__name__}.{MOVED[name]}"
        _warn(f"{__name__}.{name}", new)
        return importlib.import_module(new)
    source = _SOURCES.get(name)
    if source is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{source}"), name)
    importlib.import_module(f"{__name__}.quartets")
    globals()[name] = value
    return value


__all__ = [
    "Analysis", "Constraints", "CpSatEngine", "Declaration", "Engine", "Game", "Illegal",
    "IllegalMoveError", "InvalidMoveError", "Move", "PRESETS", "Position", "PositionError",
    "Question", "QuaternityError", "Rules", "RulesError", "SetupError", "State", "get_engine",
]
