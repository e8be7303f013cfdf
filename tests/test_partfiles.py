"""The strict reader of part files with deflated members: what inflates is exactly what the spec calls for.

A deflated member is inflated only when the size it declares is its array's, never past that size; data that
inflates to more or less, or whose CRC-32 is not the one it declares, is refused in one line naming the file; a
reader that takes plain files only refuses a deflated one. The writer's round trip is exact.
"""

from __future__ import annotations

import io
import struct
import zipfile
import zlib

import numpy as np
import pytest

from quaternity_cp import partfiles

SPEC = {"a": (np.dtype(np.int32), (1000,)), "b": (np.dtype(np.uint8), (4, 10))}  # (one 1-D, one 2-D)


class Refused(ValueError):
    pass


def arrays():
    return {"a": np.arange(1000, dtype=np.int32) * 7, "b": np.arange(40, dtype=np.uint8).reshape(4, 10)}


def entry_of(path) -> list:
    size, digest = partfiles.fingerprint(str(path))
    return [size, digest, 0, 0]


def npy(a: np.ndarray) -> bytes:
    out = io.BytesIO()
    np.lib.format.write_array(out, a)
    return out.getvalue()


def test_a_deflated_file_is_read_back_exactly_and_smaller(tmp_path):
    path = tmp_path / "x.npz"
    entry = partfiles.save_npz(str(path), 0, 0, deflate=True, **arrays())
    got = partfiles.read_npz(str(path), entry, SPEC, Refused, deflated=True)
    for name, a in arrays().items():
        assert np.array_equal(got[name], a) and got[name].dtype == a.dtype
    plain = partfiles.save_npz(str(tmp_path / "y.npz"), 0, 0, **arrays())
    assert entry[0] < plain[0]
    assert partfiles.size_fits(entry[0], SPEC, deflated=True) and not partfiles.size_fits(entry[0], SPEC)


@pytest.mark.parametrize("n", [partfiles.INFLATE_CHUNK - 128, partfiles.INFLATE_CHUNK, 16_384 - 128, 16_638 - 128,
                               40_000, 400_000])  # (a member of exactly the step, header included; the bug's size)
@pytest.mark.parametrize("fill", ["zeros", "runs"])
def test_an_array_that_deflates_to_a_few_bytes_is_read_back(tmp_path, n, fill):
    """A member whose deflated data, handed over in one piece, inflates to more than the reader's step: zlib
    takes all the input at once and holds back output, which the reader drains (a checkpoint's owner array, 16,510
    seats of a 5x5x2 graph deflated to 172 bytes, was refused as "not the 16,638 bytes it declares")."""
    a = np.zeros(n, dtype=np.int8) if fill == "zeros" else np.repeat(np.arange(4, dtype=np.int8), -(-n // 4))[:n]
    b = np.arange(3, dtype=np.int16)
    spec = {"owner": (np.dtype(np.int8), (n,)), "b": (np.dtype(np.int16), (3,))}
    path = tmp_path / "x.npz"
    entry = partfiles.save_npz(str(path), 0, 0, deflate=True, owner=a, b=b)
    with zipfile.ZipFile(path) as z:
        assert z.getinfo("owner.npy").compress_size < partfiles.INFLATE_CHUNK <= z.getinfo("owner.npy").file_size
    got = partfiles.read_npz(str(path), entry, spec, Refused, deflated=True)  # (streamed from the file)
    assert np.array_equal(got["owner"], a) and np.array_equal(got["b"], b)
    got = partfiles.parse_npz(str(path), bytearray(path.read_bytes()), spec, Refused, deflated=True)  # (in memory)
    assert np.array_equal(got["owner"], a) and np.array_equal(got["b"], b)


def test_a_reader_of_plain_files_refuses_a_deflated_one(tmp_path):
    path = tmp_path / "x.npz"
    entry = partfiles.save_npz(str(path), 0, 0, deflate=True, **arrays())
    with pytest.raises(Refused, match=r"x\.npz: array . is compressed \(the program stores its arrays plain\)"):
        partfiles.read_npz(str(path), entry, SPEC, Refused)


def deflated_member(path, name: str, data: bytes, declared: int, crc: int | None = None) -> None:
    """A .npz whose one member ``name`` holds ``data`` deflated but declares ``declared`` bytes (and ``crc``)."""
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr(name, data)
    blob = bytearray(path.read_bytes())
    with zipfile.ZipFile(path) as zf:
        info = zf.infolist()[0]
    for at in (info.header_offset, blob.rfind(b"PK\x01\x02")):  # the local header, then the directory's
        field = at + (22 if at == info.header_offset else 24)  # uncompressed size
        struct.pack_into("<I", blob, field, declared)
        if crc is not None:
            struct.pack_into("<I", blob, field - 8, crc)
    path.write_bytes(bytes(blob))


ONE = {"a": (np.dtype(np.int32), (1000,))}


@pytest.mark.parametrize("payload, declared, words", [
    (npy(np.zeros(1000, np.int32)) + bytes(10_000_000), None, "holds more than"),  # 10 MB more, declared right
    (npy(np.zeros(1000, np.int32))[:-100], None, "is not the"),  # less than declared
    (npy(np.zeros(1_000_000, np.int32)), 4_000_128, "declares 4,000,128 bytes"),  # declared past the spec
], ids=["more", "less", "declared-past"])
def test_deflated_data_that_is_not_its_array_is_refused_without_inflating_past_it(tmp_path, payload, declared, words):
    path = tmp_path / "x.npz"
    size = len(npy(np.zeros(1000, np.int32)))
    deflated_member(path, "a.npy", payload, declared if declared is not None else size)
    with pytest.raises(Refused, match=words) as err:
        partfiles.read_npz(str(path), entry_of(path), ONE, Refused, deflated=True)
    assert str(path) in str(err.value) and "\n" not in str(err.value)


def test_a_wrong_crc_is_refused(tmp_path):
    path = tmp_path / "x.npz"
    data = npy(np.arange(1000, dtype=np.int32))
    deflated_member(path, "a.npy", data, len(data), crc=zlib.crc32(data) ^ 1)
    with pytest.raises(Refused, match="CRC-32"):
        partfiles.read_npz(str(path), entry_of(path), ONE, Refused, deflated=True)


def test_damaged_deflate_data_is_refused(tmp_path):
    path = tmp_path / "x.npz"
    partfiles.save_npz(str(path), 0, 0, deflate=True, a=np.arange(1000, dtype=np.int32))
    blob = bytearray(path.read_bytes())
    with zipfile.ZipFile(path) as zf:
        info = zf.infolist()[0]
    start = info.header_offset + 30 + len(info.filename) + len(info.extra)
    for at in range(start, start + info.compress_size):
        blob[at] ^= 0x55
    path.write_bytes(bytes(blob))
    with pytest.raises(Refused, match=r"array a: "):
        partfiles.read_npz(str(path), entry_of(path), ONE, Refused, deflated=True)


def test_a_deflated_file_is_streamed_not_held_whole(tmp_path):
    """Reading a deflated file holds its arrays and one small buffer, never the file's deflated bytes: with data
    that does not deflate (the file about as large as its arrays), the reader's peak stays well under the arrays
    plus the file. The arrays span many read buffers and come back exactly."""
    import tracemalloc

    rng = np.random.default_rng(7)
    big = {"a": rng.integers(0, 2**31, 300_000, dtype=np.int32),  # 1.2 MB that deflate cannot shrink
           "b": rng.integers(0, 255, (4, 10), dtype=np.uint8)}
    spec = {"a": (np.dtype(np.int32), (300_000,)), "b": (np.dtype(np.uint8), (4, 10))}
    path = tmp_path / "x.npz"
    entry = partfiles.save_npz(str(path), 0, 0, deflate=True, **big)
    arrays_bytes = partfiles.data_bytes(spec)
    assert entry[0] > arrays_bytes * 0.9  # (the file is about as large as its arrays)
    tracemalloc.start()
    try:
        got = partfiles.read_npz(str(path), entry, spec, Refused, deflated=True)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    for name, a in big.items():
        assert np.array_equal(got[name], a)
    assert peak < arrays_bytes + entry[0] // 2, (peak, arrays_bytes, entry[0])
    assert peak < arrays_bytes + 4 * partfiles.STREAM_CHUNK


def test_a_stored_member_beside_deflated_ones_is_read_from_the_stream(tmp_path):
    """A file where deflated members are allowed may still store one plain (as the writer of older layouts did):
    it is copied out of the same stream, exactly."""
    path = tmp_path / "x.npz"
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr("a.npy", npy(arrays()["a"]), compress_type=zipfile.ZIP_DEFLATED)
        zf.writestr("b.npy", npy(arrays()["b"]), compress_type=zipfile.ZIP_STORED)
    got = partfiles.read_npz(str(path), entry_of(path), SPEC, Refused, deflated=True)
    for name, a in arrays().items():
        assert np.array_equal(got[name], a)


def test_a_changed_file_is_named_changed_before_what_else_is_wrong(tmp_path):
    """A byte changed in a deflated member, or in the archive's directory: the SHA-256 is what is refused first
    (the entry was the file's before the change), whatever the change breaks besides."""
    path = tmp_path / "x.npz"
    entry = partfiles.save_npz(str(path), 0, 0, deflate=True, **arrays())
    blob = path.read_bytes()
    for at in (60, len(blob) - 30):  # (inside the first member's data; inside the directory)
        damaged = bytearray(blob)
        damaged[at] ^= 0xFF
        path.write_bytes(bytes(damaged))
        with pytest.raises(Refused, match="SHA-256 is not the one the manifest gives"):
            partfiles.read_npz(str(path), entry, SPEC, Refused, deflated=True)


@pytest.mark.parametrize("deflate", [False, True])
def test_the_header_this_module_writes_is_read_without_numpy_s_parser(tmp_path, monkeypatch, deflate):
    """A member whose .npy header is byte for byte the one written for the spec's dtype and shape is read without
    parsing it (numpy's parser runs ast.literal_eval); a header written otherwise (version 2.0, the same fields)
    is parsed, and still read."""
    path = tmp_path / "x.npz"
    entry = partfiles.save_npz(str(path), 0, 0, deflate=deflate, **arrays())
    parsed = []
    real = np.lib.format.read_array_header_1_0
    monkeypatch.setattr(np.lib.format, "read_array_header_1_0", lambda fp: parsed.append(1) or real(fp))
    got = partfiles.read_npz(str(path), entry, SPEC, Refused, deflated=deflate)
    assert parsed == [] and all(np.array_equal(got[k], v) for k, v in arrays().items())
    other = tmp_path / "v2.npz"
    with zipfile.ZipFile(other, "w") as archive:
        for name, a in arrays().items():
            out = io.BytesIO()
            np.lib.format.write_array(out, a, version=(2, 0))
            archive.writestr(f"{name}.npy", out.getvalue())
    got = partfiles.read_npz(str(other), entry_of(other), SPEC, Refused)
    assert all(np.array_equal(got[k], v) for k, v in arrays().items())
    monkeypatch.setattr(np.lib.format, "read_array_header_2_0", lambda fp: (_ for _ in ()).throw(ValueError("parsed")))
    with pytest.raises(Refused, match="not a readable .npy header"):
        partfiles.read_npz(str(other), entry_of(other), SPEC, Refused)
