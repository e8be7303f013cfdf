"""Shared pytest setup: ``--runslow`` enables the exhaustive tests marked ``slow``."""

from __future__ import annotations

import os
import sys

import pytest

# the tests import their brute-force reference as a plain module
sys.path.insert(0, os.path.dirname(__file__))


def pytest_addoption(parser):
    parser.addoption("--runslow", action="store_true", default=False, help="run the slow exhaustive tests")


def pytest_configure(config):
    config.addinivalue_line("markers", "slow: exhaustive runs, opt in with --runslow")
    # A shell without job control starts a command put in the background (`pytest &`) with Ctrl-C ignored,
    # and an ignored signal stays ignored in every process started from it: the tests of Ctrl-C would
    # then see a program that never gets it. The tests run as from a terminal: Ctrl-C raises
    # KeyboardInterrupt here, and the processes they start begin with the default handling.
    import signal

    if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)


def pytest_collection_modifyitems(config, items):
    if config.getoption("--runslow"):
        return
    skip = pytest.mark.skip(reason="slow: run with --runslow")
    for item in items:
        if "slow" in item.keywords:
            item.add_marker(skip)


@pytest.fixture(autouse=True)
def _sigint_handler_kept():
    """A test that runs a command in this process may leave Ctrl-C ignored (a command on its way out after
    a Ctrl-C ignores later ones); the next tests, and the processes they start, get the handler back."""
    import signal

    before = signal.getsignal(signal.SIGINT)
    yield
    if signal.getsignal(signal.SIGINT) is not before and before is not None:
        signal.signal(signal.SIGINT, before)
