"""A table's path keys as two integer arrays, for saving.

The external tree's regret table keys its rows by paths: tuples of ``(test,
branch)`` pairs of ints. Saved as a list of tuples, skops writes every pair
as a node of its JSON schema (a streamed tree's 13,000 paths made a 106 MB
schema beside 4.4 MB of arrays); as arrays they are stored as ``.npy``, and
a pickle is smaller and faster too. The swap table's ``(tree, path)`` keys
are saved as each distinct tree's nodes in pre-order (one integer a node),
which tree each key holds, and the paths (:func:`pack_tree_paths`). Many
trees at once (a chain sampler's states, a rate graph's played trees) are
saved as the distinct nodes they are made of (:func:`pack_tree_nodes`):
trees that share subtrees share them again when loaded. Together they took
a swap tree's skops file after 1,000 rows of agrawal from 251 MB to 3 MB.
Keys of any other form are saved as they are.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

__all__ = [
    "is_packed_bytes",
    "is_packed_paths",
    "is_packed_tree_nodes",
    "is_packed_tree_paths",
    "pack_bytes",
    "pack_paths",
    "pack_tree_nodes",
    "pack_tree_paths",
    "unpack_bytes",
    "unpack_paths",
    "unpack_tree_nodes",
    "unpack_tree_paths",
]

_PACKED = "sklearn_localregret.paths.1"
_TREES = "sklearn_localregret.tree_paths.1"
_NODES = "sklearn_localregret.tree_nodes.1"
_BYTES = "sklearn_localregret.bytes.1"


def pack_paths(keys: Sequence) -> dict | None:
    """``keys`` as ``{"steps": (n_steps, 2), "lengths": (n_keys,)}``
    integer arrays (each of the smallest signed type that holds it) if
    every key is a tuple of ``(int, int)`` pairs; None otherwise.

    Examples
    --------
    >>> packed = pack_paths([(), ((3, 1),), ((3, 0), (1, 1))])
    >>> packed["steps"].tolist(), packed["lengths"].tolist()
    ([[3, 1], [3, 0], [1, 1]], [0, 1, 2])
    >>> packed["steps"].dtype.name
    'int8'
    >>> unpack_paths(packed)
    [(), ((3, 1),), ((3, 0), (1, 1))]
    >>> pack_paths([("a", 1)]) is None
    True
    """
    lengths = np.empty(len(keys), dtype=np.int64)
    steps: list = []
    for i, key in enumerate(keys):
        if type(key) is not tuple:
            return None
        for step in key:
            if (
                type(step) is not tuple
                or len(step) != 2
                or type(step[0]) is not int
                or type(step[1]) is not int
            ):
                return None
        lengths[i] = len(key)
        steps.extend(key)
    array = np.array(steps, dtype=np.int64).reshape(-1, 2)
    return {_PACKED: True, "steps": _narrow(array), "lengths": _narrow(lengths)}


def _narrow(array: np.ndarray) -> np.ndarray:
    """``array`` in the smallest signed integer type that holds its values
    (tests and depths are small numbers: a byte each, mostly)."""
    if array.size == 0:
        return array.astype(np.int8)
    low, high = int(array.min()), int(array.max())
    for dtype in (np.int8, np.int16, np.int32):
        if np.iinfo(dtype).min <= low and high <= np.iinfo(dtype).max:
            return array.astype(dtype)
    return array


def is_packed_paths(saved) -> bool:
    """Whether ``saved`` (a table's saved keys) is :func:`pack_paths`' form."""
    return isinstance(saved, dict) and saved.get(_PACKED) is True


def unpack_paths(packed: dict) -> list:
    """The keys :func:`pack_paths` was given (tuples of tuples of ints);
    ``ValueError`` if the arrays do not fit together (a damaged file)."""
    steps = np.asarray(packed["steps"])
    lengths = np.asarray(packed["lengths"])
    if (
        steps.ndim != 2
        or steps.shape[1] != 2
        or steps.dtype.kind not in "iu"
        or lengths.ndim != 1
        or lengths.dtype.kind not in "iu"
        or (lengths < 0).any()
        or int(lengths.sum()) != steps.shape[0]
    ):
        raise ValueError("a damaged regret table: its saved paths do not fit")
    pairs = list(map(tuple, steps.tolist()))
    ends = np.cumsum(lengths).tolist()
    starts = [end - n for end, n in zip(ends, lengths.tolist())]
    return [tuple(pairs[lo:hi]) for lo, hi in zip(starts, ends)]


def pack_tree_paths(keys: Sequence) -> dict | None:
    """``(tree, path)`` keys as integer arrays, or None if they are not.

    A tree is nested nodes of two tuple types: leaves of one field (a label,
    an int >= 0) and splits of three (a test, an int >= 0, and the true and
    false children). Each distinct tree (by identity: keys share their
    tree) is its nodes in pre-order, a split as its test and a leaf as
    ``-1 - label``; ``which`` says each key's tree, and the paths are
    :func:`pack_paths`'. The two node types are kept to rebuild the nodes.

    Examples
    --------
    >>> from collections import namedtuple
    >>> Leaf, Split = namedtuple("Leaf", "label"), namedtuple("Split", "test t f")
    >>> stump = Split(3, Leaf(1), Leaf(0))
    >>> packed = pack_tree_paths([(stump, ()), (stump, ((3, 1),)), (Leaf(0), ())])
    >>> packed["nodes"].tolist(), packed["starts"].tolist(), packed["which"].tolist()
    ([3, -2, -1, -1], [0, 3], [0, 0, 1])
    >>> unpack_tree_paths(packed) == [(stump, ()), (stump, ((3, 1),)), (Leaf(0), ())]
    True
    """
    if not keys:
        return None
    number: dict = {}
    trees: list = []
    which = np.empty(len(keys), dtype=np.int64)
    paths = []
    for i, key in enumerate(keys):
        if type(key) is not tuple or len(key) != 2:
            return None
        tree, path = key
        at = number.get(id(tree))
        if at is None:
            at = number[id(tree)] = len(trees)
            trees.append(tree)
        which[i] = at
        paths.append(path)
    packed_paths = pack_paths(paths)
    nodes = _pre_order(trees)
    if packed_paths is None or nodes is None:
        return None
    codes, starts, leaf_type, split_type = nodes
    return {
        _TREES: True,
        "nodes": _narrow(np.array(codes, dtype=np.int64)),
        "starts": _narrow(np.array(starts, dtype=np.int64)),
        "which": _narrow(which),
        "paths": packed_paths,
        "node_types": (leaf_type, split_type),
    }


def _pre_order(trees: list) -> tuple | None:
    """Every tree's nodes in pre-order as codes, where each tree starts, and
    the leaf and split types; None if a node is neither kind."""
    codes: list = []
    starts: list = []
    leaf_type = split_type = None
    for tree in trees:
        starts.append(len(codes))
        stack = [tree]
        while stack:
            node = stack.pop()
            if not isinstance(node, tuple) or len(node) not in (1, 3):
                return None
            head = node[0]
            if type(head) is not int or head < 0:
                return None
            if len(node) == 1:
                leaf_type = leaf_type or type(node)
                if type(node) is not leaf_type:
                    return None
                codes.append(-1 - head)
            else:
                split_type = split_type or type(node)
                if type(node) is not split_type:
                    return None
                codes.append(head)
                stack.append(node[2])  # the false child, after the true one's
                stack.append(node[1])
    return codes, starts, leaf_type, split_type


def is_packed_tree_paths(saved) -> bool:
    """Whether ``saved`` is :func:`pack_tree_paths`' form."""
    return isinstance(saved, dict) and saved.get(_TREES) is True


def unpack_tree_paths(packed: dict) -> list:
    """The keys :func:`pack_tree_paths` was given (trees rebuilt once each,
    shared by their keys); ``ValueError`` for arrays that do not fit."""
    leaf_type, split_type = packed["node_types"]
    nodes = np.asarray(packed["nodes"]).tolist()
    starts = np.asarray(packed["starts"]).tolist() + [len(nodes)]
    trees = []
    for lo, hi in zip(starts[:-1], starts[1:]):
        built: list = []
        for code in reversed(nodes[lo:hi]):  # children before their split
            if code < 0:
                built.append(leaf_type(-1 - code))
            elif len(built) < 2:
                raise ValueError("a damaged regret table: a saved tree's nodes")
            else:
                true_child = built.pop()
                built.append(split_type(code, true_child, built.pop()))
        if len(built) != 1:
            raise ValueError("a damaged regret table: a saved tree's nodes")
        trees.append(built[0])
    which = np.asarray(packed["which"]).tolist()
    paths = unpack_paths(packed["paths"])
    if len(which) != len(paths) or not all(0 <= w < len(trees) for w in which):
        raise ValueError("a damaged regret table: its saved keys do not fit")
    return [(trees[w], path) for w, path in zip(which, paths)]


def pack_tree_nodes(trees: Sequence) -> dict | None:
    """Trees as the distinct nodes they are made of, or None if they are not
    trees (as :func:`pack_tree_paths` reads them).

    Each node is stored once however many trees hold it, children before
    their parents: ``codes`` (a split's test, ``-1 - label`` for a leaf),
    ``children`` (a split's true and false child, ``-1`` for a leaf) and
    ``roots`` (each tree's node). Nodes are merged by value (a split of the
    same test over the same children is one node): trees are immutable, and
    the loaded trees share what the saved ones did, and more. The trees are
    distinct (a chain's vertices, a dict's keys): :func:`unpack_tree_nodes`
    refuses two that are one.

    Examples
    --------
    >>> from collections import namedtuple
    >>> Leaf, Split = namedtuple("Leaf", "label"), namedtuple("Split", "test t f")
    >>> stump = Split(3, Leaf(1), Leaf(0))
    >>> trees = [stump, Split(2, stump, Leaf(1)), Leaf(1)]
    >>> packed = pack_tree_nodes(trees)
    >>> packed["codes"].tolist(), packed["roots"].tolist()
    ([-2, -1, 3, 2], [2, 3, 0])
    >>> loaded = unpack_tree_nodes(packed)
    >>> loaded == trees, loaded[1].t is loaded[0]
    (True, True)
    """
    index: dict = {}  # id(node) -> its place (the fast path)
    merged: dict = {}  # (code, true, false) -> its place
    codes: list = []
    children: list = []
    roots: list = []
    types: list = [None, None]  # the leaf and the split type

    def place(node, code: int, true: int, false: int) -> None:
        key = (code, true, false)
        at = merged.get(key)
        if at is None:
            at = merged[key] = len(codes)
            codes.append(code)
            children.append(key[1:])
        index[id(node)] = at

    for tree in trees:
        stack = [(tree, False)]
        while stack:
            node, expanded = stack.pop()
            if id(node) in index:
                continue
            if expanded:  # its children are placed
                place(node, node[0], index[id(node[1])], index[id(node[2])])
                continue
            if not isinstance(node, tuple) or len(node) not in (1, 3):
                return None
            head, kind = node[0], len(node) == 3
            if type(head) is not int or head < 0:
                return None
            types[kind] = types[kind] or type(node)
            if type(node) is not types[kind]:
                return None
            if not kind:
                place(node, -1 - head, -1, -1)
                continue
            stack.append((node, True))
            stack.append((node[2], False))
            stack.append((node[1], False))
        roots.append(index[id(tree)])
    if not roots:
        return None
    return {
        _NODES: True,
        "codes": _narrow(np.array(codes, dtype=np.int64)),
        "children": _narrow(np.array(children, dtype=np.int64).reshape(-1, 2)),
        "roots": _narrow(np.array(roots, dtype=np.int64)),
        "node_types": tuple(types),
    }


def is_packed_tree_nodes(saved) -> bool:
    """Whether ``saved`` is :func:`pack_tree_nodes`' form."""
    return isinstance(saved, dict) and saved.get(_NODES) is True


def unpack_tree_nodes(packed: dict) -> list:
    """The trees :func:`pack_tree_nodes` was given, each distinct node built
    once; ``ValueError`` for arrays that do not fit (a damaged file)."""
    leaf_type, split_type = packed["node_types"]
    codes = np.asarray(packed["codes"]).tolist()
    children = np.asarray(packed["children"]).reshape(-1, 2).tolist()
    roots = np.asarray(packed["roots"]).tolist()
    if (
        len(children) != len(codes)
        or not all(0 <= r < len(codes) for r in roots)
        or len(set(roots)) != len(roots)  # (a chain's vertices are distinct)
    ):
        raise ValueError("a damaged chain: its saved trees do not fit")
    built: list = []
    for at, (code, (true, false)) in enumerate(zip(codes, children)):
        if code < 0 and leaf_type is not None:
            built.append(leaf_type(-1 - code))
        elif split_type is not None and 0 <= true < at and 0 <= false < at:
            built.append(split_type(code, built[true], built[false]))
        else:
            raise ValueError("a damaged chain: a saved tree's nodes")
    return [built[r] for r in roots]


def pack_bytes(keys: Sequence) -> dict | None:
    """Keys that are all ``bytes`` of one length as the rows of a ``uint8``
    array, or None if they are not.

    Examples
    --------
    >>> packed = pack_bytes([b"\\x00\\x01", b"\\x01\\x01"])
    >>> packed["rows"].tolist()
    [[0, 1], [1, 1]]
    >>> unpack_bytes(packed)
    [b'\\x00\\x01', b'\\x01\\x01']
    >>> pack_bytes([b"ab", b"c"]) is None, pack_bytes([]) is None
    (True, True)
    """
    if not keys or not all(type(key) is bytes for key in keys):
        return None
    width = len(keys[0])
    if any(len(key) != width for key in keys):
        return None
    rows = np.frombuffer(b"".join(keys), dtype=np.uint8).reshape(len(keys), width)
    return {_BYTES: True, "rows": rows.copy()}


def is_packed_bytes(saved) -> bool:
    """Whether ``saved`` is :func:`pack_bytes`' form."""
    return isinstance(saved, dict) and saved.get(_BYTES) is True


def unpack_bytes(packed: dict) -> list:
    """The keys :func:`pack_bytes` was given; ``ValueError`` for an array
    that is not a 2-D array of bytes (a damaged file)."""
    rows = np.asarray(packed["rows"])
    if rows.ndim != 2 or rows.dtype != np.uint8:
        raise ValueError("a damaged file: its saved keys of bytes")
    return [row.tobytes() for row in rows]
