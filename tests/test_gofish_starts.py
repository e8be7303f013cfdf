"""The table of solved Quantum Go Fish starts (quaternity_cp.gofish.starts) against the brute-force reference.

The 2-player start (2 suits of 4) under every rule set of the table is compared with value iteration over the
reference's explicit graph (tests/gofish_reference.py: the list of consistent tables, no flows, no suit
relabelling); the winning first move is played out against every answer. The 3-player rows of the docs
(53,946 positions under the default rules, about 10 s each) run with ``--runslow``."""

from __future__ import annotations

import json
import os

import pytest

from gofish_reference import Reference
from quaternity_cp.gofish.starts import VARIANTS, solve_start_rules, solve_starts
from test_gofish_solver import reference_graph, value_iteration


@pytest.mark.parametrize("rules", VARIANTS, ids=lambda r: ",".join(f"{k}={v}" for k, v in r.items()) or "default")
def test_two_player_starts_match_value_iteration(rules):
    row, game = solve_start_rules(2, rules)
    root, graph = reference_graph(Reference(2, 2, 4, dict(rules)))
    for seat in range(2):
        expected = value_iteration(graph, seat).get(root)
        assert (row.results[seat].wins, row.results[seat].plies) == (expected is not None, expected)
    data = row.to_json(game)
    assert data["winners"] == [s for s in range(2) if value_iteration(graph, s).get(root) is not None]
    for seat in data["winners"]:
        move = data["seats"][str(seat)]["first_move"]
        assert game.is_legal(move)  # the strategy's first question is a legal one of the start


def test_the_table_names_at_most_one_winner_per_start():
    for row in solve_starts(2):
        assert len(row.winners) <= 1
        assert row.positions > 0 and row.edges >= row.positions - 1


@pytest.mark.slow
@pytest.mark.parametrize("rules", [{}, {"after_yes": "again"}], ids=["default", "after_yes=again"])
def test_three_player_start_no_seat_forces_a_win(rules):
    row, _ = solve_start_rules(3, rules)
    assert row.winners == []
    assert row.positions == {(): 53_946, ("after_yes",): 30_918}[tuple(rules)]


# -- the partitioned solver through the command (quaternity gofish starts --checkpoint) ------------------------
def _starts(*args: str):
    from click.testing import CliRunner

    from quaternity_cp.gofish.cli import gofish

    result = CliRunner().invoke(gofish, ["starts", *args])
    return result.exit_code, result.stdout, result.stderr


def test_checkpoint_rows_equal_the_python_solver_rows(tmp_path):
    """Every rule set of 2 players: the partitioned rows say what the Python solver's rows say (winners, plies,
    first moves); positions differ only by the players' rotation (never more)."""
    code, out, err = _starts("--players", "2", "--json")
    assert code == 0, err
    reference = json.loads(out)["starts"]
    code, out, err = _starts("--players", "2", "--json", "--checkpoint", str(tmp_path), "--workers", "0")
    assert code == 0, err
    rows = json.loads(out)["starts"]
    assert [r["rules"] for r in rows] == [r["rules"] for r in reference]
    for mine, ref in zip(rows, reference):
        assert mine["winners"] == ref["winners"]
        assert {s: (e["wins"], e["plies"], e.get("first_move")) for s, e in mine["seats"].items()} == \
            {s: (e["wins"], e["plies"], e.get("first_move")) for s, e in ref["seats"].items()}
        assert mine["positions"] <= ref["positions"] and mine["players_rotated"]
    assert any(r["winners"] for r in rows)  # (after_yes=again: seat 0 wins, so the comparison is not vacuous)
    # asked again: every row is read back from its folder's result, the same rows
    code, out, err = _starts("--players", "2", "--json", "--checkpoint", str(tmp_path), "--workers", "0")
    assert code == 0 and [r["seats"] for r in json.loads(out)["starts"]] == [r["seats"] for r in rows]


def test_checkpoint_stopped_by_a_limit_says_so_and_resumes(tmp_path):
    code, out, err = _starts("--players", "3", "--suit-size", "2", "--rule", "four=off", "--checkpoint",
                             str(tmp_path), "--workers", "0", "--max-positions", "20")
    assert code == 2 and "Traceback" not in err
    line = err.strip().splitlines()[-1]
    assert line.startswith("quaternity: ") and "position limit" in line and "run again" in line
    code, out, err = _starts("--players", "3", "--suit-size", "2", "--rule", "four=off", "--checkpoint",
                             str(tmp_path), "--workers", "0", "--json", "--drop-graph")
    assert code == 0, err
    row = json.loads(out)["starts"][0]
    reference, _ = solve_start_rules(3, {"four": "off"}, suit_size=2)
    assert row["winners"] == reference.winners
    folder = row["checkpoint"]
    assert sorted(os.listdir(folder)) == ["manifest.json", "result.json"]  # --drop-graph: the answer stays


def test_checkpoint_options_without_checkpoint_are_refused(tmp_path):
    for extra in (["--workers", "2"], ["--cluster", "tcp://127.0.0.1:1"], ["--drop-graph"]):
        code, out, err = _starts("--players", "2", *extra)
        assert code == 2 and "Traceback" not in err
        assert err.strip().splitlines()[-1].startswith("quaternity: --workers, --cluster and --drop-graph go with")


def test_checkpoint_that_is_a_file_is_refused(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    code, out, err = _starts("--players", "2", "--checkpoint", str(blocker), "--workers", "0")
    assert code == 2 and "Traceback" not in err, err
    assert err.strip().splitlines()[-1].startswith("quaternity: ")


def test_checkpoint_build_stopped_by_ctrl_c_exits_130_and_resumes(tmp_path):
    """Ctrl-C during the 4-player build (sent once a layer is reported): exit 130, one line naming the folder,
    and the manifest records the finished layers, which a second run takes up (it is stopped by a position limit
    just past them, proving it went on from there rather than from the start)."""
    import signal
    import subprocess
    import sys

    args = [sys.executable, "-m", "quaternity_cli", "gofish", "starts", "--players", "4", "--checkpoint",
            str(tmp_path), "--workers", "0"]
    proc, err, last = _stopped_at_layer(tmp_path, 0, 6, lambda p: p.send_signal(signal.SIGINT))
    assert proc.returncode == 130, err
    assert last.startswith("quaternity: 4 players, rules default: ") and "interrupt" in last and "run again" in last
    manifest = json.loads((tmp_path / "p4-s4-default" / "manifest.json").read_text())
    done = manifest["layers"]
    assert done >= 7 and not manifest["complete"]
    positions = sum(sum(s) for s in manifest["sizes"])
    # at the limit already: stopped before any work (no layer reported), after the layers recorded
    again = subprocess.run(args + ["--max-positions", str(positions)], capture_output=True, text=True, timeout=600)
    assert again.returncode == 2, again.stderr
    assert not [line for line in again.stderr.splitlines() if line.strip().startswith("layer")], again.stderr
    assert f"the position limit after {done} layers ({positions:,} positions)" in again.stderr, again.stderr
    # one position more: the first layer not finished before is begun, and stopped between its merges
    again = subprocess.run(args + ["--max-positions", str(positions + 1)], capture_output=True, text=True,
                           timeout=600)
    assert again.returncode == 2, again.stderr
    assert f"the position limit (reached in layer {done}, " in again.stderr, again.stderr
    assert f"after {done} layers" in again.stderr, again.stderr


def test_the_two_player_again_start_example_is_solved_as_the_docs_say():
    """examples/gofish/start-2p-again.json (docs/gofish.md): seat 0 forces a win in 6 plies, first 0>1:A?, and
    its strategy answers every reply."""
    from pathlib import Path

    from click.testing import CliRunner

    from quaternity_cli.main import main

    path = Path(__file__).resolve().parent.parent / "examples" / "gofish" / "start-2p-again.json"
    result = CliRunner().invoke(main, ["solve", str(path), "--player", "0", "--json"])
    assert result.exit_code == 0, result.stderr
    data = json.loads(result.stdout)
    assert (data["verdict"], data["plies"]) == ("yes", 6)
    assert json.dumps(data["strategy"]).count("0>1:A?") >= 3
    result = CliRunner().invoke(main, ["solve", str(path), "--player", "1", "--json"])
    assert json.loads(result.stdout)["verdict"] == "no"


def _stopped_at_layer(tmp_path, workers, layer, stop, **popen):
    """``gofish starts`` for 4 players, ``stop(proc)`` called once it reports ``layer``: (exit code, standard
    error, its last line); no traceback in it."""
    import subprocess
    import sys

    args = [sys.executable, "-m", "quaternity_cli", "gofish", "starts", "--players", "4", "--checkpoint",
            str(tmp_path), "--workers", str(workers)]
    proc = subprocess.Popen(args, stderr=subprocess.PIPE, stdout=subprocess.PIPE, text=True, **popen)
    assert proc.stderr is not None
    seen = []
    for line in proc.stderr:
        seen.append(line)
        if line.strip().startswith(f"layer {layer}:"):
            stop(proc)
            break
    err = "".join(seen) + proc.stderr.read()
    proc.wait(timeout=120)
    assert "Traceback" not in err, err
    return proc, err, err.strip().splitlines()[-1]


def _no_process_left(group: int) -> None:
    """No process of the process group ``group`` is left (the workers' own exit follows the command's by a
    moment: up to a minute)."""
    import subprocess
    import time

    def left() -> list[str]:
        rows = subprocess.run(["ps", "-eo", "pgid=,args="], capture_output=True, text=True).stdout.splitlines()
        return [r for r in rows if r.split(None, 1)[0] == str(group)]

    deadline = time.monotonic() + 60
    while left() and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not left()


def test_sigterm_to_the_command_alone_stops_a_dask_build_and_its_workers(tmp_path):
    """A batch system's SIGTERM, sent to the command's process only (not its group): exit 143, one line naming
    the folder, no traceback, no worker process left behind, and the layers done kept for the next run."""
    import signal

    proc, err, last = _stopped_at_layer(tmp_path, 2, 4, lambda p: p.send_signal(signal.SIGTERM),
                                        start_new_session=True)
    assert proc.returncode == 143, err
    assert last.startswith("quaternity: 4 players, rules default: ") and "interrupt" in last, last
    assert str(tmp_path / "p4-s4-default") in last
    _no_process_left(proc.pid)
    manifest = json.loads((tmp_path / "p4-s4-default" / "manifest.json").read_text())
    assert manifest["layers"] >= 4 and not manifest["complete"]


def test_ctrl_c_at_the_terminal_stops_a_dask_build_in_one_line(tmp_path):
    """Ctrl-C at a terminal reaches the whole process group, the Dask workers too: the command still ends with
    exit 130 and its one line, no worker prints a traceback, and no worker process is left behind."""
    import signal

    proc, err, last = _stopped_at_layer(tmp_path, 2, 8, lambda p: os.killpg(p.pid, signal.SIGINT),
                                        start_new_session=True,
                                        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    assert proc.returncode == 130, err
    assert last.startswith("quaternity: 4 players, rules default: ")
    _no_process_left(proc.pid)
