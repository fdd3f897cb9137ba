"""Validated records of the Bayesian tree models' priors and sampler settings.

They group what would otherwise be long argument lists: :class:`TreePrior` for
:class:`TreePosterior` and the estimators, :class:`RJHMCSettings` for
:func:`rjhmc_chain` and the estimators (and, derived from it, :class:`NUTSSettings` for
:func:`run_tree_nuts`), :class:`CGMPrior` and :class:`CGMSettings` for :func:`cgm_chain`.
Each is a frozen dataclass that checks its fields when it is made, so a bad value
fails at once with an error naming the field.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from .._validation import check_int, check_option, check_real

__all__ = ["TreePrior", "RJHMCSettings", "NUTSSettings", "CGMPrior", "CGMSettings"]

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
        its own values) or the authors' code's positional copy (see ``rjhmc_chain``). Used by the
        notes page on the Bayesian reproduction (book/14) and chapter 10, which compare the recorded
        runs ``rjhmc_long_reference_start`` and ``rjhmc_paper_reference_start`` with the paper's start
        (``benchmarks/reproduce_rjhmc.py --prune-start reference``).
    step_size_search : bool, default=True
        NUTS picks its first step size, and re-picks it after every mass-matrix window, with
        Stan's doubling heuristic. ``False`` reproduces NumPyro's default, which the authors'
        code uses: dual averaging starts from step size 1 and keeps its value across windows.
        Used by the notes page on the Bayesian reproduction (book/14; recorded run
        ``rjhmc_long_numpyro_step_size``, ``reproduce_rjhmc.py --numpyro-step-size``).
    split_index_update : {"gibbs", "random_walk"}, default="gibbs"
        HMC-DF: how each split index is updated (in random order) before every NUTS
        transition. ``"gibbs"``: Liu's Metropolised Gibbs step, which proposes from the
        conditional without the current feature (p − 1 density evaluations per split).
        ``"random_walk"``: the authors' code's NumPyro ``DiscreteHMCGibbs(random_walk=True)``,
        which proposes a feature uniformly from all p and accepts by the Metropolis ratio (one
        evaluation per split, slower mixing). Both leave the same posterior invariant (the
        prior-recovery tests check both). ``"random_walk"`` is used by the notes page on the Bayesian
        reproduction (book/14; recorded run ``rjhmc_long_random_walk_splits``,
        ``reproduce_rjhmc.py --random-walk-splits``).
    step_size : float, default=1.0
        NUTS's initial step size (NumPyro's default, which the authors' code uses): where the
        doubling heuristic or dual averaging starts. With ``k_warmup=0`` nothing is adapted and
        every NUTS transition uses this step size (and a unit mass matrix); each NUTS leg is then
        exactly reversible, which is what the exact-posterior checks of the notes page on the
        Bayesian reproduction (book/14) and of the tests use.
    burnin_leaf_draw : bool, default=False
        Regression, burn-in only (not in the paper or the authors' code): after every proposal,
        draw the proposed tree's leaf values from their Gaussian conditional given its splits and σ
        (the leaves are conjugate) before the second NUTS run, instead of the new leaf's prior draw.
        NUTS at a small softness moves leaf values slowly, so a grow that puts a split in the right
        place is otherwise judged with a leaf value far from its data. Burn-in uses the biased Eq. 19
        and its samples are discarded, so the chain after burn-in is unchanged in law. Used by the
        live miniature of chapter 10 and the notes page on the Bayesian reproduction (book/14;
        recorded run ``rjhmc_miniature_seeds``).

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
    burnin_leaf_draw: bool = False

    def __post_init__(self):
        if not isinstance(self.burnin_leaf_draw, (bool, np.bool_)):
            raise TypeError(f"burnin_leaf_draw must be True or False, got {self.burnin_leaf_draw!r}.")
        _set(self, "burnin_leaf_draw", bool(self.burnin_leaf_draw))
        _set(self, "k_warmup", check_int(self.k_warmup, "k_warmup", min_val=0, max_val=10**6))
        for name in ("h_init", "h_final"):
            if getattr(self, name) is not None:
                _set(self, name, _check_h(getattr(self, name), name))
        _set(self, "warmup_probs", _check_probs(self.warmup_probs, "warmup_probs"))
        _set(self, "sampling_probs", _check_probs(self.sampling_probs, "sampling_probs"))
        _check_nuts_fields(self)
        if not isinstance(self.prune_start, str):
            raise TypeError(f"prune_start must be 'paper' or 'reference', got {self.prune_start!r}.")
        check_option(self.prune_start, "prune_start", {"paper", "reference"})

    def softness(self, use_simplex):
        """``(h_init, h_final)`` for HMC-DFI (``use_simplex=True``) or HMC-DF, defaults filled in."""
        h0, h1 = _DEFAULT_H["hmc-dfi" if use_simplex else "hmc-df"]
        return (h0 if self.h_init is None else self.h_init, h1 if self.h_final is None else self.h_final)

    def nuts(self, use_simplex):
        """The settings of every NUTS run of the chain (:class:`NUTSSettings`), for HMC-DFI or HMC-DF.

        ``n_warmup`` is ``k_warmup`` and ``h_init``, ``h_final`` are :meth:`softness`'s; the other
        NUTS fields are copied.

        Examples
        --------
        >>> RJHMCSettings(k_warmup=100).nuts(use_simplex=True).h_init
        0.01
        """
        h_init, h_final = self.softness(use_simplex)
        return NUTSSettings(n_warmup=self.k_warmup, h_init=h_init, h_final=h_final,
                            **{name: getattr(self, name) for name in _NUTS_FIELDS})


# the fields NUTSSettings shares with RJHMCSettings (validated by _check_nuts_fields for both)
_NUTS_FIELDS = ("max_tree_depth", "target_accept", "step_size", "step_size_search", "split_index_update")


def _check_h(value, name):
    return check_real(value, name, min_val=0.0, include_boundaries="neither")


def _check_nuts_fields(record):
    """Validate (and normalise) the NUTS fields of an ``RJHMCSettings`` or ``NUTSSettings``."""
    _set(record, "max_tree_depth", check_int(record.max_tree_depth, "max_tree_depth", min_val=1, max_val=30))
    _set(record, "target_accept", check_real(record.target_accept, "target_accept", min_val=0.0, max_val=1.0,
                                             include_boundaries="neither"))
    if not isinstance(record.step_size_search, (bool, np.bool_)):
        raise TypeError(f"step_size_search must be True or False, got {record.step_size_search!r}.")
    _set(record, "step_size_search", bool(record.step_size_search))
    if not isinstance(record.split_index_update, str):
        raise TypeError(f"split_index_update must be 'gibbs' or 'random_walk', got {record.split_index_update!r}.")
    check_option(record.split_index_update, "split_index_update", {"gibbs", "random_walk"})
    _set(record, "step_size", check_real(record.step_size, "step_size", min_val=0.0, max_val=1e6,
                                         include_boundaries="right"))


@dataclasses.dataclass(frozen=True)
class NUTSSettings:
    """Settings of one NUTS run (:func:`run_tree_nuts`); a chain derives them with :meth:`RJHMCSettings.nuts`.

    Parameters
    ----------
    n_warmup : int, default=500
        Adaptation steps (step size, diagonal mass matrix, softness ramp) before the draws.
    h_init, h_final : float or None, default=0.01, None
        Split softness at the start and end of warm-up (Eq. 20); ``h_final=None`` means ``h_init``.
    max_tree_depth, target_accept, step_size, step_size_search, split_index_update
        As in :class:`RJHMCSettings`. With ``n_warmup=0`` nothing is adapted and every transition
        uses ``step_size`` and a unit mass matrix.

    Examples
    --------
    >>> NUTSSettings(n_warmup=100, h_init=0.05).h_final
    0.05
    >>> NUTSSettings(h_init=0.0)
    Traceback (most recent call last):
    ...
    ValueError: h_init == 0.0, must be > 0.0.
    """

    n_warmup: int = 500
    h_init: float = 0.01
    h_final: float | None = None
    max_tree_depth: int = 10
    target_accept: float = 0.8
    step_size: float = 1.0
    step_size_search: bool = True
    split_index_update: str = "gibbs"

    def __post_init__(self):
        _set(self, "n_warmup", check_int(self.n_warmup, "n_warmup", min_val=0, max_val=10**6))
        _set(self, "h_init", _check_h(self.h_init, "h_init"))
        _set(self, "h_final", self.h_init if self.h_final is None else _check_h(self.h_final, "h_final"))
        _check_nuts_fields(self)


@dataclasses.dataclass(frozen=True)
class CGMSettings:
    """Settings of the CGM Metropolis–Hastings sampler (:func:`cgm_chain`).

    Parameters
    ----------
    move_probs : sequence of 4 floats, default=(0.25, 0.25, 0.4, 0.1)
        Probabilities of the moves ``[grow, prune, change, swap]`` (grow and prune positive).

    Examples
    --------
    >>> CGMSettings().move_probs
    (0.25, 0.25, 0.4, 0.1)
    >>> CGMSettings(move_probs=(1, 0, 0, 0))
    Traceback (most recent call last):
    ...
    ValueError: move_probs must be 4 non-negative probabilities [grow, prune, change, swap] with grow, prune > 0, got (1, 0, 0, 0).
    """

    move_probs: tuple = (0.25, 0.25, 0.4, 0.1)

    def __post_init__(self):
        _set(self, "move_probs", _check_probs(self.move_probs, "move_probs", 4, "[grow, prune, change, swap]"))


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
