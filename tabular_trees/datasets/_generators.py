"""The data sets generated exactly, in code: the lecture's sine data, the UCI tic-tac-toe endgame set,
the CGM data as RJHMC-Tree uses it and the decision-tree-embedding mixture of Shen et al.

Re-exported by :mod:`tabular_trees.datasets` (import them from there).
"""

from __future__ import annotations

import numpy as np

from .._validation import as_finite_array, as_float_matrix, check_int, check_option, check_real, check_seed

__all__ = [
    "make_sine",
    "sine_function",
    "make_tic_tac_toe",
    "make_cgm",
    "cgm_tree_function",
    "make_dte_mixture",
    "DTE_MIXTURE_MEANS",
]


def sine_function(x):
    """The lecture's regression function ``f(x) = sin(2x) + 0.3 x`` (noise free).

    Parameters
    ----------
    x : array-like of float
        Input values (any shape).

    Returns
    -------
    ndarray
        ``sin(2x) + 0.3 x`` with the shape of ``x``.

    Examples
    --------
    >>> float(sine_function(0.0))
    0.0
    """
    x = as_finite_array(x, "x")
    return np.sin(2.0 * x) + 0.3 * x


def make_sine(n_samples=60, *, noise=0.3, x_range=(0.0, 6.0), design="uniform", random_state=None):
    """The lecture's one-dimensional regression data ``y = sin(2x) + 0.3x + ε``.

    Parameters
    ----------
    n_samples : int, default=60
        Number of points.
    noise : float, default=0.3
        Standard deviation σ of the Gaussian noise ε (σ² is the irreducible error).
    x_range : tuple of two floats, default=(0, 6)
        Interval the inputs are drawn from.
    design : {"uniform", "grid"}, default="uniform"
        ``"uniform"`` draws x i.i.d. uniform on ``x_range``; ``"grid"`` uses
        equally spaced x (as the lecture's interactive demo does).
    random_state : int, RandomState instance or None, default=None
        Seed of the noise (and of x for ``design="uniform"``).

    Returns
    -------
    X : ndarray of shape (n_samples, 1)
        Inputs, sorted increasingly for ``design="grid"``.
    y : ndarray of shape (n_samples,)
        Noisy targets.

    Examples
    --------
    >>> X, y = make_sine(n_samples=5, random_state=0)
    >>> X.shape, y.shape
    ((5, 1), (5,))
    """
    n_samples = check_int(n_samples, "n_samples", min_val=1)
    noise = check_real(noise, "noise", min_val=0.0)
    check_option(design, "design", {"uniform", "grid"})
    try:
        low, high = (float(v) for v in x_range)
    except (TypeError, ValueError):
        raise TypeError(f"x_range must be a pair of floats (low, high), got {x_range!r}.") from None
    if not (np.isfinite(low) and np.isfinite(high) and low < high):
        raise ValueError(f"x_range must satisfy low < high with finite values, got {x_range!r}.")
    rng = check_seed(random_state)
    if design == "grid":
        x = np.linspace(low, high, n_samples)
    else:
        x = rng.uniform(low, high, size=n_samples)
    y = sine_function(x) + noise * rng.standard_normal(n_samples)
    return x.reshape(-1, 1), y


_WIN_LINES = ((0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6))


def _has_line(board, player):
    return any(board[a] == player and board[b] == player and board[c] == player for a, b, c in _WIN_LINES)


def _terminal_boards():
    """All distinct boards at which a game stops (x starts; stop at three in a row or a full board)."""
    seen = set()
    terminal = set()
    stack = [((0,) * 9, -1)]  # -1 = x to move, +1 = o to move
    while stack:
        board, player = stack.pop()
        if (board, player) in seen:
            continue
        seen.add((board, player))
        for cell in range(9):
            if board[cell] != 0:
                continue
            nxt = board[:cell] + (player,) + board[cell + 1 :]
            if _has_line(nxt, player) or all(v != 0 for v in nxt):
                terminal.add(nxt)
            else:
                stack.append((nxt, -player))
    return sorted(terminal)


def make_tic_tac_toe(*, standardize=False):
    """The UCI tic-tac-toe endgame data set, generated exactly (no download).

    Games start from the empty board with x to move; players alternate and a game
    stops as soon as either player has three in a row or the board is full. The data
    set is the set of *distinct* terminal boards (no symmetry merging): 958 boards,
    626 won by x (label 1) and 332 not (316 won by o, 16 draws).

    Parameters
    ----------
    standardize : bool, default=False
        If True, z-score every column with its ``n - 1`` standard deviation, the
        preprocessing of Fernández-Delgado et al. (2014) used by Kanoh & Sugiyama (2024).

    Returns
    -------
    X : ndarray of shape (958, 9), float64
        Squares in row-major order (top-left … bottom-right) coded x → −1,
        blank → 0, o → +1 (before standardisation).
    y : ndarray of shape (958,), int64
        1 iff x has three in a row.

    Examples
    --------
    >>> X, y = make_tic_tac_toe()
    >>> X.shape, int(y.sum())
    ((958, 9), 626)
    """
    if not isinstance(standardize, (bool, np.bool_)):
        raise TypeError(f"standardize must be a bool, got {type(standardize).__name__}.")
    boards = _terminal_boards()
    X = np.array(boards, dtype=np.float64)
    y = np.array([_has_line(b, -1) for b in boards], dtype=np.int64)
    if standardize:
        X = (X - X.mean(axis=0)) / X.std(axis=0, ddof=1)
    return X, y


def cgm_tree_function(X):
    """Noise-free regression tree of the CGM experiment (five leaves).

    Root ``x1 <= 4.5``; left: ``x0 <= 3.5 → 1``, else ``x0 <= 7.5 → 5``, else ``8``;
    right: ``x0 <= 5.5 → 8``, else ``2``.

    Parameters
    ----------
    X : array-like of shape (n_samples, 2)

    Returns
    -------
    ndarray of shape (n_samples,)

    Examples
    --------
    >>> cgm_tree_function([[1, 1], [9, 9]]).tolist()
    [1.0, 2.0]
    """
    X = as_float_matrix(X, "X")
    if X.shape[1] != 2:
        raise ValueError(f"X must have exactly 2 columns (x0, x1), got {X.shape[1]}.")
    x0, x1 = X[:, 0], X[:, 1]
    left = np.where(x0 <= 3.5, 1.0, np.where(x0 <= 7.5, 5.0, 8.0))
    right = np.where(x0 <= 5.5, 8.0, 2.0)
    return np.where(x1 <= 4.5, left, right)


def make_cgm(n_train=800, n_test=800, *, noise=0.2, random_state=None):
    """The CGM synthetic regression data as RJHMC-Tree (Cochrane et al.) uses it.

    ``x0`` and ``x1`` are integers drawn uniformly from 1..10 and
    ``y = f(x0, x1) + ε`` with the five-leaf tree :func:`cgm_tree_function` and
    ``ε ~ N(0, noise²)``. (Chipman et al. 1998's original version has an extra
    categorical input and noise σ = 2.)

    Parameters
    ----------
    n_train, n_test : int, default=800
        Sizes of the training and test sets.
    noise : float, default=0.2
        Noise standard deviation; the noise-only test MSE is ``noise**2``.
    random_state : int, RandomState instance or None, default=None

    Returns
    -------
    X_train : ndarray of shape (n_train, 2)
    y_train : ndarray of shape (n_train,)
    X_test : ndarray of shape (n_test, 2)
    y_test : ndarray of shape (n_test,)

    Examples
    --------
    >>> Xtr, ytr, Xte, yte = make_cgm(random_state=0)
    >>> Xtr.shape, Xte.shape
    ((800, 2), (800, 2))
    """
    n_train = check_int(n_train, "n_train", min_val=1)
    n_test = check_int(n_test, "n_test", min_val=1)
    noise = check_real(noise, "noise", min_val=0.0)
    rng = check_seed(random_state)
    X = rng.randint(1, 11, size=(n_train + n_test, 2)).astype(np.float64)
    y = cgm_tree_function(X) + noise * rng.standard_normal(n_train + n_test)
    return X[:n_train], y[:n_train], X[n_train:], y[n_train:]


def make_dte_mixture(n_samples=100, *, return_components=False, random_state=None):
    """The two-class Gaussian mixture of Shen, Dong & Priebe (DTE, Fig. 1).

    Class 0 (prior 2/3) is an equal mixture of N((0, 0), 0.3² I) and
    N((0, 3), 0.3² I); class 1 (prior 1/3) is N((1, 2), 0.3² I). (The paper
    calls the classes 1 and 2.)

    Parameters
    ----------
    n_samples : int, default=100
    return_components : bool, default=False
        Also return the mixture component of each sample (0, 1 for class 0's two
        clusters, 2 for class 1) — the "oracle" anchors are the component means.
    random_state : int, RandomState instance or None, default=None

    Returns
    -------
    X : ndarray of shape (n_samples, 2)
    y : ndarray of shape (n_samples,), int64
    components : ndarray of shape (n_samples,), int64
        Only if ``return_components`` is True.

    Examples
    --------
    >>> X, y = make_dte_mixture(10, random_state=0)
    >>> X.shape
    (10, 2)
    """
    n_samples = check_int(n_samples, "n_samples", min_val=1)
    rng = check_seed(random_state)
    means = DTE_MIXTURE_MEANS
    comp = rng.choice(3, size=n_samples, p=[1 / 3, 1 / 3, 1 / 3])
    X = means[comp] + 0.3 * rng.standard_normal((n_samples, 2))
    y = (comp == 2).astype(np.int64)
    if return_components:
        return X, y, comp.astype(np.int64)
    return X, y


#: Component means of :func:`make_dte_mixture` (two for class 0, one for class 1).
DTE_MIXTURE_MEANS = np.array([[0.0, 0.0], [0.0, 3.0], [1.0, 2.0]])
