"""Monte Carlo: pi from darts in batches, and random walks' first passage times."""


def inputs(tiny=False):
    return {"seed": 0, "batches": 3 if tiny else 200, "batch": 500, "walkers": 5 if tiny else 300,
            "steps": 400}


def run(np, seed, batches, batch, walkers, steps, barrier=10):
    rng = np.random.default_rng(seed)
    inside = 0
    estimates = []
    for i in range(batches):
        x = rng.random(batch)
        y = rng.random(batch)
        inside += np.count_nonzero(x * x + y * y <= 1.0)
        estimates.append(4.0 * inside / ((i + 1) * batch))
    walk_steps = rng.choice([-1, 1], size=(walkers, steps))
    paths = np.cumsum(walk_steps, axis=1)
    first_passage = np.full(walkers, -1)
    for w in range(walkers):
        hit = np.abs(paths[w]) >= barrier
        if hit.any():
            first_passage[w] = np.argmax(hit)
    # a Gaussian random walk with drift, one scalar step at a time
    position, path_max = 0.0, 0.0
    for _ in range(steps):
        position += 0.01 + rng.normal()
        path_max = max(path_max, position)
    return np.array(estimates), first_passage, paths.mean(axis=0), position, path_max
