"""benchmarks/layer_model.py: its layer sampler against the partitioned solver's layers, its model's arithmetic."""

from __future__ import annotations

import importlib.util
import pathlib

import pytest

from quaternity_cp import partitioned as pt
from quaternity_cp.quartets.packed import QuaternityPacked
from quaternity_cp.quartets.rules import Rules

ROOT = pathlib.Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def model():
    spec = importlib.util.spec_from_file_location("layer_model", ROOT / "benchmarks" / "layer_model.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _packed_layers(tmp_path, P, N, S, preset):
    built = pt.build(QuaternityPacked(P, N, S, Rules.preset(preset), kernel="python"), str(tmp_path / "ck"), parts=2)
    layers = [sum(layer) for layer in zip(*built.part_sizes)]
    while layers and layers[-1] == 0:  # the build's last layer: nothing new
        layers.pop()
    return layers


@pytest.mark.parametrize("start", [(3, 3, 2), (2, 4, 2), (4, 2, 2)])
def test_the_sampled_layers_are_the_partitioned_solvers_where_no_seat_is_rotated(model, tmp_path, start):
    # quaternity-seat counts seats from seat 0: both solvers keep the same positions, layer by layer
    assert model.sample(*start, "quaternity-seat", 10**6, 600.0) == _packed_layers(tmp_path, *start,
                                                                                   "quaternity-seat")


def test_a_rotated_preset_s_layers_hold_at_most_every_rotation(model, tmp_path):
    P, N, S = 3, 3, 2
    got = model.sample(P, N, S, "quaternity", 10**6, 600.0)
    packed = _packed_layers(tmp_path, P, N, S, "quaternity")
    # a rotation of a position may come earlier than the position itself: only the totals compare
    assert sum(packed) < sum(got) <= P * sum(packed)
    assert got[:2] == packed[:2] and got[2] > packed[2]


def test_the_sampler_stops_before_a_layer_passes_its_positions(model):
    full = model.sample(3, 3, 2, "quaternity-seat", 10**6, 600.0)
    cap = sum(full[:4]) + 1  # room for the first four layers and one position of the fifth
    assert model.sample(3, 3, 2, "quaternity-seat", cap, 600.0) == full[:4]


def test_the_model_carries_the_reference_on_from_its_own_layers(model):
    ref = model.REFERENCE
    # the reference's first ratio below four-fold is its tenth layer's to its eleventh: from there on the
    # model is the reference's own tail
    total, peak, n = model.carry_on(ref[:10])
    assert n == len(ref)
    assert peak == pytest.approx(max(ref))
    assert total == pytest.approx(sum(ref))
    with pytest.raises(ValueError):
        model.carry_on([5])


@pytest.mark.parametrize("players, suit_size", [(2, 4), (3, 2)])
def test_the_go_fish_sample_holds_the_in_memory_graph_s_positions(model, players, suit_size):
    from quaternity_cp.gofish.game import GoFish
    from quaternity_cp.gofish.solver import build_graph

    layers = model.sample_gofish(players, suit_size, 10**6, 600.0)
    graph = build_graph(GoFish(players, players, suit_size, None))
    ends = sum(1 for key in graph.keys if key[0] == "end")  # the finished games, one node per winner
    assert layers[0] == 1 and all(layers) and sum(layers) == graph.size - ends
    assert model.sample_gofish(players, suit_size, sum(layers[:2]), 600.0) == layers[:2]
