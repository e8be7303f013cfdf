"""Damaged, edited and forged checkpoints are refused in one line naming the file (exit 2), never believed.

A tiny start's checkpoint (2 players, suits of 4, ``after_yes=again``: seat 0 forces a win; 2 parts, built in this
process) is made once by ``quaternity gofish starts --checkpoint``, copied for each test, damaged one way, and
asked again through the command. Every damage is refused with exit code 2 and one line that names the damaged
file: a part file cut short, emptied, replaced by a link, a pipe or a folder, missing, a part folder of another
start, edited arrays (an index out of range, an object array, a compressed archive of zeros), and manifests and
answers edited with their plain digest computed again (as anyone editing them could). Edits made *with* the
user's key (its keyed digest recomputed: a bug, or someone with the key) are refused all the same by the type,
range, shape and size checks, before any allocation the files on disk do not justify.

The Quarto proof checkpoints carry the same keyed digest: a forged one (plain digest recomputed, answers turned
round) and one written under another user's key are refused too.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import shutil
import sys
import tracemalloc
import zipfile
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from quaternity_cp.gofish.cli import gofish

RULE = "after_yes=again"
FOLDER = f"p2-s4-{RULE}"  # the start's subfolder of the checkpoint
ARGS = ["--players", "2", "--suit-size", "4", "--parts", "2", "--workers", "0", "--json"]


# -- running the command -------------------------------------------------------------------------------------------
def starts(root: Path, *extra: str, rule: str = RULE) -> tuple[int, str, str]:
    result = CliRunner().invoke(gofish, ["starts", *ARGS, "--rule", rule, "--checkpoint", str(root), *extra])
    return result.exit_code, result.stdout, result.stderr


def refused(got: tuple[int, str, str], *names: str) -> str:
    """Exit 2, nothing on standard output, one line on standard error naming each of ``names``."""
    code, out, err = got
    assert code == 2, (code, out, err)
    assert "Traceback" not in out + err and out == "", (out, err)
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("quaternity: "), err
    for name in names:
        assert name in lines[0], (name, lines[0])
    return lines[0]


@pytest.fixture(scope="module", autouse=True)
def key_file(tmp_path_factory):
    """The user's key of these tests (the keyed digests' key file, given by QUATERNITY_KEY_FILE)."""
    path = tmp_path_factory.mktemp("key") / "key"
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("QUATERNITY_KEY_FILE", str(path))
        yield path


@pytest.fixture(scope="module")
def made(tmp_path_factory, key_file):
    """Checkpoints made once: the start of ``RULE`` (complete), the default rules' start (complete, for a part
    folder swapped in), and an unfinished build of the default start (stopped by a position limit)."""
    root = tmp_path_factory.mktemp("made")
    code, out, err = starts(root / "done")
    assert code == 0, err
    row = json.loads(out)["starts"][0]
    assert row["winners"] == [0] and row["seats"]["0"]["plies"] > 0
    code, out, err = starts(root / "other", rule="four=named")
    assert code == 0, err
    code, out, err = starts(root / "unfinished", "--max-positions", "3", rule="four=named")
    assert code == 2 and "position limit" in err, err
    return root


@pytest.fixture
def ck(tmp_path, made):
    """A copy of the complete checkpoint, its answer (result.json) removed so that its graph is read again:
    (the folder given to --checkpoint, the start's subfolder)."""
    root = tmp_path / "ck"
    shutil.copytree(made / "done", root)
    start = root / FOLDER
    (start / "result.json").unlink()
    return root, start


def manifest(start: Path) -> dict:
    return json.loads((start / "manifest.json").read_text())


def plain_digest(body: dict) -> str:
    """The digest an editor without the key computes again: the plain SHA-256 the earlier version kept."""
    return hashlib.sha256(json.dumps(body, sort_keys=True).encode()).hexdigest()


def write_plain(path: Path, data: dict) -> None:
    body = {k: v for k, v in data.items() if k != "digest"}
    path.write_text(json.dumps({**body, "digest": plain_digest(body)}))


def write_keyed(path: Path, data: dict, purpose: str | None = None) -> None:
    """``data`` with its keyed digest made again under the tests' key (someone with the user's key, or a bug)."""
    from quaternity_cp.digest import sign_json
    from quaternity_cp.gofish import bigsolve as bs

    body = {k: v for k, v in data.items() if k != "digest"}
    path.write_text(json.dumps({**body, "digest": sign_json(body, purpose or bs.MANIFEST_PURPOSE)}))


def refit(start: Path, rel: str) -> None:
    """The manifest entry of the part file ``rel`` made to fit its new content, and the manifest signed again."""
    data = manifest(start)
    blob = (start / rel).read_bytes()
    data["files"][rel][:2] = [len(blob), hashlib.sha256(blob).hexdigest()]
    write_keyed(start / "manifest.json", data)


def a_file(start: Path, kind: str) -> str:
    """A part file of ``kind`` (keys, edges, out) with something in it (found by listing the folder, not from the
    manifest: the same file is damaged whatever the manifest's format)."""
    for path in sorted(start.glob(f"part*/{kind}*.npz"), key=lambda p: (-p.stat().st_size, p.name)):  # the largest
        if all(a.size for a in arrays(path).values()):
            return f"{path.parent.name}/{path.name}"
    raise AssertionError(f"no {kind} file")


def arrays(path: Path) -> dict:
    with np.load(path, allow_pickle=False) as data:
        return {k: data[k] for k in data.files}


def npy_header(shape: tuple, descr: str = "<u8") -> bytes:
    """A .npy header (magic string included) for an array of ``shape``."""
    out = io.BytesIO()
    np.lib.format.write_array_header_1_0(out, {"descr": descr, "fortran_order": False, "shape": shape})
    return out.getvalue()


def zeros_archive(path: Path, megabytes: int, compressed: bool = True) -> None:
    """A .npz whose one array ``keys`` is ``megabytes`` MB of zeros, deflated (a few KB on disk)."""
    header = npy_header((megabytes * 2**20 // 16, 2))
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED if compressed else zipfile.ZIP_STORED) as zf:
        with zf.open("keys.npy", "w", force_zip64=True) as fh:
            fh.write(header)
            chunk = bytes(2**20)
            for _ in range(megabytes):
                fh.write(chunk)


# -- 1. part files damaged (no key needed to make these) ------------------------------------------------------------
def cut_short(start, rel):
    blob = (start / rel).read_bytes()
    (start / rel).write_bytes(blob[: len(blob) // 2])


def emptied(start, rel):
    (start / rel).write_bytes(b"")


def a_byte_changed(start, rel):
    """One byte of the file changed in place (its size kept)."""
    blob = bytearray((start / rel).read_bytes())
    blob[len(blob) // 2] ^= 0x40
    (start / rel).write_bytes(bytes(blob))


def object_array(start, rel):
    data = arrays(start / rel)
    data["dst"] = np.array([{"x": 1}] * len(data["dst"]), dtype=object)
    np.savez(start / rel, **data)


def linked_to_dev_zero(start, rel):
    (start / rel).unlink()
    os.symlink("/dev/zero", start / rel)


def a_pipe(start, rel):
    (start / rel).unlink()
    os.mkfifo(start / rel)


def a_folder(start, rel):
    (start / rel).unlink()
    (start / rel).mkdir()


def missing(start, rel):
    (start / rel).unlink()


def zeros(start, rel):
    zeros_archive(start / rel, 64)


@pytest.mark.parametrize("damage, kind, words", [
    (cut_short, "edges", "bytes where the manifest says"),
    (emptied, "edges", "0 bytes where the manifest says"),
    (a_byte_changed, "edges", "SHA-256 is not the one the manifest gives"),
    (object_array, "edges", "where the manifest says"),
    (linked_to_dev_zero, "keys", "a symbolic link, not a regular file"),
    (a_pipe, "out", "a pipe (FIFO), not a regular file"),
    (a_folder, "keys", "a folder, not a regular file"),
    (missing, "out", "missing"),
    (zeros, "keys", "where the manifest says"),
], ids=lambda v: v.__name__ if callable(v) else None)
def test_a_damaged_part_file_is_refused_naming_it(ck, damage, kind, words):
    if damage in (a_pipe,) and not hasattr(os, "mkfifo"):
        pytest.skip("no FIFOs here")
    root, start = ck
    rel = a_file(start, kind)
    damage(start, rel)
    line = refused(starts(root), str(start / rel))
    assert words in line


def test_a_compressed_part_of_zeros_is_refused_without_decompressing_it(ck):
    """64 MB of zeros deflated to a few KB (the 4.6 MB part of the report drove memory past 3 GB): refused
    before a byte is inflated: the command's whole run allocates less than 32 MB at its peak (reading a JSON file
    takes up to 16 MB: the reader asks for the size limit at once)."""
    root, start = ck
    rel = a_file(start, "keys")
    zeros(start, rel)
    assert (start / rel).stat().st_size < 2**20
    refused(starts(root), str(start / rel))  # (once before measuring: the modules the command imports are loaded)
    tracemalloc.start()
    try:
        got = starts(root)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    refused(got, str(start / rel))
    assert peak < 32 * 2**20, peak


def test_a_part_folder_of_another_start_is_refused(ck, made):
    root, start = ck
    shutil.rmtree(start / "part001")
    shutil.copytree(made / "other" / "p2-s4-four=named" / "part001", start / "part001")
    line = refused(starts(root), str(start / "part001") + os.sep)
    assert "manifest" in line


def test_a_missing_part_folder_names_a_file_in_it(ck):
    root, start = ck
    shutil.rmtree(start / "part000")
    line = refused(starts(root), str(start / "part000") + os.sep)
    assert ".npz: missing" in line  # (a file, not the folder)


def test_a_damaged_part_of_an_unfinished_build_is_refused_by_the_build(tmp_path, made):
    """The build's tasks read the parts too (to expand the last layer and merge the next): a part file edited
    while the build waits to go on is refused, naming it."""
    root = tmp_path / "ck"
    shutil.copytree(made / "unfinished", root)
    start = root / "p2-s4-four=named"
    data = manifest(start)
    assert not data["complete"]
    rel = f"part{data['root'][0]:03d}/keys0000.npz"
    a_byte_changed(start, rel)
    line = refused(starts(root, rule="four=named"), str(start / rel))
    assert "SHA-256 is not the one the manifest gives" in line


# -- 2. part files edited and their manifest signed again with the user's key (a bug, or someone with the key) --------
def edges_of(path: Path) -> dict:
    """An edges file's arrays as the solver uses them (its children sorted and kept as their differences:
    quaternity_cp.partitioned._spec)."""
    data = arrays(path)
    return {"src": data["src"], "dst": np.cumsum(data["dst"]).astype(data["dst"].dtype), "off": data["off"]}


def save_edges(path: Path, src, dst, off) -> None:
    """Edges written back as the solver lays them out (deflated)."""
    np.savez_compressed(path, src=src, off=off, dst=np.diff(dst, prepend=dst.dtype.type(0)))


def keyed_index_out_of_range(start, rel):
    data = edges_of(start / rel)
    data["dst"][-1] = 10**9  # (the last: the children stay in order)
    save_edges(start / rel, **data)


def keyed_children_out_of_order(start, rel):
    data = edges_of(start / rel)
    assert len(data["dst"]) > 1
    data["dst"][0] = data["dst"][-1] + 1  # (the second child then comes before the first)
    save_edges(start / rel, **data)


def keyed_children_past_their_type(start, rel):
    """A last difference that carries the children's sum past int32 (it would wrap to a small id)."""
    data = arrays(start / rel)
    data["dst"][-1] = 2**31 - 1
    np.savez_compressed(start / rel, **data)


def keyed_parent_of_another_layer(start, rel):
    data = edges_of(start / rel)
    data["src"][0] = data["src"][0] + 2 * 10**6  # a parent id past every layer
    save_edges(start / rel, **data)


def keyed_object_array(start, rel):
    data = arrays(start / rel)
    data["dst"] = np.array([None] * len(data["dst"]), dtype=object)
    np.savez(start / rel, **data)


def keyed_float_array(start, rel):
    data = arrays(start / rel)
    data["dst"] = data["dst"].astype(np.float64)
    np.savez(start / rel, **data)


def keyed_one_array_more(start, rel):
    np.savez(start / rel, **arrays(start / rel), extra=np.zeros(1, np.int8))


def keyed_compressed(start, rel):
    """Its arrays compressed by another method than deflate (bzip2)."""
    data = arrays(start / rel)
    with zipfile.ZipFile(start / rel, "w", zipfile.ZIP_BZIP2) as zf:
        for name, a in data.items():
            out = io.BytesIO()
            np.lib.format.write_array(out, a)
            zf.writestr(f"{name}.npy", out.getvalue())


def keyed_inflating_past_its_array(start, rel):
    """A deflated keys array declaring 1 MB (its file about 1 KB, a size the manifest's counts allow): refused
    before a byte is inflated."""
    zeros_archive(start / rel, 1)


def keyed_deflated_data_damaged(start, rel):
    """A deflated member whose data no longer inflates to what it declares (its digests made to fit)."""
    data = arrays(start / rel)
    np.savez_compressed(start / rel, **data)
    blob = bytearray((start / rel).read_bytes())
    with zipfile.ZipFile(start / rel) as zf:
        info = zf.infolist()[0]
    at = info.header_offset + 30 + len(info.filename) + len(info.extra) + info.compress_size // 2
    blob[at] ^= 0xFF
    (start / rel).write_bytes(bytes(blob))


def keyed_huge_shape(start, rel):
    """A stored .npy whose header says 10**12 rows (16 TB) with a few bytes of data."""
    with zipfile.ZipFile(start / rel, "w", zipfile.ZIP_STORED) as zf:
        zf.writestr("keys.npy", npy_header((10**12, 2)) + bytes(32))


def keyed_zip_cut_short(start, rel):
    blob = (start / rel).read_bytes()
    (start / rel).write_bytes(blob[:-30])


def keyed_emptied(start, rel):
    (start / rel).write_bytes(b"")


@pytest.mark.parametrize("damage, kind, words", [
    (keyed_index_out_of_range, "edges", "dst holds 1000000000, outside"),
    (keyed_children_out_of_order, "edges", "dst is not in order"),
    (keyed_children_past_their_type, "edges", "dst runs past int32"),
    (keyed_parent_of_another_layer, "edges", "src names a position outside layer"),
    (keyed_object_array, "edges", "holds Python objects"),
    (keyed_float_array, "edges", "is float64, not int32"),  # (ids of a small graph: 4 bytes)
    (keyed_one_array_more, "edges", "holds the arrays"),
    (keyed_compressed, "edges", "is compressed"),
    (keyed_inflating_past_its_array, "keys", "declares 1,048,"),
    (keyed_deflated_data_damaged, "out", "array "),
    (keyed_huge_shape, "keys", "has the shape (1000000000000, 2)"),
    (keyed_zip_cut_short, "keys", "not a readable .npz archive"),
    (keyed_emptied, "keys", "cannot hold its"),
], ids=lambda v: v.__name__ if callable(v) else None)
def test_a_part_file_edited_with_the_key_is_refused_by_its_checks(ck, damage, kind, words):
    root, start = ck
    rel = a_file(start, kind)
    damage(start, rel)
    refit(start, rel)
    line = refused(starts(root), rel)
    assert words in line


# -- 3. the manifest -------------------------------------------------------------------------------------------------
def test_a_manifest_edited_with_its_plain_digest_recomputed_is_refused(ck):
    root, start = ck
    data = manifest(start)
    data["root"] = [7, 0]
    write_plain(start / "manifest.json", data)
    line = refused(starts(root), str(start / "manifest.json"))
    assert "keyed digest does not match" in line


def set_field(name, value):
    def edit(data):
        data[name] = value
    edit.__name__ = f"{name}={value!r}"
    return edit


def size_of_wrong_type(data):
    data["sizes"][1][1] = 1.5


def size_beyond_the_files(data):
    data["sizes"][1][4] = 10**12


def size_and_entry_beyond_the_files(data):
    data["sizes"][1][4] = 10**12
    data["files"]["part001/keys0004.npz"][2] = 10**12


def entry_dropped(data):
    del data["files"][sorted(data["files"])[0]]


def entry_not_a_digest(data):
    data["files"][sorted(data["files"])[0]][1] = "x" * 64


@pytest.mark.parametrize("edit, words", [
    (set_field("root", [7, 0]), "root must be [0, 0]"),
    (set_field("root", "start"), "root must be"),
    (set_field("first", 1), "first must be 0"),
    (set_field("seconds", "12"), "seconds must be a number"),
    (set_field("seconds", -1), "seconds must be a number"),
    (set_field("layers", True), "layers must be a whole number"),
    (set_field("layers", 4), "sizes[0] must be a list of 4"),
    (set_field("edges", -1), "edges must be a whole number"),
    (set_field("complete", "yes"), "complete must be true or false"),
    (set_field("extra", 1), "unexpected or missing fields"),
    (size_of_wrong_type, "sizes[1][1] must be a whole number"),
    (size_beyond_the_files, "positions where sizes says 1000000000000"),
    (size_and_entry_beyond_the_files, "cannot hold its 1,000,000,000,000 positions"),
    (entry_dropped, "files must list exactly"),
    (entry_not_a_digest, "must be [bytes, SHA-256 in hex, positions, edges]"),
], ids=lambda v: v.__name__ if callable(v) else None)
def test_a_manifest_signed_with_the_key_is_still_type_and_range_checked(ck, edit, words):
    root, start = ck
    data = manifest(start)
    assert data["root"] == [0, 0] and data["sizes"][1][4] > 0 and data["layers"] > 4
    edit(data)
    write_keyed(start / "manifest.json", data)
    line = refused(starts(root), str(start / "manifest.json"))
    assert words in line


@pytest.mark.parametrize("fmt, why", [("quaternity-gofish-graph-1", "no digests"),
                                      ("quaternity-gofish-graph-2", "move numbers and 8-byte ids")])
def test_a_manifest_of_an_earlier_format_is_refused(ck, fmt, why):
    root, start = ck
    data = manifest(start)
    data["format"] = fmt
    del data["files"]
    write_plain(start / "manifest.json", data)
    line = refused(starts(root), str(start / "manifest.json"))
    assert "written by an older version" in line and why in line


def test_a_manifest_cut_short_or_a_pipe_is_refused(ck):
    root, start = ck
    text = (start / "manifest.json").read_text()
    (start / "manifest.json").write_text(text[: len(text) // 2])
    assert "not a readable checkpoint" in refused(starts(root), str(start / "manifest.json"))
    if hasattr(os, "mkfifo"):
        (start / "manifest.json").unlink()
        os.mkfifo(start / "manifest.json")  # (no writer: never waited for)
        assert "pipe" in refused(starts(root), str(start / "manifest.json"))


def test_a_checkpoint_written_under_another_key_is_refused(ck, monkeypatch, tmp_path, made):
    root, start = ck
    monkeypatch.setenv("QUATERNITY_KEY_FILE", str(tmp_path / "other-key"))
    line = refused(starts(root), str(start / "manifest.json"))
    assert "another user's key" in line
    whole = tmp_path / "whole"
    shutil.copytree(made / "done", whole)  # its answer too
    line = refused(starts(whole), str(whole / FOLDER / "result.json"))
    assert "another user's key" in line


# -- 4. the stored answer (result.json) ----------------------------------------------------------------------------
@pytest.fixture
def answered(tmp_path, made):
    root = tmp_path / "ck"
    shutil.copytree(made / "done", root)
    return root, root / FOLDER / "result.json"


def test_a_forged_result_is_refused(answered):
    """The report's forgery: seat 1 made the winner in 3 plies, the plain digest computed again. The earlier
    version printed "seat 1 forces a win in 3 plies" (exit 0)."""
    root, path = answered
    data = json.loads(path.read_text())
    result = data["result"]
    result["winners"] = [1]
    result["seats"] = {"0": {"wins": False, "plies": None}, "1": {"wins": True, "plies": 3, "first_move": [0, 1]}}
    body = {"head": data["head"], "result": result}
    path.write_text(json.dumps({**body, "digest": plain_digest(body)}))
    got = starts(root)
    line = refused(got, str(path))
    assert "keyed digest does not match" in line and "forces a win" not in got[1] + got[2]
    text = CliRunner().invoke(gofish, ["starts", *ARGS[:-1], "--rule", RULE, "--checkpoint", str(root)])
    assert text.exit_code == 2 and "forces a win" not in text.output  # (the same without --json)


@pytest.mark.parametrize("edit, words", [
    (lambda r: r["seats"]["0"].update(plies="6"), "seats[0].plies must be a whole number"),
    (lambda r: r["seats"]["0"].update(first_move=[1, 9]), "seats[0].first_move must be [another seat, a suit]"),
    (lambda r: r["seats"]["0"].update(first_move=[0, 0]), "seats[0].first_move must be [another seat, a suit]"),
    (lambda r: r.update(winners=[1]), "winners must list the seats that force a win"),
    (lambda r: r.update(positions=1.5), "positions must be a whole number"),
    (lambda r: r.update(build_seconds="1"), "build_seconds must be a number of seconds"),
    (lambda r: r["seats"].pop("1"), "seats must give each of the seats 0..1"),
    (lambda r: r.update(suit_size=5), "suit_size must be 4"),
], ids=["plies", "first_move-suit", "first_move-self", "winners", "positions", "seconds", "seat-missing",
        "suit-size"])
def test_a_result_signed_with_the_key_is_still_checked(answered, edit, words):
    from quaternity_cp.gofish import bigsolve as bs

    root, path = answered
    data = json.loads(path.read_text())
    edit(data["result"])
    write_keyed(path, data, bs.RESULT_PURPOSE)
    line = refused(starts(root), str(path))
    assert words in line


def test_a_result_that_is_a_link_to_a_device_is_refused(answered):
    root, path = answered
    path.unlink()
    os.symlink("/dev/zero", path)
    line = refused(starts(root), str(path))
    assert "character device" in line


# -- 5. the key -------------------------------------------------------------------------------------------------------
def test_the_key_is_made_private_on_first_use_and_an_exposed_key_is_refused(tmp_path, monkeypatch):
    from quaternity_cp import digest

    path = tmp_path / "conf" / "quaternity" / "key"
    monkeypatch.setenv("QUATERNITY_KEY_FILE", str(path))
    tag = digest.sign_json({"a": 1}, "test")
    assert path.stat().st_mode & 0o777 == 0o600 and path.parent.stat().st_mode & 0o777 == 0o700
    assert digest.verify_json(tag, {"a": 1}, "test") and not digest.verify_json(tag, {"a": 2}, "test")
    assert len(path.read_text().strip()) == 64
    exposed = tmp_path / "exposed"
    exposed.write_text(path.read_text())
    exposed.chmod(0o644)
    monkeypatch.setenv("QUATERNITY_KEY_FILE", str(exposed))
    with pytest.raises(digest.KeyFileError, match=f"key file {exposed}: readable or writable by others"):
        digest.user_key()
    link = tmp_path / "link"
    os.symlink(path, link)
    monkeypatch.setenv("QUATERNITY_KEY_FILE", str(link))
    with pytest.raises(digest.KeyFileError, match="symbolic link"):
        digest.user_key()
    bad = tmp_path / "bad"
    bad.write_text("not a key\n")
    bad.chmod(0o600)
    monkeypatch.setenv("QUATERNITY_KEY_FILE", str(bad))
    with pytest.raises(digest.KeyFileError, match="not a key of this program"):
        digest.user_key()


def test_an_unusable_key_file_is_refused_by_the_command_in_one_line(tmp_path, monkeypatch):
    exposed = tmp_path / "key"
    exposed.write_text("0" * 64 + "\n")
    exposed.chmod(0o644)
    monkeypatch.setenv("QUATERNITY_KEY_FILE", str(exposed))
    line = refused(starts(tmp_path / "ck"), str(exposed))
    assert "chmod 600" in line
    assert not (tmp_path / "ck").exists()  # refused before any work


# -- 6. Quarto proof checkpoints ----------------------------------------------------------------------------------
DRAWN = {"game": "quarto", "to_move": 1, "piece": "LSSS", "board": [
    [None, "DRSS", "LSTH", None], [None, "LRSH", "LRTH", "DRTS"],
    [None, None, "DSSS", "DRSH"], ["LSSH", "DSTS", "LRTS", None]]}


def run_quarto(*args):
    from quaternity_cli.main import main

    return CliRunner().invoke(main, ["quarto", *args])


@pytest.fixture(scope="module")
def quarto_checkpoint(tmp_path_factory, key_file):
    folder = tmp_path_factory.mktemp("quarto")
    position = folder / "drawn.json"
    position.write_text(json.dumps(DRAWN))
    checkpoint = folder / "proof.json"
    result = run_quarto("solve", str(position), "--split", "2", "--workers", "0", "--checkpoint", str(checkpoint))
    assert result.exit_code == 0 and "Value: draw" in result.output, result.output
    return position, checkpoint


def quarto_refused(result, path: Path) -> str:
    assert result.exit_code == 2, result.output
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"quaternity: checkpoint {path}: "), result.output
    return lines[0]


def test_a_forged_quarto_checkpoint_is_refused(quarto_checkpoint, tmp_path):
    """Every answer turned round and the plain digest computed again (the earlier version printed a wrong value,
    exit 0)."""
    position, original = quarto_checkpoint
    path = tmp_path / "proof.json"
    data = json.loads(original.read_text())
    for unit in data["units"]:
        unit[2] = not unit[2]
    body = {k: v for k, v in data.items() if k != "digest"}
    text = json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
    path.write_text(json.dumps({**body, "digest": hashlib.sha256(text.encode("ascii")).hexdigest()}))
    result = run_quarto("solve", str(position), "--split", "2", "--workers", "0", "--checkpoint", str(path))
    line = quarto_refused(result, path)
    assert "its digest does not match its answers" in line and "Value" not in result.output


def test_a_quarto_checkpoint_under_another_key_or_of_the_plain_digest_format_is_refused(quarto_checkpoint, tmp_path,
                                                                                       monkeypatch):
    position, original = quarto_checkpoint
    path = tmp_path / "proof.json"
    shutil.copy(original, path)
    monkeypatch.setenv("QUATERNITY_KEY_FILE", str(tmp_path / "another-key"))
    result = run_quarto("solve", str(position), "--split", "2", "--workers", "0", "--checkpoint", str(path))
    assert "another user's key" in quarto_refused(result, path)
    data = json.loads(original.read_text())
    data["format"] = "quaternity-quarto-proof-2"
    path.write_text(json.dumps(data))
    result = run_quarto("solve", str(position), "--split", "2", "--workers", "0", "--checkpoint", str(path))
    assert "written by an older version (with a plain digest" in quarto_refused(result, path)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(pytest.main([__file__, "-q"]))
