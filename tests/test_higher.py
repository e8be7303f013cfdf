"""Higher-order knowledge (:mod:`quaternity_cp.quartets.higher`), ``analyze --as A --about B`` and the ``discreet`` agent,
against the nested definitions written directly on explicit deals.

The reference (tests/reference.py) keeps every deal a classic record allows. On
those rows: seat X's view in deal d is the rows where X holds the same hand;
"X knows card c" in d when c has one owner over that view; "X knows phi" in d
when phi holds in every row of X's view of d; A's answer about a chain is
surely / possibly / never as the statement holds in all / some / none of the
rows A considers possible; common knowledge among a group is constancy over the
rows connected to the real deal by "some member holds the same hand".
"""

from __future__ import annotations

import itertools
import json
import random
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner
from reference import Reference

from quaternity_cli.main import main
from quaternity_cp import Game
from quaternity_cp.quartets.classic import Table
from quaternity_cp.quartets.count import STATES, TIME, WORK, CountLimitError, CountLimits
from quaternity_cp.quartets.formats import record_from_json
from quaternity_cp.quartets.game import Declaration
from quaternity_cp.quartets.higher import STATUSES, ViewBudget, common_knowledge, exposure, higher_order
from quaternity_cp.quartets.knowledge import count, private_constraints, record_hands
from quaternity_cp.quartets.play import random_record
from quaternity_cp.quartets.replay import replay

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


# -- the nested definitions on explicit deals -------------------------------------------------------------
class Deals:
    """The rows of a view of explicit deals (owner per card id) and the nested definitions over them."""

    def __init__(self, deals: np.ndarray, cards: list[int], players: int):
        self.deals, self.cards, self.players = deals, cards, players
        self.group = {}  # seat -> per row, the number of its hand among the distinct hands
        for x in range(players):
            key = np.zeros(len(deals), dtype=np.int64)
            for c in cards:
                key |= (deals[:, c] == x).astype(np.int64) << c
            self.group[x] = np.unique(key, return_inverse=True)[1]

    def knows(self, y: int) -> np.ndarray:
        """[row, i]: whether y knows the owner of cards[i] in that row (one owner over y's view)."""
        g = self.group[y]
        out = np.zeros((len(self.deals), len(self.cards)), dtype=bool)
        for i, c in enumerate(self.cards):
            lo = np.full(g.max() + 1, 127)
            hi = np.full(g.max() + 1, -1)
            np.minimum.at(lo, g, self.deals[:, c])
            np.maximum.at(hi, g, self.deals[:, c])
            out[:, i] = (lo == hi)[g]
        return out

    def holds(self, chain: tuple[int, ...]) -> np.ndarray:
        """[row, i]: "chain[0] knows that chain[1] knows ... the owner of cards[i]" in that row."""
        if len(chain) == 1:
            return self.knows(chain[0])
        inner = self.holds(chain[1:]).astype(np.int8)
        g = self.group[chain[0]]
        out = np.zeros_like(inner)
        for i in range(len(self.cards)):
            least = np.ones(g.max() + 1, dtype=np.int8)
            np.minimum.at(least, g, inner[:, i])
            out[:, i] = least[g]
        return out.astype(bool)

    def view(self, seat: int, row: int) -> np.ndarray:
        return self.group[seat] == self.group[seat][row]

    def about(self, chain: tuple[int, ...], row: int) -> dict[int, str]:
        truth = self.holds(chain[1:])[self.view(chain[0], row)]
        return {c: "surely" if truth[:, i].all() else "possibly" if truth[:, i].any() else "never"
                for i, c in enumerate(self.cards)}

    def common(self, group: tuple[int, ...], row: int) -> dict[int, int]:
        reached = np.zeros(len(self.deals), dtype=bool)
        reached[row] = True
        while True:  # add every row sharing a member's hand with a row reached
            more = reached.copy()
            for x in group:
                more |= np.isin(self.group[x], np.unique(self.group[x][reached]))
            if (more == reached).all():
                break
            reached = more
        rows = self.deals[reached]
        return {c: int(rows[0, c]) for c in self.cards if (rows[:, c] == rows[0, c]).all()}

    def exposure(self, seat: int, other: int, row: int) -> Fraction:
        mine = [i for i, c in enumerate(self.cards) if self.deals[row, c] == seat]
        seen = self.knows(other)[self.view(seat, row)][:, mine]
        return Fraction(int(seen.sum()), len(seen))


def moment(game: Game, seed: int, moves: int):
    """A truthful classic game cut after ``moves`` moves: the record, its replay, the reference's deals
    (after the put-downs due unless one is due in the real deal, as the library takes them), the cards
    in play and the row of the real deal."""
    data = random_record(game, "classic", random.Random(seed))
    data = dict(data, moves=data["moves"][:moves])
    data.pop("tie_break", None)
    record = record_from_json(data)
    result = replay(record, history=False)
    ref = Reference(game, record.rules, record.first)
    st = ref.start()
    for i, move in enumerate(record.moves, 1):
        st, kind = ref.play(st, move, i)
        assert kind is None
    assert record.deal is not None  # a classic record carries its deal
    table = Table(game, record.deal)
    for move in record.moves:
        table.apply(move)
    deals = st.deals if table.putdowns_due() else ref.settled(st).deals
    cards = ref.cards_in_play(st)
    real = np.array(table.owner)
    rows = np.flatnonzero((deals[:, cards] == real[cards]).all(axis=1))
    assert len(rows) == 1
    return record, result, Deals(deals, cards, game.players), int(rows[0])


GAMES = [(3, 3, 3), (4, 2, 4), (4, 4, 2), (3, 2, 3)]


@pytest.mark.parametrize("shape", GAMES)
@pytest.mark.parametrize("seed", range(2))
def test_every_pair_depth_two_and_three_and_common_knowledge_as_the_deals_say(shape, seed):
    game = Game(*shape)
    P = game.players
    answers = set()
    for moves in (0, 2, 5, 9):
        record, result, brute, row = moment(game, seed, moves)
        if not brute.cards:
            continue
        public, hands = record_hands(record, result)
        for a, b in itertools.permutations(range(P), 2):
            got = higher_order(public, (a, b), hands[a])
            assert got == brute.about((a, b), row), (shape, seed, moves, a, b)
            answers.update(got.values())
            for c in range(P):
                if c != b:
                    assert higher_order(public, (a, b, c), hands[a]) == brute.about((a, b, c), row), (a, b, c)
        chain = tuple(range(P))[:4]  # one depth-4 chain
        assert higher_order(public, chain, hands[0]) == brute.about(chain, row)
        for size in range(1, P + 1):
            for group in itertools.combinations(range(P), size):
                assert common_knowledge(public, hands, group) == brute.common(group, row), (moves, group)
    assert answers == set(STATUSES)  # every answer occurred


@pytest.mark.parametrize("shape", [(3, 3, 3), (4, 2, 4), (4, 4, 2)])
def test_exposure_is_the_mean_over_the_deals_of_the_seats_view(shape):
    game = Game(*shape)
    for seed, moves in ((0, 3), (1, 6), (2, 8)):
        record, result, brute, row = moment(game, seed, moves)
        public, hands = record_hands(record, result)
        for a, b in itertools.permutations(range(game.players), 2):
            assert exposure(public, a, hands[a], b) == brute.exposure(a, b, row), (seed, a, b)


def test_a_view_of_the_module_docstring_and_the_errors():
    from quaternity_cp import Position
    from quaternity_cp.quartets.knowledge import public_constraints

    pos = Position(Game(3, 2, 3), "classic", first=0)
    pos.push_str("0>1:A0+")
    public = public_constraints(pos)
    with pytest.raises(ValueError, match="at least two"):
        higher_order(public, (0,), [0, 1, 5])
    with pytest.raises(ValueError, match="unknown seat"):
        higher_order(public, (0, 3), [0, 1, 5])
    with pytest.raises(ValueError, match="holds 3 cards"):
        higher_order(public, (0, 1), [0, 1])
    with pytest.raises(ValueError, match="no deal"):
        higher_order(public, (0, 1), [2, 3, 4])  # seat 0 holds A0 in every deal
    with pytest.raises(ValueError, match="at least one seat"):
        common_knowledge(public, {0: [0, 1, 5]}, ())
    with pytest.raises(ValueError, match="hand of seat 1"):
        common_knowledge(public, {0: [0, 1, 5]}, (0, 1))
    with pytest.raises(ValueError, match="its own hand"):
        exposure(public, 0, [0, 1, 5], 0)


def _start(players: int, sets: int, size: int):
    data = random_record(Game(players, sets, size), "classic", random.Random(0))
    record = record_from_json(dict(data, moves=[]))
    return record_hands(record, replay(record, history=False))


def test_limits_refuse_while_it_runs_and_a_budget_is_shared():
    public, hands = _start(3, 6, 4)
    for limits, reason in ((CountLimits(max_states=50), STATES), (CountLimits(max_work=50), WORK)):
        with pytest.raises(CountLimitError) as err:
            higher_order(public, (0, 1), hands[0], limits=limits)
        assert err.value.reason == reason and "higher-order knowledge needs more than 50" in str(err.value)
    big, big_hands = _start(4, 8, 4)  # hundreds of milliseconds: far past a millisecond
    with pytest.raises(CountLimitError) as err:
        higher_order(big, (0, 1), big_hands[0], limits=CountLimits(max_seconds=0.001))
    assert err.value.reason == TIME
    budget = ViewBudget(CountLimits(max_states=100_000))
    higher_order(public, (0, 1), hands[0], limits=budget)
    used = budget.views
    assert 0 < used < 100_000
    higher_order(public, (0, 2), hands[0], limits=budget)
    assert budget.views > used  # the second computation added its views
    with pytest.raises(CountLimitError):
        higher_order(public, (0, 1), hands[0], limits=ViewBudget(CountLimits(max_states=used - 1)))


def test_four_players_with_eight_sets_of_four_are_answered_at_the_start_and_later():
    data = random_record(Game(4, 8, 4), "classic", random.Random(3))
    for moves in (0, len(data["moves"]) // 3):
        record = record_from_json(dict(data, moves=data["moves"][:moves], tie_break=None))
        public, hands = record_hands(record, replay(record, history=False))
        about = higher_order(public, (0, 1), hands[0], limits=CountLimits(max_states=50_000))
        assert set(about) == set(public.cards_in_play)
        # seat 0 knows its own cards; whether seat 1 knows them depends on seat 1's hand unless public
        mine = set(hands[0])
        if moves == 0:
            assert {about[c] for c in mine} == {"never"}  # nobody has asked or answered anything yet
            assert all(about[c] == "possibly" for c in public.cards_in_play if c not in mine)  # seat 1's own
        else:
            known = common_knowledge(public, hands, range(4), limits=CountLimits(max_states=50_000))
            assert all(about[c] == "surely" for c in known)  # what everyone knows, seat 0 knows seat 1 knows


# -- the command ------------------------------------------------------------------------------------------
def run(*args, input=None):
    return CliRunner().invoke(main, [str(a) for a in args], input=input)


def test_analyze_about_json_keys_and_answers():
    path = EXAMPLES / "classic-midgame.json"
    result = run("analyze", path, "--as", "0", "--about", "2", "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    plain = json.loads(run("analyze", path, "--as", "0", "--json").output)
    assert {k: v for k, v in data.items() if k != "about"} == plain  # the keys of --as, and about
    assert set(data["about"]) == {"seat", "cards"} and data["about"]["seat"] == 2
    record = record_from_json(json.loads(path.read_text()))
    public, hands = record_hands(record, replay(record, history=False))
    want = higher_order(public, (0, 2), hands[0])
    g = record.game
    assert data["about"]["cards"] == {g.card_name(c): want[c] for c in sorted(want)}
    assert list(data["about"]["cards"]) == [g.card_name(c) for c in public.cards_in_play]


def test_analyze_about_names_seats_and_cards_as_the_record_does(tmp_path):
    text = (EXAMPLES / "classic-named.txt").read_text()
    path = tmp_path / "named.txt"  # the example's first move only: cards are still in play
    path.write_text(text[:text.index("Bob>Ann:Red1+")] + "Bob>Ann:Red1+\n")
    by_name = run("analyze", path, "--as", "Ann", "--about", "Cas", "--json")
    by_number = run("analyze", path, "--as", "0", "--about", "2", "--json")
    assert by_name.exit_code == 0, by_name.output
    assert by_name.output == by_number.output
    cards = json.loads(by_name.output)["about"]["cards"]
    assert all(name[:-1] in ("Red", "Green", "Blue") for name in cards) and set(cards.values()) <= set(STATUSES)
    text = run("analyze", path, "--as", "Ann", "--about", "Cas")
    assert text.exit_code == 0 and "What Ann knows of what Cas knows" in text.output
    for status in STATUSES:
        assert status in text.output


@pytest.mark.parametrize("args, message", [
    (["--about", "1"], "--about needs --as"),
    (["--as", "0", "--about", "0"], "the player of --as"),
    (["--as", "0", "--about", "3"], "--about: expected a seat number 0 to 2"),
    (["--as", "0", "--about", "Bob"], "--about: expected a seat number"),
    (["--as", "5", "--about", "1"], "--as: expected a seat number"),
    (["--as", "0", "--about", "1", "--explain"], "do not combine"),
])
def test_analyze_about_bad_input_is_one_line_and_exit_2(args, message):
    result = run("analyze", EXAMPLES / "classic-midgame.json", *args)
    assert result.exit_code == 2, result.output
    assert message in result.output and result.output.count("\n") == 1


def test_analyze_about_without_a_deal_and_past_its_time_is_exit_2(tmp_path):
    result = run("analyze", EXAMPLES / "quaternity.json", "--as", "0", "--about", "1")
    assert result.exit_code == 2 and "needs a record with a deal" in result.output
    data = random_record(Game(4, 8, 4), "classic", random.Random(0))
    path = tmp_path / "start.json"
    path.write_text(json.dumps(dict(data, moves=[], tie_break=None)))
    svg = tmp_path / "grid.svg"
    result = run("analyze", path, "--as", "0", "--about", "1", "--max-seconds", "0.001", "--svg", svg)
    assert result.exit_code == 2 and "too large to tell exactly" in result.output and "--max-seconds" in result.output
    assert result.output.count("\n") == 1 and not svg.exists()  # a refusal writes nothing


def test_analyze_about_of_an_illegal_record_is_exit_1():
    result = run("analyze", EXAMPLES / "classic-lie.json", "--as", "1", "--about", "2", "--json")
    assert result.exit_code == 1
    data = json.loads(result.output)
    assert data["valid"] is False and set(data["about"]["cards"].values()) <= set(STATUSES)


# -- the discreet agent ---------------------------------------------------------------------------------
def _brute_exposure_after(game, obs, q, me):
    """The expected exposure of the seat's cards after ``q``, on explicit deals (the reference's)."""
    ref = Reference(game, obs.rules, obs.first)
    st = ref.start()
    for i, move in enumerate(obs.moves, 1):
        st, kind = ref.play(st, move, i)
        assert kind is None
    before = ref.settled(st)
    cards = ref.cards_in_play(before)
    mine = sorted(obs.hand)
    rows = before.deals[(before.deals[:, cards] == me).sum(axis=1) == len(mine)]
    rows = rows[(rows[:, mine] == me).all(axis=1)]
    p_yes = Fraction(int((rows[:, q.card] == q.target).sum()), len(rows))
    total = Fraction(0)
    for yes, chance in ((True, p_yes), (False, 1 - p_yes)):
        if not chance:
            continue
        after, kind = ref.play(st, q.answered(yes), len(obs.moves) + 1)
        assert kind is None
        hand = set(mine) | ({q.card} if yes else set())
        s = q.card // game.set_size
        if yes and set(game.cards_of(s)) <= hand:
            after, kind = ref.play(after, Declaration(me, s), len(obs.moves) + 2)
            hand -= set(game.cards_of(s))
        if not hand:
            continue
        after = ref.settled(after)
        live = ref.cards_in_play(after)
        keep = np.ones(len(after.deals), dtype=bool)
        for c in live:
            keep &= (after.deals[:, c] == me) == (c in hand)
        deals = Deals(after.deals, live, game.players)
        row = int(np.flatnonzero(keep)[0])
        total += chance * sum(deals.exposure(me, o, row) for o in range(game.players) if o != me)
    return total


@pytest.mark.parametrize("shape", [(3, 3, 3), (4, 2, 4), (4, 4, 2)])
def test_discreet_picks_a_best_question_with_the_least_exposure_by_brute_force(shape):
    from quaternity_cp.quartets.agents import KnowledgeAgent
    from quaternity_cp.quartets.agents.discreet import DiscreetAgent
    from quaternity_cp.quartets.state import new_state

    game = Game(*shape)
    checked = 0
    for seed in range(3):
        state = new_state(seed, preset="classic", players=shape[0], sets=shape[1], set_size=shape[2])
        rng = random.Random(seed)
        while not state.is_terminal():
            p = state.current_player()
            obs = state.observation(p)
            legal = state.legal_actions()
            best = KnowledgeAgent().best_questions(obs, legal)
            if len(best) > 1 and obs.hand:
                exposures = {q: _brute_exposure_after(game, obs, q, p) for q in best}
                least = min(exposures.values())
                agent = DiscreetAgent()
                choice = agent.step(obs, legal, random.Random(0))
                assert exposures[choice] == least and agent.fallbacks == 0, (obs.moves, choice, exposures)
                checked += len(set(exposures.values())) > 1
            state.apply_action(legal[rng.randrange(len(legal))])
    assert checked > 0  # some decision where the exposures differ


def test_discreet_falls_back_to_cautious_past_its_views_and_counts_it():
    from quaternity_cp.quartets.agents import CautiousAgent
    from quaternity_cp.quartets.agents.discreet import DiscreetAgent
    from quaternity_cp.registry import GAMES, load_all
    from quaternity_cp.quartets.state import new_state

    load_all()
    assert "discreet" in GAMES["quartets"].agents
    assert GAMES["quartets"].refusal("discreet", {"preset": "quaternity"}) is not None
    assert GAMES["quartets"].refusal("discreet", {"preset": "classic"}) is None
    state = new_state(4, preset="classic", players=3, sets=6, set_size=4)
    obs = state.observation(state.current_player())
    legal = state.legal_actions()
    agent = DiscreetAgent(views=CountLimits(max_states=1))
    for s in range(3):
        assert agent.step(obs, legal, random.Random(s)) == CautiousAgent().step(obs, legal, random.Random(s))
    assert agent.fallbacks == 3


def test_exposure_counts_deals_at_four_players():
    """With four seats two fixed hands leave two open: each hand of the other weighs its number of deals."""
    record, result, brute, row = moment(Game(4, 4, 2), 5, 4)
    public, hands = record_hands(record, result)
    view = private_constraints(public, 0, hands[0])
    assert count(view) == int(brute.view(0, row).sum())
    assert exposure(public, 0, hands[0], 1) == brute.exposure(0, 1, row)
