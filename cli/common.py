"""The old name of what every command shares: :mod:`quaternity_cp.command` (exit codes, one-line errors, reading
input, writing output, option types), where the games' own commands find it too. The first game's options and
record reading are in :mod:`quaternity_cp.quartets.cli.common`."""

from __future__ import annotations

from quaternity_cp.command import (EXIT_ILLEGAL, EXIT_INPUT, EXIT_INTERNAL, EXIT_INTERRUPTED, EXIT_OK, TEXTS,
                                   InputError, Seconds, Whole, check_output, console, emit_json, exact_integers, fail,
                                   file_name, force_option, guarded, json_option, one_line, read_text, write_text)

__all__ = ["EXIT_OK", "EXIT_ILLEGAL", "EXIT_INPUT", "EXIT_INTERNAL", "EXIT_INTERRUPTED", "InputError", "Whole",
           "Seconds", "fail", "one_line", "guarded", "TEXTS", "file_name", "read_text", "json_option", "emit_json",
           "exact_integers", "console", "write_text", "force_option", "check_output"]
