"""Validated records of the Bayesian tree models' priors and sampler settings.

They group what would otherwise be long argument lists: :class:`TreePrior` for
:class:`TreePosterior` and the estimators, :class:`RJHMCSettings` for
:func:`rjhmc_chain` and the estimators, :class:`CGMPrior` for :func:`cgm_chain`.
Each is a frozen dataclass that checks its fields when it is made, so a bad value
fails at once with an error naming the field.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from .._validation import check_int, check_option, check_real

__all__ = ["TreePrior", "RJHMCSettings", "CGMPrior"]

# Table 4 of Cochrane et al. (CGM data): h_init -> h_final per method
_DEFAULT_H = {"hmc-df": (0.001, 0.001), "hmc-dfi": (0.01, 0.001)}


def _set(record, name, value):
    object.__setattr__(record, name, value)


def _check_probs(p, name, n=3, names="[grow, prune, stay]"):
    """``p`` as a tuple of ``n`` floats: non-negative, summing to 1, grow and prune positive."""
    try:
        arr = np.asarray(p, dtype=np.float64)
    except (TypeError, ValueError):
        raise TypeError(f"{name} must be {n} floats {names}, got {p!r}.") from None
    if arr.shape != (n,) or not np.all(np.isfinite(arr)) or np.any(arr < 0) or arr[0] <= 0 or arr[1] <= 0:
        raise ValueError(f"{name} must be {n} non-negative probabilities {names} with grow, prune > 0, "
                         f"got {p!r}.")
    if abs(arr.sum() - 1.0) > 1e-8:
        raise ValueError(f"{name} must sum to 1, got {arr.sum()}.")
    return tuple(float(v) for v in arr)


def _check_split_prior(record):
    _set(record, "alpha", check_real(record.alpha, "alpha", min_val=0.0, max_val=1.0,
                                     include_boundaries="neither"))
    _set(record, "beta", check_real(record.beta, "beta", min_val=0.0))


@dataclasses.dataclass(frozen=True)
class TreePrior:
    """Prior of an RJHMC-Tree model (HMC-DF / HMC-DFI), §3.3 of Cochrane et al.

    Parameters
    ----------
    alpha, beta : float, default=0.45, 2.5
        Tree-topology prior: a node at depth d splits with probability α(1+d)^−β
        (``0 < alpha < 1``, ``beta >= 0``; the paper's values for the CGM data).
    mu_loc, mu_scale : float, default=0.0, 1.0
        Leaf values μ_k ~ N(mu_loc, mu_scale²) (regression).
    sigma_a, sigma_b : float, default=1.5, 1.5
        Noise σ ~ InverseGamma(sigma_a, sigma_b) (regression).

    Examples
    --------
    >>> TreePrior(alpha=0.5)
    TreePrior(alpha=0.5, beta=2.5, mu_loc=0.0, mu_scale=1.0, sigma_a=1.5, sigma_b=1.5)
    >>> TreePrior(alpha=1.5)
    Traceback (most recent call last):
    ...
    ValueError: alpha == 1.5, must be < 1.0.
    """

    alpha: float = 0.45
    beta: float = 2.5
    mu_loc: float = 0.0
    mu_scale: float = 1.0
    sigma_a: float = 1.5
    sigma_b: float = 1.5

    def __post_init__(self):
        _check_split_prior(self)
        _set(self, "mu_loc", check_real(self.mu_loc, "mu_loc"))
        for name in ("mu_scale", "sigma_a", "sigma_b"):
            _set(self, name, check_real(getattr(self, name), name, min_val=0.0, include_boundaries="neither"))


@dataclasses.dataclass(frozen=True)
class RJHMCSettings:
    """Settings of the RJHMC-Tree sampler (Algorithm 1 of Cochrane et al.).

    Parameters
    ----------
    k_warmup : int, default=500
        NUTS warm-up steps on each side of every jump (one draw follows).
    h_init, h_final : float or None, default=None
        Split-softness schedule (Eq. 20), h decreasing from ``h_init`` to ``h_final`` during
        each NUTS warm-up. ``None`` takes Table 4's value for the method (CGM data): HMC-DF
        0.001 → 0.001, HMC-DFI 0.01 → 0.001.
    warmup_probs, sampling_probs : sequence of 3 floats, default=(0.5, 0.25, 0.25), (0.2, 0.2, 0.6)
        Move probabilities ``[p_grow, p_prune, p_stay]`` in burn-in and after it.
    max_tree_depth : int, default=10
        NUTS tree-depth limit.
    target_accept : float, default=0.8
        Target acceptance statistic of NUTS's step-size adaptation.
    prune_start : {"paper", "reference"}, default="paper"
        Where the NUTS run after a prune starts: the paper's rule (every surviving node keeps
        its own values) or the authors' code's positional copy (see ``rjhmc_chain``).
    step_size_search : bool, default=True
        NUTS picks its first step size, and re-picks it after every mass-matrix window, with
        Stan's doubling heuristic. ``False`` reproduces NumPyro's default, which the authors'
        code uses: dual averaging starts from step size 1 and keeps its value across windows.
    split_index_update : {"gibbs", "random_walk"}, default="gibbs"
        HMC-DF: how each split index is updated (in random order) before every NUTS
        transition. ``"gibbs"``: Liu's Metropolised Gibbs step, which proposes from the
        conditional without the current feature (p − 1 density evaluations per split).
        ``"random_walk"``: the authors' code's NumPyro ``DiscreteHMCGibbs(random_walk=True)``,
        which proposes a feature uniformly from all p and accepts by the Metropolis ratio (one
        evaluation per split, slower mixing). Both leave the same posterior invariant.
    step_size : float, default=1.0
        NUTS's initial step size (NumPyro's default, which the authors' code uses): where the
        doubling heuristic or dual averaging starts. With ``k_warmup=0`` nothing is adapted and
        every NUTS transition uses this step size (and a unit mass matrix); each NUTS leg is then
        exactly reversible, which is what the exact-posterior tests use.

    Examples
    --------
    >>> s = RJHMCSettings(k_warmup=100, h_init=0.05, h_final=0.01)
    >>> s.softness(use_simplex=False), RJHMCSettings().softness(use_simplex=True)
    ((0.05, 0.01), (0.01, 0.001))
    >>> RJHMCSettings(sampling_probs=(0.5, 0.5, 0.5))
    Traceback (most recent call last):
    ...
    ValueError: sampling_probs must sum to 1, got 1.5.
    """

    k_warmup: int = 500
    h_init: float | None = None
    h_final: float | None = None
    warmup_probs: tuple = (0.5, 0.25, 0.25)
    sampling_probs: tuple = (0.2, 0.2, 0.6)
    max_tree_depth: int = 10
    target_accept: float = 0.8
    prune_start: str = "paper"
    step_size_search: bool = True
    split_index_update: str = "gibbs"
    step_size: float = 1.0

    def __post_init__(self):
        _set(self, "k_warmup", check_int(self.k_warmup, "k_warmup", min_val=0, max_val=10**6))
        for name in ("h_init", "h_final"):
            if getattr(self, name) is not None:
                _set(self, name, check_real(getattr(self, name), name, min_val=0.0, include_boundaries="neither"))
        _set(self, "warmup_probs", _check_probs(self.warmup_probs, "warmup_probs"))
        _set(self, "sampling_probs", _check_probs(self.sampling_probs, "sampling_probs"))
        _set(self, "max_tree_depth", check_int(self.max_tree_depth, "max_tree_depth", min_val=1, max_val=30))
        _set(self, "target_accept", check_real(self.target_accept, "target_accept", min_val=0.0, max_val=1.0,
                                               include_boundaries="neither"))
        if not isinstance(self.prune_start, str):
            raise TypeError(f"prune_start must be 'paper' or 'reference', got {self.prune_start!r}.")
        check_option(self.prune_start, "prune_start", {"paper", "reference"})
        if not isinstance(self.step_size_search, (bool, np.bool_)):
            raise TypeError(f"step_size_search must be True or False, got {self.step_size_search!r}.")
        _set(self, "step_size_search", bool(self.step_size_search))
        if not isinstance(self.split_index_update, str):
            raise TypeError(f"split_index_update must be 'gibbs' or 'random_walk', got {self.split_index_update!r}.")
        check_option(self.split_index_update, "split_index_update", {"gibbs", "random_walk"})
        _set(self, "step_size", check_real(self.step_size, "step_size", min_val=0.0, max_val=1e6,
                                           include_boundaries="right"))

    def softness(self, use_simplex):
        """``(h_init, h_final)`` for HMC-DFI (``use_simplex=True``) or HMC-DF, defaults filled in."""
        h0, h1 = _DEFAULT_H["hmc-dfi" if use_simplex else "hmc-df"]
        return (h0 if self.h_init is None else self.h_init, h1 if self.h_final is None else self.h_final)


@dataclasses.dataclass(frozen=True)
class CGMPrior:
    """Prior of the Chipman–George–McCulloch (1998) Bayesian CART model (:func:`cgm_chain`).

    Parameters
    ----------
    alpha, beta : float, default=0.45, 2.5
        A node at depth d with an available split splits with probability α(1+d)^−β.
    nu, lam : float, default=3.0, None
        Noise σ² ~ InverseGamma(ν/2, νλ/2); ``lam=None`` uses var(y) (regression).
    a, mubar : float, default=1/3, None
        Leaf means μ_i ~ N(μ̄, σ²/a); ``mubar=None`` uses mean(y) (regression).
    class_alpha : float, default=1.0
        Dirichlet concentration of the leaves' class probabilities (classification).

    Examples
    --------
    >>> CGMPrior(alpha=0.95, beta=1.0).nu
    3.0
    >>> CGMPrior(lam=-1.0)
    Traceback (most recent call last):
    ...
    ValueError: lam == -1.0, must be > 0.0.
    """

    alpha: float = 0.45
    beta: float = 2.5
    nu: float = 3.0
    lam: float | None = None
    a: float = 1.0 / 3.0
    mubar: float | None = None
    class_alpha: float = 1.0

    def __post_init__(self):
        _check_split_prior(self)
        for name in ("nu", "a", "class_alpha"):
            _set(self, name, check_real(getattr(self, name), name, min_val=0.0, include_boundaries="neither"))
        if self.lam is not None:
            _set(self, "lam", check_real(self.lam, "lam", min_val=0.0, include_boundaries="neither"))
        if self.mubar is not None:
            _set(self, "mubar", check_real(self.mubar, "mubar"))
