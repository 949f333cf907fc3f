"""The one way the engine compiles a kernel."""

from __future__ import annotations

import numba

__all__ = ["inline_kernel", "kernel"]

# nopython machine code, cached on disk (compiled once per machine), and
# without the GIL so that learners in threads run their kernels in parallel.
kernel = numba.njit(cache=True, nogil=True)

# A helper of the innermost loops, inlined into its callers (numba's IR
# inlining: LLVM alone leaves some calls, and a call per table entry shows).
# It is costly at compile time: every call site translates the helper, and
# the helpers it inlines, again. A small helper is a plain kernel instead:
# compiled once, and LLVM inlines it into its callers all the same.
inline_kernel = numba.njit(cache=True, nogil=True, inline="always")
