"""PCA by the covariance matrix's eigh and by the SVD, over bootstrap resamples."""

import numpy as onp


def inputs(tiny=False):
    rng = onp.random.RandomState(4)
    n, d = (20, 4) if tiny else (200, 10)
    latent = rng.randn(n, 3)
    X = latent @ rng.randn(3, d) + 0.1 * rng.randn(n, d)
    samples = rng.randint(0, n, size=(2 if tiny else 80, n))
    return {"X": X, "samples": samples, "n_components": 3}


def run(np, X, samples, n_components):
    X = np.asarray(X)
    samples = np.asarray(samples)
    ratios_eigh, ratios_svd, comps = [], [], []
    for idx in samples:
        Xb = X[idx]
        Xc = Xb - Xb.mean(axis=0)
        cov = Xc.T @ Xc / (Xc.shape[0] - 1)
        evals, evecs = np.linalg.eigh(cov)
        order = np.argsort(evals)[::-1]
        evals = evals[order]
        evecs = evecs[:, order]
        ratios_eigh.append(evals[:n_components] / evals.sum())
        U, S, Vt = np.linalg.svd(Xc, full_matrices=False)
        var = S ** 2 / (Xc.shape[0] - 1)
        ratios_svd.append(var[:n_components] / var.sum())
        top = Vt[:n_components]
        signs = np.sign(top[np.arange(n_components), np.argmax(np.abs(top), axis=1)])
        comps.append(top * signs[:, None])
        projected = Xc @ evecs[:, :n_components]
    ratios_eigh = np.array(ratios_eigh)
    return ratios_eigh.mean(axis=0), np.array(ratios_svd).mean(axis=0), \
        np.mean(comps, axis=0), np.var(projected, axis=0, ddof=1)
