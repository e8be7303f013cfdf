"""The figures the docs quote from long runs are those of the commands they show (slow: --runslow)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from quaternity_cp.quartets.experiments import koole_experiment

ROOT = Path(__file__).resolve().parent.parent


def cell(data: dict, strategy: str, opponents: list[str]) -> float:
    for c in data["cells"]:
        if c["strategy"] == strategy and sorted(c["opponents"]) == sorted(opponents):
            return round(100 * c["ours"], 1)
    raise KeyError((strategy, opponents))


@pytest.mark.slow
def test_koole_table_and_the_earlier_fallback_figures_are_those_of_the_commands_shown():
    text = " ".join((ROOT / "docs" / "classic.md").read_text(encoding="utf-8").split())
    assert "`quaternity experiment koole --games 1000 --seed 1` gives" in text
    current = koole_experiment(1000, 1)
    for strategy, opponents, shown in (("first", ["random", "random"], "58.6"),
                                       ("second", ["random", "random"], "55.3"),
                                       ("combined", ["random", "random"], "47.9")):
        assert f"{cell(current, strategy, opponents):.1f}" == shown
    m = re.search(r"\(`quaternity experiment koole --second-fallback random --games 1000 --seed 1`\) the cells "
                  r"of second order against first order and random agree within 3\.0 standard errors \((\d+\.\d)% "
                  r"against two random, (\d+\.\d)% against two first order\)", text)
    assert m is not None
    earlier = koole_experiment(1000, 1, second_fallback="random")
    assert f"{cell(earlier, 'second', ['random', 'random']):.1f}" == m.group(1)
    assert f"{cell(earlier, 'second', ['first', 'first']):.1f}" == m.group(2)
