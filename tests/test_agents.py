"""Agents: the koole strategies on hand-written positions, the exact agents against brute force,
and the game state of every preset (legal actions, answerers, undo, records that check accepts)."""

from __future__ import annotations

import itertools
import json
import random
from fractions import Fraction

import pytest

from quaternity_cp import Game
from quaternity_cp.quartets.agents import CautiousAgent, KnowledgeAgent, KooleAgent, RandomAgent
from quaternity_cp.quartets.formats import record_from_json
from quaternity_cp.quartets.game import Declaration, Question
from quaternity_cp.registry import GAMES, TERMINAL, load_all
from quaternity_cp.quartets.state import ClassicState, new_state
from quaternity_cp.quartets.replay import replay

load_all()
G = Game(3, 6, 4)


def card(name: str) -> int:
    return G.card(name)


def q(text: str) -> Question:
    move = G.parse_move(text)
    assert isinstance(move, Question), text
    return move


def classic(deal: dict[int, str], first: int) -> ClassicState:
    from quaternity_cp.quartets.state import classic_rules

    rules, options = classic_rules()
    hands = {p: [card(c) for c in cards.split()] for p, cards in deal.items()}
    return ClassicState(G, 0, rules=rules, options=options, deal=hands, first=first)


def play(state: ClassicState, *texts: str) -> None:
    """Ask each question; the deal answers it, as the text says."""
    for text in texts:
        move = q(text)
        state.apply_action(move.unanswered())
        asked = [m for m in state.moves if isinstance(m, Question)]
        assert asked[-1] == move, text


def choose(agent, state, seed: int = 0):
    p = state.current_player()
    return agent.step(state.observation(p), state.legal_actions(), random.Random(seed))


# -- koole strategies on positions where their choice is determined -------------------------------------
DEAL = {
    0: "A0 A1 A2 B0 C0 D0 E0 F0",
    1: "A3 B1 B2 C1 C2 D1 E1 F1",
    2: "B3 C3 D2 D3 E2 E3 F2 F3",
}


def test_koole_first_asks_the_known_holder_for_the_card_it_received():
    state = classic(DEAL, first=1)
    # seat 1 receives A0 from seat 0 (public: 1 holds A0), then asks seat 0 for B3 (no): seat 0's turn
    play(state, "1>0:A0+", "1>0:B3-")
    assert state.current_player() == 0
    for seed in range(20):  # A is seat 0's most-held colour; only seat 1 is publicly known to hold A
        assert choose(KooleAgent("first"), state, seed) == q("0>1:A0?")


def test_koole_first_asks_a_random_card_of_the_colour_when_the_first_known_card_is_another():
    state = classic(DEAL, first=1)
    play(state, "1>0:B0+", "1>2:A0-", "2>0:C1-")
    # public: seat 1 received B0 (its first known card) and holds an A card; seat 0 lacks only A3 of A
    for seed in range(20):
        assert choose(KooleAgent("first"), state, seed) == q("0>1:A3?")


def test_koole_first_without_any_public_colour_asks_for_its_most_held_colour():
    state = classic(DEAL, first=0)
    asked = {choose(KooleAgent("first"), state, seed) for seed in range(40)}
    # nothing is public yet: a card of A (3 held) that seat 0 lacks, from a random player
    assert asked == {q("0>1:A3?"), q("0>2:A3?")}


def test_koole_first_falls_back_to_a_random_question_when_the_known_list_is_empty():
    state = classic(DEAL, first=1)
    play(state, "1>2:A0-")  # public: seat 1 holds an A card, but received nothing
    play(state, "2>0:C1-")  # seat 0's turn
    asked = {choose(KooleAgent("first"), state, seed) for seed in range(200)}
    # the web app's getMostCards then plays getRandomQuestion: any colour seat 0 holds
    assert {m.card // 4 for m in asked} == {0, 1, 2, 3, 4, 5}
    assert all(m.card not in state.held[0] for m in asked)


def test_koole_second_asks_in_its_public_colour_avoiding_refusals():
    state = classic(DEAL, first=0)
    play(state, "0>2:A3-")  # public: seat 0 holds an A card; seat 2 refused A3
    play(state, "2>0:C1-")  # back to seat 0
    asked = {choose(KooleAgent("second"), state, seed) for seed in range(40)}
    # the lowest A card seat 0 lacks is A3; seat 2 said no to it, so 2 is asked for the next: none is left
    # (A0-A2 are held), and the card is picked against seat 1's refusals but still asked of seat 2
    assert asked == {q("0>1:A3?"), q("0>2:A3?")}


def test_koole_second_keeps_the_web_apps_other_opponent_quirk():
    state = classic({0: "A0 A1 B0 C0 D0 E0 F0 F1", 1: "A2 B1 B2 C1 C2 D1 E1 F2", 2: "A3 B3 C3 D2 D3 E2 E3 F3"},
                    first=0)
    play(state, "0>1:A3-", "1>0:B3-", "0>2:A2-", "2>0:C1-")
    # seat 0 advertised A; seat 1 refused A3, seat 2 refused A2
    asked = {choose(KooleAgent("second"), state, seed) for seed in range(40)}
    assert asked == {q("0>1:A2?"), q("0>2:A3?")}
    play(state, "0>1:A2+", "0>2:B1-", "2>0:E1-")
    # now seat 0 lacks only A3: seat 2 is not refused on it, seat 1 refused it
    asked = {choose(KooleAgent("second"), state, seed) for seed in range(40)}
    # target 2: A3 directly; target 1: refused there, so picked against seat 2's list and still asked of 1
    assert asked == {q("0>2:A3?"), q("0>1:A3?")}


def test_koole_combined_without_public_colours_asks_randomly():
    state = classic(DEAL, first=0)
    asked = {choose(KooleAgent("combined"), state, seed) for seed in range(300)}
    assert {m.card // 4 for m in asked} == {0, 1, 2, 3, 4, 5}  # random, not first order (which would ask A3)
    asked = {choose(KooleAgent("second"), state, seed) for seed in range(40)}
    assert asked == {q("0>1:A3?"), q("0>2:A3?")}  # second order falls back to first order
    earlier = {choose(KooleAgent("second", second_fallback="random"), state, seed) for seed in range(300)}
    assert {m.card // 4 for m in earlier} == {0, 1, 2, 3, 4, 5}  # the app's earlier code: random


def test_koole_random_asks_only_legal_questions():
    state = classic(DEAL, first=0)
    legal = set(state.legal_actions())
    for seed in range(100):
        assert choose(KooleAgent("random"), state, seed) in legal


def test_koole_agents_refuse_games_without_a_deal():
    state = new_state(1, preset="quaternity", players=3, sets=3, set_size=2)
    with pytest.raises(Exception, match="classic"):
        choose(KooleAgent("first"), state)


def test_koole_public_record_follows_the_web_apps_updates():
    agent = KooleAgent("first")
    state = classic(DEAL, first=1)
    play(state, "1>0:A0+", "1>2:A1-")
    agent._sync(state.observation(2), random.Random(0))
    assert agent.suits[1] == [0]  # A once: a no adds a colour only if it is not listed yet
    assert agent.cards[1] == [card("A0")] and agent.not_cards[2] == [card("A1")]
    play(state, "2>1:B1+")
    agent._sync(state.observation(2), random.Random(0))
    assert agent.suits[2] == [1] and agent.suits[1] == [0]  # seat 1 gave a B card: one B removed (none listed)


# -- exact agents against brute force on tiny classic games ----------------------------------------------
def brute_deals(game: Game, moves, seat: int | None, hand) -> list[dict[int, int]]:
    """Current card owners over every initial deal whose truthful replay gives the public moves and seat's hand
    (``seat`` None: the public moves only)."""
    P, S = game.players, game.set_size
    cards = list(range(game.cards))
    h = game.hand_size
    out = []
    for assignment in itertools.product(range(P), repeat=len(cards)):
        if any(assignment.count(p) != h for p in range(P)):
            continue
        owner = list(assignment)
        claimed = [-1] * game.sets
        ok = True
        for m in moves:
            if isinstance(m, Declaration):
                if any(owner[c] != m.player for c in game.cards_of(m.set)):
                    ok = False
                    break
                claimed[m.set] = m.player
                continue
            # before a question every complete set must have been put down
            for s in range(game.sets):
                if claimed[s] < 0 and len({owner[c] for c in game.cards_of(s)}) == 1:
                    ok = False
            if not ok:
                break
            x, y, c = m.asker, m.target, m.card
            mine = [d for d in cards if owner[d] == x and claimed[d // S] < 0]
            if mine and (owner[c] == x or not any(d // S == c // S for d in mine)):
                ok = False
                break
            if m.answer != (owner[c] == y):
                ok = False
                break
            if m.answer:
                owner[c] = x
        if not ok:
            continue
        if any(claimed[s] < 0 and len({owner[c] for c in game.cards_of(s)}) == 1 for s in range(game.sets)):
            continue
        live = [c for c in cards if claimed[c // S] < 0]
        if seat is not None and {c for c in live if owner[c] == seat} != set(hand):
            continue
        out.append({c: owner[c] for c in live})
    return out


def brute_yes(deals, question: Question) -> Fraction:
    return Fraction(sum(1 for d in deals if d[question.card] == question.target), len(deals))


def brute_question_count(game, moves, question: Question) -> int:
    """The public count of consistent deals once the question is asked (its premise, not its answer)."""
    deals = brute_deals(game, moves, None, ())
    S = game.set_size
    x = question.asker
    n = 0
    for d in deals:
        mine = [c for c, p in d.items() if p == x]
        if not mine or (d[question.card] != x and any(c // S == question.card // S for c in mine)):
            n += 1
    return n


@pytest.mark.parametrize("seed", range(6))
def test_knowledge_and_cautious_choose_what_brute_force_says(seed):
    game = Game(3, 3, 2)
    from quaternity_cp.quartets.state import classic_rules

    rules, options = classic_rules()
    state = ClassicState(game, seed, rules=rules, options=options)
    rng = random.Random(seed)
    checked = 0
    while not state.is_terminal() and checked < 6:
        p = state.current_player()
        obs = state.observation(p)
        legal = state.legal_actions()
        deals = brute_deals(game, obs.moves, p, obs.hand)
        chance = {a: brute_yes(deals, a) for a in legal}
        top = max(chance.values())
        best = {a for a in legal if chance[a] == top}
        for s in range(4):
            assert KnowledgeAgent().step(obs, legal, random.Random(s)) in best
        counts = {a: brute_question_count(game, obs.moves, a) for a in best}
        most = max(counts.values())
        for s in range(4):
            choice = CautiousAgent().step(obs, legal, random.Random(s))
            assert choice in best and counts[choice] == most
        checked += 1
        state.apply_action(legal[rng.randrange(len(legal))])
    assert checked > 0


def test_public_and_private_views_match_brute_force():
    from quaternity_cp.quartets.count import card_probabilities

    game = Game(3, 3, 3)
    from quaternity_cp.quartets.state import classic_rules

    rules, options = classic_rules()
    for seed in range(3):
        state = ClassicState(game, seed, rules=rules, options=options)
        rng = random.Random(seed)
        for _ in range(5):
            if state.is_terminal():
                break
            state.apply_action(rng.choice(state.legal_actions()))
        for p in range(3):
            obs = state.observation(p)
            deals = brute_deals(game, obs.moves, p, obs.hand)
            probs = card_probabilities(obs.private_constraints())
            for c, dist in probs.items():
                for seat in range(3):
                    want = Fraction(sum(1 for d in deals if d[c] == seat), len(deals))
                    assert dist.get(seat, 0) == want, (seed, p, c, seat)


# -- the game state ---------------------------------------------------------------------------------
def test_classic_undo_restores_the_state():
    state = new_state(3, preset="classic")
    rng = random.Random(3)
    snapshots = []
    while not state.is_terminal():
        snapshots.append((state.observation(state.current_player()), state.current_player()))
        state.apply_action(rng.choice(state.legal_actions()))
    final = state.record()
    for obs, player in reversed(snapshots):
        state.undo()
        assert state.current_player() == player
        assert state.observation(player) == obs
    assert all(isinstance(m, Declaration) for m in state.clone().moves)  # only the deal's put-downs left
    assert final["moves"]


def test_classic_observation_never_holds_the_deal():
    state = new_state(4, preset="classic")
    obs = state.observation(1)
    assert obs.hand == frozenset(state.held[1])
    assert "deal" not in {f for f in vars(obs)}
    assert all(isinstance(m, (Question, Declaration)) for m in obs.moves)


def test_classic_rejects_dishonest_and_out_of_turn_questions():
    state = classic(DEAL, first=0)
    with pytest.raises(Exception, match="must hold a card"):
        state.apply_action(q("0>1:A0?"))  # seat 0 holds A0
    with pytest.raises(Exception, match="not on turn"):
        state.apply_action(q("1>0:A0?"))
    assert state.moves == []


@pytest.mark.parametrize("preset", ["quaternity", "quaternity-seat", "blind", "pythagoras"])
def test_quaternity_presets_let_the_answerer_choose_and_records_replay(preset):
    answered_by_choice = 0
    for seed in range(4):
        state = new_state(seed, preset=preset, players=3, sets=3, set_size=2)
        rng = random.Random(seed)
        agents = [RandomAgent(), KnowledgeAgent(), RandomAgent()]
        while not state.is_terminal():
            p = state.current_player()
            obs = state.observation(p)
            legal = state.legal_actions()
            if obs.pending is not None:
                assert p == obs.pending.target and len(legal) == 2
                answered_by_choice += 1
            state.apply_action(agents[p].step(obs, legal, rng))
        result = replay(record_from_json(state.record()))
        assert result.valid and result.position.over
        assert result.position.winners() == [p for p, r in enumerate(state.returns()) if r > 0]
    assert preset == "pythagoras" or answered_by_choice > 0


def test_solver_agent_takes_a_forced_win():
    from quaternity_cp.quartets.agents import SolverAgent

    state = new_state(0, preset="quaternity", players=2, sets=2, set_size=2)
    obs = state.observation(0)
    move = SolverAgent().step(obs, state.legal_actions(), random.Random(0))
    state.apply_action(move)
    while not state.is_terminal():  # seat 0 wins whatever seat 1 answers
        p = state.current_player()
        state.apply_action(SolverAgent().step(state.observation(p), state.legal_actions(), random.Random(1)))
    assert state.returns()[0] == 1.0


def test_every_quartets_agent_is_registered():
    assert set(GAMES["quartets"].agents) >= {"random", "koole-random", "koole-first", "koole-second",
                                             "koole-combined", "knowledge", "cautious", "solver"}
    assert GAMES["quartets"].new_state(1, preset="classic").current_player() != TERMINAL


def test_classic_records_pass_check_with_deal_first_and_tie_break():
    seen_tie = False
    for seed in range(40):
        state = new_state(seed, preset="classic", players=3, sets=3, set_size=2)
        rng = random.Random(seed)
        while not state.is_terminal():
            state.apply_action(rng.choice(state.legal_actions()))
        rec = json.loads(json.dumps(state.record()))
        assert set(rec) >= {"deal", "first", "moves"}
        seen_tie |= "tie_break" in rec
        result = replay(record_from_json(rec))
        assert result.valid, (seed, result.error)
        assert result.position.winners() == [p for p, r in enumerate(state.returns()) if r > 0]
    assert seen_tie


def test_classic_public_view_equals_the_replayed_positions_view():
    from quaternity_cp.quartets.knowledge import public_constraints
    from quaternity_cp.quartets.state import classic_public_constraints

    for seed in range(4):
        state = new_state(seed, preset="classic", players=3, sets=4, set_size=3, empty_hand="skip" if seed % 2 else "ask")
        rng = random.Random(seed)
        while not state.is_terminal():
            rec = state.record()
            position = replay(record_from_json(rec)).position
            mine = classic_public_constraints(state.game, tuple(state.moves), state.options["empty_hand"])
            theirs = public_constraints(position)
            assert (mine.hands, mine.in_play) == (theirs.hands, theirs.in_play)
            live = theirs.cards_in_play
            assert [mine.domains[c] for c in live] == [theirs.domains[c] for c in live]
            for p in range(3):
                for s in theirs.sets_in_play:
                    assert (mine.lo[p][s], mine.hi[p][s]) == (theirs.lo[p][s], theirs.hi[p][s]), (seed, p, s)
            state.apply_action(rng.choice(state.legal_actions()))


def test_classic_options_initial_quartets_and_unsupported_forced_no_question():
    for seed in range(10):
        state = new_state(seed, preset="classic", players=3, sets=3, set_size=2, initial_quartets=False)
        assert not any(isinstance(m, Declaration) for m in state.moves)  # nobody is dealt a whole set
        rng = random.Random(seed)
        while not state.is_terminal():
            state.apply_action(rng.choice(state.legal_actions()))
        assert replay(record_from_json(state.record())).valid
    with pytest.raises(Exception, match="forced_no_question"):
        new_state(1, preset="classic", forced_no_question=False)


@pytest.mark.parametrize("agent", [KnowledgeAgent, CautiousAgent])
def test_an_answerer_with_nothing_to_gain_either_way_says_no(agent):
    """Both answers are legal and neither claims a set: the tie goes to "no" (the answerer then has the turn)."""
    state = new_state(0, preset="quaternity", players=3, sets=3, set_size=3)
    state.apply_action(Question(0, 1, 0))
    legal = state.legal_actions()
    assert state.current_player() == 1 and {a.answer for a in legal} == {True, False}
    obs = state.observation(1)
    for a in legal:
        assert obs.position().push(a) == ()  # no claim after either answer
    for order in (legal, legal[::-1]):
        for seed in range(3):
            assert agent().step(obs, list(order), random.Random(seed)) == Question(0, 1, 0, False)
