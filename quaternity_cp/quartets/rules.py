"""Rule options and presets (docs/rules.md, section 6).

>>> Rules.preset("pythagoras").silence
True
>>> Rules.preset("quaternity", handover="seat") == Rules.preset("quaternity-seat")
True
>>> Rules.preset("classic").dealt, Rules.preset("classic").empty_hand
(True, 'ask')
>>> Rules.preset("quaternity", dealt=True)
Traceback (most recent call last):
...
quaternity_cp.errors.RulesError: rule options dealt = true and auto_claim = true do not combine: with dealt cards a set is claimed by its holder putting it down (set auto_claim = false)
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields, replace
from typing import Any, Mapping

from ..errors import RulesError

HANDOVERS = ("fewest", "seat", "clockwise", "fewest-cards", "most-cards")
INVALIDS = ("reject", "lose")
TIES = ("all-lose", "shared", "first", "random")
EMPTY_HANDS = ("skip", "ask")
AFTER_NOS = ("asked", "next")


@dataclass(frozen=True)
class Rules:
    """One complete set of rule options. Defaults are the ``quaternity`` preset."""

    initial_quartets: bool = True
    forced_no_question: bool = True
    auto_claim: bool = True
    declare: bool = False
    silence: bool = False
    handover: str = "fewest"
    invalid: str = "reject"
    tie: str = "all-lose"
    #: ``skip``: a player without cards has no turn (the hand-over decides); ``ask``: it still
    #: takes turns and may ask for any card of an unclaimed set (the question tells nothing about it).
    empty_hand: str = "skip"
    #: who moves after a no: ``asked`` (the asked player) or ``next`` (the seat after the asker, clockwise).
    after_no: str = "asked"
    #: classic quartets: the cards are really dealt; a complete set is put down (``p!s``) by its
    #: holder at the deal or right after the yes that completes it, so nobody holds a complete
    #: unclaimed set once the put-downs due are made.
    dealt: bool = False

    def __post_init__(self) -> None:
        for f in fields(self):
            value = getattr(self, f.name)
            if f.type in ("bool", bool):
                if not isinstance(value, bool):
                    raise RulesError(f"rule option {f.name!r} must be true or false, not {value!r}")
        for name, allowed in (
            ("handover", HANDOVERS),
            ("invalid", INVALIDS),
            ("tie", TIES),
            ("empty_hand", EMPTY_HANDS),
            ("after_no", AFTER_NOS),
        ):
            value = getattr(self, name)
            if value not in allowed:
                raise RulesError(
                    f"rule option {name!r} must be one of {', '.join(allowed)}, not {value!r}"
                )
        if self.dealt:
            for name, why in (
                ("auto_claim", "a set is claimed by its holder putting it down"),
                ("declare", "a complete set is put down at once, never declared later"),
            ):
                if getattr(self, name):
                    raise RulesError(
                        f"rule options dealt = true and {name} = true do not combine: with dealt cards {why}"
                        f" (set {name} = false)"
                    )

    @classmethod
    def preset(cls, name: str = "quaternity", **overrides: Any) -> "Rules":
        """The named preset, with any options overridden."""
        if not isinstance(name, str) or name not in PRESETS:
            raise RulesError(f"unknown rule preset {name!r} (known: {', '.join(PRESETS)})")
        return PRESETS[name].with_options(**overrides)

    def with_options(self, **overrides: Any) -> "Rules":
        known = {f.name for f in fields(self)}
        for key in overrides:
            if key not in known:
                raise RulesError(f"unknown rule option {key!r} (known: {', '.join(sorted(known))})")
        return replace(self, **overrides)

    @classmethod
    def from_spec(cls, spec: "str | Mapping[str, Any] | Rules | None") -> "Rules":
        """Rules from a preset name, or a mapping with an optional ``preset`` and options."""
        if spec is None:
            return cls.preset()
        if isinstance(spec, Rules):
            return spec
        if isinstance(spec, str):
            return cls.preset(spec)
        if isinstance(spec, Mapping):
            options = {str(k).replace("-", "_"): v for k, v in spec.items()}
            preset = options.pop("preset", "quaternity")
            return cls.preset(preset, **options)
        raise RulesError(f"rules must be a preset name or an object, not {type(spec).__name__}")

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @property
    def name(self) -> str:
        """The preset name when these rules are exactly a preset, else ``"custom"``."""
        for key, value in PRESETS.items():
            if value == self:
                return key
        return "custom"


PRESETS: dict[str, Rules] = {
    "quaternity": Rules(),
    "quaternity-seat": Rules(handover="seat"),
    "blind": Rules(auto_claim=False, declare=True, handover="clockwise", invalid="lose", tie="first"),
    "pythagoras": Rules(
        initial_quartets=False,
        forced_no_question=False,
        declare=True,
        silence=True,
        handover="clockwise",
        tie="shared",
    ),
    "classic": Rules(auto_claim=False, dealt=True, empty_hand="ask", after_no="asked", tie="random"),
}
