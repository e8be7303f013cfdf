"""One error hierarchy: every exception class of the library derives from QuaternityError, so a front end
catches one class; the few that must not are listed here, each with its reason."""

from __future__ import annotations

import importlib
import inspect
import pkgutil

import pytest

import quaternity_cp
from quaternity_cp.errors import FormatError, QuaternityError

#: Exceptions that are not errors of the library but signals inside it, or answers of the web server with an
#: HTTP status of their own. Each must pass *through* the ``except QuaternityError`` clauses on its way (the
#: command line's exit code 2, the web table's 422 and "could not move", agents skipping a failed move); as a
#: QuaternityError it would be caught there and shown as a refusal.
NOT_ERRORS = {
    "quaternity_cp.budget.Stopped": "a limit stopped a search; the solver turns it into a result's status",
    "quaternity_cp.command.common.InputError": "the commands' bad input (exit code 2, one line): the commands "
                                               "raise it from a library error they catch (except QuaternityError), "
                                               "so it must not be one, or it would be caught and wrapped again",
    "quaternity_cp.quartets.engines.sets.TooManyVectors": "the sets engine gives up on a set; the flow engine answers",
    "quaternity_cp.quarto.proof._Stop": "private: ends the proof's search early",
    "quaternity_cp.quarto.solver._Switch": "private: the Python search hands over to the compiled kernel",
    "quaternity_cp.quartets.solver.kernel._Fallback": "private: the fast solver kernel hands over to the general one",
    "quaternity_cp.web.session.MoveStopped": "an agent's move stopped from outside (time, table closed)",
    "quaternity_cp.web.app.Refused": "an HTTP answer (400, 408, 413...) of the server, before any table",
    "quaternity_cp.web.tables.NoTable": "an HTTP answer (404, 410): no such table",
    "quaternity_cp.web.tables.TableBusy": "an HTTP answer (503): no answer within the server's time budget",
}


#: Old names kept for one release (they warn when imported): the modules they name are walked under their own.
DEPRECATED = {"quaternity_cp.games"}


def _modules() -> list[str]:
    return sorted(name for _, name, _ in pkgutil.walk_packages(quaternity_cp.__path__, prefix="quaternity_cp.")
                  if name not in DEPRECATED)


def _exceptions() -> dict[str, type]:
    """Every exception class defined in a module of the library (optional extras not installed: skipped)."""
    found: dict[str, type] = {}
    for name in _modules():
        try:
            module = importlib.import_module(name)
        except ImportError as err:  # an optional extra (web, spiel, pettingzoo...) that is not installed
            if name.startswith("quaternity_cp.") and err.name and err.name.startswith("quaternity_cp"):
                raise
            continue
        for attr, value in vars(module).items():
            if inspect.isclass(value) and issubclass(value, BaseException) and value.__module__ == name:
                found[f"{name}.{attr}"] = value
    return found


EXCEPTIONS = _exceptions()


def test_the_walk_finds_the_library_errors():
    assert "quaternity_cp.errors.FormatError" in EXCEPTIONS
    assert "quaternity_cp.quarto.formats.FormatError" in EXCEPTIONS
    assert len(EXCEPTIONS) > 30


@pytest.mark.parametrize("name", sorted(EXCEPTIONS))
def test_every_library_error_derives_from_quaternity_error(name):
    cls = EXCEPTIONS[name]
    if name in NOT_ERRORS:
        assert not issubclass(cls, QuaternityError), f"{name} is a QuaternityError now: take it off NOT_ERRORS"
    else:
        assert issubclass(cls, QuaternityError), f"{name} does not derive from QuaternityError"


def test_the_allow_list_names_classes_that_exist():
    missing = [name for name in NOT_ERRORS if name not in EXCEPTIONS]
    assert not missing, missing


def test_one_format_error():
    """Quarto's file error is the library's file error too (and still a QuartoError and a ValueError)."""
    from quaternity_cp.quartets import formats
    from quaternity_cp.quarto import formats as quarto_formats
    from quaternity_cp.quarto.core import QuartoError

    assert formats.FormatError is FormatError
    assert issubclass(quarto_formats.FormatError, FormatError)
    assert issubclass(quarto_formats.FormatError, QuartoError)
    assert issubclass(quarto_formats.FormatError, ValueError)
    with pytest.raises(FormatError, match="moves"):
        quarto_formats.parse('{"game": "quarto", "moves": 3}')


def test_former_value_errors_stay_value_errors():
    from quaternity_cp.budget import LimitError, Limits
    from quaternity_cp.jsonio import InputRefused, load_json

    with pytest.raises(LimitError) as caught:
        Limits(max_positions=0)
    assert isinstance(caught.value, ValueError) and isinstance(caught.value, QuaternityError)
    with pytest.raises(InputRefused) as refused:
        load_json('{"a": 1, "a": 2}')
    assert isinstance(refused.value, ValueError) and isinstance(refused.value, QuaternityError)
