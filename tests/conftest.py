"""Shared pytest setup: ``--runslow`` enables the exhaustive tests marked ``slow``."""

from __future__ import annotations

import os
import sys

import pytest

# The tests run this checkout's library, as the commands they start in other processes do (``python -m cli``
# or ``python -c`` from the checkout's root, which puts the root first on the path): with the package installed
# (not editable, as CI installs it) the tests would otherwise import the installed copy and the processes the
# checkout, and numba would compile every kernel twice, once for each copy's cache.
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
# the tests import their brute-force reference as a plain module
sys.path.insert(0, os.path.dirname(__file__))


def pytest_addoption(parser):
    parser.addoption("--runslow", action="store_true", default=False, help="run the slow exhaustive tests")


def pytest_configure(config):
    config.addinivalue_line("markers", "slow: exhaustive runs, opt in with --runslow")
    # The keyed digests of checkpoints (quaternity_cp.digest) are made under a key of the test run's own, never
    # the user's (which the first checkpoint would otherwise create in the user's configuration folder).
    if not os.environ.get("QUATERNITY_KEY_FILE"):
        import tempfile

        folder = tempfile.mkdtemp(prefix="quaternity-test-key-")
        os.environ["QUATERNITY_KEY_FILE"] = os.path.join(folder, "key")
        config._quaternity_key_folder = folder
    # The web server's table database (quaternity_cp.web.store) goes to the user's data folder by default:
    # a test run's own, never the user's.
    import tempfile

    config._quaternity_data_folder = tempfile.mkdtemp(prefix="quaternity-test-data-")
    os.environ["XDG_DATA_HOME"] = config._quaternity_data_folder
    # A shell without job control starts a command put in the background (`pytest &`) with Ctrl-C ignored,
    # and an ignored signal stays ignored in every process started from it: the tests of Ctrl-C would
    # then see a program that never gets it. The tests run as from a terminal: Ctrl-C raises
    # KeyboardInterrupt here, and the processes they start begin with the default handling.
    import signal

    if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)


def pytest_unconfigure(config):
    import shutil

    folder = getattr(config, "_quaternity_key_folder", None)
    if folder is not None:
        shutil.rmtree(folder, ignore_errors=True)
    shutil.rmtree(getattr(config, "_quaternity_data_folder", ""), ignore_errors=True)


#: The test modules that run the numba kernels (Quaternity's packed expansion and its deal analysis, Go Fish's
#: packed graph, Quarto's search, the partitioned solver's merge): on a fresh checkout each kernel compiles
#: once per process, 10 to 35 s each, about 75 s in all. The two worker processes of ``-n 2`` would both
#: compile them; one group (``--dist loadgroup`` in pyproject.toml) runs them all in one worker, whose compiled
#: code (numba's cache) the other finds when a test of its own needs it, while it runs the other tests.
COMPILED_KERNEL_MODULES = frozenset({
    "test_packed_nb.py", "test_quaternity_packed.py", "test_deals_nb.py", "test_flow_nb.py", "test_layout_upgrade.py",
    "test_gofish_bigsolve.py", "test_gofish_starts.py", "test_retrograde.py", "test_checkpoint_damage.py",
    "test_gofish_options.py", "test_gofish_crosscheck.py", "test_gofish_sizes.py", "test_solver_interrupt.py",
    "test_quarto_fast.py", "test_quarto_packed.py", "test_layer_model.py", "test_lazywin.py", "test_threads.py",
    # (its lazy solves compile the packed expansion and the lazy solve's kernels: 29 s on a fresh checkout in the
    # other worker, against 1.5 s once the group's worker has compiled them)
    "test_keystore.py", "test_lazystate.py",
})


def _runs_a_kernel_s_examples(item) -> bool:
    """The docstring examples of a compiled module (``*_nb``: they call its kernels, which would otherwise compile
    in the other worker too: 5 to 30 s on a fresh checkout)."""
    callspec = getattr(item, "callspec", None)
    name = callspec.params.get("name") if callspec is not None else None
    return item.path.name == "test_docstrings.py" and isinstance(name, str) and name.endswith("_nb")


@pytest.hookimpl(tryfirst=True)  # before pytest-xdist's own hook, which reads the groups
def pytest_collection_modifyitems(config, items):
    group = pytest.mark.xdist_group("compiled-kernels")
    for item in items:
        if item.path.name in COMPILED_KERNEL_MODULES or _runs_a_kernel_s_examples(item):
            item.add_marker(group)
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
