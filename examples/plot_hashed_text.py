"""
Words as features: a disjunction learnt from hashed text
========================================================

Text is where online linear learners live: a ``HashingVectorizer`` turns each
document into a sparse row of ``2**20`` columns without a vocabulary, so a
stream of documents can be learnt as it comes. "The document mentions one of
these words" is a disjunction of columns, exactly what
:class:`~sklearn_localregret.LocalRegretDisjunctClassifier` learns, with a
local regret guarantee that needs no i.i.d. assumption.

The disjunct learner and Winnow2 (the paper's baseline) read sparse rows in
their nonzeros: a round costs the words of its documents, never the
``2**20`` columns, and memory holds the model, never a dense copy of the
rows. :class:`~sklearn_localregret.LocalRegretTreeClassifier` reads such a
wide input through 1,024 columns it admits as the labels show they matter,
one test ``x > 0`` each (user guide, "Wide input"). Here they learn one pass
over a stream of synthetic documents, in rounds of 10 predicted then learnt,
next to :class:`~sklearn.linear_model.SGDClassifier` fed the same rounds.
"""

# %%
# A stream of documents
# ---------------------
# Documents of 40-160 words drawn from a Zipf vocabulary of pseudo-words; a
# document is about the topic (label 1) when it holds one of 12 topic words,
# and 2% of the labels are flipped. The corpus is generated, so the example
# runs offline and the same every time.
import time

import matplotlib.pyplot as plt
import numpy as np
from sklearn.feature_extraction.text import HashingVectorizer
from sklearn.linear_model import SGDClassifier

from sklearn_localregret import LocalRegretDisjunctClassifier, LocalRegretTreeClassifier
from sklearn_localregret.baselines.winnow2 import Winnow2Classifier
from sklearn_localregret.evaluate import progressive_score

rng = np.random.default_rng(0)
syllables = "ka lo mi ne ru ta vo si pe da zu fi go ha ju".split()
vocabulary = sorted(
    {"".join(rng.choice(syllables, size=rng.integers(2, 6))) for _ in range(20000)}
)
rng.shuffle(vocabulary)
topic, common = vocabulary[:12], vocabulary[12:]
zipf = 1.0 / np.arange(1, len(common) + 1)
zipf /= zipf.sum()

documents, labels = [], []
for _ in range(3000):
    words = list(rng.choice(common, size=rng.integers(40, 160), p=zipf))
    about_topic = rng.random() < 0.4
    if about_topic:
        words += list(rng.choice(topic, size=rng.integers(1, 3)))
    documents.append(" ".join(words))
    labels.append(int(about_topic) ^ int(rng.random() < 0.02))
y = np.array(labels)

vectorizer = HashingVectorizer(n_features=2**20, alternate_sign=False, binary=True)
X = vectorizer.transform(documents)
print(
    f"{X.shape[0]} documents x {X.shape[1]:,} columns, {X.nnz:,} nonzeros "
    f"({X.data.nbytes + X.indices.nbytes + X.indptr.nbytes:,} bytes as CSR; "
    f"{X.shape[0] * X.shape[1]:,} bytes as dense 0/1)"
)

# %%
# Test-then-train
# ---------------
# :func:`~sklearn_localregret.evaluate.progressive_score` predicts each round
# of 10 documents, then learns them; every learner at its defaults.
learners = {
    "local regret disjunction": LocalRegretDisjunctClassifier(random_state=0),
    "Winnow2": Winnow2Classifier(),
    "local regret tree": LocalRegretTreeClassifier(random_state=0),
    "SGDClassifier (hinge)": SGDClassifier(random_state=0),
}
scores = {}
for name, learner in learners.items():
    start = time.perf_counter()
    scores[name] = progressive_score(
        learner, X, y, batch_size=10, classes=[0, 1], window=300
    )
    seconds = time.perf_counter() - start
    print(
        f"{name:26} error {scores[name].error:.3f}, last 300 rows "
        f"{scores[name].window_error:.3f}, {X.shape[0] / seconds:,.0f} rows/s"
    )

# %%
# Which words the disjunction holds
# ---------------------------------
# ``feature_probabilities_`` is the probability, under the learner's
# distribution over disjunctions, that each column is one of its words. A
# column that no document held is never in it (probability 0); of the
# columns the stream used, the disjunction keeps a few, the topic words'
# among them. The hashing has no inverse, but the columns of the topic
# words are found by hashing the words themselves.
model = scores["local regret disjunction"].estimator
probabilities = model.feature_probabilities_
used = np.unique(X.indices)
kept = used[probabilities[used] > 0.5]
topic_columns = {int(vectorizer.transform([word]).indices[0]) for word in topic}
print(
    f"{len(used):,} columns used by the stream; {len(kept)} kept with "
    f"probability > 0.5, {len(topic_columns & set(kept.tolist()))} of them "
    f"the columns of the {len(topic)} topic words"
)

# %%
# Which words the tree reads
# --------------------------
# The tree admitted at most 1,024 columns, those whose split ``x > 0``
# separated the labels learnt so far best; ``test_features_`` names the
# column of each test.
tree = scores["local regret tree"].estimator
tested = set(tree.test_features_.tolist())
print(
    f"the tree tests {len(tested)} columns, "
    f"{len(topic_columns & tested)} of them the topic words' columns"
)

# %%
# Learning curves
# ---------------
# On this stream, a disjunction with little noise, Winnow2 learns fastest: its
# mistake bound grows with the logarithm of the number of columns. The local
# regret learner's guarantee assumes nothing of the stream; on the paper's
# "Winnow killer" stream, where Winnow2's mistakes keep growing, it
# approaches the best disjunction's error (``python -m sklearn_localregret disjunct``).
fig, ax = plt.subplots(figsize=(7, 4))
for name, score in scores.items():
    ax.plot(score.rows, score.windowed_error, label=name)
ax.axhline(0.02, color="grey", linestyle=":", label="label noise (2%)")
ax.set_xlabel("documents seen")
ax.set_ylabel("error over the last 300 documents")
ax.set_ylim(0, 0.5)
ax.legend()
ax.set_title("One pass over hashed text, rounds of 10")
fig.tight_layout()
plt.show()
