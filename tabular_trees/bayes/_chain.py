"""Records the chains return and report: :class:`ChainResult` (one chain's output) and :class:`ChainStep`
(one iteration, passed to an observer), shared by :func:`rjhmc_chain` and :func:`cgm_chain`."""

from __future__ import annotations

import dataclasses
import warnings

import numpy as np

from .._validation import check_int

__all__ = ["ChainResult", "ChainStep"]


@dataclasses.dataclass(frozen=True, eq=False)
class ChainResult:
    """One chain's output (``rjhmc_chain`` and ``cgm_chain``): kept samples and per-iteration traces.

    Read the fields as attributes (``result.n_leaves``); reading them by key (``result["n_leaves"]``),
    as earlier versions did, still works but warns (``DeprecationWarning``).

    Attributes
    ----------
    trees : list of SoftTree
        Kept samples (after burn-in), constrained parameters.
    sigmas : ndarray of shape (n_kept,)
        Noise standard deviation of each kept sample (NaN for classification and CGM).
    leaf_probs : list of ndarray
        Classification: leaf class probabilities of each kept sample.
    n_leaves, log_posterior, move, accepted, log_alpha, divergences, divergences_warmup : ndarray of shape (n_iter,)
        Per-iteration traces (divergences summed over the iteration's NUTS runs); ``move`` codes (named in ``_codes``: ``MOVE_NAMES[code]``) are
        0 grow, 1 prune, 2 stay (RJHMC) and 3 change, 4 swap (CGM); ``log_alpha`` is the log
        acceptance ratio of the iteration's proposal (NaN where none was evaluated).
    h : float
        Split softness of the kept samples (NaN for CGM's hard trees).
    visited : list
        ``record_topologies=True``: the (current, proposed) trees of every iteration.

    Examples
    --------
    >>> r = ChainResult(trees=[], sigmas=np.zeros(0), leaf_probs=[], n_leaves=np.array([1, 2]),
    ...                 log_posterior=np.zeros(2), move=np.zeros(2, int), accepted=np.ones(2, bool),
    ...                 log_alpha=np.zeros(2), divergences=np.zeros(2, int), divergences_warmup=np.zeros(2, int),
    ...                 h=0.01)
    >>> r.n_leaves
    array([1, 2])
    """

    trees: list
    sigmas: np.ndarray
    leaf_probs: list
    n_leaves: np.ndarray
    log_posterior: np.ndarray
    move: np.ndarray
    accepted: np.ndarray
    log_alpha: np.ndarray
    divergences: np.ndarray
    divergences_warmup: np.ndarray
    h: float
    visited: list = dataclasses.field(default_factory=list)

    def __getitem__(self, key):
        if not isinstance(key, str) or key not in self.__dataclass_fields__:
            raise KeyError(f"{key!r} is not a field of ChainResult; fields: {sorted(self.__dataclass_fields__)}.")
        warnings.warn(f"ChainResult[{key!r}] is deprecated; read the attribute instead: result.{key}.",
                      DeprecationWarning, stacklevel=2)
        return getattr(self, key)

    def keys(self):
        """The field names (what key access, deprecated, accepts)."""
        return list(self.__dataclass_fields__)


@dataclasses.dataclass(frozen=True)
class ChainStep:
    """What a chain reports to its observer after each iteration (``observer(step)``).

    Attributes
    ----------
    iteration : int
        Iteration number, from 0.
    burn_in : bool
        Whether the iteration is part of burn-in.
    move : str
        The move made: "grow", "prune", "stay" (RJHMC; a prune of a single leaf becomes a stay)
        or "grow", "prune", "change", "swap" (CGM).
    current_leaves : int
        Leaves of the tree the move was proposed from (the chain's tree at the start of the iteration).
    proposed_leaves : int or None
        Leaves of the proposed tree (None where CGM could not make the move).
    accepted : bool
        Whether the proposal was accepted; the chain's tree after the iteration has
        ``proposed_leaves`` leaves if so and ``current_leaves`` otherwise.
    log_alpha : float
        Log acceptance ratio (NaN where none was evaluated).
    nuts : tuple of NUTSStats
        RJHMC: the statistics of the iteration's NUTS runs (on the current tree, then on the
        proposal), each with ``n_leapfrog``, ``step_size``, ``divergences``, ``seconds``, ...;
        one run only after burn-in when the proposal was rejected (Eq. 18 does not use the
        proposal's run, so it is skipped); empty for CGM.
    seconds : float
        Wall time of the iteration.

    Examples
    --------
    >>> s = ChainStep(iteration=0, burn_in=True, move="grow", current_leaves=2, proposed_leaves=3, accepted=False,
    ...               log_alpha=-1.5, nuts=(), seconds=0.01)
    >>> s.proposed_leaves if s.accepted else s.current_leaves
    2
    """

    iteration: int
    burn_in: bool
    move: str
    current_leaves: int
    proposed_leaves: int | None
    accepted: bool
    log_alpha: float
    nuts: tuple
    seconds: float


def _check_observer(observer):
    if observer is not None and not callable(observer):
        raise TypeError(f"observer must be a callable taking a ChainStep, or None, got {observer!r}.")
    return observer


def _class_count(y, n_classes):
    """The number of classes M (``n_classes``, default ``y.max() + 1``) of integer class codes ``y``, checking
    that every code lies in 0..M−1."""
    M = int(y.max()) + 1 if n_classes is None else check_int(n_classes, "n_classes", min_val=2)
    if y.min() < 0 or y.max() >= M:
        bound = f"0..{M - 1} (n_classes={M})" if n_classes is not None else "0, 1, 2, ... (non-negative)"
        raise ValueError(
            f"y has class codes from {int(y.min())} to {int(y.max())}, but classification needs integer "
            f"codes in {bound}; encode the labels with classes, y = numpy.unique(y, return_inverse=True) first."
        )
    return M
