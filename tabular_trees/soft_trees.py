r"""Finite ensembles of soft decision trees, their empirical NTK and gradient-descent training.

The model is the one of Kanoh & Sugiyama (2024, §2.1). Node :math:`n` of tree :math:`m` sends
a sample to its left child with probability :math:`\sigma(\mathbf w_{m,n}^\top\mathbf x+\beta b_{m,n})`,
:math:`\sigma(c)=\tfrac12\operatorname{erf}(\alpha c)+\tfrac12`; leaf :math:`\ell` holds a value
:math:`\pi_{m,\ell}` and is reached with probability :math:`\mu_{m,\ell}(\mathbf x)`, the product of
the routing probabilities along its path (Eq. 1). The ensemble output is

.. math:: f(\mathbf x) = \frac1{\sqrt M}\sum_{m=1}^M\sum_\ell \pi_{m,\ell}\,\mu_{m,\ell}(\mathbf x).

All parameters start i.i.d. :math:`N(0,1)`. Three constraints on the split weights are supported:

* ``"oblique"``: every coordinate of :math:`\mathbf w_{m,n}` is initialised and trained;
* ``"AAA"`` (always axis-aligned): only the coordinates of the node's split features are non-zero
  at initialisation and only those are trained;
* ``"AAI"`` (axis-aligned at initialisation): initialised as AAA, but every coordinate is trained.

Gradients are analytic (no autodiff framework). The empirical NTK is
:math:`\hat\Theta(\mathbf x,\mathbf x')=\langle\partial_\theta f(\mathbf x),\partial_\theta f(\mathbf x')\rangle`,
computed from the per-node sensitivities without forming the Jacobian.

Tree architectures are nested tuples: a leaf is ``None``, a split is ``(split, left, right)`` with
``split`` a feature index, a tuple of feature indices, or ``None`` (for axis-aligned modes: a
feature drawn uniformly at random for every tree; ignored in oblique mode).
"""

from __future__ import annotations

import math
import numbers
import warnings

import numpy as np
from scipy.special import erf
from sklearn.base import BaseEstimator, RegressorMixin
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils.validation import check_is_fitted

from ._validation import (
    Integer,
    Options,
    RandomState,
    Real,
    as_kernel_matrix,
    as_regression_target,
    check_int,
    check_finite_result,
    check_magnitude,
    check_option,
    check_params,
    check_real,
    check_seed,
    require_y,
    validate_X,
)

__all__ = ["perfect_tree", "SoftTreeEnsemble", "SoftTreeRegressor"]

_MODES = ("AAA", "AAI", "oblique")


def perfect_tree(features):
    """Nested description of a perfect binary tree using ``features[d]`` at every node of depth ``d``.

    The nodes do *not* share parameters (each node has its own weights); the limiting NTK equals
    that of the oblivious tree with the same features.

    Parameters
    ----------
    features : tuple
        One split per depth (int, tuple of int, or None for a random feature per node).

    Returns
    -------
    tree : tuple

    Examples
    --------
    >>> perfect_tree((0, 1))
    (0, (1, None, None), (1, None, None))
    """
    if isinstance(features, (str, bytes)) or not hasattr(features, "__iter__"):
        raise TypeError(f"features must be a tuple with one split per depth, got {features!r}.")
    feats = tuple(features)
    if not feats:
        raise ValueError("features is empty; a tree needs depth >= 1.")
    if len(feats) > 20:
        raise ValueError("depth above 20 is not supported.")

    def build(d):
        if d == len(feats):
            return None
        return (feats[d], build(d + 1), build(d + 1))

    return build(0)


def _compile_tree(tree, n_features):
    """Nested tuple -> (list of splits, list of leaf paths [(node, is_left), ...])."""
    if tree is None:
        raise ValueError("a tree must have a split at its root; got a lone leaf (None).")
    splits = []
    leaves = []

    def walk(node, path, depth):
        if depth > 20:
            raise ValueError("trees deeper than 20 levels are not supported.")
        if node is None:
            leaves.append(tuple(path))
            return
        if not isinstance(node, tuple) or len(node) != 3:
            raise TypeError(f"tree nodes must be None (leaf) or a 3-tuple (split, left, right), got {node!r}.")
        split, left, right = node
        splits.append(_norm_split(split, n_features))
        k = len(splits) - 1
        walk(left, path + [(k, True)], depth + 1)
        walk(right, path + [(k, False)], depth + 1)

    walk(tree, [], 0)
    return splits, leaves


def _norm_split(split, n_features):
    if split is None:
        return None
    if isinstance(split, (numbers.Integral, np.integer)) and not isinstance(split, (bool, np.bool_)):
        split = (split,)
    if isinstance(split, (str, bytes)) or not hasattr(split, "__iter__"):
        raise TypeError(f"a split must be a feature index, a tuple of indices or None, got {split!r}.")
    out = []
    for s in split:
        if isinstance(s, (bool, np.bool_)) or not isinstance(s, (numbers.Integral, np.integer)):
            raise TypeError(f"feature indices must be ints, got {s!r}.")
        if not 0 <= int(s) < n_features:
            raise ValueError(f"feature index {int(s)} is out of range for {n_features} features (0..{n_features - 1}).")
        out.append(int(s))
    if not out:
        raise ValueError("a split uses no feature; give at least one feature index.")
    if len(set(out)) != len(out):
        raise ValueError(f"split {split!r} repeats a feature.")
    return tuple(sorted(out))


def _sigma(z, alpha):
    return 0.5 * erf(alpha * z) + 0.5


def _sigma_dot(z, alpha):
    return (alpha / math.sqrt(math.pi)) * np.exp(-(alpha * z) ** 2)


class _Arch:
    """One architecture's structure and parameters within an ensemble."""

    def __init__(self, splits, leaves, n_trees, n_features, mode, rng):
        self.splits = splits
        self.leaves = leaves
        N, L, M, F = len(splits), len(leaves), n_trees, n_features
        active = np.zeros((M, N, F), dtype=bool)
        if mode == "oblique":
            active[:] = True
        else:
            for k, s in enumerate(splits):
                if s is None:
                    active[np.arange(M), k, rng.randint(0, F, size=M)] = True
                else:
                    active[:, k, list(s)] = True
        W = rng.standard_normal((M, N, F))
        self.W = np.where(active, W, 0.0)
        self.b = rng.standard_normal((M, N))
        self.pi = rng.standard_normal((M, L))
        self.mask = np.ones((M, N, F), dtype=bool) if mode in ("AAI", "oblique") else active
        self.full_mask = bool(self.mask.all())

    def forward(self, X, alpha, beta, scale, need_grad=True):
        """Return (f contribution, mu (n,M,L), G (n,M,N) = d f / d z)."""
        Z = np.einsum("if,mkf->imk", X, self.W, optimize=True) + beta * self.b[None]
        S = _sigma(Z, alpha)
        n, M, N = Z.shape
        L = len(self.leaves)
        mu = np.empty((n, M, L))
        factors = []
        for ell, path in enumerate(self.leaves):
            fac = [S[:, :, k] if left else 1.0 - S[:, :, k] for k, left in path]
            factors.append(fac)
            p = fac[0].copy()
            for q in fac[1:]:
                p *= q
            mu[:, :, ell] = p
        f = scale * np.einsum("iml,ml->i", mu, self.pi)
        if not need_grad:
            return f, mu, None
        gS = np.zeros((n, M, N))
        for ell, path in enumerate(self.leaves):
            fac = factors[ell]
            for p_idx, (k, left) in enumerate(path):
                prod = np.ones((n, M))
                for q_idx, q in enumerate(fac):
                    if q_idx != p_idx:
                        prod *= q
                sign = 1.0 if left else -1.0
                gS[:, :, k] += sign * prod * self.pi[None, :, ell]
        G = scale * gS * _sigma_dot(Z, alpha)
        return f, mu, G


class SoftTreeEnsemble:
    r"""A finite ensemble of soft trees with analytic gradients (Kanoh & Sugiyama, 2024, §2.1).

    Parameters
    ----------
    architectures : tuple or list of tuples
        One tree (nested tuple, see the module docstring) or a list of trees.
    n_trees : int or list of int
        Number of trees of each architecture. The output is scaled by
        :math:`1/\sqrt{M}` with :math:`M` the *total* number of trees, so an ensemble with
        ``n_trees=[M1, M2]`` has the limiting NTK ``(M1*K1 + M2*K2) / (M1 + M2)`` (Prop. 3.1).
    n_features : int
        Number of input features F (columns of every ``X``), >= 1.
    mode : {"AAA", "AAI", "oblique"}, default="AAA"
        Constraint on the split weights (see the module docstring).
    alpha : float, default=2.0
        Steepness :math:`\alpha > 0` of the routing :math:`\sigma(c)=\tfrac12\operatorname{erf}(\alpha c)+\tfrac12`.
    beta : float, default=0.5
        Scale :math:`\beta \ge 0` of the split biases in :math:`\mathbf w^\top\mathbf x+\beta b`.
    random_state : int, RandomState or None
        Seed of the :math:`N(0,1)` initialisation and of the random split features.

    Attributes
    ----------
    n_params : int
        Number of trainable parameters.

    Examples
    --------
    >>> import numpy as np
    >>> ens = SoftTreeEnsemble(perfect_tree((0, 1)), 512, n_features=2, random_state=0)
    >>> X = np.array([[1.0, 0.0], [0.0, 1.0]])
    >>> H = ens.empirical_ntk(X)
    >>> bool(np.allclose(H, ens.jacobian(X) @ ens.jacobian(X).T))
    True
    """

    def __init__(self, architectures, n_trees, *, n_features, mode="AAA", alpha=2.0, beta=0.5, random_state=None):
        self.n_features = check_int(n_features, "n_features", min_val=1)
        self.mode = check_option(mode, "mode", _MODES)
        self.alpha = check_real(alpha, "alpha", min_val=0.0, include_boundaries="neither")
        self.beta = check_real(beta, "beta", min_val=0.0, include_boundaries="left")
        archs = [architectures] if (architectures is None or _is_single_tree(architectures)) else list(architectures)
        if not archs:
            raise ValueError("architectures is empty.")
        if not isinstance(n_trees, (list, tuple, np.ndarray)):
            n_trees = check_int(n_trees, "n_trees", min_val=1)
            counts = [int(n_trees)] * len(archs) if len(archs) == 1 else None
            if counts is None:
                raise ValueError("with several architectures, n_trees must be a list with one count per architecture.")
        else:
            counts = list(np.ravel(n_trees).tolist())
            if len(counts) != len(archs):
                raise ValueError(f"n_trees has {len(counts)} entries but there are {len(archs)} architectures.")
        counts = [check_int(c, "n_trees", min_val=1) for c in counts]
        rng = check_seed(random_state)
        self._archs = []
        for tree, M in zip(archs, counts):
            splits, leaves = _compile_tree(tree, self.n_features)
            self._archs.append(_Arch(splits, leaves, M, self.n_features, self.mode, rng))
        self.n_trees_total = int(sum(counts))
        self._scale = 1.0 / math.sqrt(self.n_trees_total)

    # ------------------------------------------------------------------ parameters
    @property
    def n_params(self):
        return int(sum(a.mask.sum() + a.b.size + a.pi.size for a in self._archs))

    def get_params_vector(self):
        """Trainable parameters as one vector (per architecture: masked W, b, pi)."""
        return np.concatenate([np.concatenate([a.W[a.mask], a.b.ravel(), a.pi.ravel()]) for a in self._archs])

    def set_params_vector(self, theta):
        """Set the trainable parameters from a vector laid out as :meth:`get_params_vector`."""
        theta = np.asarray(theta, dtype=np.float64).ravel()
        if theta.shape[0] != self.n_params or not np.all(np.isfinite(theta)):
            raise ValueError(f"theta must be a finite vector of length {self.n_params}.")
        pos = 0
        for a in self._archs:
            k = int(a.mask.sum())
            W = a.W.copy()
            W[a.mask] = theta[pos : pos + k]
            a.W = W
            pos += k
            a.b = theta[pos : pos + a.b.size].reshape(a.b.shape).copy()
            pos += a.b.size
            a.pi = theta[pos : pos + a.pi.size].reshape(a.pi.shape).copy()
            pos += a.pi.size

    # ------------------------------------------------------------------ model
    def decision_function(self, X):
        """Ensemble output :math:`f(\\mathbf x)` for each row of ``X``."""
        return self._decision(as_kernel_matrix(X, self.n_features, "X"))

    def _decision(self, X):
        """:meth:`decision_function` of a validated ``X``."""
        return sum(a.forward(X, self.alpha, self.beta, self._scale, need_grad=False)[0] for a in self._archs)

    def jacobian(self, X):
        """Parameter gradients, shape (n, n_params), laid out as :meth:`get_params_vector`."""
        X = as_kernel_matrix(X, self.n_features, "X")
        blocks = []
        for a in self._archs:
            _, mu, G = a.forward(X, self.alpha, self.beta, self._scale)
            n = X.shape[0]
            JW = G[:, :, :, None] * X[:, None, None, :]
            blocks.append(JW[:, a.mask])
            blocks.append((self.beta * G).reshape(n, -1))
            blocks.append((self._scale * mu).reshape(n, -1))
        return np.concatenate(blocks, axis=1)

    def empirical_ntk(self, X, Y=None):
        """Empirical NTK :math:`\\langle \\partial_\\theta f(x), \\partial_\\theta f(x')\\rangle`, shape (n, m)."""
        X = as_kernel_matrix(X, self.n_features, "X")
        Y = X if Y is None else as_kernel_matrix(Y, self.n_features, "Y")
        why = "the NTK multiplies inputs pairwise (x_f * y_f), which overflows float64 above ~1e154"
        check_magnitude(X, "X", why=why)
        check_magnitude(Y, "Y", why=why)
        same = Y is X
        H = np.zeros((X.shape[0], Y.shape[0]))
        for a in self._archs:
            _, muX, GX = a.forward(X, self.alpha, self.beta, self._scale)
            if same:
                muY, GY = muX, GX
            else:
                _, muY, GY = a.forward(Y, self.alpha, self.beta, self._scale)
            n, m = X.shape[0], Y.shape[0]
            gx = GX.reshape(n, -1)
            gy = GY.reshape(m, -1)
            H += self._scale**2 * muX.reshape(n, -1) @ muY.reshape(m, -1).T
            GG = gx @ gy.T
            H += self.beta**2 * GG
            if a.full_mask:
                H += GG * (X @ Y.T)
            else:
                for f in range(self.n_features):
                    mf = a.mask[:, :, f]
                    if not mf.any():
                        continue
                    H += ((gx * mf.ravel()[None]) @ gy.T) * np.multiply.outer(X[:, f], Y[:, f])
        return check_finite_result(H, "empirical_ntk", "rescale X (and Y), e.g. standardise them.")

    def _loss_grad_step(self, X, r, lr):
        """theta <- theta - lr * sum_i r_i d f(x_i) / d theta (r already includes the reduction)."""
        for a in self._archs:
            _, mu, G = a.forward(X, self.alpha, self.beta, self._scale)
            rG = r[:, None, None] * G
            gW = np.einsum("imk,if->mkf", rG, X, optimize=True)
            gW = np.where(a.mask, gW, 0.0)
            gb = self.beta * rG.sum(axis=0)
            gpi = self._scale * np.einsum("i,iml->ml", r, mu)
            a.W = a.W - lr * gW
            a.b = a.b - lr * gb
            a.pi = a.pi - lr * gpi

    def fit_gd(self, X, y, *, learning_rate=0.1, n_steps=100, X_eval=None, record_steps=None, reduction="sum",
               subtract_initial=True):
        r"""Full-batch gradient descent on the squared error; updates the parameters in place.

        The trained function is :math:`\tilde f = f(\cdot;\theta) - f(\cdot;\theta_0)` when
        ``subtract_initial`` (the initial output is shifted to zero, as in the paper's Fig. 3);
        the loss is :math:`\tfrac12\sum_i(\tilde f(\mathbf x_i)-y_i)^2` (``reduction="sum"``, the
        convention of the trajectory formula, see :func:`tabular_trees.ntk.ntk_trajectory`) or
        that divided by :math:`N` (``"mean"``, Eq. 4 of the paper).

        A step whose outputs overflow raises a ``ValueError``; a training loss that ends above its
        initial value (at least two steps) gives a ``ConvergenceWarning``: both say the
        ``learning_rate`` is too large.

        Parameters
        ----------
        X : array-like of shape (N, F)
        y : array-like of shape (N,)
        learning_rate : float > 0
        n_steps : int >= 0
        X_eval : array-like of shape (m, F), optional
            Inputs whose outputs are recorded; defaults to ``X``.
        record_steps : array-like of int, optional
            Steps (0..n_steps) at which to record; default every step.
        reduction : {"sum", "mean"}
        subtract_initial : bool, default=True

        Returns
        -------
        steps : ndarray of int
        outputs : ndarray of shape (len(steps), m)
            :math:`\tilde f` on ``X_eval`` at those steps.
        """
        X = as_kernel_matrix(X, self.n_features, "X")
        y = as_regression_target(y, X.shape[0])
        Xe = X if X_eval is None else as_kernel_matrix(X_eval, self.n_features, "X_eval")
        lr = check_real(learning_rate, "learning_rate", min_val=0.0, include_boundaries="neither")
        n_steps = check_int(n_steps, "n_steps", min_val=0)
        reduction = check_option(reduction, "reduction", ("sum", "mean"))
        if record_steps is None:
            rec = np.arange(n_steps + 1)
        else:
            rec = np.unique(np.asarray(record_steps, dtype=np.int64))
            if rec.size == 0 or rec.min() < 0 or rec.max() > n_steps:
                raise ValueError(f"record_steps must lie in 0..n_steps={n_steps}.")
        c = 1.0 / X.shape[0] if reduction == "mean" else 1.0
        f0 = self._decision(X) if subtract_initial else np.zeros(X.shape[0])
        f0e = self._decision(Xe) if subtract_initial else np.zeros(Xe.shape[0])
        out = np.empty((rec.size, Xe.shape[0]))
        j = 0
        first_loss = last_loss = None
        for t in range(n_steps + 1):
            if j < rec.size and rec[j] == t:
                out[j] = self._decision(Xe) - f0e
                j += 1
            if t == n_steps:
                break
            with np.errstate(over="ignore", invalid="ignore"):
                r = c * (self._decision(X) - f0 - y)
                last_loss = r @ r
                first_loss = last_loss if first_loss is None else first_loss
                if not np.isfinite(last_loss):
                    raise ValueError(
                        f"gradient descent diverged at step {t} (non-finite outputs) with "
                        f"learning_rate={lr!r}; use a smaller learning_rate."
                    )
                self._loss_grad_step(X, r, lr)
        if n_steps >= 2 and last_loss > first_loss:
            warnings.warn(
                f"the squared training residual rose from {first_loss:.3g} at step 0 to {last_loss:.3g} at step "
                f"{n_steps - 1}: gradient descent diverges with learning_rate={lr!r}; use a smaller learning_rate.",
                ConvergenceWarning,
                stacklevel=2,
            )
        return rec, out


def _is_single_tree(obj):
    """A single nested tree is a 3-tuple whose first item is a split (not itself a tree)."""
    if not isinstance(obj, tuple) or len(obj) != 3:
        return False
    first = obj[0]
    if first is None or isinstance(first, (numbers.Integral, np.integer)):
        return True
    # a split given as a tuple of ints
    return isinstance(first, tuple) and all(isinstance(s, (numbers.Integral, np.integer)) for s in first)


class SoftTreeRegressor(RegressorMixin, BaseEstimator):
    """Soft tree ensemble regressor trained by full-batch gradient descent (scikit-learn API).

    Perfect trees of depth ``depth``; in the axis-aligned modes every node's feature is drawn
    uniformly at random (``random_state``). Predictions are :math:`f(x;\\theta)-f(x;\\theta_0)`
    (initial output subtracted) and the loss is the mean squared error.

    The target is standardised internally: the ensemble is trained on
    ``(y - y_mean_) / y_scale_`` and predictions are mapped back,
    ``y_mean_ + y_scale_ * (f(x; theta) - f(x; theta_0))``. The mean acts as an intercept, and
    ``learning_rate`` and the initialisation keep their meaning whatever the units of ``y``:
    shifting or rescaling ``y`` shifts or rescales the predictions by the same amount.
    Gradient descent that diverges (a too large ``learning_rate``: outputs that overflow, or a final
    training loss above the initial one, i.e. worse than predicting the mean of ``y``) raises a
    ``ValueError`` that names ``learning_rate``; no diverged model is kept.
    The features are not rescaled (the routing ``sigmoid(alpha (w.x + b))`` depends on their
    scale: standardise them); ``fit`` refuses features beyond 1e150 in magnitude, where a
    gradient step on ``w`` (proportional to ``x``) moves ``w.x`` by ``x^2`` and overflows float64.

    Parameters
    ----------
    depth : int, default=2
        Depth of every tree, 1..10.
    n_trees : int, default=64
        Number of trees M >= 1.
    mode, alpha, beta
        Split-weight constraint, routing steepness and bias scale, as in :class:`SoftTreeEnsemble`
        (``mode`` one of "AAA", "AAI", "oblique", default "AAA"; ``alpha`` > 0, default 2.0;
        ``beta`` >= 0, default 0.5).
    learning_rate : float, default=0.5
        Gradient-descent step size > 0 on the mean squared error of the standardised target.
    n_iter : int, default=200
        Number of full-batch gradient-descent steps, >= 0.
    random_state : int, RandomState or None
        Seed of the initialisation and of the split features.

    Attributes
    ----------
    ensemble_ : SoftTreeEnsemble
    loss_curve_ : ndarray of shape (n_iter + 1,)
        Training mean squared error after each step, on the standardised target.
    y_mean_, y_scale_ : float
        Mean and standard deviation (1 for a constant target) of the training target.
    n_features_in_ : int

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(40, 2)); y = np.sin(X[:, 0])
    >>> reg = SoftTreeRegressor(n_trees=32, n_iter=100, random_state=0).fit(X, y)
    >>> bool(reg.loss_curve_[-1] < reg.loss_curve_[0])
    True
    """

    _parameter_table = {
        "depth": Integer(1, 10),
        "n_trees": Integer(1),
        "mode": Options(*_MODES),
        "alpha": Real(0.0, closed="neither"),
        "beta": Real(0.0, closed="left"),
        "learning_rate": Real(0.0, closed="neither"),
        "n_iter": Integer(0),
        "random_state": RandomState(),
    }

    def __init__(self, depth=2, n_trees=64, mode="AAA", alpha=2.0, beta=0.5, learning_rate=0.5, n_iter=200,
                 random_state=None):
        self.depth = depth
        self.n_trees = n_trees
        self.mode = mode
        self.alpha = alpha
        self.beta = beta
        self.learning_rate = learning_rate
        self.n_iter = n_iter
        self.random_state = random_state

    def fit(self, X, y):
        """Initialise a random ensemble and run ``n_iter`` full-batch gradient-descent steps.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Finite training features, at most 1e150 in magnitude (standardise them).
        y : array-like of shape (n_samples,)
            Finite targets (standardised internally).

        Returns
        -------
        self
        """
        p = check_params(self)
        X, y = validate_X(self, X, require_y(self, y), preset="finite", reset=True, y_numeric=True)
        y = as_regression_target(y, X.shape[0])
        check_magnitude(X, "X", why="a gradient step on the split weights w is proportional to X, so it moves "
                                    "w.x by about X^2, which overflows float64 (|X| must stay below 1e150)")
        ens = SoftTreeEnsemble(perfect_tree((None,) * p["depth"]), p["n_trees"], n_features=X.shape[1],
                               mode=p["mode"], alpha=p["alpha"], beta=p["beta"], random_state=p["random_state"])
        y_mean = float(np.mean(y))
        with np.errstate(over="ignore"):  # an overflow is handled just below
            sd = float(np.std(y))
        if not np.isfinite(sd):
            # only for |y| beyond ~1e154, whose squares overflow: the same standard deviation computed
            # on y divided by its largest magnitude (ordinary targets never take this path)
            peak = float(np.max(np.abs(y)))
            sd = peak * float(np.std(y / peak))
        y_scale = sd if sd > 0 else 1.0  # a constant target has no scale: keep unit scale
        ys = (y - y_mean) / y_scale
        init_params = ens.get_params_vector()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)  # judged once, below, on the whole curve
            _, out = ens.fit_gd(X, ys, learning_rate=p["learning_rate"], n_steps=p["n_iter"], reduction="mean")
        with np.errstate(over="ignore"):  # a loss that overflows is a diverged fit, refused just below
            loss_curve = np.mean((out - ys[None]) ** 2, axis=1)
        if p["n_iter"] > 0 and not loss_curve[-1] <= loss_curve[0]:
            # the initial output predicts the mean of y everywhere: a fit that ends worse than that is no
            # result, and the estimator keeps no attribute of it
            raise ValueError(
                f"gradient descent diverged: the training mean squared error (standardised target) rose from "
                f"{loss_curve[0]:.3g} at step 0 to {loss_curve[-1]:.3g} after {p['n_iter']} steps with "
                f"learning_rate={self.learning_rate!r}, so the fit predicts worse than the mean of y; use a smaller "
                f"learning_rate (e.g. learning_rate={self.learning_rate / 10:.3g})."
            )
        self.y_mean_, self.y_scale_, self.init_params_, self.loss_curve_ = y_mean, y_scale, init_params, loss_curve
        self.ensemble_ = ens
        return self

    def predict(self, X):
        """Trained output minus the initial output, :math:`f(x;\\theta)-f(x;\\theta_0)`."""
        check_is_fitted(self, "ensemble_")
        X = validate_X(self, X, preset="finite", reset=False)
        ens = self.ensemble_
        now = ens.get_params_vector()
        f = ens._decision(X)
        ens.set_params_vector(self.init_params_)
        f0 = ens._decision(X)
        ens.set_params_vector(now)
        return self.y_mean_ + self.y_scale_ * (f - f0)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        # a fixed budget of gradient steps: scikit-learn's generic "alpha=0.01" check makes the
        # routing almost linear and the fit too slow for its R^2 > 0.5 threshold
        tags.regressor_tags.poor_score = True
        return tags
