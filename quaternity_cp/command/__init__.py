"""The shared layer of every command: what ``quaternity`` and each game's own commands have in common.

The command (``quaternity_cli``, the folder ``cli/``) is the root group, the one door of the commands that read
a file, and the commands shared by every game (report, play, serve, tournament); each game's own commands are
its part ``cli`` (``quaternity <game> ...``, in the game's package). Both build on this package, which names no
game and imports none: exit codes and one-line errors (:mod:`.common`), reading input once per run and writing
output files, the option types, the limits' options (:mod:`.limits`) and Ctrl-C during a search
(:mod:`.interrupts`). The library proper never prints and never exits; this package is where the command's
printing and exiting is written once, so that a game's command part never imports the command.
"""

from __future__ import annotations

from .common import (EXIT_ILLEGAL, EXIT_INPUT, EXIT_INTERNAL, EXIT_INTERRUPTED, EXIT_OK, TEXTS, InputError,
                     Seconds, Whole, check_output, console, emit_json, exact_integers, fail, file_name, force_option,
                     guarded, json_option, one_line, output_guard, prepare_outputs, read_text, say, write_text)

__all__ = ["EXIT_OK", "EXIT_ILLEGAL", "EXIT_INPUT", "EXIT_INTERNAL", "EXIT_INTERRUPTED", "InputError", "Whole",
           "Seconds", "fail", "say", "output_guard", "one_line", "guarded", "TEXTS", "file_name", "read_text", "json_option", "emit_json",
           "exact_integers", "console", "write_text", "force_option", "check_output", "prepare_outputs"]
