"""The one way the engine compiles a kernel."""

from __future__ import annotations

import numba

__all__ = ["inline_kernel", "kernel"]

# nopython machine code, cached on disk (compiled once per machine), and
# without the GIL so that learners in threads run their kernels in parallel.
kernel = numba.njit(cache=True, nogil=True)

# A small helper of the innermost loops, inlined into its callers (numba's IR
# inlining: LLVM alone leaves some calls, and a call per table entry shows).
inline_kernel = numba.njit(cache=True, nogil=True, inline="always")
