"""The posterior of a soft decision tree: ``TreePosterior`` and the tree-topology prior.

Priors (§3.3): τ ~ Beta(1, 1) on the min–max scaled inputs, κ ~ Categorical(1/p)
or Δ ~ Dirichlet(α_Δ), μ_k ~ N(μ₀, s_μ²), σ ~ InverseGamma(a_σ, b_σ). The tree-topology
prior α(1+d)^−β is a constant for fixed topology and is added by
:func:`log_tree_prior`.

The sampler works on an unconstrained flat vector θ:
``[logit τ (n_int) | stick-breaking Δ (n_int·(p−1), DFI only) | μ (n_leaf) | log σ]``
(classification has no μ, σ). With ``jacobian=True`` the log-densities include the
log-Jacobians of these transforms (what HMC needs); with ``jacobian=False`` they
are densities of the constrained parameters (what the reversible-jump ratio uses).

The densities themselves are compiled kernels (``_posterior_kernels``; the
stick-breaking transform is in ``_simplex``).
"""

from __future__ import annotations

import numpy as np

from .._validation import as_float_matrix, as_regression_target, check_int, check_option, check_real
from ._chain import _class_count
from ._codes import model_code
from ._posterior_kernels import _log_posterior_kernel, _Topology, _TreeData
from ._settings import TreePrior
from ._simplex import _stick_breaking, _stick_breaking_inverse
from ._soft_split_tree_kernels import _node_probabilities
from .soft_split_tree import _check_tree

__all__ = ["TreePosterior", "log_tree_prior"]


def _logit(t):
    t = np.clip(t, 1e-15, 1 - 1e-15)
    return np.log(t) - np.log1p(-t)


def log_tree_prior(tree, alpha, beta):
    """CGM topology prior: Σ_internal log α(1+d)^−β + Σ_leaves log(1 − α(1+d)^−β), root depth 0.

    Parameters
    ----------
    tree : SoftTree
    alpha : float
        Split probability at the root, ``0 < alpha < 1``.
    beta : float
        Depth decay, ``beta >= 0``.

    Examples
    --------
    >>> from tabular_trees.bayes.soft_split_tree import SoftTree
    >>> round(log_tree_prior(SoftTree(1), 0.45, 2.5), 6)  # a single leaf: log(1 - 0.45)
    -0.597837
    """
    _check_tree(tree)
    alpha = check_real(alpha, "alpha", min_val=0.0, max_val=1.0, include_boundaries="neither")
    beta = check_real(beta, "beta", min_val=0.0)
    depth = _node_depths(tree)
    if not np.array_equal(depth, tree.depth):
        raise ValueError("tree.depth does not match the tree's structure; build trees with SoftTree.grow / prune.")
    psplit = alpha * (1.0 + tree.depth) ** (-beta)
    inner = tree.left >= 0
    return float(np.sum(np.log(psplit[inner])) + np.sum(np.log1p(-psplit[~inner])))


def _node_depths(tree):
    depth = np.zeros(tree.n_nodes, dtype=np.int64)
    for n in range(tree.n_nodes):  # parents precede children (checked by _check_tree)
        if tree.left[n] >= 0:
            depth[tree.left[n]] = depth[tree.right[n]] = depth[n] + 1
    return depth


def _representable(lp, theta, on_overflow):
    """``lp``, or a ValueError naming θ when the density at a finite θ is not a float64 (−inf or NaN)."""
    if on_overflow == "raise" and not np.isfinite(lp):
        raise ValueError(
            f"the log-density at this theta is not representable in float64 (got {lp}): theta has entries up to "
            f"{np.max(np.abs(theta)):.3g} in magnitude, far outside the scale of TreePosterior.pack (thresholds, "
            "leaf values and log sigma of a fitted tree are within a few units of 0 on standardised data); pass a "
            "theta from pack(), or on_overflow='return' to get -inf."
        )
    return lp


def _check_finite_tree(tree, name="tree"):
    """Raise a ValueError naming the first non-finite entry of a SoftTree's float arrays (no density exists)."""
    for attr, what in (("threshold", "thresholds must be finite numbers in [0, 1] (the min–max scaled inputs)"),
                       ("value", "leaf values must be finite"),
                       ("simplex", "simplex weights must be finite, non-negative and sum to one")):
        arr = getattr(tree, attr, None)
        if isinstance(arr, np.ndarray) and arr.dtype.kind == "f" and not np.all(np.isfinite(arr)):
            node = int(np.argwhere(~np.isfinite(arr))[0][0])
            raise ValueError(f"{name}.{attr} holds {arr[node] if arr.ndim == 1 else 'a non-finite weight'} at node "
                             f"{node}: {what}; build the tree with SoftTree.grow / prune, or set a finite "
                             f"{name}.{attr}[{node}].")


class TreePosterior:
    """Data, hyperparameters and the flat-vector layout of a soft-tree posterior.

    Parameters
    ----------
    X : ndarray of shape (n, p)
        Inputs already min–max scaled to [0, 1].
    y : ndarray of shape (n,)
        Real targets (``task="regression"``) or class codes 0..M−1.
    task : {"regression", "classification"}
    use_simplex : bool
        HMC-DFI (True) or HMC-DF (False).
    n_classes : int, optional
    prior : TreePrior or None, default=None
        Topology prior p_split(d) = α(1+d)^−β and the priors of μ and σ; ``None`` means
        ``TreePrior()`` (the paper's values for the CGM data: α = 0.45, β = 2.5,
        μ ~ N(0, 1), σ ~ InverseGamma(1.5, 1.5)).
    simplex_alpha, class_alpha : float, default=1.0
        Dirichlet concentrations of the simplex splits Δ (HMC-DFI) and of the leaves' class
        probabilities (classification).

    Attributes
    ----------
    prior : TreePrior
    alpha, beta : float
        ``prior.alpha`` and ``prior.beta``.

    Notes
    -----
    Identical rows are merged (their counts and target sums are sufficient
    statistics), which makes the likelihood exact and cheaper on gridded inputs
    such as the CGM data.

    Examples
    --------
    >>> from tabular_trees.bayes.soft_split_tree import SoftTree
    >>> rng = np.random.default_rng(0); X = rng.random((20, 2)); y = rng.normal(size=20)
    >>> post = TreePosterior(X, y, "regression", use_simplex=False)
    >>> tree = SoftTree(2).grow(0, 1, 0.5, None, 0.3)
    >>> theta = post.pack(tree, sigma=1.0)
    >>> lp, g = post.logp_grad(tree, theta, h=0.1)
    >>> g.shape
    (4,)
    """

    def __init__(self, X, y, task, use_simplex, n_classes=None, prior=None, simplex_alpha=1.0, class_alpha=1.0):
        check_option(task, "task", {"regression", "classification"})
        if not isinstance(use_simplex, (bool, np.bool_)):
            raise TypeError(f"use_simplex must be True or False, got {use_simplex!r}.")
        if prior is None:
            prior = TreePrior()
        if not isinstance(prior, TreePrior):
            raise TypeError(f"prior must be a TreePrior or None, got {type(prior).__name__}.")
        X = as_float_matrix(X, "X")
        for name, val in (("simplex_alpha", simplex_alpha), ("class_alpha", class_alpha)):
            check_real(val, name, min_val=0.0, include_boundaries="neither")
        if task == "regression":
            y = as_regression_target(y, X.shape[0])
            if np.max(np.abs(y)) > 1e150:
                raise ValueError("y has values beyond 1e150 in magnitude, whose squares overflow; standardise y "
                                 "(BayesianTreeRegressor does so by default).")
        else:
            y = np.asarray(y)
            if y.shape != (X.shape[0],) or y.dtype.kind not in "iu":
                raise ValueError("y must be integer class codes of shape (n_samples,) for classification.")
            _class_count(y, n_classes)
        self.task = task
        self.use_simplex = bool(use_simplex)
        self.regression = task == "regression"
        self.model = model_code(self.regression, self.use_simplex)
        X = np.ascontiguousarray(X, dtype=np.float64)
        self.n_features = X.shape[1]
        uniq, inv = np.unique(X, axis=0, return_inverse=True)
        inv = inv.ravel()
        G = uniq.shape[0]
        self.X = np.ascontiguousarray(uniq)
        self.w = np.bincount(inv, minlength=G).astype(np.float64)
        if self.regression:
            y = np.asarray(y, dtype=np.float64)
            self.ysum = np.bincount(inv, weights=y, minlength=G)
            self.yss = np.bincount(inv, weights=y * y, minlength=G)
            self.ycnt = np.zeros((G, 1))
            self.n_classes = 0
        else:
            y = np.asarray(y, dtype=np.int64)
            M = int(n_classes) if n_classes is not None else int(y.max()) + 1
            self.n_classes = M
            self.ycnt = np.zeros((G, M))
            np.add.at(self.ycnt, (inv, y), 1.0)
            self.ysum = np.zeros(G)
            self.yss = np.zeros(G)
        self.prior = prior
        self.hyp = np.array([prior.mu_loc, prior.mu_scale, prior.sigma_a, prior.sigma_b, simplex_alpha],
                            dtype=np.float64)
        self.alpha_cls = np.full(max(self.n_classes, 1), float(class_alpha))
        self.alpha = prior.alpha
        self.beta = prior.beta

    def without_likelihood(self):
        """A copy of this posterior whose likelihood is identically 1 (log-likelihood 0).

        Every row keeps its inputs but gets weight zero and no targets (regression:
        ``w = Σy = Σy² = 0``; classification: zero class counts), so the compiled density
        reduces exactly to the priors: τ ~ U(0, 1), κ ~ U{1..p} or Δ ~ Dirichlet, μ, σ, and the
        topology prior α(1+d)^−β in :meth:`log_posterior`. Samplers run on it should
        recover the prior (used by the prior-recovery tests of the reversible-jump
        bookkeeping).

        Examples
        --------
        >>> from tabular_trees.bayes.soft_split_tree import SoftTree
        >>> rng = np.random.default_rng(0)
        >>> post = TreePosterior(rng.random((20, 2)), rng.normal(size=20), "regression", False).without_likelihood()
        >>> t = SoftTree(2)
        >>> round(post.log_likelihood(t, post.pack(t, sigma=1.0), h=0.1), 12)
        0.0
        """
        other = TreePosterior.__new__(TreePosterior)
        other.__dict__.update(self.__dict__)
        other.w = np.zeros_like(self.w)
        other.ysum = np.zeros_like(self.ysum)
        other.yss = np.zeros_like(self.yss)
        other.ycnt = np.zeros_like(self.ycnt)
        return other

    # -------------------------------------------------------------- validation
    def _check(self, tree, theta=None, h=None, *, theta_name="theta"):
        """Validate a tree (and θ, h) for this posterior before any compiled code sees them."""
        _check_tree(tree)
        if tree.n_features != self.n_features or tree.use_simplex != self.use_simplex:
            raise ValueError(f"tree does not match the posterior's X: the tree has {tree.n_features} features and "
                             f"use_simplex={tree.use_simplex}, X has {self.n_features} columns and the posterior "
                             f"use_simplex={self.use_simplex}; build the tree with SoftTree(n_features=X.shape[1]).")
        out = []
        if theta is not None:
            try:
                theta = np.ascontiguousarray(theta, dtype=np.float64)
            except (TypeError, ValueError):
                raise TypeError(f"{theta_name} must be a 1-D array of floats (see TreePosterior.pack).") from None
            d = self.dim(tree)
            if theta.shape != (d,):
                raise ValueError(f"{theta_name} must have shape ({d},) for this tree "
                                 f"({tree.n_nodes - tree.n_leaves} internal nodes, {tree.n_leaves} leaves), got "
                                 f"{theta.shape}; build it with TreePosterior.pack.")
            if not np.all(np.isfinite(theta)):
                raise ValueError(f"{theta_name} contains NaN or infinity.")
            out.append(theta)
        if h is not None:
            out.append(check_real(h, "h", min_val=0.0, include_boundaries="neither"))
        return out

    def check_state(self, tree, theta=None, h=None, *, theta_name="theta"):
        """Check a tree (and θ, h) against this posterior before compiled code sees them.

        Returns the list of the checked values given, θ (float64, contiguous) and/or h, in that order;
        a bad one raises a ValueError or TypeError naming it (``theta_name`` for θ).

        Examples
        --------
        >>> from tabular_trees.bayes.soft_split_tree import SoftTree
        >>> post = TreePosterior(np.array([[0.0], [1.0]]), np.array([0.0, 1.0]), "regression", use_simplex=False)
        >>> tree = SoftTree(1).grow(0, 0, 0.5, None, 1.0)
        >>> [v.tolist() if hasattr(v, "tolist") else v for v in post.check_state(tree, [0.0, 0.0, 1.0, 0.0], 0.1)]
        [[0.0, 0.0, 1.0, 0.0], 0.1]
        """
        return self._check(tree, theta, h, theta_name=theta_name)

    def kernel_inputs(self, tree, feature=None):
        """``(data, topology)``: the data and ``tree`` as the compiled kernels take them.

        ``feature`` replaces the tree's split indices in the topology (the NUTS run updates its own copy).

        Examples
        --------
        >>> from tabular_trees.bayes.soft_split_tree import SoftTree
        >>> post = TreePosterior(np.array([[0.0], [1.0]]), np.array([0.0, 1.0]), "regression", use_simplex=False)
        >>> data, topo = post.kernel_inputs(SoftTree(1).grow(0, 0, 0.5, None, 1.0))
        >>> topo.leaf_pos.tolist()
        [-1, 0, 1]
        """
        return self._data_record(), self._topology(tree, feature)

    # -------------------------------------------------------------- layout
    def positions(self, tree):
        """Arrays mapping node id → position among internal nodes / leaves (−1 elsewhere)."""
        self._check(tree)
        inner = tree.left >= 0
        int_pos = np.full(tree.n_nodes, -1, dtype=np.int64)
        leaf_pos = np.full(tree.n_nodes, -1, dtype=np.int64)
        int_pos[inner] = np.arange(int(inner.sum()))
        leaf_pos[~inner] = np.arange(int((~inner).sum()))
        return int_pos, leaf_pos

    def dim(self, tree):
        """Length of the unconstrained vector θ for ``tree``."""
        _check_tree(tree)
        n_int = tree.n_nodes - tree.n_leaves
        d = n_int
        if self.use_simplex:
            d += n_int * (self.n_features - 1)
        if self.regression:
            d += tree.n_leaves + 1
        return d

    def pack(self, tree, sigma=None):
        """Unconstrained flat vector θ from the tree's τ, Δ, μ (and ``sigma``)."""
        self._check(tree)
        if self.regression:
            sigma = check_real(sigma, "sigma", min_val=0.0, include_boundaries="neither") if sigma is not None \
                else None
            if sigma is None:
                raise ValueError("sigma (a positive noise standard deviation) is needed to pack a regression tree.")
        if np.any((tree.threshold[tree.left >= 0] < 0) | (tree.threshold[tree.left >= 0] > 1)):
            raise ValueError("thresholds must lie in [0, 1] (the min–max scaled input space).")
        inner = tree.internal_nodes()
        parts = [_logit(tree.threshold[inner])]
        if self.use_simplex:
            parts += [_stick_breaking_inverse(tree.simplex[n]) for n in inner]
        if self.regression:
            parts += [tree.value[tree.leaves()], np.array([np.log(sigma)])]
        return np.ascontiguousarray(np.concatenate(parts) if parts else np.zeros(0))

    def unpack(self, tree, theta):
        """Write θ back into a copy of ``tree``; returns ``(tree, sigma)``."""
        (theta,) = self._check(tree, theta)
        t = tree.copy()
        inner = tree.internal_nodes()
        n_int = inner.shape[0]
        p = self.n_features
        t.threshold[inner] = 1.0 / (1.0 + np.exp(-theta[:n_int]))
        off = n_int
        if self.use_simplex:
            for j, n in enumerate(inner):
                t.simplex[n] = _stick_breaking(theta[off + j * (p - 1): off + (j + 1) * (p - 1)])
            off += n_int * (p - 1)
        sigma = None
        if self.regression:
            leaves = tree.leaves()
            t.value[leaves] = theta[off: off + leaves.shape[0]]
            sigma = float(np.exp(theta[off + leaves.shape[0]]))
        return t, sigma

    # -------------------------------------------------------------- densities
    def _data_record(self):
        """The data and hyperparameters as the compiled kernels take them (a ``_TreeData``)."""
        return _TreeData(self.model, self.X, self.w, self.ysum, self.yss, self.ycnt, self.hyp, self.alpha_cls)

    def _topology(self, tree, feature=None):
        """``tree`` as the compiled kernels take it (a ``_Topology``; ``feature`` replaces its split indices)."""
        int_pos, leaf_pos = self.positions(tree)
        return _Topology(tree.left, tree.right, tree.feature if feature is None else feature, int_pos, leaf_pos)

    def logp_grad(self, tree, theta, h, jacobian=True):
        """Log-density of θ (parameters only, no topology prior) and its gradient.

        ``jacobian=True`` includes the log-Jacobians of the unconstrained transforms (the
        density HMC samples); ``False`` gives the density of the constrained parameters.
        """
        theta, h = self._check(tree, theta, h)
        grad = np.zeros_like(theta)
        lp = _log_posterior_kernel(theta, grad, True, bool(jacobian), h, self._data_record(), self._topology(tree))
        return _representable(float(lp), theta, "raise"), grad

    def logp(self, tree, theta, h, jacobian=True, *, on_overflow="raise"):
        """Log-density of θ alone (see :meth:`logp_grad`).

        Where the density is too small for a float64 (θ far out on the scale of :meth:`pack`, such as an entry
        of 1e300) it raises a ``ValueError`` naming θ; ``on_overflow="return"`` returns the ``-inf`` instead
        (what a sampler wants: such a proposal is rejected).
        """
        check_option(on_overflow, "on_overflow", ("raise", "return"))
        theta, h = self._check(tree, theta, h)
        grad = np.zeros_like(theta)
        lp = float(_log_posterior_kernel(theta, grad, False, bool(jacobian), h, self._data_record(),
                                         self._topology(tree)))
        return _representable(lp, theta, on_overflow)

    def log_posterior(self, tree, theta, h, *, on_overflow="raise"):
        """Constrained-space log-posterior density π(T, κ/Δ, τ, θ) up to the evidence, tree prior included
        (``on_overflow``: see :meth:`logp`).

        A ``tree`` whose arrays hold NaN or infinity (thresholds, simplex weights, leaf values) raises a
        ``ValueError`` naming the array and node, as do a non-finite ``theta`` and an ``h`` that is not positive.
        """
        _check_finite_tree(tree)
        return self.logp(tree, theta, h, jacobian=False, on_overflow=on_overflow) + log_tree_prior(
            tree, self.alpha, self.beta)

    def log_likelihood(self, tree, theta, h):
        """Log-likelihood alone (priors subtracted analytically)."""
        return self.logp(tree, theta, h, jacobian=False) - self.log_param_prior(tree, theta)

    def log_param_prior(self, tree, theta):
        """Constrained-space log prior density of τ, κ/Δ, μ, σ for a fixed topology."""
        t, sigma = self.unpack(tree, theta)
        inner = t.internal_nodes()
        p = self.n_features
        lp = 0.0
        if self.use_simplex:
            from scipy.special import gammaln
            a = self.hyp[4]
            for n in inner:
                lp += gammaln(p * a) - p * gammaln(a) + (a - 1) * np.sum(np.log(t.simplex[n]))
        else:
            lp -= inner.shape[0] * np.log(p)
        if self.regression:
            from scipy.stats import invgamma, norm
            lp += np.sum(norm.logpdf(t.value[t.leaves()], self.hyp[0], self.hyp[1]))
            lp += invgamma.logpdf(sigma, self.hyp[2], scale=self.hyp[3])
        return float(lp)

    def leaf_class_probabilities(self, tree, h):
        """Posterior-predictive class probabilities per leaf, (C_km + α_m)/(Φ_k + A), shape (n_leaves, M)."""
        (h,) = self._check(tree, None, h)
        phi = np.zeros((self.X.shape[0], tree.n_nodes))
        psi = np.zeros_like(phi)
        _node_probabilities(self.X, tree.left, tree.right, tree.feature, tree.threshold, tree.simplex,
                            tree.use_simplex, h, phi, psi)
        C = phi[:, tree.leaves()].T @ self.ycnt
        C += self.alpha_cls[None, :]
        return C / C.sum(axis=1, keepdims=True)
