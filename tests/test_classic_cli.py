"""Classic quartets on the command line: records with a deal, honesty, --as views, bad deals."""

from __future__ import annotations

import json
import random
from fractions import Fraction
from pathlib import Path

import pytest
from click.testing import CliRunner

from quaternity_cli.main import main
from quaternity_cp import Game
from quaternity_cp.quartets.classic import deal
from quaternity_cp.quartets.play import random_record
from quaternity_cp.quartets.formats import parse_record, record_to_json

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


def run(*args, input=None):
    return CliRunner().invoke(main, [str(a) for a in args], input=input)


def run_json(data, *args):
    result = run(*args, "-", input=json.dumps(data))
    return result, (json.loads(result.output) if result.output.startswith("{") else None)


def example():
    return json.loads((EXAMPLES / "classic.json").read_text())


def test_classic_example_is_a_valid_whole_game():
    result = run("check", EXAMPLES / "classic.json", "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["over"] and sum(data["scores"]) == 6 and data["first"] == 0
    assert data["rules"]["name"] == "classic" and data["rules"]["dealt"] is True
    assert "tied" in data and "tie_break" in data


def test_injected_lie_names_move_player_and_card():
    result = run("check", EXAMPLES / "classic-lie.json", "--json")
    assert result.exit_code == 1
    error = json.loads(result.output)["error"]
    assert error["move"] == 10 and error["kind"] == "answer" and error["player"] == 0 and error["card"] == "E2"
    assert "seat 0 said no but held E2" in error["message"]
    human = run("check", EXAMPLES / "classic-lie.json")
    assert human.exit_code == 1 and "seat 0 said no but held E2" in human.output


def test_without_the_deal_the_lie_is_only_checked_publicly():
    data = json.loads((EXAMPLES / "classic-lie.json").read_text())
    del data["deal"]
    result, out = run_json(data, "check", "--json")
    # some deal is consistent with the first moves; the record fails later or not at all, never at move 10 as a lie
    assert out["error"] is None or out["error"]["reason"] != "dishonest_answer"


@pytest.mark.parametrize("seat", [0, 1, 2])
def test_analyze_as_a_seat(seat):
    data = example()
    data["moves"] = data["moves"][:16]
    public_result, public = run_json(data, "analyze", "--json")
    result, view = run_json(data, "analyze", "--json", "--as", seat)
    assert result.exit_code == 0, result.output
    assert set(public) <= set(view) and view["view"]["seat"] == seat
    record = parse_record(json.dumps(data))
    from quaternity_cp.quartets.classic import Table

    table = Table(record.game, record.deal)
    for move in record.moves:
        table.apply(move)
    hand = {record.game.card_name(c) for c in table.hand(seat)}
    assert set(view["view"]["hand"]) == hand
    for card, facts in view["cards"].items():
        if card in hand:
            assert facts == {"owners": [seat], "forced": seat}
        else:
            assert seat not in facts["owners"]
            assert set(facts["owners"]) <= set(public["cards"][card]["owners"])
    human = run("analyze", "-", "--as", seat, input=json.dumps(data))
    assert human.exit_code == 0 and "knows it" in human.output


def test_count_as_a_seat_is_exact_and_narrower():
    data = example()
    data["moves"] = data["moves"][:16]
    _, public = run_json(data, "count", "--json")
    result, view = run_json(data, "count", "--json", "--as", 2, "--history")
    assert result.exit_code == 0, result.output
    assert 0 < view["deals"] <= public["deals"]
    for card in view["view"]["hand"]:
        assert view["cards_exact"][card]["2"] == "1"
    for card, row in view["cards_exact"].items():
        assert sum(Fraction(v) for v in row.values()) == 1
    assert len(view["history"]) == 16 and view["history_start"] >= view["history"][0]


def test_as_needs_a_deal():
    for command in ("analyze", "count"):
        result = run(command, EXAMPLES / "quaternity.json", "--as", "0")
        assert result.exit_code == 2 and "--as needs a record with a deal" in result.output


def test_as_unknown_seat():
    result = run("analyze", EXAMPLES / "classic.json", "--as", "7")
    assert result.exit_code == 2 and "--as" in result.output


BAD_DEALS = [
    (lambda d: d["deal"]["0"].pop(), "field 'deal'"),  # a card missing, a short hand
    (lambda d: d["deal"]["0"].__setitem__(0, d["deal"]["1"][0]), "dealt twice"),
    (lambda d: d["deal"].__setitem__("5", []), "unknown player"),
    (lambda d: d["deal"]["0"].__setitem__(0, "Z9"), "unknown card"),
    (lambda d: d["deal"].pop("2"), "no hand for seat 2"),
    (lambda d: d.__setitem__("deal", [1, 2]), "expected an object"),
    (lambda d: d.__setitem__("rules", "quaternity"), "only for rules with dealt cards"),
    (lambda d: d.__setitem__("first", 3), "field 'first'"),
    (lambda d: d.__setitem__("tie_break", 0), "field 'tie_break'"),  # 0 was not tied for first
]


@pytest.mark.parametrize("change,message", BAD_DEALS)
def test_bad_classic_fields_are_input_errors(change, message):
    data = example()
    change(data)
    result = run("check", "-", input=json.dumps(data))
    assert result.exit_code == 2, result.output
    assert message in result.output and result.output.startswith("quaternity: ")
    assert len(result.output.strip().splitlines()) == 1


def test_tie_break_needs_tie_random():
    data = example()
    data["rules"] = {"preset": "classic", "tie": "shared"}
    data["tie_break"] = 0
    result = run("check", "-", input=json.dumps(data))
    assert result.exit_code == 2 and "tie = random" in result.output


def test_dealt_with_auto_claim_is_refused_naming_both():
    result = run("check", EXAMPLES / "classic.json", "--rules", "quaternity,dealt=true")
    assert result.exit_code == 2 and "dealt" in result.output and "auto_claim" in result.output


def test_text_format_carries_deal_first_and_tie_break():
    text = """players: 2
sets: 2
set_size: 2
rules: classic
deal: 0=A0 A1; 1=B0,B1
first: 1
tie_break: 1
0!A 1!B
"""
    record = parse_record(text)
    assert record.deal == {0: [0, 1], 1: [2, 3]} and record.first == 1 and record.tie_break == 1
    result = run("check", "-", "--json", input=text)
    data = json.loads(result.output)
    assert result.exit_code == 0 and data["winners"] == [1] and data["tied"] == [0, 1]
    undrawn = run("check", "-", "--json", input=text.replace("tie_break: 1\n", ""))
    assert json.loads(undrawn.output)["winners"] == [0, 1] and json.loads(undrawn.output)["tie_break"] is None
    assert "drawn among them" in run("check", "-", input=text.replace("tie_break: 1\n", "")).output


def test_random_games_round_trip_through_check():
    for seed, size in enumerate([(3, 6, 4), (4, 4, 2), (2, 3, 2), (3, 3, 2)]):
        data = random_record(Game(*size), "classic", random.Random(seed))
        result, out = run_json(data, "check", "--json")
        assert result.exit_code == 0 and out["over"], result.output
        assert parse_record(json.dumps(data)).deal is not None
        assert record_to_json(Game(*size), "classic", parse_record(json.dumps(data)).moves,
                              deal=parse_record(json.dumps(data)).deal, first=data["first"],
                              tie_break=data.get("tie_break")) == data


def test_deal_is_seeded_and_complete():
    g = Game(3, 6, 4)
    a, b = deal(g, random.Random(5)), deal(g, random.Random(5))
    assert a == b and sorted(c for h in a.values() for c in h) == list(range(24))
    no_sets = deal(g, random.Random(5), {"preset": "classic", "initial_quartets": False})
    for cards in no_sets.values():
        assert all(sum(1 for c in cards if c // 4 == s) < 4 for s in range(6))


def test_solver_refuses_classic_rules():
    result = run("solve", EXAMPLES / "classic-midgame.json", "--goal", "quartet")
    assert result.exit_code == 2 and "dealt = true" in result.output


@pytest.mark.parametrize("flag", ["--position", "--explain"])
def test_as_refuses_public_only_flags(flag):
    result = run("analyze", EXAMPLES / "classic-midgame.json", "--as", "0", flag)
    assert result.exit_code == 2 and "do not combine" in result.output


def test_count_as_samples_agree_with_the_hand():
    result = run("count", EXAMPLES / "classic-midgame.json", "--as", "0", "--json", "--sample", "5", "--seed", "3")
    data = json.loads(result.output)
    assert result.exit_code == 0 and len(data["samples"]) == 5
    for deal_ in data["samples"]:
        assert {card for card, seat in deal_.items() if seat == 0} == set(data["view"]["hand"])
