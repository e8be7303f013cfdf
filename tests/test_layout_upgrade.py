"""Checkpoints an older version wrote (layout 1: plain part files) are refused with what to do, and ``--upgrade``
rewrites them in place, then goes on to the same answers as a fresh build.

The fixtures in tests/fixtures/layout1 were written by the version before the deflated layout (commit ed3f8c3),
under the key file beside them: a Quaternity build of 3x2x3 stopped by ``--max-positions 100`` after 6 layers
(``quaternity solve --start 3 2 3 --checkpoint q323 --workers 0 --max-positions 100``) and a complete Go Fish
graph (``quaternity gofish starts --players 2 --suit-size 3 --rule after_yes=again --parts 2 --workers 0
--checkpoint gofish``, its result.json removed so that the graph is read again).
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import zipfile
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from quaternity_cp import partfiles
from quaternity_cp import partitioned as pt
from quaternity_cp.quartets.packed import packed_for
from quaternity_cli.main import main

FIXTURES = Path(__file__).parent / "fixtures" / "layout1"
GOFISH = "p2-s3-after_yes=again"


@pytest.fixture
def old(tmp_path, monkeypatch):
    """A copy of the fixtures, their key file the user's key."""
    root = tmp_path / "old"
    shutil.copytree(FIXTURES, root)
    os.chmod(root / "key", 0o600)
    monkeypatch.setenv("QUATERNITY_KEY_FILE", str(root / "key"))
    return root


def run(*args):
    result = CliRunner().invoke(main, [str(a) for a in args])
    return result.exit_code, result.stdout, result.stderr


def solve_323(folder, *extra):
    return run("solve", "--start", 3, 2, 3, "--checkpoint", folder, "--workers", 0, "--json", *extra)


def gofish_starts(folder, *extra):
    return run("gofish", "starts", "--players", 2, "--suit-size", 3, "--rule", "after_yes=again", "--parts", 2,
               "--workers", 0, "--json", "--checkpoint", folder, *extra)


def tree(folder: Path) -> dict:
    """Every file under ``folder``: its SHA-256."""
    return {str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*")) if p.is_file()}


def one_line(code, out, err) -> str:
    assert code == 2, (code, out, err)
    assert out == "" and "Traceback" not in err
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    return lines[0]


def test_the_fixtures_are_of_the_old_layout():
    data = json.loads((FIXTURES / "q323" / "manifest.json").read_text())
    assert "layout" not in data and data["layers"] == 6 and not data["complete"]
    with zipfile.ZipFile(FIXTURES / "q323" / "part000" / "edges0002.npz") as zf:
        assert {i.compress_type for i in zf.infolist()} == {zipfile.ZIP_STORED}


def test_an_old_checkpoint_is_refused_naming_the_option_and_left_as_it_was(old):
    for folder, call in ((old / "q323", solve_323), (old / "gofish", gofish_starts)):
        before = tree(folder)
        line = one_line(*call(folder))
        assert "older version" in line and "--upgrade" in line and "manifest.json" in line
        assert tree(folder) == before


def test_upgrade_goes_on_to_the_fresh_builds_answer(old, tmp_path):
    before = sum(p.stat().st_size for p in (old / "q323").rglob("*.npz"))
    code, out, err = solve_323(old / "q323", "--upgrade")
    assert code == 0, err
    got = json.loads(out)
    code, out, err = solve_323(tmp_path / "fresh")
    assert code == 0, err
    fresh = json.loads(out)
    for key in ("verdict", "plies", "positions", "edges", "layers", "seats"):
        assert got[key] == fresh[key], key
    manifest = json.loads((old / "q323" / "manifest.json").read_text())
    assert manifest["layout"] == pt.LAYOUT and not (old / "q323" / pt.UPGRADE_FOLDER).exists()
    for path in (old / "q323").glob("part*/edges*.npz"):
        with zipfile.ZipFile(path) as zf:
            assert {i.compress_type for i in zf.infolist()} == {zipfile.ZIP_DEFLATED}, path
    # the 6 layers rewritten take less room than they did (the layers after them are the build's own)
    first6 = sum(p.stat().st_size for p in (old / "q323").rglob("*.npz")
                 if int(p.name[-8:-4] if "-" not in p.name else p.name.split("-")[0][-4:]) < 6)
    assert first6 < before


def by_key(built: pt.Built, ranks: np.ndarray) -> dict:
    out = {}
    base = pt.bases(built)
    for k in range(built.parts):
        keys = pt.keys_of(built, k)
        for i, key in enumerate(keys):
            out[tuple(int(w) for w in key)] = tuple(int(r) for r in ranks[base[k] + i])
    return out


def test_every_rank_after_upgrade_is_the_fresh_graphs(old, tmp_path):
    """The upgraded graph keeps its ids (its positions in the order they had); the fresh one sorts them: every
    position's ranks, for every seat, are compared by key."""
    packed = packed_for({"players": 3, "sets": 2, "set_size": 3})
    assert pt.upgrade(packed, str(old / "q323"), 4) > 0
    assert pt.upgrade(packed, str(old / "q323"), 4) == 0  # (nothing left to do)
    up = pt.build(packed, str(old / "q323"), parts=4)
    fresh = pt.build(packed, str(tmp_path / "fresh"), parts=4)
    a, b = pt.attract(up), pt.attract(fresh)
    assert (up.positions, up.edges) == (fresh.positions, fresh.edges)
    assert by_key(up, a.ranks) == by_key(fresh, b.ranks)


class Stop(Exception):
    pass


def test_an_upgrade_stopped_while_rewriting_leaves_the_old_checkpoint(old, monkeypatch):
    packed = packed_for({"players": 3, "sets": 2, "set_size": 3})
    before = tree(old / "q323")
    calls = {"n": 0}
    real = partfiles.save_npz

    def dies(*args, **kw):
        calls["n"] += 1
        if calls["n"] == 20:
            raise Stop
        return real(*args, **kw)

    monkeypatch.setattr(partfiles, "save_npz", dies)
    with pytest.raises(Stop):
        pt.upgrade(packed, str(old / "q323"), 4)
    monkeypatch.setattr(partfiles, "save_npz", real)
    assert {k: v for k, v in tree(old / "q323").items() if not k.startswith(pt.UPGRADE_FOLDER)} == before
    line = one_line(*solve_323(old / "q323"))
    assert "--upgrade" in line
    code, out, err = solve_323(old / "q323", "--upgrade")
    assert code == 0, err


def test_an_upgrade_stopped_while_moving_in_is_finished_by_the_next(old, monkeypatch, tmp_path):
    packed = packed_for({"players": 3, "sets": 2, "set_size": 3})
    calls = {"n": 0}
    real = os.replace

    def dies(a, b):  # (the 10th file moved in from the staging folder)
        if os.sep + pt.UPGRADE_FOLDER + os.sep in str(a) and os.sep + pt.UPGRADE_FOLDER + os.sep not in str(b):
            calls["n"] += 1
            if calls["n"] == 10:
                raise Stop
        return real(a, b)

    monkeypatch.setattr(pt.os, "replace", dies)
    with pytest.raises(Stop):
        pt.upgrade(packed, str(old / "q323"), 4)
    monkeypatch.setattr(pt.os, "replace", real)
    assert (old / "q323" / pt.UPGRADE_FOLDER / "manifest.json").is_file()
    line = one_line(*solve_323(old / "q323"))  # (the old manifest, some files already new)
    assert "--upgrade" in line
    code, out, err = solve_323(old / "q323", "--upgrade")
    assert code == 0, err
    code, fresh, err = solve_323(tmp_path / "fresh")
    assert json.loads(out)["seats"] == json.loads(fresh)["seats"]


def test_a_damaged_old_file_is_refused_before_anything_moves(old):
    folder = old / "q323"
    path = folder / "part001" / "edges0004.npz"
    blob = bytearray(path.read_bytes())
    blob[len(blob) // 2] ^= 1
    path.write_bytes(bytes(blob))
    before = tree(folder)
    line = one_line(*solve_323(folder, "--upgrade"))
    assert str(path) in line and "SHA-256" in line
    assert {k: v for k, v in tree(folder).items() if not k.startswith(pt.UPGRADE_FOLDER)} == before


def test_go_fish_upgrades_to_the_fresh_answer(old, tmp_path):
    code, out, err = gofish_starts(old / "gofish", "--upgrade")
    assert code == 0, err
    code, fresh, err = gofish_starts(tmp_path / "fresh")
    assert code == 0, err
    a, b = json.loads(out)["starts"][0], json.loads(fresh)["starts"][0]
    for key in ("positions", "edges", "winners", "seats"):
        assert a[key] == b[key], key


def test_upgrade_goes_with_checkpoint():
    line = one_line(*run("solve", "--start", 3, 2, 3, "--upgrade"))
    assert "--upgrade" in line and "--checkpoint" in line
    line = one_line(*run("gofish", "starts", "--players", 2, "--upgrade"))
    assert "--upgrade goes with --checkpoint" in line


def test_a_checkpoint_of_the_development_layout_is_refused_even_with_upgrade(tmp_path):
    """Layout 2 (ids as byte planes) was written only by development commits: refused, never rewritten."""
    code, out, err = solve_323(tmp_path / "ck")
    assert code == 0, err
    path = tmp_path / "ck" / "manifest.json"
    data = json.loads(path.read_text())
    data["layout"] = 2
    path.write_text(json.dumps(data))
    for extra in ((), ("--upgrade",)):
        line = one_line(*solve_323(tmp_path / "ck", *extra))
        assert "layout 2" in line and f"this version's is {pt.LAYOUT}" in line and "remove the folder" in line
