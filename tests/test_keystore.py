"""The key store (quaternity_cp.keystore): keys kept as their words' codes, against a dictionary of the keys
themselves, and the lazy win solve over it against the same solve over the keys as they are."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from quaternity_cp import keystore, lazywin
from quaternity_cp.keystore import RAW, KeyStore
from quaternity_cp.quartets.packed import QuaternityPacked
from quaternity_cp.quartets.rules import Rules


def _batches(draw, width: int) -> list[np.ndarray]:
    """Batches of keys whose words take few values (some), many (others) or any (the last, sometimes)."""
    spreads = [draw(st.sampled_from([1, 2, 3, 17, 300, 5000, 1 << 62])) for _ in range(width)]
    out = []
    for _ in range(draw(st.integers(1, 12))):
        m = draw(st.integers(1, 300))
        seed = draw(st.integers(0, 2**32 - 1))
        rng = np.random.default_rng(seed)
        keys = np.empty((m, width), np.uint64)
        for w, spread in enumerate(spreads):
            keys[:, w] = rng.integers(0, spread, m, dtype=np.uint64) * np.uint64(2 * w + 1)
        out.append(keys)
    return out


class Reference:
    """Stores keys in a :class:`KeyStore` as the lazy solve does (each new key's row written after the last),
    beside a dictionary of the keys themselves."""

    def __init__(self, width: int, capacity: int, compress: bool = True, raw_min: int = keystore.RAW_MIN):
        self.store = KeyStore(width, capacity, compress, raw_min)
        self.ids: dict[tuple[int, ...], int] = {}
        self.n = 0

    def add(self, keys: np.ndarray) -> None:
        new = []
        for t, key in enumerate(map(tuple, keys.tolist())):
            if key not in self.ids:
                self.ids[key] = -1
                new.append(t)
        rows = np.array(new, np.int64)
        if self.n + len(rows) > self.store.capacity:
            self.store.grow(2 * (self.n + len(rows)), self.n)
        got = self.store.encode(keys, rows, self.n)
        assert got.shape == (len(rows), self.store.stride)
        stored = self.store.rows()
        for t, row in zip(new, got):
            self.ids[tuple(keys[t].tolist())] = self.n
            stored[self.n] = row
            self.n += 1

    def check(self) -> None:
        keys = np.array(sorted(self.ids), np.uint64).reshape(-1, self.store.W)
        ids = np.array([self.ids[k] for k in map(tuple, keys.tolist())], np.int64)
        assert (self.store.decode(ids) == keys).all()
        rows, found = self.store.find_rows(keys)
        assert found.all() and (rows == self.store.rows(self.n)[ids]).all()
        # two keys have the same row exactly when they are the same key
        assert len({r.tobytes() for r in self.store.rows(self.n)}) == self.n


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_rows_decode_to_their_keys_and_equal_rows_are_equal_keys(data):
    width = data.draw(st.integers(1, 6))
    ref = Reference(width, data.draw(st.integers(1, 64)))
    for keys in _batches(data.draw, width):
        ref.add(keys)
        ref.check()
    # a key with a value never seen is not found; one made of seen values (a new combination) may be
    seen = np.array(sorted(ref.ids), np.uint64).reshape(-1, width)
    never = seen[:1].copy()
    never[0, -1] = np.uint64(2**64 - 1)  # (drawn by a batch with a chance of about 2^-60)
    assert not ref.store.find_rows(never)[1].any()
    mixed = seen[:1].copy()
    mixed[0, 0] = seen[-1, 0]
    rows, found = ref.store.find_rows(mixed)
    stored = {r.tobytes() for r in ref.store.rows(ref.n)}
    assert (found[0] and rows[0].tobytes() in stored) == (tuple(mixed[0].tolist()) in ref.ids)


@settings(max_examples=30, deadline=None)
@given(st.data())
def test_words_kept_whole_and_rows_moved_to_a_wider_array(data):
    """Past ``raw_min`` values (small here), a word of about one value a key is kept whole; rows wider than
    their first room move to a wider array; every key still decodes and is found."""
    width = data.draw(st.integers(1, 5))
    ref = Reference(width, 8, raw_min=data.draw(st.sampled_from([4, 16, 64])))
    for keys in _batches(data.draw, width):
        ref.add(keys)
        ref.check()


def test_a_word_of_unique_values_is_kept_whole_and_the_rows_widen_in_place():
    ref = Reference(4, 4096, raw_min=100)
    first_room = len(ref.store.flat)
    rng = np.random.default_rng(7)
    for step in range(8):
        keys = np.stack([rng.integers(0, 3, 500, dtype=np.uint64), rng.integers(0, 40, 500, dtype=np.uint64),
                         rng.integers(0, 2**63, 500, dtype=np.uint64), np.full(500, 5, np.uint64)], axis=1)
        ref.add(keys)
        ref.check()
    bits = ref.store.bits.tolist()
    assert bits[2] == RAW and bits[0] <= 8 and bits[1] <= 8 and bits[3] == keystore.FIRST_BITS
    assert ref.store.stride == 2 and len(ref.store.flat) == first_room  # (64 + 3 x 4 or 8 bits: in its room)
    assert ref.store.layout >= 1


def test_rows_wider_than_their_room_move_once():
    ref = Reference(3, 1000, raw_min=10)
    assert len(ref.store.flat) == 1000 * 2
    rng = np.random.default_rng(3)
    ref.add(rng.integers(0, 2**63, (400, 3), dtype=np.uint64))  # every word kept whole: rows of 3 words
    ref.check()
    assert ref.store.bits.tolist() == [RAW] * 3 and ref.store.stride == 3 and len(ref.store.flat) == 1000 * 3


def test_the_plain_store_is_the_keys():
    ref = Reference(3, 10, compress=False)
    keys = np.arange(30, dtype=np.uint64).reshape(10, 3)
    ref.add(keys)
    ref.check()
    assert (ref.store.rows(10) == keys).all() and ref.store.stride == 3 and ref.store.layout == 0


def test_bad_widths_are_refused():
    for width in (0, 256):
        with pytest.raises(ValueError, match="1 to 255 words"):
            KeyStore(width, 10)


@pytest.mark.parametrize("start, preset", [((3, 3, 4), "blind"), ((3, 3, 3), "quaternity"),
                                           ((4, 4, 2), "quaternity-seat"), ((3, 6, 2), "pythagoras")])
def test_the_lazy_solve_over_codes_is_the_solve_over_the_keys(start, preset):
    """Every node, edge and rank the same: the codes change how keys are kept, nothing else."""
    packed = QuaternityPacked(*start, Rules.preset(preset))
    for seat in range(start[0]):
        a, la = lazywin.solve_win(packed, seat)
        b, lb = lazywin.solve_win(packed, seat, compress=False)
        assert (a.verdict, a.plies, a.positions, a.edges, a.rounds) == (b.verdict, b.plies, b.positions, b.edges,
                                                                       b.rounds)
        n = la.n
        nodes = np.arange(lazywin.ROOT, n)  # (nodes 0 and 1, the finished games, have no key)
        assert (la.keys_of(nodes) == lb.keys_of(nodes)).all()
        assert (la.seats[:n] == lb.seats[:n]).all() and (la.rank[:n] == lb.rank[:n]).all()
        assert (la.es[:la.m] == lb.es[:lb.m]).all() and (la.ed[:la.m] == lb.ed[:lb.m]).all()
        assert la.store.stride <= lb.store.stride == packed.width


def test_the_plain_python_path_keeps_the_same_rows(monkeypatch):
    """Without numba the store's functions run as Python: the same rows, codes and widths."""
    rng = np.random.default_rng(11)
    batches = [np.stack([rng.integers(0, 3, 200, dtype=np.uint64), rng.integers(0, 40, 200, dtype=np.uint64),
                         rng.integers(0, 2**63, 200, dtype=np.uint64)], axis=1) for _ in range(4)]
    compiled = Reference(3, 16, raw_min=50)
    for keys in batches:
        compiled.add(keys)
    for name in ("_field_get", "_field_put", "_hash", "_value", "_probe", "_code_rows", "_pack", "_unpack",
                 "_repack", "_place_values"):
        monkeypatch.setattr(keystore, name, getattr(getattr(keystore, name), "py_func", getattr(keystore, name)))
    plain = Reference(3, 16, raw_min=50)
    with np.errstate(over="ignore"):
        for keys in batches:
            plain.add(keys)
        plain.check()
    assert plain.store.bits.tolist() == compiled.store.bits.tolist() == [4, 6, RAW]
    assert (plain.store.rows(plain.n) == compiled.store.rows(compiled.n)).all()


def test_a_wider_array_the_memory_would_not_hold_is_refused_and_the_store_kept(monkeypatch):
    """Rows outgrowing their room move to a wider array; when the memory left would not hold them, MemoryError
    before anything changes: the stored keys decode and are found as before, the refused batch's are not (their
    values, added to the dictionaries, have codes past their words' widths), and the next batch goes on."""
    ref = Reference(3, 1000, raw_min=10)
    rng = np.random.default_rng(5)
    first = rng.integers(0, 4, (50, 3), dtype=np.uint64)
    ref.add(first)
    assert ref.store.stride == 1 and len(ref.store.flat) == 2000
    monkeypatch.setattr(keystore, "memory_available", lambda: 0)
    wide = rng.integers(0, 2**63, (400, 3), dtype=np.uint64)  # every word kept whole: rows of 3 words, past 2
    before = (ref.store.bits.tolist(), ref.store.stride, ref.store.layout)
    with pytest.raises(MemoryError, match="would not fit in the memory left"):
        ref.store.encode(wide, np.arange(400), ref.n)
    assert (ref.store.bits.tolist(), ref.store.stride, ref.store.layout) == before
    ref.check()
    rows, found = ref.store.find_rows(wide)  # (found: may be stored; none of them is)
    stored = {r.tobytes() for r in ref.store.rows(ref.n)}
    assert not any(r.tobytes() in stored for r in rows[found]) and not found.all()
    monkeypatch.setattr(keystore, "memory_available", lambda: None)
    ref.add(wide)
    ref.check()
    assert ref.store.stride == 3


def test_the_lazy_solve_stops_unproven_when_its_keys_would_not_fit(monkeypatch):
    packed = QuaternityPacked(3, 3, 4, Rules.preset("blind"))

    def refused(self, keys, rows, n):
        raise MemoryError("no room")

    monkeypatch.setattr(KeyStore, "encode", refused)
    res, _ = lazywin.solve_win(packed, 0)
    assert res.verdict is None and res.stopped == "limit"


def test_a_value_coded_past_its_word_s_width_is_never_found(monkeypatch):
    """A refused batch leaves values in the dictionaries whose codes do not fit their words' widths; a key with
    one is stored nowhere, and packed as it is its code would run into the next word's field and read as another
    stored key."""
    ref = Reference(3, 100, raw_min=10)
    v0 = np.concatenate([[0], np.arange(16) * 3]).astype(np.uint64)  # word 0: 16 values, codes 0..15, width 4
    stored = np.stack([v0, np.array([7, 9] + [7] * 15, np.uint64), np.zeros(17, np.uint64)], axis=1)
    ref.add(stored)  # word 1: 7 (code 0), 9 (code 1); the key (0, 9, 0) is stored as the row 0 | 1 << 4
    assert ref.store.bits.tolist() == [4, 4, 4] and ref.store.stride == 1
    assert ref.store.rows(ref.n)[ref.ids[(0, 9, 0)], 0] == 16
    monkeypatch.setattr(keystore, "memory_available", lambda: 0)
    rng = np.random.default_rng(1)
    refused = np.stack([np.full(400, 1000, np.uint64), rng.integers(10**6, 2**63, 400, dtype=np.uint64),
                        rng.integers(10**6, 2**63, 400, dtype=np.uint64)], axis=1)
    with pytest.raises(MemoryError):  # (words 1 and 2 kept whole: rows of 3 words, past their room of 2)
        ref.store.encode(refused, np.arange(400), ref.n)
    # (1000, 7, 0): codes 16, 0, 0; 16 in word 0's 4 bits runs into word 1's field: the row of (0, 9, 0)
    rows, found = ref.store.find_rows(np.array([[1000, 7, 0]], np.uint64))
    assert rows[0, 0] == 16 and not found[0]  # (the row of (0, 9, 0), not found)
    ref.check()
