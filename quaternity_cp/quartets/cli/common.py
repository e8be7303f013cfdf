"""What the commands of Quaternity and classic Quartets share: reading a record or position, ``--rules``,
``--engine``, and the refusals of counts and explanations past their limits.

Imported by the game's commands only (``quaternity check`` of another game's record loads none of it).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, TypeVar

import click

from ...command import InputError, fail, file_name, json_option, read_text
from ..engines import DEFAULT_ENGINE, ENGINES

if TYPE_CHECKING:
    from ..count import CountLimitError
    from ..explain import ExplanationLimitError
    from ..formats import Record
    from ..rules import Rules

F = TypeVar("F", bound=Callable[..., Any])  # a click command function, before or after its options

def load(path: str, rules: str | None) -> Record:
    """The record or position in the file ``path`` (``-``: standard input), ``--rules`` applied."""
    return parse_text(read_text(path), rules, file_name(path))


def parse_text(text: str, rules: str | None, name: str) -> Record:
    """A record or position from text already read; ``name`` is the file's name for messages."""
    from ...errors import FormatError
    from ..formats import parse_record

    override = None if rules is None else rules_option(rules)
    try:
        return parse_record(text, rules=override)
    except FormatError as err:
        raise InputError(f"{name}: {err}") from None


def rules_option(rules: str) -> Rules:
    """The rules given by ``--rules`` (a preset, optionally with option=value pairs, or JSON)."""
    from ...errors import QuaternityError
    from ..formats import rules_text
    from ..rules import Rules

    try:
        return Rules.from_spec(rules_text(rules))
    except QuaternityError as err:
        raise InputError(f"--rules: {err}") from None


def engine_option(func: F) -> F:
    return click.option(
        "--engine",
        type=click.Choice(sorted(ENGINES)),
        default=None,
        help="Exact engine to use (default: the fastest available).",
    )(func)


def common_options(func: F) -> F:
    """``--json``, ``--rules`` and ``--engine``: every command of the game that reads a record takes them."""
    func = json_option(func)
    func = click.option("--rules", "rules", metavar="PRESET", default=None, multiple=True, callback=_one_rules,
                        help="Rules to use instead of the file's: a preset name, optionally with option=value pairs, e.g. 'quaternity,handover=seat'.")(func)
    return engine_option(func)


def _one_rules(ctx: click.Context, param: click.Parameter, value: tuple[str, ...]) -> str | None:
    """--rules at most once (a second one would silently replace the first)."""
    if len(value) > 1:
        fail("--rules: given more than once; put every option in one value, e.g. --rules 'quaternity,handover=seat'")
    return value[0] if value else None


def default_engine(name: str | None) -> str:
    return name or DEFAULT_ENGINE


#: What to count instead of a position too large for the limits.
SMALLER = "count a later position of the game or one player's view (--as SEAT)"


def count_refused(name: str, err: CountLimitError, where: str = "", instead: str = SMALLER) -> InputError:
    """The one-line refusal of a count past its limits (``where``: e.g. " after move 8 (0>1:A0-)")."""
    option = "--max-seconds" if err.reason == "time" else "--max-states"
    return InputError(f"{name}: too large to count exactly{where}: {err} ({option}); {instead}, or raise {option}")


def explain_refused(name: str, err: ExplanationLimitError, instead: str) -> InputError:
    """The one-line refusal of explanations past ``--max-seconds``; ``instead``: what to ask for instead."""
    return InputError(f"{name}: too long to explain: {err} (--max-seconds); {instead}, or raise --max-seconds")


__all__ = ["load", "parse_text", "rules_option", "engine_option", "common_options",
           "default_engine", "SMALLER", "count_refused", "explain_refused"]
