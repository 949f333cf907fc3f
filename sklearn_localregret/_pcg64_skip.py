"""PCG64 outputs at chosen positions of its stream, jumping over the others.

What ``numpy.random.PCG64.advance`` does, compiled, for many short jumps in
one call: a Python ``advance`` costs ~3 us, a jump here ~0.1 us. The
generator is numpy's PCG64 (XSL-RR 128/64: a 128-bit LCG, one 64-bit output
a step, a double is its top 53 bits), its 128-bit numbers kept as
``(high, low)`` 64-bit halves. Tested against numpy's own draws.
"""

from __future__ import annotations

import numpy as np

from .engine.compiled.jit import inline_kernel, kernel

__all__ = ["pcg64_uniforms_at", "seeded_grid_columns"]

_MULT_HIGH = 2549297995355413924
_MULT_LOW = 4865540595714422341
_MASK32 = (1 << 32) - 1
_MASK64 = (1 << 64) - 1


@inline_kernel
def _mul_high(a, b):
    """The high 64 bits of the 128-bit product of two 64-bit words."""
    mask = np.uint64(0xFFFFFFFF)
    a_lo, a_hi = a & mask, a >> np.uint64(32)
    b_lo, b_hi = b & mask, b >> np.uint64(32)
    lo_lo = a_lo * b_lo
    mid1 = a_hi * b_lo + (lo_lo >> np.uint64(32))
    mid2 = a_lo * b_hi + (mid1 & mask)
    return a_hi * b_hi + (mid1 >> np.uint64(32)) + (mid2 >> np.uint64(32))


@inline_kernel
def _mul128(ah, al, bh, bl):
    """``(ah, al) * (bh, bl)`` modulo 2**128."""
    return _mul_high(al, bl) + al * bh + ah * bl, al * bl


@inline_kernel
def _add128(ah, al, bh, bl):
    low = al + bl
    carry = np.uint64(1) if low < al else np.uint64(0)
    return ah + bh + carry, low


@inline_kernel
def _jump(ih, il, delta):
    """``(A, C)`` of ``delta`` steps: the state goes to ``A state + C``
    (O(log delta) multiplications; ``ih, il`` the increment)."""
    mh, ml = np.uint64(_MULT_HIGH), np.uint64(_MULT_LOW)
    ph, pl = ih, il
    acc_mh, acc_ml = np.uint64(0), np.uint64(1)
    acc_ph, acc_pl = np.uint64(0), np.uint64(0)
    while delta > 0:
        if delta & 1:
            acc_mh, acc_ml = _mul128(acc_mh, acc_ml, mh, ml)
            acc_ph, acc_pl = _mul128(acc_ph, acc_pl, mh, ml)
            acc_ph, acc_pl = _add128(acc_ph, acc_pl, ph, pl)
        th, tl = _add128(mh, ml, np.uint64(0), np.uint64(1))
        ph, pl = _mul128(th, tl, ph, pl)
        mh, ml = _mul128(mh, ml, mh, ml)
        delta >>= 1
    return acc_mh, acc_ml, acc_ph, acc_pl


@inline_kernel
def _advance(sh, sl, ih, il, delta):
    """The LCG state ``delta`` steps on."""
    acc_mh, acc_ml, acc_ph, acc_pl = _jump(ih, il, delta)
    sh, sl = _mul128(acc_mh, acc_ml, sh, sl)
    return _add128(sh, sl, acc_ph, acc_pl)


@kernel
def _uniforms_at(state, inc, positions, n_total, out):
    sh, sl, ih, il = state[0], state[1], inc[0], inc[1]
    cursor = 0
    for i in range(positions.shape[0]):
        # Step to the position's output: (position - cursor) skipped ones.
        sh, sl = _advance(sh, sl, ih, il, positions[i] - cursor)
        mh, ml = _mul128(sh, sl, np.uint64(_MULT_HIGH), np.uint64(_MULT_LOW))
        sh, sl = _add128(mh, ml, ih, il)
        rot = sh >> np.uint64(58)
        x = sh ^ sl
        word = (x >> rot) | (x << ((np.uint64(64) - rot) & np.uint64(63)))
        out[i] = np.float64(word >> np.uint64(11)) * (1.0 / 9007199254740992.0)
        cursor = positions[i] + 1
    sh, sl = _advance(sh, sl, ih, il, n_total - cursor)
    state[0], state[1] = sh, sl


def pcg64_uniforms_at(bitgen: np.random.PCG64, n_total: int, positions) -> np.ndarray:
    """``Generator(bitgen).random(n_total)[positions]`` without the others.

    ``positions`` sorted and distinct; ``bitgen`` ends ``n_total`` outputs
    on, its buffered 32-bit half (if any) kept, as ``random`` leaves it.
    """
    full = bitgen.state
    words = full["state"]
    s, i = int(words["state"]), int(words["inc"])
    state = np.array([s >> 64, s & _MASK64], dtype=np.uint64)
    inc = np.array([i >> 64, i & _MASK64], dtype=np.uint64)
    out = np.empty(len(positions))
    _uniforms_at(state, inc, np.asarray(positions, dtype=np.int64), int(n_total), out)
    words["state"] = (int(state[0]) << 64) | int(state[1])
    bitgen.state = full
    return out


# -- a fresh generator's grid of uniforms, some columns only --------------------
# numpy's SeedSequence (the seeding of ``default_rng(entropy)``): its
# constants, on 32-bit words.
_INIT_A, _MULT_A = 0x43B0D7E5, 0x931E8875
_INIT_B, _MULT_B = 0x8B51F9DD, 0x58F38DED
_MIX_MULT_L, _MIX_MULT_R = 0xCA01F9DD, 0x4973F715
_POOL_SIZE = 4


@inline_kernel
def _hashmix(value, hash_const):
    mask = np.uint64(_MASK32)
    value ^= hash_const
    hash_const = (hash_const * np.uint64(_MULT_A)) & mask
    value = (value * hash_const) & mask
    return value ^ (value >> np.uint64(16)), hash_const


@inline_kernel
def _mix(x, y):
    mask = np.uint64(_MASK32)
    result = (np.uint64(_MIX_MULT_L) * x - np.uint64(_MIX_MULT_R) * y) & mask
    return result ^ (result >> np.uint64(16))


@kernel
def _seeded_state(entropy):
    """PCG64's ``(state, increment)`` halves after ``SeedSequence(entropy)``
    seeds it (``entropy``: the 32-bit words, as uint64)."""
    mask = np.uint64(_MASK32)
    pool = np.zeros(_POOL_SIZE, dtype=np.uint64)
    hash_const = np.uint64(_INIT_A)
    for i in range(_POOL_SIZE):
        value = entropy[i] if i < entropy.shape[0] else np.uint64(0)
        pool[i], hash_const = _hashmix(value, hash_const)
    for i_src in range(_POOL_SIZE):
        for i_dst in range(_POOL_SIZE):
            if i_src != i_dst:
                hashed, hash_const = _hashmix(pool[i_src], hash_const)
                pool[i_dst] = _mix(pool[i_dst], hashed)
    for i_src in range(_POOL_SIZE, entropy.shape[0]):
        for i_dst in range(_POOL_SIZE):
            hashed, hash_const = _hashmix(entropy[i_src], hash_const)
            pool[i_dst] = _mix(pool[i_dst], hashed)
    # generate_state(4, np.uint64): eight 32-bit words, little end first.
    words = np.zeros(4, dtype=np.uint64)
    hash_const = np.uint64(_INIT_B)
    for i in range(8):
        value = pool[i % _POOL_SIZE] ^ hash_const
        hash_const = (hash_const * np.uint64(_MULT_B)) & mask
        value = (value * hash_const) & mask
        value ^= value >> np.uint64(16)
        words[i // 2] |= value << np.uint64(32 * (i % 2))
    # pcg64_set_seed: state = 0, inc = (initseq << 1) | 1, a step, state +=
    # initstate, a step.
    one = np.uint64(1)
    ih = (words[2] << one) | (words[3] >> np.uint64(63))
    il = (words[3] << one) | one
    mh, ml = np.uint64(_MULT_HIGH), np.uint64(_MULT_LOW)
    sh, sl = ih, il  # 0 * M + inc
    sh, sl = _add128(sh, sl, words[0], words[1])
    sh, sl = _mul128(sh, sl, mh, ml)
    sh, sl = _add128(sh, sl, ih, il)
    return sh, sl, ih, il


@kernel
def _grid_columns(entropy, n_cols, cols, out):
    sh, sl, ih, il = _seeded_state(entropy)
    n_pick = cols.shape[0]
    # The jump to each picked output from the one before it (the first
    # from the previous row's last), then the step that outputs it.
    jumps = np.empty((n_pick, 4), dtype=np.uint64)
    for r in range(n_pick):
        delta = cols[r] - cols[r - 1] if r else cols[0] + n_cols - cols[n_pick - 1]
        jumps[r, 0], jumps[r, 1], jumps[r, 2], jumps[r, 3] = _jump(ih, il, delta)
    # Row 0's first output is cols[0] + 1 steps from the seeded state.
    first = _jump(ih, il, cols[0] + 1)
    for d in range(out.shape[0]):
        for r in range(n_pick):
            if d == 0 and r == 0:
                ah, al, ch, cl = first
            else:
                ah, al, ch, cl = jumps[r, 0], jumps[r, 1], jumps[r, 2], jumps[r, 3]
            sh, sl = _mul128(ah, al, sh, sl)
            sh, sl = _add128(sh, sl, ch, cl)
            rot = sh >> np.uint64(58)
            x = sh ^ sl
            word = (x >> rot) | (x << ((np.uint64(64) - rot) & np.uint64(63)))
            out[d, r] = np.float64(word >> np.uint64(11)) * (1.0 / 9007199254740992.0)


def seeded_grid_columns(entropy, n_rows: int, n_cols: int, cols) -> np.ndarray:
    """``default_rng(entropy).random((n_rows, n_cols))[:, cols]``, drawing
    only those columns.

    ``entropy`` is a sequence of non-negative ints (``SeedSequence``'s
    entropy); ``cols`` sorted, distinct and non-empty. A fresh generator
    per call (a prediction seeded by the model's round) costs ~10 us in
    numpy before its first uniform; here the seeding and the jumps over the
    columns not asked for are compiled.
    """
    words: list[int] = []
    for value in entropy:
        value = int(value)
        chunk = [value & _MASK32] if value == 0 else []
        while value > 0:
            chunk.append(value & _MASK32)
            value >>= 32
        words += chunk
    out = np.empty((int(n_rows), len(cols)))
    _grid_columns(
        np.array(words, dtype=np.uint64),
        int(n_cols),
        np.asarray(cols, dtype=np.int64),
        out,
    )
    return out
