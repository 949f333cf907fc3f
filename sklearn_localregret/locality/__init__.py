"""Locality graphs and their admissible colourings.

A locality graph says which actions are "nearby" (paper, section "Local Regret
Concepts"); a colouring groups its edges so that regrets generalise. Each module
maps one family of actions onto the shared engine
(:mod:`sklearn_localregret.engine`): which colours leave the played action,
their gains ``u(j) - u(i)`` for a round, and how to sample ``pi^t``.

* :mod:`~sklearn_localregret.locality.hypercube_graph` -- what every
  colouring of the hypercube shares (vertices, rounds, exact or chain draws);
  :mod:`~sklearn_localregret.locality.hypercube` -- ``{0,1}^n`` with single-bit
  flips and the 2n colouring; :mod:`~sklearn_localregret.locality.hypercube_swap`
  -- per-edge (swap) regrets on it;
  :mod:`~sklearn_localregret.locality.disjunct_rounds` -- the gains of a round
  of rows (disjunctions). The gains of a round of clauses live with the
  clauses, in :mod:`sklearn_localregret.maxsat.rounds`.
* :mod:`~sklearn_localregret.locality.decision_tree` -- decision trees as
  immutable nodes: routing, subtree replacement, text export.
* :mod:`~sklearn_localregret.locality.tree_coloring` -- the tree locality graph
  (replace a subtree by a leaf or a stump on a threshold test), its (path,
  replacement) colouring and the vectorised statistics of a round;
  :mod:`~sklearn_localregret.locality.tree_rate_graph` -- its rates for the
  chain samplers, per colour or per edge (swap).
* :mod:`~sklearn_localregret.locality.removal_sets` and
  :mod:`~sklearn_localregret.locality.removal_set_rounds` -- the disjunct
  learner's removal-set graph and its rounds;
  :mod:`~sklearn_localregret.locality.bulk_windows` -- what both disjunct
  players share when they apply a window of rounds at once;
  :mod:`~sklearn_localregret.locality.disjunct_kernels` -- a round of one
  row on either graph, compiled;
  :mod:`~sklearn_localregret.locality.disjunct_probabilities` -- what a drawn
  disjunction predicts.
* :mod:`~sklearn_localregret.locality.disjunct_players` -- the disjunct
  learner's graphs behind one interface, a player per graph.
* :mod:`~sklearn_localregret.locality.flat_tree` -- a played tree as pre-order
  node arrays with its sites' table rows, and
  :mod:`~sklearn_localregret.locality.tree_round_kernels` -- the compiled round
  of the tree colouring on them (statistics, edge masks, update).
* :mod:`~sklearn_localregret.locality.recent_rows` -- the window of recent rows
  that a new tree site starts from (the tree learner's warm start).
"""
