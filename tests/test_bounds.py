"""Every exact computation is bounded: counts, explanations, reports and the exact agents refuse or fall back
within their limits, never answer from unfinished work; outputs never overwrite an input.

The sizes of issue 21 (counting after one question at 12 x 4 x 30 ... 30 x 30 x 30; an 8 x 16 x 8 record cut
at 8 or 32 moves) end with exit code 2 and one line. Time limits are tested with small budgets (a second) or
a fake clock; no test measures the wall clock.
"""

from __future__ import annotations

import json
import random
import re
from fractions import Fraction
from pathlib import Path
from types import SimpleNamespace

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import quaternity_cp.budget as budget_module
from quaternity_cli.main import main
from quaternity_cp import Game, Position
from quaternity_cp.quartets.constraints import Constraints
from quaternity_cp.quartets.count import STATES, TIME, WORK, CountLimitError, CountLimits, DealCounter, count_deals
from quaternity_cp.quartets.explain import Explainer, ExplanationLimitError
from quaternity_cp.quartets.formats import parse_record, record_to_json
from quaternity_cp.quartets.play import random_record
from quaternity_cp.quartets.report import record_report
from quaternity_cp.quartets.rules import Rules

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


def run(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


def one_line_refusal(res, *words: str) -> str:
    """The single line of a refusal (exit 2), checked to name ``words``."""
    assert res.exit_code == 2, res.output
    assert res.output.count("\n") == 1 and res.output.startswith("quaternity: "), res.output
    for word in words:
        assert word in res.output, (word, res.output)
    return res.output


@pytest.fixture
def fake_clock(monkeypatch):
    """The clock of every limit (quaternity_cp.budget) made to advance one second at each reading."""
    now = [0.0]

    def perf_counter() -> float:
        now[0] += 1.0
        return now[0]

    monkeypatch.setattr(budget_module, "time", SimpleNamespace(perf_counter=perf_counter))
    return now


# -- the sizes of the issue ------------------------------------------------------------------------
def one_question(tmp_path: Path, players: int, sets: int, size: int) -> Path:
    names = None if sets <= 26 else [f"S{chr(97 + i // 26)}{chr(97 + i % 26)}" for i in range(sets)]
    game = Game(players, sets, size, set_names=names)
    path = tmp_path / f"q{players}x{sets}x{size}.json"
    path.write_text(json.dumps(record_to_json(game, Rules.from_spec("quaternity"),
                                              [game.parse_move(f"0>1:{game.card_name(0)}-")])))
    return path


@pytest.mark.parametrize("shape", [(12, 4, 30), (20, 5, 20), (16, 8, 16), (30, 30, 30)])
def test_counting_after_one_question_is_refused_at_once(tmp_path, shape):
    """A set touched by one question at a large table has more count vectors than the state limit: the
    number of its splits is known before any is made, so the count is refused before it starts."""
    path = one_question(tmp_path, *shape)
    one_line_refusal(run("count", path), "too large to count exactly", "--max-states", "--as SEAT")
    # the same with the limit raised to what the splits alone would need: still refused, not ground through
    one_line_refusal(run("count", path, "--max-states", 10_000_000, "--max-seconds", 1))


def test_the_library_refuses_before_building(tmp_path):
    c = Constraints.initial(12, 4, 30).restrict(0, ~0b11).with_bounds(0, 0, lo=1)
    counter = DealCounter(c, limits=CountLimits(max_states=3_000_000))
    with pytest.raises(CountLimitError) as err:
        counter.count()
    assert err.value.reason == STATES and counter.peak_states == 0  # nothing was built


@pytest.fixture(scope="module")
def big_record(tmp_path_factory) -> dict:
    """A whole random game of 8 players x 16 sets of 8 (Quaternity rules)."""
    return random_record(Game(8, 16, 8), "quaternity", random.Random(1))


def cut(tmp_path: Path, record: dict, moves: int) -> Path:
    path = tmp_path / f"r{moves}.json"
    path.write_text(json.dumps(dict(record, moves=record["moves"][:moves])))
    return path


@pytest.mark.parametrize("moves", [8, 32])
def test_a_large_middle_game_is_refused_within_the_time(tmp_path, big_record, moves):
    path = cut(tmp_path, big_record, moves)
    one_line_refusal(run("count", path, "--max-seconds", 1), "counting takes longer than 1 s", "--max-seconds")


def test_history_names_the_move_it_could_not_count(tmp_path, big_record):
    path = cut(tmp_path, big_record, len(big_record["moves"]))
    out = one_line_refusal(run("count", path, "--history", "--max-seconds", 1), "for --history after move",
                           "drop --history")
    k = int(re.search(r"after move (\d+)", out).group(1))
    assert f"({big_record['moves'][k - 1]})" in out


def test_report_shows_counts_not_computed_and_is_written(tmp_path, big_record):
    out = tmp_path / "r.html"
    res = run("report", cut(tmp_path, big_record, 40), "-o", out, "--max-seconds", 1)
    assert res.exit_code == 0, res.output
    steps = json.loads(re.search(r'id="report-data">(.*?)</script>', out.read_text(), re.S).group(1))["steps"]
    assert len(steps) == 41 and steps[0]["deals"] is not None  # the start: every set untouched, instant
    assert all(s["deals"] is not None or s["deals_text"] in ("too long to count here", "too many to count here",
                                                             "not counted (the page's time limit was spent)")
               for s in steps)
    assert steps[-1]["deals"] is None and steps[-1]["log10"] is None
    # a step explained or not: never "Nothing is forced" when its explanations were not computed
    assert all(s.get("explanations_note", "").startswith("Not explained here") for s in steps if "text" in s)
    page = tmp_path / "q.html"
    res = run("report", one_question(tmp_path, 12, 4, 30), "-o", page)
    assert res.exit_code == 0 and "too many to count here" in page.read_text()


def test_the_report_page_budget_is_shared_by_its_steps(fake_clock):
    """With a fake clock (a second per reading), a page of 5 s computes its first steps, then none."""
    rec = parse_record((EXAMPLES / "three.txt").read_text())
    html = record_report(rec, max_seconds=5)
    steps = json.loads(re.search(r'id="report-data">(.*?)</script>', html, re.S).group(1))["steps"]
    texts = [s["deals_text"] for s in steps]
    assert texts[0] == "1,680" and texts[-1] == "not counted (the page's time limit was spent)", texts
    assert all(s["deals"] is None for s in steps[texts.index(texts[-1]):])


# -- the library's limits: refuse, never a partial answer ----------------------------------------------
def touched(P: int, N: int, S: int) -> Constraints:
    c = Constraints.initial(P, N, S)
    for s in range(N):  # every set touched: nothing is dealt in closed form
        c = c.restrict(s * S, ~1)
    return c


@pytest.mark.parametrize("limits, reason", [(CountLimits(max_states=10), STATES), (CountLimits(max_work=50), WORK),
                                            (CountLimits(max_seconds=3), TIME)])
def test_a_refused_counter_stays_refused(fake_clock, limits, reason):
    counter = DealCounter(touched(4, 8, 4), limits=limits)
    for ask in (counter.count, counter.card_probabilities, counter.quartet_probabilities,
                lambda: counter.sample(2, random.Random(0))):
        with pytest.raises(CountLimitError) as err:
            ask()
        assert err.value.reason == reason


def test_making_a_counter_does_no_work():
    counter = DealCounter(touched(12, 4, 30), 5)  # would be refused at its first answer
    assert counter.peak_states == counter.work == 0


def test_limits_are_checked_while_a_table_is_built(fake_clock):
    """The clock is read every few thousand multiply-adds while a table is built (here every reading is a
    second later): a 3 s limit stops a count of 8 x 16 x 8 long before its end."""
    c = touched(8, 16, 8)
    counter = DealCounter(c, limits=CountLimits(max_seconds=3))
    with pytest.raises(CountLimitError) as err:
        counter.count()
    assert err.value.reason == TIME and 0 < counter.work < 200_000


def test_limits_take_only_sensible_values():
    for bad in (dict(max_states=0), dict(max_work=-1), dict(max_states=True), dict(max_seconds=0),
                dict(max_seconds=float("inf")), dict(max_seconds=float("nan"))):
        with pytest.raises(ValueError):
            CountLimits(**bad)
    with pytest.raises(ValueError):
        DealCounter(touched(3, 2, 2), 5, limits=CountLimits(max_states=5))


# property: within generous limits the answers are the brute force's; within tight ones, exact or refused
SHAPES = [(2, 2, 2), (3, 2, 3), (2, 3, 2), (3, 3, 2), (3, 3, 3)]


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 2**32 - 1), st.sampled_from(SHAPES), st.integers(1, 60), st.integers(1, 600))
def test_limited_answers_are_the_brute_force_ones_or_refused(seed, shape, states, work):
    from reference import Reference, deal_facts

    game = Game(*shape)
    rules = Rules.from_spec("quaternity")
    moves = random_record(game, rules, random.Random(seed))["moves"][:12]
    ref = Reference(game, rules)
    st_ = ref.start()
    pos = Position(game, rules)
    generous = CountLimits(max_states=10**6, max_seconds=600, max_work=10**9)
    tight = CountLimits(max_states=states, max_work=work)
    for i, text in enumerate([None, *moves]):
        if text is not None:
            pos.push_str(text)
            st_, _ = ref.play(st_, game.parse_move(text), i)
        facts = deal_facts(ref, st_, st_.deals)
        c = pos.constraints
        counter = DealCounter(c, limits=generous)
        assert counter.count() == facts["deals"] == count_deals(c)
        assert counter.card_probabilities() == facts["cards"]
        assert counter.quartet_probabilities() == facts["whole"]
        small = DealCounter(c, limits=tight)
        try:
            n = small.count()
            probs = small.card_probabilities()
        except CountLimitError as err:
            assert err.reason in (STATES, WORK)
            assert small.peak_states <= states  # a table past the limit is never kept
        else:
            assert n == facts["deals"] and probs == facts["cards"]
            assert small.peak_states <= states and small.work <= work


# -- explanations ------------------------------------------------------------------------------------
def test_explanations_stop_at_their_time(fake_clock):
    rec = parse_record((EXAMPLES / "three.txt").read_text())
    with pytest.raises(ExplanationLimitError, match="explaining takes longer than 3 s"):
        Explainer(rec, max_seconds=3).position()
    assert Explainer(rec).position()  # no limit: explained


def test_explain_and_analyze_refuse_in_one_line(fake_clock):
    one_line_refusal(run("explain", EXAMPLES / "three.txt", "A1", "--max-seconds", 2),
                     "too long to explain", "--max-seconds", "--player")
    res = run("analyze", EXAMPLES / "three.txt", "--explain", "--max-seconds", 2)
    one_line_refusal(res, "explain one card or set at a time")  # and nothing else printed


def test_analyze_explain_within_a_generous_limit_is_unchanged():
    a = json.loads(run("analyze", EXAMPLES / "three.txt", "--explain", "--json").output)
    b = json.loads(run("analyze", EXAMPLES / "three.txt", "--explain", "--json", "--max-seconds", 300).output)
    assert a == b and a["explanations"]


@pytest.mark.parametrize("value", ["0", "-1", "inf", "nan", "x"])
def test_bad_limit_options_are_one_line(tmp_path, value):
    three = EXAMPLES / "three.txt"
    for argv in (["count", three], ["explain", three, "A0"], ["analyze", three], ["report", three, "-o", tmp_path / "r"]):
        res = run(*argv, "--max-seconds", value)
        assert res.exit_code == 2 and "--max-seconds" in res.output and res.output.count("\n") == 1, res.output
    for argv in (["count", three], ["report", three, "-o", tmp_path / "r"]):
        res = run(*argv, "--max-states", 0)
        assert res.exit_code == 2 and "--max-states" in res.output and res.output.count("\n") == 1, res.output
    assert not (tmp_path / "r").exists()


# -- the exact agents: a cheaper rule past their limits, counted -----------------------------------
def first_question_state(preset: str = "classic", seed: int = 3, **options):
    from quaternity_cp.registry import load_all

    state = load_all()["quartets"].new_state(seed, preset=preset, **options)
    while state.observation(state.current_player()).pending is not None:
        state.apply_action(state.legal_actions()[0])
    return state


@pytest.mark.parametrize("name", ["knowledge", "cautious"])
def test_agents_fall_back_past_their_limits_and_count_it(name):
    from quaternity_cp.quartets.agents import CautiousAgent, KnowledgeAgent
    from quaternity_cp.quartets.game import Question
    from quaternity_cp.quartets.knowledge import analyze

    cls = {"knowledge": KnowledgeAgent, "cautious": CautiousAgent}[name]
    state = first_question_state()
    p = state.current_player()
    obs, legal = state.observation(p), state.legal_actions()
    exact, poor = cls(), cls(limits=CountLimits(max_states=1))
    assert exact.fallbacks == poor.fallbacks == 0
    a = exact.step(obs, legal, random.Random(0))
    b = poor.step(obs, legal, random.Random(0))
    assert exact.fallbacks == 0 and poor.fallbacks == 1
    assert isinstance(b, Question) and b in legal
    # the cheaper rule: a card is with each seat that may hold it with probability 1 / (how many may)
    c = obs.private_constraints()
    owners = analyze(c).owners
    rule = poor.probabilities(c)
    assert poor.fallbacks == 1  # a probability asked outside a decision is not a decision
    for card in c.cards_in_play:
        assert rule[card] == {q: Fraction(1, owners[card].bit_count()) for q in range(c.players)
                              if owners[card] >> q & 1}
    top = max(rule.get(q.card, {}).get(q.target, 0) for q in legal if isinstance(q, Question))
    assert rule[b.card][b.target] == top
    assert isinstance(a, Question)


def test_cautious_shares_one_budget_among_the_counts_of_a_decision():
    from quaternity_cp.quartets.agents import CautiousAgent

    state = first_question_state(preset="quaternity", players=4, sets=8, set_size=4)
    p = state.current_player()
    obs, legal = state.observation(p), state.legal_actions()
    generous = CautiousAgent()
    generous.step(obs, legal, random.Random(0))
    assert generous.fallbacks == 0
    # the counts of the public view after each best question are tiny one by one, not all together
    stingy = CautiousAgent(limits=CountLimits(max_states=10**6, max_work=40))
    stingy.step(obs, legal, random.Random(0))
    assert stingy.fallbacks == 1


def test_small_games_never_fall_back():
    from quaternity_cp.registry import load_all

    spec = load_all()["quartets"]
    for options, names in (({"preset": "classic"}, ["knowledge", "cautious", "knowledge"]),
                           ({"preset": "quaternity", "players": 4, "sets": 8, "set_size": 4},
                            ["knowledge", "cautious", "solver", "cautious"])):
        state = spec.new_state(7, **options)
        agents = [spec.agents[n]() for n in names]
        rngs = [random.Random(p) for p in range(len(names))]
        while not state.is_terminal():
            p = state.current_player()
            state.apply_action(agents[p].step(state.observation(p), state.legal_actions(), rngs[p]))
        assert [a.fallbacks for a in agents] == [0] * len(names)


# -- outputs: never an input, never an existing file without --force ---------------------------------
@pytest.mark.parametrize("args, option", [(["report", "{r}", "-o", "{r}"], "-o"),
                                          (["analyze", "{r}", "--svg", "{r}"], "--svg"),
                                          (["count", "{r}", "--history", "--plot", "{r}"], "--plot")])
def test_outputs_never_replace_the_input(tmp_path, args, option):
    record = tmp_path / "r.svg"  # a record whose name an output could take
    text = (EXAMPLES / "three.txt").read_text()
    record.write_text(text)
    for force in ([], ["--force"]):
        res = run(*[a.format(r=record) for a in args], *force)
        one_line_refusal(res, option, "is the input file")
        assert record.read_text() == text


@pytest.mark.parametrize("args, option", [(["report", "{r}", "-o", "{o}.html"], "-o"),
                                          (["analyze", "{r}", "--svg", "{o}.svg"], "--svg"),
                                          (["count", "{r}", "--history", "--plot", "{o}.svg"], "--plot")])
def test_an_existing_output_needs_force(tmp_path, args, option):
    pytest.importorskip("matplotlib")
    out = tmp_path / "out"
    target = Path(args[-1].format(o=out))
    target.write_text("keep me")
    argv = [a.format(r=EXAMPLES / "three.txt", o=out) for a in args]
    one_line_refusal(run(*argv), option, "exists already", "--force")
    assert target.read_text() == "keep me"
    res = run(*argv, "--force")
    assert res.exit_code == 0, res.output
    assert target.read_text().startswith("<!DOCTYPE html>" if option == "-o" else "<") and "<svg" in target.read_text()
    assert sorted(p.name for p in tmp_path.iterdir()) == [target.name]  # no temporary file left


def test_outputs_are_checked_before_any_work(tmp_path, big_record):
    """A count that would run long is not started when its plot cannot be written."""
    path = cut(tmp_path, big_record, len(big_record["moves"]))
    one_line_refusal(run("count", path, "--history", "--plot", tmp_path / "no" / "h.png"), "--plot",
                     "does not exist")
