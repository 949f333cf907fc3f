"""The decision-tree learner's parts.

The estimator, :class:`~sklearn_localregret.LocalRegretTreeClassifier`, is
``sklearn_localregret/_tree_classifier.py``; this room holds what it is
made of:

* ``docstring.py`` -- the estimator's docstring (its manual).
* ``views.py`` -- its public views of a fitted model: the representative
  tree, ``export_text``, the tree distribution, diagnostic attributes.
"""
