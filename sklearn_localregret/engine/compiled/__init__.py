"""Compiled kernels of the engine (numba, ``nopython``).

The engine's tables are arrays; the rounds and predictions that read them
touch a few numbers at a time, where numpy's per-call cost, not arithmetic, is
most of the time. The kernels here walk those arrays in compiled loops:

* :mod:`~sklearn_localregret.engine.compiled.pair_sums` -- positive sums and
  marginals of factored stump regrets (the content weights of a site and the
  start labels of a split's children).
* :mod:`~sklearn_localregret.engine.compiled.tree_labels` -- the exact class
  probabilities of the hierarchical tree distribution, row by row, and
  :mod:`~sklearn_localregret.engine.compiled.tree_labels_batch` -- the same
  site by site for many rows.
* :mod:`~sklearn_localregret.engine.compiled.clock_draw` -- the removal
  clocks' exact draw of a disjunction and the firing probabilities of rows
  averaged over draws of the clocks.
* :mod:`~sklearn_localregret.engine.compiled.tree_draw`,
  :mod:`~sklearn_localregret.engine.compiled.stump_update` and
  :mod:`~sklearn_localregret.engine.compiled.regret_update` -- the tree's
  exact draw and site update, and the plain tables' update and product draw.
* :mod:`~sklearn_localregret.engine.compiled.chain_solve` -- the stationary
  distribution from the root of the finite chain of per-edge ("swap")
  regrets, solved by exact state elimination.

Every kernel is compiled once per machine (``cache=True``: later processes
load the machine code from numba's cache) and releases the GIL
(``nogil=True``). Set ``NUMBA_DISABLE_JIT=1`` to run them as plain Python,
for a debugger or a coverage tool; the exactness tests pass either way.
"""

from .jit import kernel

__all__ = ["kernel"]
