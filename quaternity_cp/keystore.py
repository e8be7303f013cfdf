"""Fixed-width keys kept in fewer words: each word of a key stored as its code in that word's dictionary.

A game's packed key (:class:`quaternity_cp.partitioned.Packed`: ``width`` words of 64 bits) spends its bits on
fields laid out for the widest position, but each word takes far fewer distinct values than its 64 bits allow.
Counted on the keys a lazy win solve stores (:mod:`quaternity_cp.lazywin`, 2 million positions of seat 0): the
14 words of 11x11x2 under quaternity-seat take 3,585, 33,050, ..., 103,484 values, their codes 180 bits in all
against 896; 4x5x4 under quaternity's 5 words 66 bits against 320; 14x14x2 under blind's 22 words 238 bits, one
of them nearly one value a key. So a :class:`KeyStore` keeps, for each word, the distinct values it has seen (in
the order first seen) and each key as its words' codes, bit-packed at each word's current width. Two keys are
equal exactly when their stored rows are, so a hash table over the stored rows finds keys as it would over the
keys themselves.

**Widths.** A word starts at :data:`FIRST_BITS` bits. When its dictionary outgrows its width, the word widens by
:data:`STEP_BITS` (more when needed; the words at more than half of their room widen with it), and every stored
row is packed again, in place: rows only ever widen, so they are rewritten from the last to the first in one flat
array, first given room for rows of half the key's words (pages the system gives only once written); rows wider
than their room move to a wider array (refused with :class:`MemoryError`, the store left as it was, when the memory
left would not hold them). A word whose dictionary would hold more than one value for every :data:`RAW_SHARE`
keys stored (past :data:`RAW_MIN` values) is kept whole instead (64 bits; its dictionary is searched no more, its
values kept until the store goes): its values are about as many as the keys. Whoever hashes the rows (the lazy
solve's table) places them again after a repacking (:attr:`KeyStore.layout` counts them).

**Dictionaries.** One open-addressed table of (word, value) for all words; the values of each word in chunks of
:data:`CHUNK` (a code's value: two array reads). Memory: 8 bytes a stored row word, 8 bytes a value plus about
16 bytes of table for each distinct value.

``compress=False`` keeps the keys as they are (the reference: the same interface, rows = keys). This module names
no game; tests/test_keystore.py checks it against a dictionary of the keys themselves.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .partitioned import jit
from .threads import memory_available

#: a word's first width (bits)
FIRST_BITS = 4
#: how many bits a word widens by at a time
STEP_BITS = 2
#: a word is kept whole once its distinct values pass one for every RAW_SHARE keys stored ...
RAW_SHARE = 8
#: ... and this many
RAW_MIN = 1 << 16
#: values of one word per chunk of its dictionary
CHUNK = 1 << 12
_SHIFT = 12
#: a width that marks a word kept whole
RAW = 64


@jit
def _field_get(row: np.ndarray, at: int, bits: int) -> Any:
    if bits == 0:
        return np.uint64(0)
    w = at >> 6
    sh = at & 63
    v = row[w] >> np.uint64(sh)
    if sh + bits > 64:
        v |= row[w + 1] << np.uint64(64 - sh)
    if bits == 64:
        return v
    return v & np.uint64((1 << bits) - 1)


@jit
def _field_put(row: np.ndarray, at: int, v: Any, bits: int) -> None:
    if bits == 0:
        return
    w = at >> 6
    sh = at & 63
    row[w] |= v << np.uint64(sh)
    if sh + bits > 64:
        row[w + 1] |= v >> np.uint64(64 - sh)


@jit
def _hash(w: int, v: Any) -> Any:
    h = (v ^ np.uint64(w + 1) * np.uint64(0xD6E8FEB86659FD93)) * np.uint64(0x9E3779B97F4A7C15)
    h ^= h >> np.uint64(31)
    h *= np.uint64(0xBF58476D1CE4E5B9)
    h ^= h >> np.uint64(29)
    return h


@jit
def _value(pool: np.ndarray, chunks: np.ndarray, w: int, code: int) -> Any:
    return pool[chunks[w, code >> _SHIFT], code & (CHUNK - 1)]


@jit
def _probe(table: np.ndarray, pool: np.ndarray, chunks: np.ndarray, w: int, v: Any) -> tuple[Any, Any]:
    """(the code of value ``v`` of word ``w`` or -1, the slot where the search ended)."""
    mask = np.uint64(table.shape[0] - 1)
    h = _hash(w, v) & mask
    while True:
        s = table[h]
        if s == 0:
            return -1, np.int64(h)
        s -= 1
        if (s & 255) == w:
            code = s >> 8
            if _value(pool, chunks, w, code) == v:
                return code, np.int64(h)
        h = (h + np.uint64(1)) & mask


@jit
def _code_rows(ck: np.ndarray, rows: np.ndarray, bits: np.ndarray, counts: np.ndarray, pool: np.ndarray,
               chunks: np.ndarray, used: np.ndarray, table: np.ndarray, fields: np.ndarray, found: np.ndarray,
               add: bool) -> None:
    """The codes of the words of ``ck[rows[t]]`` into ``fields[t]`` (a word kept whole: its value). ``add``:
    every value not seen before is added to its word's dictionary (room for all of them is there: chunks, pool,
    table); else ``found[t]`` is False when a word has a value never seen (no stored key is that key)."""
    W = ck.shape[1]
    for t in range(rows.shape[0]):
        r = rows[t]
        found[t] = True
        for w in range(W):
            v = ck[r, w]
            if bits[w] == RAW:
                fields[t, w] = v
                continue
            code, slot = _probe(table, pool, chunks, w, v)
            if code < 0:
                if not add:
                    found[t] = False
                    break
                code = counts[w]
                j = code >> _SHIFT
                if (code & (CHUNK - 1)) == 0:
                    chunks[w, j] = used[0]
                    used[0] += 1
                pool[chunks[w, j], code & (CHUNK - 1)] = v
                counts[w] = code + 1
                table[slot] = (code << 8 | w) + 1
            fields[t, w] = np.uint64(code)


@jit
def _pack(fields: np.ndarray, bits: np.ndarray, offsets: np.ndarray, out: np.ndarray) -> None:
    for r in range(fields.shape[0]):
        for j in range(out.shape[1]):
            out[r, j] = np.uint64(0)
        for w in range(fields.shape[1]):
            _field_put(out[r], offsets[w], fields[r, w], bits[w])


@jit
def _unpack(flat: np.ndarray, stride: int, nodes: np.ndarray, bits: np.ndarray, offsets: np.ndarray,
            pool: np.ndarray, chunks: np.ndarray, out: np.ndarray) -> None:
    for t in range(nodes.shape[0]):
        row = flat[nodes[t] * stride:(nodes[t] + 1) * stride]
        for w in range(out.shape[1]):
            v = _field_get(row, offsets[w], bits[w])
            out[t, w] = v if bits[w] == RAW else _value(pool, chunks, w, np.int64(v))


@jit
def _repack(src: np.ndarray, dst: np.ndarray, n: int, old_stride: int, old_bits: np.ndarray,
            old_offsets: np.ndarray, new_stride: int, new_bits: np.ndarray, new_offsets: np.ndarray,
            pool: np.ndarray, chunks: np.ndarray) -> None:
    """Rows 0..n-1 of ``src`` in the old layout to ``dst`` in the new, a word newly kept whole given its value
    for its code. ``dst`` may be ``src``: rows are never narrower, so they move towards the end and are rewritten
    from the last (each read whole before it is written)."""
    W = old_bits.shape[0]
    field = np.empty(W, np.uint64)
    for i in range(n - 1, -1, -1):
        row = src[i * old_stride:(i + 1) * old_stride]
        for w in range(W):
            v = _field_get(row, old_offsets[w], old_bits[w])
            if new_bits[w] == RAW and old_bits[w] != RAW:
                v = _value(pool, chunks, w, np.int64(v))
            field[w] = v
        out = dst[i * new_stride:(i + 1) * new_stride]
        for j in range(new_stride):
            out[j] = np.uint64(0)
        for w in range(W):
            _field_put(out, new_offsets[w], field[w], new_bits[w])


@jit
def _place_values(table: np.ndarray, bits: np.ndarray, counts: np.ndarray, pool: np.ndarray,
                  chunks: np.ndarray) -> None:
    """Every value of every word not kept whole into the empty ``table``."""
    for w in range(bits.shape[0]):
        if bits[w] == RAW:
            continue
        for code in range(counts[w]):
            _, slot = _probe(table, pool, chunks, w, _value(pool, chunks, w, code))
            table[slot] = (code << 8 | w) + 1


@jit
def _first_bad_row(flat: np.ndarray, stride: int, n: int, bits: np.ndarray, offsets: np.ndarray,
                   counts: np.ndarray) -> int:
    """The first of rows 0..n-1 with a word's code past its dictionary (-1: none)."""
    for i in range(n):
        row = flat[i * stride:(i + 1) * stride]
        for w in range(bits.shape[0]):
            if bits[w] != RAW and np.int64(_field_get(row, offsets[w], bits[w])) >= counts[w]:
                return i
    return -1


def _layout(bits: np.ndarray) -> tuple[np.ndarray, int]:
    """Each word's first bit in a row of fields of ``bits`` bits, and the words of a row."""
    offsets = np.zeros(len(bits), np.int64)
    offsets[1:] = np.cumsum(bits)[:-1]
    return offsets, max(1, -(-int(bits.sum()) // 64))


class KeyStore:
    """Rows standing for keys of ``width`` words, room for ``capacity`` rows (grown by :meth:`grow`); a word is
    kept whole past ``raw_min`` values (and one for every :data:`RAW_SHARE` keys).

    :meth:`encode` gives the rows of keys (their new values added to the dictionaries), :meth:`find_rows` those
    of keys whose every word was seen, :meth:`decode` the keys of stored rows. The caller keeps the rows in order
    with :meth:`rows` (a view: row ``i`` of the first ``n``) and writes them there; :attr:`layout` changes each
    time the stored rows are packed again (the caller's hashes of them are then stale)."""

    def __init__(self, width: int, capacity: int, compress: bool = True, raw_min: int = RAW_MIN):
        if width < 1 or width > 255:
            raise ValueError(f"a key store takes keys of 1 to 255 words, not {width}")
        self.W = width
        self.compress = compress
        self.raw_min = raw_min
        self.bits = np.full(width, FIRST_BITS if compress else RAW, np.int64)
        self.offsets = np.zeros(width, np.int64)
        self.stride = width
        self._lay()
        self.counts = np.zeros(width, np.int64)
        self.chunks = np.full((width, 4), -1, np.int64)
        self.pool = np.zeros((8 if compress else 0, CHUNK), np.uint64)
        self.used = np.zeros(1, np.int64)
        self.table = np.zeros(1 << 10, np.int64)
        self.cap = max(capacity, 1)
        self.flat = np.zeros(self.cap * self.room_stride(width, compress), np.uint64)
        self.layout = 0

    @staticmethod
    def room_stride(width: int, compress: bool = True) -> int:
        """The words a row is first given room for: half the key's, compressed (rows wider than that are moved
        to a wider array once), else the key's."""
        return -(-width // 2) if compress else width

    # -- layout ------------------------------------------------------------------------------------------------
    def _lay(self) -> None:
        self.offsets, self.stride = _layout(self.bits)

    @property
    def capacity(self) -> int:
        """The rows there is room for."""
        return self.cap

    def rows(self, n: int | None = None) -> np.ndarray:
        """The stored rows as an array of ``stride`` words a row (the first ``n``, or room for every row)."""
        return self.flat[:self.cap * self.stride].reshape(self.cap, self.stride)[:n]

    def grow(self, capacity: int, n: int) -> None:
        """Room for ``capacity`` rows, the first ``n`` kept (a copy)."""
        flat = np.zeros(capacity * (len(self.flat) // self.cap), np.uint64)
        flat[:n * self.stride] = self.flat[:n * self.stride]
        self.flat, self.cap = flat, capacity

    def nbytes(self, n: int) -> int:
        """The bytes in use with ``n`` rows stored: the rows, the dictionaries' values and their table."""
        return n * self.stride * 8 + int(self.used[0]) * CHUNK * 8 + self.table.nbytes + self.chunks.nbytes

    # -- kept on disk ---------------------------------------------------------------------------------------------
    def saved(self, n: int) -> dict[str, np.ndarray]:
        """What :meth:`restore` needs of the store with ``n`` rows: the rows (views, no copy) and the
        dictionaries' widths, counts, chunks and values (the table of values is made again)."""
        return {"rows": self.flat[:n * self.stride], "bits": self.bits, "counts": self.counts,
                "chunks": self.chunks, "pool": self.pool[:int(self.used[0])]}

    @staticmethod
    def check_saved(width: int, compress: bool, bits: np.ndarray, counts: np.ndarray, chunks: np.ndarray,
                    used: int) -> str | None:
        """Why a store's saved dictionaries (:meth:`saved`) cannot be one :meth:`restore` takes (None: they
        can): each word's width one a store gives (:data:`FIRST_BITS` and steps of :data:`STEP_BITS`, or
        :data:`RAW`; only RAW when not ``compress``), its count of values within its width and each chunk
        of its values one of the ``used`` chunks saved."""
        if len(bits) != width or len(counts) != width or chunks.ndim != 2 or chunks.shape[0] != width:
            return "the dictionaries are not of the key's words"
        for w in range(width):
            b, c = int(bits[w]), int(counts[w])
            if b != RAW and (not compress or b < FIRST_BITS or b >= 48 or (b - FIRST_BITS) % STEP_BITS):
                return f"word {w} has the width {b}, which no store gives"
            if c < 0 or (b != RAW and c > 1 << b):
                return f"word {w} counts {c} values, more than its width of {b} bits holds"
            live = -(-c // CHUNK)
            if live > chunks.shape[1] or np.any((chunks[w, :live] < 0) | (chunks[w, :live] >= used)):
                return f"word {w}'s values are in chunks that were not saved"
        return None

    @classmethod
    def restore(cls, width: int, capacity: int, compress: bool, raw_min: int, bits: np.ndarray,
                counts: np.ndarray, chunks: np.ndarray, pool: np.ndarray) -> KeyStore:
        """A store with room for ``capacity`` rows and the saved dictionaries (checked by :meth:`check_saved`);
        its rows are then written into :meth:`rows_to_fill`."""
        store = cls(width, 1, compress, raw_min)
        store.bits = np.array(bits, np.int64)
        store._lay()
        store.counts = np.array(counts, np.int64)
        store.chunks = np.array(chunks, np.int64)
        used = len(pool)
        store.pool = np.zeros((max(used, 8 if compress else 0), CHUNK), np.uint64)
        store.pool[:used] = pool
        store.used = np.array([used], np.int64)
        live = store.bits != RAW
        entries = int(store.counts[live].sum())
        size = 1 << 10
        while 2 * entries > size:
            size *= 2
        store._retable(size)
        store.cap = max(capacity, 1)
        store.flat = np.zeros(store.cap * max(store.stride, cls.room_stride(width, compress)), np.uint64)
        return store

    def rows_to_fill(self, n: int) -> np.ndarray:
        """The flat words of the first ``n`` rows, to be filled with the saved rows (:meth:`restore`)."""
        return self.flat[:n * self.stride]

    def first_bad_row(self, n: int) -> int:
        """The first of the ``n`` stored rows with a code no dictionary holds (-1: none): a row read back is
        decoded only once this says none."""
        return int(_first_bad_row(self.flat, self.stride, n, self.bits, self.offsets, self.counts))

    # -- keys to rows --------------------------------------------------------------------------------------------
    def encode(self, keys: np.ndarray, rows: np.ndarray, n: int) -> np.ndarray:
        """The rows of ``keys[rows]`` (keys: k x width words), their values added to the dictionaries; ``n``:
        the rows stored (packed again, in place, when a word widens)."""
        keys = np.ascontiguousarray(keys, np.uint64).reshape(-1, self.W)
        if not self.compress:
            plain: np.ndarray = keys[rows]
            return plain
        m = len(rows)
        self._room_for(m)
        fields = np.empty((m, self.W), np.uint64)
        _code_rows(keys, np.asarray(rows, np.int64), self.bits, self.counts, self.pool, self.chunks, self.used,
                   self.table, fields, np.empty(m, np.bool_), True)
        before = self.bits.copy()
        self._widen(n)
        for w in np.flatnonzero((before != RAW) & (self.bits == RAW)):  # (a word now kept whole: its values)
            codes = fields[:, w].astype(np.int64)
            fields[:, w] = self.pool[self.chunks[w, codes >> _SHIFT], codes & (CHUNK - 1)]
        out = np.empty((m, self.stride), np.uint64)
        _pack(fields, self.bits, self.offsets, out)
        return out

    def find_rows(self, keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(the rows of ``keys``, whether each may be stored: False when a word's value was never seen)."""
        keys = np.ascontiguousarray(keys, np.uint64).reshape(-1, self.W)
        if not self.compress:
            return keys, np.ones(len(keys), np.bool_)
        fields = np.zeros((len(keys), self.W), np.uint64)
        found = np.empty(len(keys), np.bool_)
        _code_rows(keys, np.arange(len(keys), dtype=np.int64), self.bits, self.counts, self.pool, self.chunks,
                   self.used, self.table, fields, found, False)
        for w in np.flatnonzero(self.bits != RAW):  # (a value added after the last packing: in no stored row)
            found &= fields[:, w] < np.uint64(1 << int(self.bits[w]))
        out = np.empty((len(keys), self.stride), np.uint64)
        _pack(fields, self.bits, self.offsets, out)
        return out, found

    def decode(self, nodes: np.ndarray) -> np.ndarray:
        """The keys (``len(nodes)`` x width words) of stored rows ``nodes``."""
        nodes = np.asarray(nodes, np.int64).reshape(-1)
        if not self.compress:
            return self.rows()[nodes]
        out = np.empty((len(nodes), self.W), np.uint64)
        _unpack(self.flat, self.stride, nodes, self.bits, self.offsets, self.pool, self.chunks, out)
        return out

    # -- room ------------------------------------------------------------------------------------------------
    def _room_for(self, m: int) -> None:
        """Room in the dictionaries for ``m`` keys' new values (every word of every key new, at worst)."""
        live = self.bits != RAW
        fresh = m * int(live.sum())
        need_chunks = int(self.used[0]) + int(live.sum()) * (m // CHUNK + 2)
        if need_chunks > len(self.pool):
            pool = np.zeros((max(need_chunks, 2 * len(self.pool)), CHUNK), np.uint64)
            pool[:len(self.pool)] = self.pool
            self.pool = pool
        top = int(((self.counts + m) >> _SHIFT).max()) + 2
        if top > self.chunks.shape[1]:
            chunks = np.full((self.W, max(top, 2 * self.chunks.shape[1])), -1, np.int64)
            chunks[:, :self.chunks.shape[1]] = self.chunks
            self.chunks = chunks
        entries = int(self.counts[live].sum()) + fresh
        if 2 * entries > len(self.table):
            size = len(self.table)
            while 2 * entries > size:
                size *= 2
            self._retable(size)

    def _retable(self, size: int) -> None:
        self.table = np.zeros(size, np.int64)
        _place_values(self.table, self.bits, self.counts, self.pool, self.chunks)

    def _widen(self, n: int) -> None:
        """Widen every word whose dictionary outgrew its width (those past half of theirs with it), or keep it
        whole; then pack the ``n`` stored rows again."""
        live = self.bits != RAW
        full = live & (self.counts > (np.int64(1) << self.bits))
        if not full.any():
            return
        bits = self.bits.copy()
        for w in np.flatnonzero(live & (2 * self.counts > (np.int64(1) << self.bits))):
            c = int(self.counts[w])
            if c > self.raw_min and c * RAW_SHARE > n:
                bits[w] = RAW
                continue
            b = int(bits[w]) + STEP_BITS
            while (1 << b) < c:
                b += STEP_BITS
            bits[w] = RAW if b >= 48 else b
        offsets, stride = _layout(bits)
        dst = self.flat
        if stride * self.cap > len(dst):  # (rows wider than their room: a wider array, once)
            free = memory_available()
            if free is not None and n * stride * 8 > free:
                raise MemoryError(f"{n:,} keys of {stride} words would not fit in the memory left")
            dst = np.zeros(self.cap * min(self.W, stride + max(1, stride // 2)), np.uint64)  # (refused: as above)
        # (nothing changed before this point: a refusal leaves the store as it was, its new values unpacked)
        _repack(self.flat, dst, n, self.stride, self.bits, self.offsets, stride, bits, offsets, self.pool,
                self.chunks)
        self.bits, self.offsets, self.stride, self.flat = bits, offsets, stride, dst
        if ((bits == RAW) & live).any():  # (a word kept whole leaves the table)
            self._retable(len(self.table))
        self.layout += 1


__all__ = ["KeyStore", "FIRST_BITS", "STEP_BITS", "RAW_SHARE", "RAW_MIN", "CHUNK", "RAW"]
