"""``quaternity quarto``: the Quarto commands (``check``; ``solve``).

The library (quaternity_cp.quarto) is imported inside each command, so that
other commands do not pay for it.
"""

from __future__ import annotations

import click


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
def quarto() -> None:
    """Quarto: check records and positions, solve positions.

    FILE is a Quarto record or position (JSON); '-' reads standard input.
    Exit codes: 0 valid, 1 illegal move or unreachable position, 2 bad input,
    3 internal error.
    """
