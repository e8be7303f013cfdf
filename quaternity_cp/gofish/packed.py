"""Go Fish's part ``packed``: the packed graph of :mod:`.fastgraph` as the shared partitioned solver reads it.

:class:`GoFishPacked` is a :class:`quaternity_cp.partitioned.Packed` over a
:class:`~.fastgraph.Shape`: keys of two 64-bit words (players rotated so that
the mover is seat 0, suits relabelled), expanded by the compiled kernel
:func:`~.fastgraph.expand_keys`, decoded by :func:`~.fastgraph.decode`. Its
identity (players, suits, suit size, rules) and its checkpoint format
(:data:`FORMAT`) are those ``gofish starts --checkpoint`` has always written,
so checkpoints made before the solver moved into the shared layer are read as
they are.

>>> from quaternity_cp.partitioned import Packed
>>> part = packed_for({"players": 2, "suit_size": 2})
>>> isinstance(part, Packed), part.width, part.seats, part.identity()
(True, 2, 2, {'players': 2, 'suits': 2, 'suit_size': 2, 'rules': {}})
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

import numpy as np

from .fastgraph import Shape, decode, expand_keys, start_key

#: 2: keyed digests (:mod:`quaternity_cp.digest`), and every part file's size and SHA-256 in the manifest;
#: 3: the shared layer's files without move numbers, ids in 4 bytes while they fit, edges in slices
FORMAT = "quaternity-gofish-graph-3"
#: formats of earlier versions, refused with a word of why
OLD_FORMATS = {"quaternity-gofish-graph-1": "its part files carry no digests",
               "quaternity-gofish-graph-2": "its part files keep move numbers and 8-byte ids"}


@dataclass(frozen=True)
class GoFishPacked:
    """The packed Go Fish graph of one start (``shape``: players, suits, suit size and rules)."""

    shape: Shape

    name = "gofish"
    format = FORMAT
    old_formats = OLD_FORMATS
    width = 2

    @property
    def seats(self) -> int:
        return self.shape.players

    @property
    def moves(self) -> int:
        """Questions (asked seat x suit, counted from the asker) and the two answers."""
        return self.shape.players * self.shape.suits + 2

    @property
    def max_degree(self) -> int:
        return self.shape.fanout

    def identity(self) -> dict[str, Any]:
        s = self.shape
        return {"players": s.players, "suits": s.suits, "suit_size": s.suit_size, "rules": s.rules.to_dict()}

    def start(self) -> tuple[np.ndarray, int]:
        return start_key(self.shape)

    def expand(self, keys: np.ndarray) -> dict[str, np.ndarray]:
        return expand_keys(keys, self.shape)

    def decode(self, key: np.ndarray) -> dict[str, Any]:
        return decode(key, self.shape)


def packed_of(identity: Mapping[str, Any]) -> GoFishPacked:
    """The packed part of a checkpoint's identity (players, suits, suit_size, rules; other fields ignored); a
    start the packed solver does not take raises :class:`~.rules.GoFishError`."""
    sizes = [identity.get(name) for name in ("players", "suits", "suit_size")]
    for name, v in zip(("players", "suits", "suit_size"), sizes):
        if isinstance(v, bool) or not isinstance(v, int) or not 1 <= v <= 1000:
            raise ValueError(f"{name} must be a whole number 1..1,000, not {v!r}")
    rules = identity.get("rules")
    if rules is not None and not isinstance(rules, (str, Mapping)):
        raise ValueError(f"rules must be an object, not {rules!r}")
    players, suits, suit_size = (int(v) for v in sizes if isinstance(v, int))
    return GoFishPacked(Shape.of(players, suits, suit_size, rules))


def packed_for(options: Mapping[str, Any]) -> GoFishPacked:
    """The game's part ``packed``: the packed graph of the start of a table's ``options`` (as
    :data:`quaternity_cp.gofish.SPEC` declares them: players, suits (0: as many as players), suit_size, the rule
    set and rule options; the table's own options, the move cap and the suits' names, do not change the
    graph)."""
    from .state import RULE_OPTIONS, table_rules

    players = int(options.get("players", 3))
    suits = int(options.get("suits", 0)) or players
    rules = table_rules(str(options.get("rules", "stacky")),
                        **{k: v for k, v in options.items() if k in RULE_OPTIONS})
    return GoFishPacked(Shape.of(players, suits, int(options.get("suit_size", 4)), rules))


__all__ = ["FORMAT", "OLD_FORMATS", "GoFishPacked", "packed_of", "packed_for"]
