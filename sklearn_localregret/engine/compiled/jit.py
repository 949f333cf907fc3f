"""The one way the engine compiles a kernel."""

from __future__ import annotations

import numba

__all__ = ["kernel"]

# nopython machine code, cached on disk (compiled once per machine), and
# without the GIL so that learners in threads run their kernels in parallel.
kernel = numba.njit(cache=True, nogil=True)
