"""Fuzzing the command line (hypothesis): whatever the input, exit code 0, 1 or 2, never 3.

Inputs: random bytes, and random mutations of the bundled records and position
files (fields deleted, duplicated and swapped; moves deleted, duplicated and
swapped; numbers replaced by extremes; strings by random unicode; text records
with tokens and lines mutated). Each is fed to a command (check, analyze,
explain, count, solve with a small position limit) through click's runner. An
exit code 2 must come with exactly one line on standard error. Quarto positions:
each field (board, a row, a cell, piece, to_move, the rules object and its
option) given a value of each wrong JSON type must be exit 2 naming the field.

The default run is bounded and derandomized (profile ``fuzz``); ``--runslow``
uses the profile ``fuzz-slow``: many more examples, random ones.
"""

from __future__ import annotations

import json
import random
from typing import Any
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from quaternity_cli.main import main

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"

settings.register_profile(
    "fuzz", max_examples=25, deadline=None, derandomize=True, database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much],
)
settings.register_profile(
    "fuzz-quarto", max_examples=8, deadline=None, derandomize=True, database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much],
)
settings.register_profile(
    "fuzz-slow", max_examples=1000, deadline=None, database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much],
)

#: Every command with small limits; explain needs a card (or --set) argument.
COMMANDS = [
    ["check"],
    ["check", "--json"],
    ["analyze"],
    ["analyze", "--json", "--explain"],
    ["analyze", "--position"],
    ["count", "--json", "--history", "--sample", "2"],
    ["count"],
    ["analyze", "--as", "0"],
    ["analyze", "--as", "0", "--about", "1", "--json", "--max-seconds", "1"],
    ["count", "--as", "1", "--json"],
    ["explain", "A0"],
    ["explain", "--set", "B", "--json"],
    ["solve", "--goal", "quartet", "--max-positions", "30"],
    ["solve", "--goal", "win", "--max-positions", "30", "--json"],
]

#: Small bundled inputs (explain and solve stay cheap on them).
JSON_SEEDS = sorted(
    p for p in [*EXAMPLES.glob("*.json"), *EXAMPLES.glob("puzzles/*.json")]
    if not p.name.endswith(".answer.json")
)
TEXT_SEEDS = sorted([*EXAMPLES.glob("*.txt"), *EXAMPLES.glob("rules-examples/*.txt")])

#: Replacement strings: random unicode, and some that have broken front ends (markup, controls, bidi, digits).
TEXTS = st.one_of(
    st.text(max_size=12),
    st.sampled_from(["[/x]", "[b]", "\\[", "\u202e", "\x00", "\x1b[2J", "A9", "0", "-1", "07", "\u00b2",
                     "\u0663", "Z0", "A0", "0>1:A0+", "1!A", "\ud800", "\ufeff", "9" * 40]),
)

EXTREMES: list[Any] = [0, -1, 1, 2, 3, 26, 27, 100, 101, 1000, 10_001, 2**31, -(2**63), 10**19, 10**20, 10**30,
                       1e308, -0.0, 0.5, True, False, None, "", [], {}]


def invoke(command: list[str], data: bytes):
    return CliRunner().invoke(main, [*command[:1], "-", *command[1:]], input=data)


def assert_clean(command: list[str], data: bytes) -> None:
    result = invoke(command, data)
    detail = (command, data[:300], result.output[-500:])
    assert result.exit_code in (0, 1, 2), detail
    if result.exit_code == 2:
        lines = [line for line in result.stderr.splitlines() if line.strip()]
        assert len(lines) == 1 and lines[0].startswith("quaternity: "), detail


def run_with(profile: str, request, strategy, check) -> None:
    name = "fuzz-slow" if request.config.getoption("--runslow") else profile

    @settings(settings.get_profile(name))
    @given(strategy)
    def inner(value):
        check(value)

    inner()


# -- mutations of JSON values ----------------------------------------------------------------
class Dup(dict):
    """A JSON object written with one key twice (json cannot build one)."""

    def __init__(self, items):
        super().__init__()
        self.items_list = items


def dumps(value) -> str:
    if isinstance(value, Dup):
        return "{" + ", ".join(f"{json.dumps(k)}: {dumps(v)}" for k, v in value.items_list) + "}"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{json.dumps(k)}: {dumps(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(dumps(v) for v in value) + "]"
    return json.dumps(value)


def paths(value, prefix=()):
    """Every place in a JSON value: (path, value)."""
    yield prefix, value
    if isinstance(value, dict):
        for k, v in value.items():
            yield from paths(v, prefix + (k,))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from paths(v, prefix + (i,))


def get(value, path):
    for k in path:
        value = value[k]
    return value


def mutate(value, rng: random.Random, text: str):
    """One random mutation of a JSON value (a deep copy is changed)."""
    value = json.loads(json.dumps(value))
    places = list(paths(value))
    path, target = rng.choice(places)
    kind = rng.randrange(8)
    parent: Any = get(value, path[:-1]) if path else None  # the list or object holding the target (with a path)
    if kind == 0 and path:  # delete a field or a list item
        del parent[path[-1]]
    elif kind == 1 and path and isinstance(parent, dict):  # a key twice
        items = list(parent.items())
        items.insert(rng.randrange(len(items) + 1), (path[-1], rng.choice(EXTREMES + [target])))
        if len(path) == 1:
            return Dup(items)
        get(value, path[:-2])[path[-2]] = Dup(items)
    elif kind == 2 and path and isinstance(parent, list):  # an item twice
        parent.insert(rng.randrange(len(parent) + 1), target)
    elif kind == 3 and path and len(parent) > 1:  # swap two fields' values or two items
        keys = list(parent.keys()) if isinstance(parent, dict) else list(range(len(parent)))
        other = rng.choice(keys)
        parent[path[-1]], parent[other] = parent[other], parent[path[-1]]
    elif kind == 4:  # a number or anything replaced by an extreme
        new = rng.choice(EXTREMES)
        if path:
            parent[path[-1]] = new
        else:
            return new
    elif kind == 5 and path:  # a string by unicode
        parent[path[-1]] = text
    elif kind == 6 and path and isinstance(target, str):  # a string edited
        i = rng.randrange(len(target) + 1)
        parent[path[-1]] = target[:i] + text + target[i + rng.randrange(3):]
    elif kind == 7 and isinstance(value, dict):  # an unknown or position field added
        value[rng.choice(["hands", "turn", "scores", "claimed", "cards", "at_least", "at_most", "question",
                          "moves", "rules", text or "x"])] = rng.choice(EXTREMES + [target, text])
    return value


def load_seed(path: Path):
    return json.loads(path.read_text())


mutation_inputs = st.tuples(
    st.sampled_from(JSON_SEEDS),
    st.integers(0, 2**32),
    st.integers(1, 4),
    TEXTS,
    st.sampled_from(COMMANDS),
)


def check_mutated_json(args) -> None:
    path, seed, rounds, text, command = args
    rng = random.Random(seed)
    value = load_seed(path)
    for _ in range(rounds):
        value = mutate(value, rng, text)
        if isinstance(value, Dup):
            break
    assert_clean(command, dumps(value).encode("utf-8", "surrogatepass"))


def test_mutated_json_records_and_positions(request):
    run_with("fuzz", request, mutation_inputs, check_mutated_json)


# -- mutations of text records -------------------------------------------------------------
text_inputs = st.tuples(
    st.sampled_from(TEXT_SEEDS),
    st.integers(0, 2**32),
    st.integers(1, 4),
    TEXTS,
    st.sampled_from(COMMANDS),
)


def check_mutated_text(args) -> None:
    path, seed, rounds, text, command = args
    rng = random.Random(seed)
    lines = path.read_text().splitlines()
    for _ in range(rounds):
        i = rng.randrange(len(lines))
        tokens = lines[i].split(" ")
        j = rng.randrange(len(tokens))
        kind = rng.randrange(7)
        if kind == 0:
            del lines[i]
        elif kind == 1:
            lines.insert(rng.randrange(len(lines) + 1), lines[i])
        elif kind == 2:
            k = rng.randrange(len(lines))
            lines[i], lines[k] = lines[k], lines[i]
        elif kind == 3:  # a token deleted, duplicated or swapped
            if len(tokens) > 1:
                k = rng.randrange(len(tokens))
                tokens[j], tokens[k] = tokens[k], tokens[j]
            else:
                tokens.append(tokens[j])
            lines[i] = " ".join(tokens)
        elif kind == 4:  # a number replaced by an extreme
            tokens[j] = "".join(str(rng.choice(EXTREMES[:15])) if ch.isdigit() else ch for ch in tokens[j])
            lines[i] = " ".join(tokens)
        elif kind == 5:
            tokens[j] = text
            lines[i] = " ".join(tokens)
        else:
            pos = rng.randrange(len(lines[i]) + 1)
            lines[i] = lines[i][:pos] + text + lines[i][pos:]
        if not lines:
            break
    assert_clean(command, "\n".join(lines).encode("utf-8", "surrogatepass"))


def test_mutated_text_records(request):
    run_with("fuzz", request, text_inputs, check_mutated_text)


# -- random bytes ---------------------------------------------------------------------------
byte_inputs = st.tuples(
    st.one_of(
        st.binary(max_size=200),
        st.builds(lambda b: b"{" + b, st.binary(max_size=100)),
        st.builds(lambda b: b"players: 2\nsets: 2\nset_size: 2\n" + b, st.binary(max_size=100)),
        st.builds(lambda s: s.encode("utf-8", "surrogatepass"), st.text(max_size=100)),
    ),
    st.sampled_from(COMMANDS),
)


def test_random_bytes(request):
    run_with("fuzz", request, byte_inputs, lambda args: assert_clean(args[1], args[0]))


def test_the_mutator_changes_its_input():
    """The mutations are real: most change the record, and every kind of input is covered."""
    rng = random.Random(0)
    base = load_seed(EXAMPLES / "quaternity.json")
    changed = sum(dumps(mutate(base, rng, "\u00e9x")) != dumps(base) for _ in range(200))
    assert changed > 120
    assert len(JSON_SEEDS) >= 10 and len(TEXT_SEEDS) >= 5
    assert any("hands" in load_seed(p) for p in JSON_SEEDS)  # position files are among the seeds


# -- Quarto positions: one field given a value of a wrong JSON type ----------------------------------------------
QUARTO_COMMANDS = [["quarto", "check"], ["quarto", "check", "--json"], ["quarto", "solve", "--max-seconds", "2"]]

#: A JSON value of each type; integers stay within the 20 digits of the loader (beyond, the loader refuses first).
LEAVES = {
    "integer": st.one_of(st.integers(-(10**19), 10**19), st.sampled_from([0, 1, 2, -1, 15, 16])),
    "float": st.one_of(st.floats(allow_nan=False, allow_infinity=False), st.sampled_from([0.0, 1.0, -0.0, 0.5, 1e308])),
    "bool": st.booleans(),
    "null": st.none(),
    "string": st.one_of(st.text(max_size=8), st.sampled_from(["0", "1", "\u0661", "A1", "DSSH ", "dssh", "DSSX",
                                                                "null", "true", ""])),
}
JSON_TYPES = {
    **LEAVES,
    "array": st.one_of(st.lists(st.one_of(*LEAVES.values()), max_size=5),
                       st.sampled_from([[], [None] * 4, [[None] * 4] * 3, [[None] * 5] * 4, ["DSSH"] * 4])),
    "object": st.dictionaries(st.one_of(st.text(max_size=6), st.sampled_from(["squares", "board", "0"])),
                              st.one_of(*LEAVES.values()), max_size=3),
}


def _piece(value) -> bool:
    from quaternity_cp.quarto import Piece

    try:
        Piece.parse(value)
    except Exception:
        return False
    return True


def _cell_ok(value) -> bool:
    return value is None or isinstance(value, str) and _piece(value)


#: field -> (where the value goes, whether a value is right there, the field the message names)
QUARTO_FIELDS = {
    "to_move": (lambda v: v is None or type(v) is int and v in (0, 1), "to_move"),
    "piece": (lambda v: v is None or isinstance(v, str) and _piece(v), "piece"),
    "board": (lambda v: isinstance(v, list) and len(v) == 4 and all(isinstance(r, list) and len(r) == 4 for r in v),
              "board"),
    "board-row": (lambda v: isinstance(v, list) and len(v) == 4 and all(map(_cell_ok, v)), "board"),
    "board-cell": (_cell_ok, "board"),
    "rules": (lambda v: v is None or isinstance(v, dict) and set(v) <= {"squares"}
              and all(type(x) is bool for x in v.values()), "rules"),
    "rules-squares": (lambda v: type(v) is bool, "rules"),
}
#: (field, JSON type) pairs where some value of the type is wrong for the field
QUARTO_CASES = [(f, t) for f in QUARTO_FIELDS for t in JSON_TYPES
                if (f, t) not in {("to_move", "null"), ("piece", "null"), ("board-cell", "null"), ("rules", "null"),
                                  ("rules-squares", "bool")}]


def quarto_position(seed: int, plies: int) -> dict:
    """A reachable position after ``plies`` random moves (the game may be over)."""
    from quaternity_cp.quarto import Position
    from quaternity_cp.quarto.formats import position_to_json

    rng = random.Random(seed)
    pos = Position(squares=rng.random() < 0.5)
    while not pos.over and pos.ply < plies:
        pos.push(rng.choice(list(pos.legal_moves())))
    return position_to_json(pos)


def put(data: dict, field: str, value, index: int) -> dict:
    if field in ("to_move", "piece", "board", "rules"):
        data[field] = value
    elif field == "board-row":
        data["board"][index % 4] = value
    elif field == "board-cell":
        data["board"][index // 4 % 4][index % 4] = value
    else:
        data["rules"] = {"squares": value}
    return data


@pytest.mark.parametrize("field, kind", QUARTO_CASES, ids=[f"{f}-{t}" for f, t in QUARTO_CASES])
def test_quarto_position_fields_of_a_wrong_json_type(request, field, kind):
    """Each field of a valid position given a wrong value of each JSON type: exit 2 (never 0, 1 or 3) and one
    line naming the field, for check and solve."""
    ok, named = QUARTO_FIELDS[field]
    inputs = st.tuples(st.integers(0, 2**32), st.integers(0, 17), JSON_TYPES[kind], st.integers(0, 15),
                       st.sampled_from(QUARTO_COMMANDS))

    def check(args) -> None:
        seed, plies, value, index, command = args
        assume(not ok(value))
        data = put(quarto_position(seed, plies), field, value, index)
        result = CliRunner().invoke(main, [*command, "-"], input=json.dumps(data))
        detail = (command, data, result.output[-300:])
        assert result.exit_code == 2, detail
        lines = [line for line in result.stderr.splitlines() if line.strip()]
        assert len(lines) == 1 and lines[0].startswith(f"quaternity: <stdin>: field '{named}'"), detail

    run_with("fuzz-quarto", request, inputs, check)


def test_quarto_fuzz_bases_are_valid_positions():
    """The positions the Quarto fuzz starts from pass check, so every refusal above is the changed field's."""
    for seed, plies in [(0, 0), (1, 5), (2, 17), (3, 9)]:
        result = CliRunner().invoke(main, ["quarto", "check", "-"], input=json.dumps(quarto_position(seed, plies)))
        assert result.exit_code == 0, result.output


@pytest.mark.parametrize("command", COMMANDS, ids=" ".join)
def test_every_command_runs_on_a_seed(command):
    """The fuzzed commands themselves work on a valid input (so the fuzz is not all exit 2)."""
    seed = "classic.json" if "--as" in command else "puzzles/03-two-questions.json"  # --as needs a deal
    data = (EXAMPLES / seed).read_bytes()
    result = invoke(command, data)
    assert result.exit_code in (0, 1), result.output
