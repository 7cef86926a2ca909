#!/usr/bin/env python3
"""How much of a game's result other models of the same features explain (issue 27).

Reads the samples `fit-eval` writes with `FIT_EVAL_DUMP=samples.csv` (per quiet position: the
shape and class counts for the side to move and the side waiting, the result for the side to
move, the engine's current evaluation, 1 if held out) and prints the held-out log loss of: a
constant, the current evaluation at its best scale, the linear model `fit-eval` fits (here with
scikit-learn's solver), that model with which classes each side has and every pair of them (a
table an evaluation could hold), and boosted trees on the counts (what a non-linear model of the
same counts can reach). A draw counts as half a win and half a loss.

    FIT_EVAL_DUMP=samples.csv cargo run --release -p gomoku-engine --example fit-eval -- games.txt
    pip install scikit-learn && scripts/eval_models.py samples.csv
"""

import sys

import numpy as np
from sklearn.ensemble import HistGradientBoostingClassifier
from sklearn.linear_model import LogisticRegression
from sklearn.preprocessing import StandardScaler

# The counts per side in fit-eval's order: shapes One..=OpenFour, then classes 1..=13.
SHAPES, CLASSES = 7, 13


def main(path):
    data = np.loadtxt(path, delimiter=",")
    x, result, current, held = data[:, :-3], data[:, -3], data[:, -2], data[:, -1] == 1
    # Each position twice, as a win weighted by its result and as a loss weighted by the rest.
    x = np.vstack([x, x])
    y = np.concatenate([np.ones(len(result)), np.zeros(len(result))])
    weight = np.concatenate([result, 1 - result])
    held = np.concatenate([held, held])
    current = np.concatenate([current, current])
    train, test = ~held, held

    def loss(p):
        p = np.clip(p, 1e-9, 1 - 1e-9)
        w, t = weight[test], y[test]
        return -np.sum(w * (t * np.log(p) + (1 - t) * np.log(1 - p))) / np.sum(w)

    def logistic(features):
        scale = StandardScaler().fit(features[train])
        model = LogisticRegression(C=0.1, max_iter=5000)
        model.fit(scale.transform(features[train]), y[train], sample_weight=weight[train])
        return loss(model.predict_proba(scale.transform(features[test]))[:, 1])

    print(f"{len(result)} positions, {int(data[:, -1].sum())} held out")
    base = np.average(y[train], weights=weight[train])
    print(f"a constant: {loss(np.full(test.sum(), base)):.4f}")
    at_scale = min((loss(1 / (1 + np.exp(-current[test] / s))), s) for s in range(50, 10000, 50))
    print(f"current evaluation at its best scale: {at_scale[0]:.4f} (scale {at_scale[1]})")
    print(f"linear: {logistic(x):.4f}")
    mine = x[:, SHAPES:SHAPES + CLASSES] > 0
    theirs = x[:, 2 * SHAPES + CLASSES:2 * (SHAPES + CLASSES)] > 0
    pairs = (mine[:, :, None] & theirs[:, None, :]).reshape(len(x), -1)
    print(f"linear + classes present + pairs: {logistic(np.column_stack([x, mine, theirs, pairs])):.4f}")
    trees = HistGradientBoostingClassifier(
        max_depth=3, learning_rate=0.05, max_iter=400, l2_regularization=1.0,
        early_stopping=True, random_state=1)
    trees.fit(x[train], y[train], sample_weight=weight[train])
    print(f"boosted trees (depth 3): {loss(trees.predict_proba(x[test])[:, 1]):.4f}")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: eval_models.py samples.csv")
    main(sys.argv[1])
