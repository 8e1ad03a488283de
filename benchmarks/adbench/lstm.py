"""ADBench's LSTM: its objective written as a user would (a Python loop over the characters and,
inside it, one over the layers, as ADBench's PyTorch and C++ objectives are), which catad
compiles and the peers run with the same loops; a hand-written NumPy reference; a loader of
ADBench's LSTM files. Needs NumPy only, none of the benchmarks' peers.

The model (ADBench src/cpp/shared/lstm.h, src/python/modules/PyTorch/lstm_objective.py): l
layers of hidden size b (= the alphabet's size). main_params (2l, 4b): rows 2i and 2i+1 are
layer i's weight and bias, each four gates of b (forget, input, output, change); extra_params
(3, b): the input weight, the output weight and the output bias; state (2l, b): rows 2i and
2i+1 are layer i's hidden and cell state; sequence (c, b): the characters, one-hot (here bits).
Character t predicts character t + 1; the objective is the mean negative log-likelihood, with
ADBench's logsumexp, log(sum(exp(y)) + 2) (its C++ and PyTorch objectives add 2, the latter
as Python's sum(..., 2)).

The file format (ADBench docs/FileFormat.md, tools/python_common/lstm_io.py): ``l c b``; a
blank line; 2l lines of 4b main parameters; a blank line; 3 lines of b extra parameters; a
blank line; 2l lines of b state; a blank line; c lines of b sequence.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np


# ---------------------------------------------------------------- the objective, user style

def sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))


def lstm_model(weight, bias, hidden, cell, inp):
    """One layer's step, ADBench's layout: weight and bias are rows of main_params, each the four
    gates side by side (forget, input, output, change), read by slices."""
    b = len(hidden)
    forget = sigmoid(inp * weight[0:b] + bias[0:b])
    ingate = sigmoid(hidden * weight[b:2 * b] + bias[b:2 * b])
    outgate = sigmoid(inp * weight[2 * b:3 * b] + bias[2 * b:3 * b])
    change = np.tanh(hidden * weight[3 * b:4 * b] + bias[3 * b:4 * b])
    cell = cell * forget + ingate * change
    hidden = outgate * np.tanh(cell)
    return hidden, cell


def lstm_predict(main_params, extra_params, state, x):
    """(the prediction, the new state) after reading x: the layers in turn, each reading the
    hidden state of the one before (ADBench's predict)."""
    s = state.copy()
    x = x * extra_params[0]
    for i in range(0, len(state), 2):
        hidden, cell = lstm_model(main_params[i], main_params[i + 1], state[i], state[i + 1], x)
        s[i] = hidden
        s[i + 1] = cell
        x = hidden
    return x * extra_params[1] + extra_params[2], s


def lstm_objective(main_params, extra_params, state, sequence):
    """ADBench's LSTM loss, its layout and its Python's structure: each character predicts the
    next."""
    total = 0.0
    count = 0
    inp = sequence[0]
    for t in range(len(sequence) - 1):
        ypred, state = lstm_predict(main_params, extra_params, state, inp)
        ynorm = ypred - np.log(np.sum(np.exp(ypred)) + 2.0)
        ygold = sequence[t + 1]
        total = total + np.sum(ygold * ynorm)
        count = count + len(ygold)
        inp = ygold
    return -total / count


# The same loss with the gates as rows (gates = main_params.reshape(-1, b): row 8i + g is layer
# i's weight of gate g, row 8i + 4 + g its bias), each layer's previous state read from the copy
# that the layer loop updates: the same loss written another way (before 80aea6d catad's reverse
# mode failed on the slices of a weight row in a loop, and this form was its workaround).

def lstm_model_rows(gates, layer, hidden, cell, inp):
    k = 8 * layer
    forget = sigmoid(inp * gates[k] + gates[k + 4])
    ingate = sigmoid(hidden * gates[k + 1] + gates[k + 5])
    outgate = sigmoid(inp * gates[k + 2] + gates[k + 6])
    change = np.tanh(hidden * gates[k + 3] + gates[k + 7])
    cell = cell * forget + ingate * change
    hidden = outgate * np.tanh(cell)
    return hidden, cell


def lstm_predict_rows(gates, extra_params, state, x):
    s = state.copy()
    x = x * extra_params[0]
    for i in range(len(state) // 2):
        hidden, cell = lstm_model_rows(gates, i, s[2 * i].copy(), s[2 * i + 1].copy(), x)
        s[2 * i] = hidden
        s[2 * i + 1] = cell
        x = hidden
    return x * extra_params[1] + extra_params[2], s


def lstm_objective_rows(gates, extra_params, state, sequence):
    """ADBench's LSTM loss with gates = main_params.reshape(-1, b)."""
    total = 0.0
    count = 0
    inp = sequence[0]
    for t in range(len(sequence) - 1):
        ypred, state = lstm_predict_rows(gates, extra_params, state, inp)
        ynorm = ypred - np.log(np.sum(np.exp(ypred)) + 2.0)
        ygold = sequence[t + 1]
        total = total + np.sum(ygold * ynorm)
        count = count + len(ygold)
        inp = ygold
    return -total / count


def lstm_step_xp(xp, main_params, extra_params, s, inp):
    """One character for the peers, ADBench's layout: (the new state, a tuple of 2l rows; the
    prediction). xp is jax.numpy or torch."""
    b = inp.shape[0]
    s = list(s)
    x = inp * extra_params[0]
    for i in range(0, len(s), 2):
        w, bias, hidden, cell = main_params[i], main_params[i + 1], s[i], s[i + 1]
        forget = 1.0 / (1.0 + xp.exp(-(x * w[0:b] + bias[0:b])))
        ingate = 1.0 / (1.0 + xp.exp(-(hidden * w[b:2 * b] + bias[b:2 * b])))
        outgate = 1.0 / (1.0 + xp.exp(-(x * w[2 * b:3 * b] + bias[2 * b:3 * b])))
        change = xp.tanh(hidden * w[3 * b:4 * b] + bias[3 * b:4 * b])
        s[i + 1] = cell * forget + ingate * change
        s[i] = outgate * xp.tanh(s[i + 1])
        x = s[i]
    return tuple(s), x * extra_params[1] + extra_params[2]


def lstm_objective_xp(xp, main_params, extra_params, state, sequence):
    """The loss for the peers, with the same loops (the state a tuple of rows, since a JAX array
    cannot be assigned to)."""
    s = tuple(state[i] for i in range(state.shape[0]))
    total = 0.0
    inp = sequence[0]
    for t in range(sequence.shape[0] - 1):
        s, ypred = lstm_step_xp(xp, main_params, extra_params, s, inp)
        ynorm = ypred - xp.log(xp.sum(xp.exp(ypred)) + 2.0)
        total = total + xp.sum(sequence[t + 1] * ynorm)
        inp = sequence[t + 1]
    return -total / ((sequence.shape[0] - 1) * sequence.shape[1])


# ---------------------------------------------------------------- the NumPy reference

def numpy_objective(main_params, extra_params, state, sequence) -> float:
    """The same loss hand-written in NumPy, gates of all four at once, no helper functions: the
    reference every tool's objective is checked against."""
    l2, b4 = main_params.shape
    b = b4 // 4
    hidden = state[0::2].copy()
    cell = state[1::2].copy()
    w_in, w_out, b_out = extra_params
    total = 0.0
    for t in range(sequence.shape[0] - 1):
        x = sequence[t] * w_in
        for layer in range(l2 // 2):
            w, bias = main_params[2 * layer], main_params[2 * layer + 1]
            gates = np.concatenate([x, hidden[layer], x, hidden[layer]]) * w + bias
            f, i, o = (1.0 / (1.0 + np.exp(-gates[k * b:(k + 1) * b])) for k in range(3))
            cell[layer] = cell[layer] * f + i * np.tanh(gates[3 * b:])
            hidden[layer] = o * np.tanh(cell[layer])
            x = hidden[layer]
        y = x * w_out + b_out
        total += float(np.dot(sequence[t + 1], y - np.log(np.sum(np.exp(y)) + 2.0)))
    return -total / ((sequence.shape[0] - 1) * b)


# ---------------------------------------------------------------- the data

@dataclass
class Lstm:
    """The data of an ADBench LSTM file."""

    main_params: np.ndarray   # (2l, 4b)
    extra_params: np.ndarray  # (3, b)
    state: np.ndarray         # (2l, b)
    sequence: np.ndarray      # (c, b)

    def args(self) -> tuple:
        """The arguments of lstm_objective; the gradient is with respect to the first two."""
        return self.main_params, self.extra_params, self.state, self.sequence

    def args_rows(self) -> tuple:
        """The arguments of lstm_objective_rows (gates a reshape of main_params: the gradient
        of main_params is the gradient of gates reshaped back)."""
        return self.gates(), self.extra_params, self.state, self.sequence

    def gates(self) -> np.ndarray:
        return self.main_params.reshape(-1, self.sequence.shape[1])


def load_lstm(path, max_chars: int | None = None) -> Lstm:
    """The LSTM file at path; max_chars keeps the first characters of the sequence."""
    with open(path) as f:
        rows = [line.split() for line in f if line.strip()]
    l, c, b = (int(t) for t in rows[0])
    arrays, at = [], 1
    for count, width in ((2 * l, 4 * b), (3, b), (2 * l, b), (c, b)):
        block = rows[at:at + count]
        if len(block) != count or any(len(r) != width for r in block):
            raise ValueError(f"{path}: expected {count} lines of {width} numbers at line {at + 1} (l={l}, c={c}, b={b})")
        arrays.append(np.array([[float(t) for t in r] for r in block]))
        at += count
    if at != len(rows):
        raise ValueError(f"{path}: {len(rows) - at} lines after the sequence")
    main, extra, state, seq = arrays
    if max_chars is not None:
        seq = seq[:max_chars]
    return Lstm(main, extra, state, np.ascontiguousarray(seq))
