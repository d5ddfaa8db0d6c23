"""Character-level vanilla RNN: forward and backward through time, Adagrad, in loops."""

import numpy as onp

TEXT = "the quick brown fox jumps over the lazy dog while the cat sleeps. "


def inputs(tiny=False):
    chars = sorted(set(TEXT))
    ids = onp.array([chars.index(ch) for ch in TEXT * 8])
    V, H = len(chars), (8 if tiny else 32)
    rng = onp.random.RandomState(7)
    params = {"Wxh": rng.randn(H, V) * 0.01, "Whh": rng.randn(H, H) * 0.01,
              "Why": rng.randn(V, H) * 0.01}
    return {"ids": ids, "params": params, "seq_len": 5 if tiny else 16,
            "updates": 2 if tiny else 20}


def run(np, ids, params, seq_len, updates, lr=0.1):
    ids = [int(i) for i in ids]
    Wxh, Whh, Why = (np.array(params[k]) for k in ("Wxh", "Whh", "Why"))
    H, V = Wxh.shape
    bh, by = np.zeros((H, 1)), np.zeros((V, 1))
    memory = [np.zeros_like(p) for p in (Wxh, Whh, Why, bh, by)]
    h_prev = np.zeros((H, 1))
    losses = []
    pos = 0
    for _ in range(updates):
        inputs = ids[pos:pos + seq_len]
        targets = ids[pos + 1:pos + seq_len + 1]
        xs, hs, ps = {}, {-1: np.copy(h_prev)}, {}
        loss = 0.0
        for t in range(len(inputs)):
            xs[t] = np.zeros((V, 1))
            xs[t][inputs[t]] = 1
            hs[t] = np.tanh(np.dot(Wxh, xs[t]) + np.dot(Whh, hs[t - 1]) + bh)
            ys = np.dot(Why, hs[t]) + by
            ps[t] = np.exp(ys) / np.sum(np.exp(ys))
            loss += -np.log(ps[t][targets[t], 0])
        dWxh, dWhh, dWhy = np.zeros_like(Wxh), np.zeros_like(Whh), np.zeros_like(Why)
        dbh, dby = np.zeros_like(bh), np.zeros_like(by)
        dh_next = np.zeros_like(hs[0])
        for t in reversed(range(len(inputs))):
            dy = np.copy(ps[t])
            dy[targets[t]] -= 1
            dWhy += np.dot(dy, hs[t].T)
            dby += dy
            dh = np.dot(Why.T, dy) + dh_next
            dh_raw = (1 - hs[t] * hs[t]) * dh
            dbh += dh_raw
            dWxh += np.dot(dh_raw, xs[t].T)
            dWhh += np.dot(dh_raw, hs[t - 1].T)
            dh_next = np.dot(Whh.T, dh_raw)
        for dparam in (dWxh, dWhh, dWhy, dbh, dby):
            np.clip(dparam, -5, 5, out=dparam)
        for param, dparam, mem in zip((Wxh, Whh, Why, bh, by),
                                      (dWxh, dWhh, dWhy, dbh, dby), memory):
            mem += dparam * dparam
            param += -lr * dparam / np.sqrt(mem + 1e-8)
        h_prev = hs[len(inputs) - 1]
        losses.append(float(loss))
        pos += seq_len
    return Wxh, Whh, Why, bh, by, np.array(losses)
