"""Convergence diagnostics for MCMC chains: split R-hat and effective sample size.

Both follow Gelman et al., *Bayesian Data Analysis* (3rd ed., §11.4–11.5) as Stan
computes them (without rank normalisation): every chain is split into two halves, so a
chain that drifts counts as two chains that disagree.

* **Split R-hat.** With ``m`` half-chains of ``n`` draws, ``W`` the mean within-half
  variance and ``B/n`` the variance of the half-chain means,
  ``R = sqrt(((n − 1)/n · W + B/n) / W)``. Values near 1 mean the halves agree; the
  usual warning level is 1.01 (Vehtari et al. 2021) or, more leniently, 1.1.
* **Effective sample size.** ``ESS = m n / τ`` with the integrated autocorrelation time
  ``τ = −1 + 2 Σ_k (ρ̂_{2k} + ρ̂_{2k+1})``, the autocorrelations ``ρ̂_t = 1 − (W − Ĉ_t)/var⁺``
  combining the chains (``Ĉ_t`` the mean autocovariance at lag t), and the sum truncated by
  Geyer's initial positive and monotone sequence.
"""

from __future__ import annotations

import numpy as np

__all__ = ["split_rhat", "effective_sample_size"]


def _as_chains(x, name="x"):
    if x is None:
        raise TypeError(f"{name} must be an array of shape (n_chains, n_draws), got None.")
    try:
        np.asarray(x)
    except ValueError:
        raise ValueError(f"{name} is ragged: every chain needs the same number of draws; trim them to the shortest "
                         f"(e.g. np.array([c[:n] for c in chains]) with n the shortest length).") from None
    if np.iscomplexobj(x) or (hasattr(x, "dtype") and np.dtype(x.dtype).kind == "c"):
        # NumPy would drop the imaginary parts with only a ComplexWarning; draws of a real
        # quantity are real, so complex input is a mistake upstream, not something to truncate
        raise TypeError(f"{name} has complex values (dtype {np.asarray(x).dtype}); diagnostics need real draws: "
                        f"pass the real quantity (e.g. {name}.real or abs({name})) explicitly.")
    try:
        arr = np.asarray(x, dtype=np.float64)
    except (TypeError, ValueError):
        raise TypeError(f"{name} must be a numeric array of shape (n_chains, n_draws).") from None
    if arr.ndim == 1:
        arr = arr[None, :]
    if arr.ndim != 2:
        raise ValueError(f"{name} must have shape (n_chains, n_draws) (or (n_draws,) for one chain), "
                         f"got shape {arr.shape}.")
    if arr.shape[0] < 1 or arr.shape[1] < 4:
        raise ValueError(f"{name} needs at least one chain of at least 4 draws, got shape {arr.shape}.")
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} contains NaN or infinity; diagnostics need finite draws.")
    # R-hat and the ESS do not change under an affine map of the draws: centre and scale them so that
    # draws of any magnitude (up to ~1e300) give the same finite answer instead of overflowing variances.
    peak = np.max(np.abs(arr))
    arr = arr / peak if peak > 0 else arr
    centred = arr - arr.mean()
    scale = np.max(np.abs(centred))
    return centred / scale if scale > 0 else centred


def _split(arr):
    n = arr.shape[1] // 2
    # an odd middle draw is dropped, as Stan does
    return np.concatenate([arr[:, :n], arr[:, arr.shape[1] - n:]], axis=0)


def _moments(halves):
    n = halves.shape[1]
    W = float(np.mean(np.var(halves, axis=1, ddof=1)))
    B_over_n = float(np.var(np.mean(halves, axis=1), ddof=1)) if halves.shape[0] > 1 else 0.0
    var_plus = (n - 1) / n * W + B_over_n
    return W, var_plus


def split_rhat(x):
    """Split R-hat of draws from one or more chains.

    Parameters
    ----------
    x : array-like of shape (n_chains, n_draws) or (n_draws,)
        Draws of one real scalar quantity (at least 4 per chain), finite; complex draws raise a
        ``TypeError``.

    Returns
    -------
    float
        ≈ 1 when the half-chains agree; ``inf`` when every half-chain is constant but they
        differ, ``nan`` when all draws are equal (nothing to judge).

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> round(split_rhat(rng.normal(size=(4, 1000))), 2)
    1.0
    >>> split_rhat(np.r_[np.zeros(50), np.ones(50)]) > 1.1  # a chain that jumped once
    True
    """
    halves = _split(_as_chains(x))
    W, var_plus = _moments(halves)
    if W == 0.0:
        return float("nan") if var_plus == 0.0 else float("inf")
    return float(np.sqrt(var_plus / W))


def _autocovariance(halves):
    """Mean over half-chains of the biased autocovariance at lags 0..n−1 (FFT)."""
    m, n = halves.shape
    z = halves - halves.mean(axis=1, keepdims=True)
    size = 1 << int(np.ceil(np.log2(2 * n)))
    f = np.fft.rfft(z, n=size, axis=1)
    acov = np.fft.irfft(f * np.conj(f), n=size, axis=1)[:, :n] / n
    return acov.mean(axis=0)


def effective_sample_size(x):
    """Effective sample size of draws from one or more chains (split chains, Geyer truncation).

    Parameters
    ----------
    x : array-like of shape (n_chains, n_draws) or (n_draws,)
        The draws, as for :func:`split_rhat`.

    Returns
    -------
    float
        Between 0 and about ``n_chains * n_draws`` (antithetic chains can exceed it); ``nan``
        when all draws are equal.

    Examples
    --------
    >>> rng = np.random.default_rng(1)
    >>> ess = effective_sample_size(rng.normal(size=(4, 1000)))
    >>> 3500 < ess < 4500
    True
    """
    halves = _split(_as_chains(x))
    m, n = halves.shape
    W, var_plus = _moments(halves)
    if var_plus == 0.0:
        return float("nan")
    if W == 0.0:  # constant half-chains that disagree: no information beyond one draw per half
        return float(m)
    acov = _autocovariance(halves)
    # W uses ddof=1; the autocovariances are biased (divide by n); rho_0 = 1 - (W - acov_0)/var_plus
    rho = 1.0 - (W - acov) / var_plus
    rho[0] = 1.0
    # Geyer's initial positive sequence of pair sums P_k = rho_2k + rho_2k+1, made monotone
    total = 0.0
    prev = np.inf
    for k in range(0, n - 1, 2):
        pair = rho[k] + rho[k + 1]
        if pair < 0.0:
            break
        pair = min(pair, prev)
        total += pair
        prev = pair
    tau = max(-1.0 + 2.0 * total, 1.0 / np.log10(m * n))  # Stan's floor against antithetic blow-up
    return float(m * n / tau)
