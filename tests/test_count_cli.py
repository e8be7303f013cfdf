"""The quaternity count command: exact numbers on worked examples, sampling, history, errors."""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

from click.testing import CliRunner

from quaternity_cli.main import main

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


def run(*args, input=None):
    return CliRunner().invoke(main, [str(a) for a in args], input=input)


def test_giver_bound_example_has_two_deals():
    # 0>2:B0+ 0>2:A2- 2>0:B0+ 2>0:B1?: A2 with 1, B0 B2 with 2, B1 with 0; A0/A1 split between 0 and 1
    data = json.loads(run("count", EXAMPLES / "rules-examples" / "3-giver-bound.txt", "--json").output)
    assert data["deals"] == 2
    assert data["cards"]["A0"] == {"0": 0.5, "1": 0.5, "2": 0.0}
    assert data["cards_exact"]["B1"] == {"0": "1", "1": "0", "2": "0"}
    assert data["quartets"]["A"] == {"0": 0.0, "1": 0.0, "2": 0.0}


def test_start_of_game_counts_multinomial():
    # P2 N2 S2: C(4, 2) = 6 deals, each card with each player half the time; a whole set 1/6 each
    start = json.loads(run("count", "-", "--json", input="players: 2\nsets: 2\nset_size: 2\n").output)
    assert start["deals"] == 6
    for card in ("A0", "A1", "B0", "B1"):
        assert start["cards_exact"][card] == {"0": "1/2", "1": "1/2"}
    for s in ("A", "B"):
        assert start["quartets_exact"][s] == {"0": "1/6", "1": "1/6"}
    result = run("count", "-", "--json", "--history")
    assert result.exit_code == 2  # stdin is empty here: bad input
    path = EXAMPLES / "rules-examples" / "1-only-yes.txt"
    data = json.loads(run("count", path, "--json", "--history").output)
    # after 0>1:A0? seat 0 holds A1 and not A0: it holds A1 plus one of B0, B1
    assert data["history_start"] == 6 and data["history"] == [data["deals"]] and data["deals"] == 2
    assert Fraction(data["quartets_exact"]["B"]["1"]) == Fraction(0)


def test_history_shrinks_and_sampling_is_reproducible():
    path = EXAMPLES / "quaternity.json"
    a = json.loads(run("count", path, "--json", "--history").output)
    assert len(a["history"]) == a["moves_applied"] == 9
    counts = [a["history_start"], *a["history"]]
    assert all(later <= earlier for earlier, later in zip(counts, counts[1:])), counts  # moves only inform
    assert counts[-1] == a["deals"] and counts[0] > counts[-1]
    path = EXAMPLES / "position.json"
    one = json.loads(run("count", path, "--json", "--sample", "3", "--seed", "5").output)
    two = json.loads(run("count", path, "--json", "--sample", "3", "--seed", "5").output)
    assert one["samples"] == two["samples"] and len(one["samples"]) == 3
    analysis = json.loads(run("analyze", path, "--json").output)
    for deal in one["samples"]:
        for card, seat in deal.items():
            assert seat in analysis["cards"][card]["owners"]
    for card, row in one["cards"].items():
        assert abs(sum(row.values()) - 1) < 1e-9
        assert {int(p) for p, v in row.items() if v > 0} == set(analysis["cards"][card]["owners"])


def test_human_output():
    result = run("count", EXAMPLES / "rules-examples" / "4-count-after-no.txt", "--history")
    assert result.exit_code == 0
    assert "1 consistent deal" in result.output and "(start)" in result.output


def test_count_s_json_carries_check_s_keys_forced_answers_included():
    """docs/cli.md: count's --json adds to the keys of check; each move's "forced" was false there, always."""
    records = sorted((EXAMPLES / "rules-examples").glob("*.txt")) + [EXAMPLES / "quaternity.json",
                                                                     EXAMPLES / "pythagoras.json"]
    marked = 0
    for path in records:
        want = json.loads(run("check", path, "--json").output)
        got = json.loads(run("count", path, "--json").output)
        assert {k: got[k] for k in want} == want, path.name
        marked += sum(move["forced"] for move in want["moves"])
    assert marked > 0  # (some of them have forced answers: the comparison can fail)
