"""Log-posteriors of soft decision trees with analytic gradients (numba).

Models (integer codes so one compiled kernel serves every topology):

* ``REG_DF`` (0) / ``REG_DFI`` (1): Gaussian likelihood (Eq. 12) with leaf means μ
  and one shared σ;
* ``CLF_DF`` (2) / ``CLF_DFI`` (3): Dirichlet–multinomial likelihood on soft
  counts (Eq. 10), *with* the per-leaf normalising constant
  ``lgamma(A) - Σ_m lgamma(α_m)``;
* ``GAUSS`` (9): a multivariate Gaussian test target (used to test NUTS).

Priors (§3.3): τ ~ Beta(1, 1) on the min–max scaled inputs, κ ~ Categorical(1/p)
or Δ ~ Dirichlet(α_Δ), μ_k ~ N(μ₀, s_μ²), σ ~ InverseGamma(a_σ, b_σ). The tree-topology
prior α(1+d)^−β is a constant for fixed topology and is added by
:func:`log_tree_prior`.

The sampler works on an unconstrained flat vector θ:
``[logit τ (n_int) | stick-breaking Δ (n_int·(p−1), DFI only) | μ (n_leaf) | log σ]``
(classification has no μ, σ). With ``jacobian=True`` the log-densities include the
log-Jacobians of these transforms (what HMC needs); with ``jacobian=False`` they
are densities of the constrained parameters (what the reversible-jump ratio uses).

Gradients are computed in one forward sweep (probability of reaching each node)
and one backward sweep: with ``s_n`` the expected leaf value below node n,
``∂(Σ_k φ_k v_k)/∂z_j = φ_j ψ_j (1 − ψ_j)(s_right − s_left)`` for the split
argument ``z_j = (x_κ − τ_j)/h`` (for classification s_k is the derivative of the
leaf's Dirichlet–multinomial term with respect to a row's soft count). Both sweeps run
node by node over all rows at once (loops that LLVM vectorises, with a branch-free
logistic), in a workspace the sampler allocates once per run
(``_log_posterior_ws``); sums use a fixed order, so results do not depend on how
numba compiled the code.
"""

from __future__ import annotations

import math

import numba
import numpy as np
from llvmlite import ir as llvm_ir
from numba.core import types
from numba.extending import intrinsic

from .._validation import as_float_matrix, as_regression_target, check_int, check_option, check_real
from .soft_tree import _check_tree, _node_probabilities, _sigmoid

REG_DF, REG_DFI, CLF_DF, CLF_DFI, GAUSS = 0, 1, 2, 3, 9

__all__ = ["TreePosterior", "log_tree_prior"]

_LOG_2PI = math.log(2.0 * math.pi)


@numba.njit(cache=True)
def _digamma(x):
    r = 0.0
    while x < 6.0:
        r -= 1.0 / x
        x += 1.0
    f = 1.0 / (x * x)
    t = f * (-1.0 / 12 + f * (1.0 / 120 + f * (-1.0 / 252 + f * (1.0 / 240 + f * (-1.0 / 132)))))
    return r + math.log(x) - 0.5 / x + t


@numba.njit(cache=True)
def _log_sigmoid(a):
    """log(1 / (1 + exp(-a))) without overflow or underflow to log(0)."""
    if a >= 0.0:
        return -math.log1p(math.exp(-a))
    return a - math.log1p(math.exp(a))


@numba.njit(cache=True)
def _stick_forward(y, x):
    """Stan's stick-breaking map R^{K-1} → simplex in R^K; returns the log-Jacobian.

    The remaining stick is carried in log space, so a far-out ``y`` (a break taking the whole
    stick) gives tiny but valid simplex entries and a finite log-Jacobian instead of log(0).
    """
    K = x.shape[0]
    log_rem = 0.0
    logj = 0.0
    for k in range(K - 1):
        a = y[k] - math.log(K - 1 - k)
        log_z = _log_sigmoid(a)
        log_1mz = _log_sigmoid(-a)
        x[k] = math.exp(log_rem + log_z)
        logj += log_z + log_1mz + log_rem
        log_rem += log_1mz
    x[K - 1] = math.exp(log_rem)
    return logj


@numba.njit(cache=True)
def _stick_backward(y, x, gx, gy, with_jac):
    """Gradient w.r.t. y of L(x(y)) [+ log-Jacobian] given gx = ∂L/∂x (length K)."""
    K = x.shape[0]
    gs = gx[K - 1]
    # log of the remaining stick before each break, a sum of log(1 - z_j) (no cancellation,
    # never negative); held in gy[k] until gy[k] is overwritten below
    log_s = 0.0
    for k in range(K - 1):
        gy[k] = log_s
        log_s += _log_sigmoid(-(y[k] - math.log(K - 1 - k)))
    for k in range(K - 2, -1, -1):
        s_k = math.exp(gy[k])
        z = _sigmoid(y[k] - math.log(K - 1 - k))
        gz = (gx[k] - gs) * s_k
        g = gz * z * (1.0 - z)
        if with_jac:
            g += 1.0 - 2.0 * z
        gy[k] = g
        gs_new = gx[k] * z + gs * (1.0 - z)
        if with_jac and k > 0:
            # d log s_k / d s_k; s_k can underflow to 0 far out in y, where a huge gradient
            # makes the sampler report a divergence instead of crashing
            gs_new += 1.0 / max(s_k, 1e-300)
        gs = gs_new


# 2^-k for k = 0..63: the integer-power part of the vectorisable exponential below
_POW2_NEG = np.array([2.0 ** -k for k in range(64)])
_LOG2E = 1.4426950408889634
_LN2_HI = 6.93147180369123816490e-01
_LN2_LO = 1.90821492927058770002e-10
# Taylor coefficients 1/k! of exp on |r| <= ln2/2 (degree 13: truncation error < 1e-17 relative)


_C0, _C1, _C2, _C3, _C4, _C5, _C6, _C7, _C8, _C9, _C10, _C11, _C12, _C13 = (1.0 / math.factorial(k)
                                                                         for k in range(14))


@intrinsic
def _fma(typingctx, a, b, c):
    """Fused multiply-add ``a*b + c`` (LLVM's llvm.fma: one rounding, vectorisable, and the
    same result however the caller is compiled, unlike a fast-math contraction)."""
    sig = types.float64(types.float64, types.float64, types.float64)

    def codegen(context, builder, signature, args):
        dbl = llvm_ir.DoubleType()
        fn = builder.module.declare_intrinsic("llvm.fma", [dbl], llvm_ir.FunctionType(dbl, [dbl, dbl, dbl]))
        return builder.call(fn, args)

    return sig, codegen


@numba.njit(cache=True, error_model="numpy")
def _sigmoid_rows(z, out, zmax):
    """``out[g] = logistic(z[g])`` for all g, branch-free so that LLVM vectorises the loop.

    ``z`` is clipped to ±``zmax`` (40: beyond it the logistic equals 0 or 1 to double
    precision and is set so); e^{−|z|} is evaluated as 2^{−k}·e^{r} with Cody–Waite
    reduction (|r| ≤ ln2/2) and a degree-13 Taylor polynomial, relative error ~2e-16
    (numba has no vector exp; a scalar libm call per row would cost 4–5× more).
    """
    tab = _POW2_NEG
    for g in range(z.shape[0]):
        zz = z[g]
        zc = zz if zz < zmax else zmax
        zc = zc if zc > -zmax else -zmax
        a = zc if zc < 0.0 else -zc
        k = np.floor(a * _LOG2E + 0.5)
        r = (a - k * _LN2_HI) - k * _LN2_LO
        pr = _fma(_C13, r, _C12)
        pr = _fma(pr, r, _C11)
        pr = _fma(pr, r, _C10)
        pr = _fma(pr, r, _C9)
        pr = _fma(pr, r, _C8)
        pr = _fma(pr, r, _C7)
        pr = _fma(pr, r, _C6)
        pr = _fma(pr, r, _C5)
        pr = _fma(pr, r, _C4)
        pr = _fma(pr, r, _C3)
        pr = _fma(pr, r, _C2)
        pr = _fma(pr, r, _C1)
        pr = _fma(pr, r, _C0)
        e = pr * tab[np.int64(-k)]
        s = (1.0 if zc >= 0.0 else e) / (1.0 + e)
        s = 0.0 if zz < -zmax else s
        s = 1.0 if zz > zmax else s
        out[g] = s


@numba.njit(cache=True)
def _fill_transposed(X, ws, base):
    for f in range(X.shape[1]):
        for g in range(X.shape[0]):
            ws[base + f, g] = X[g, f]


@numba.njit(cache=True)
def _new_workspace(X, n_nodes, model, ycnt):
    """Workspace for ``_log_posterior_ws``: rows for φ, ψ, s, Δ, their gradients,
    per-leaf class counts and scratch (node-major, one column per data row), then
    ``X.T`` and, for classification, ``ycnt.T``."""
    G, p = X.shape
    M = ycnt.shape[1] if model == 2 or model == 3 else 0
    ws = np.zeros((7 * n_nodes + p + M + 8, max(n_nodes, G, p, M, 1)))
    if model != 9:
        _fill_transposed(X, ws, 7 * n_nodes + 8)
    if M > 0:
        _fill_transposed(ycnt, ws, 7 * n_nodes + 8 + p)
    return ws


@numba.njit(cache=True)
def _rsum(x, n):
    """Sum of ``x[:n]`` with eight interleaved partial sums: a fixed summation order
    (results do not depend on how the code was compiled) that still pipelines well."""
    a0 = a1 = a2 = a3 = a4 = a5 = a6 = a7 = 0.0
    g = 0
    while g + 8 <= n:
        a0 += x[g]
        a1 += x[g + 1]
        a2 += x[g + 2]
        a3 += x[g + 3]
        a4 += x[g + 4]
        a5 += x[g + 5]
        a6 += x[g + 6]
        a7 += x[g + 7]
        g += 8
    while g < n:
        a0 += x[g]
        g += 1
    return ((a0 + a1) + (a2 + a3)) + ((a4 + a5) + (a6 + a7))


@numba.njit(cache=True, error_model="numpy")
def _forward_rows(use_simplex, inv_h, G, p, left, right, feature, ws):
    """Forward sweep over all rows, node by node: ψ (row ``PSI + n``) and the probability
    φ of reaching every node (row ``PHI + n``); parents precede children."""
    n_nodes = left.shape[0]
    PHI = 0
    PSI = n_nodes
    SIMP = 3 * n_nodes
    TAU = 5 * n_nodes
    XV = 5 * n_nodes + 2
    XT = 7 * n_nodes + 8
    xv = ws[XV, :G]
    phi0 = ws[PHI, :G]
    for g in range(G):
        phi0[g] = 1.0
    for n in range(n_nodes):
        ln = left[n]
        if ln < 0:
            continue
        rn = right[n]
        tn = ws[TAU, n]
        if use_simplex:
            x0 = ws[XT, :G]
            c = ws[SIMP + n, 0]
            for g in range(G):
                xv[g] = x0[g] * c
            for f in range(1, p):
                xf = ws[XT + f, :G]
                c = ws[SIMP + n, f]
                for g in range(G):
                    xv[g] += xf[g] * c
            for g in range(G):
                xv[g] = (xv[g] - tn) * inv_h
        else:
            xf = ws[XT + feature[n], :G]
            for g in range(G):
                xv[g] = (xf[g] - tn) * inv_h
        psi_n = ws[PSI + n, :G]
        _sigmoid_rows(xv, psi_n, 40.0)
        phi_n = ws[PHI + n, :G]
        phi_l = ws[PHI + ln, :G]
        phi_r = ws[PHI + rn, :G]
        for g in range(G):
            pr = phi_n[g] * psi_n[g]
            phi_r[g] = pr
            phi_l[g] = phi_n[g] - pr


@numba.njit(cache=True, error_model="numpy")
def _subtree_values(G, left, right, ws):
    """Backward sweep: s_n = (1 − ψ_n) s_left + ψ_n s_right for every internal node, given
    the leaves' rows ``S + k`` (children follow their parent, so a descending loop works)."""
    n_nodes = left.shape[0]
    PSI = n_nodes
    S = 2 * n_nodes
    for n in range(n_nodes - 1, -1, -1):
        ln = left[n]
        if ln < 0:
            continue
        s_n = ws[S + n, :G]
        s_l = ws[S + ln, :G]
        s_r = ws[S + right[n], :G]
        psi_n = ws[PSI + n, :G]
        for g in range(G):
            s_n[g] = s_l[g] + psi_n[g] * (s_r[g] - s_l[g])


@numba.njit(cache=True, error_model="numpy")
def _split_gradients(use_simplex, inv_h, G, p, left, right, ws):
    """Gradients of Σ_g dp_g · (output of row g) w.r.t. every τ_n and Δ_n (rows ``GTAU``,
    ``GSIMP + n``), from φ, ψ, the subtree values s and the row weights dp (row ``DP``):
    ∂/∂z_n = dp φ_n ψ_n (1 − ψ_n)(s_right − s_left), z_n = (x·Δ_n − τ_n)/h."""
    n_nodes = left.shape[0]
    PHI = 0
    PSI = n_nodes
    S = 2 * n_nodes
    GSIMP = 4 * n_nodes
    GTAU = 5 * n_nodes + 1
    XV = 5 * n_nodes + 2
    DP = 5 * n_nodes + 3
    TMP = 5 * n_nodes + 5
    XT = 7 * n_nodes + 8
    xv = ws[XV, :G]
    tmp = ws[TMP, :G]
    dp = ws[DP, :G]
    for n in range(n_nodes):
        ln = left[n]
        if ln < 0:
            continue
        phi_n = ws[PHI + n, :G]
        psi_n = ws[PSI + n, :G]
        s_l = ws[S + ln, :G]
        s_r = ws[S + right[n], :G]
        for g in range(G):
            ps = psi_n[g]
            xv[g] = dp[g] * phi_n[g] * (ps - ps * ps) * (s_r[g] - s_l[g])
        ws[GTAU, n] = -_rsum(xv, G) * inv_h
        if use_simplex:
            for f in range(p):
                xf = ws[XT + f, :G]
                for g in range(G):
                    tmp[g] = xv[g] * xf[g]
                ws[GSIMP + n, f] = _rsum(tmp, G) * inv_h


@numba.njit(cache=True, error_model="numpy")
def _clf_rows(use_simplex, h, G, p, left, right, feature, alpha_cls, need_grad, ws):
    """Dirichlet–multinomial log-likelihood on soft counts over all rows, node by node.

    Per leaf k with soft counts C_km = Σ_g φ_k(x_g) n_gm: lgamma(A) − Σ_m lgamma(α_m)
    + Σ_m lgamma(C_km + α_m) − lgamma(Σ_m C_km + A). Fills the τ/Δ gradients like
    ``_reg_rows``, with leaf values s_k(g) = Σ_m n_gm ∂/∂C_km.
    """
    n_nodes = left.shape[0]
    M = alpha_cls.shape[0]
    S = 2 * n_nodes
    DP = 5 * n_nodes + 3
    TMP = 5 * n_nodes + 5
    DD = 6 * n_nodes + 6
    YT = 7 * n_nodes + 8 + p
    inv_h = 1.0 / h
    tmp = ws[TMP, :G]
    _forward_rows(use_simplex, inv_h, G, p, left, right, feature, ws)
    A = 0.0
    lg_alpha = 0.0
    for m in range(M):
        A += alpha_cls[m]
        lg_alpha += math.lgamma(alpha_cls[m])
    lp = 0.0
    for n in range(n_nodes):
        if left[n] >= 0:
            continue
        phi_n = ws[n, :G]
        tot = 0.0
        for m in range(M):
            ym = ws[YT + m, :G]
            for g in range(G):
                tmp[g] = ym[g] * phi_n[g]
            c = _rsum(tmp, G)
            ws[DD + n, m] = c
            tot += c
            lp += math.lgamma(c + alpha_cls[m])
        lp += math.lgamma(A) - lg_alpha - math.lgamma(tot + A)
        if need_grad:
            dg = _digamma(tot + A)
            for m in range(M):
                ws[DD + n, m] = _digamma(ws[DD + n, m] + alpha_cls[m]) - dg
    if need_grad:
        for n in range(n_nodes):
            if left[n] >= 0:
                continue
            s_n = ws[S + n, :G]
            for g in range(G):
                s_n[g] = 0.0
            for m in range(M):
                ym = ws[YT + m, :G]
                d = ws[DD + n, m]
                for g in range(G):
                    s_n[g] += ym[g] * d
        _subtree_values(G, left, right, ws)
        dp = ws[DP, :G]
        for g in range(G):
            dp[g] = 1.0
        _split_gradients(use_simplex, inv_h, G, p, left, right, ws)
    return lp


@numba.njit(cache=True, error_model="numpy")
def _reg_rows(theta, grad, need_grad, use_simplex, h, X, w, ysum, yss, left, right, feature,
              leaf_pos, off_mu, off_sig, inv_s2, g_logsig, ws):
    """Regression likelihood over all rows, node by node (vectorised over rows).

    Returns ``(q_tot, n_tot)``, the weighted residual sum of squares and the number of
    rows, from which the caller forms the Gaussian log-likelihood; fills the gradient
    of μ and the τ/Δ-gradients ``g_tau`` / ``g_simp`` held in the workspace.
    """
    G, p = X.shape
    n_nodes = left.shape[0]
    PHI = 0
    S = 2 * n_nodes
    DP = 5 * n_nodes + 3
    TMP = 5 * n_nodes + 5
    inv_h = 1.0 / h
    tmp = ws[TMP, :G]
    dp = ws[DP, :G]
    _forward_rows(use_simplex, inv_h, G, p, left, right, feature, ws)
    for n in range(n_nodes):
        if left[n] < 0:
            m = theta[off_mu + leaf_pos[n]]
            s_n = ws[S + n, :G]
            for g in range(G):
                s_n[g] = m
    _subtree_values(G, left, right, ws)
    pred = ws[S, :G]
    for g in range(G):
        pg = pred[g]
        tmp[g] = w[g] * pg * pg - 2.0 * pg * ysum[g] + yss[g]
        dp[g] = -(w[g] * pg - ysum[g]) * inv_s2
    q_tot = _rsum(tmp, G)
    n_tot = _rsum(w, G)
    if need_grad:
        for n in range(n_nodes):
            ln = left[n]
            phi_n = ws[PHI + n, :G]
            if ln < 0:
                for g in range(G):
                    tmp[g] = dp[g] * phi_n[g]
                grad[off_mu + leaf_pos[n]] += _rsum(tmp, G)
        _split_gradients(use_simplex, inv_h, G, p, left, right, ws)
    return q_tot, n_tot


@numba.njit(cache=True)
def _log_posterior_ws(theta, grad, model, need_grad, jacobian, h, X, w, ysum, yss, ycnt,
                     left, right, feature, int_pos, leaf_pos, hyp, alpha_cls, ws):
    """``_log_posterior_kernel`` with a caller-owned workspace ``ws``.

    ``ws`` comes from ``_new_workspace`` for this data and number of nodes (its
    last rows hold ``X.T`` and ``ycnt.T``); nothing is allocated per call, so NUTS can
    evaluate the density millions of times cheaply.
    """
    d = theta.shape[0]
    if need_grad:
        for i in range(d):
            grad[i] = 0.0
    if model == 9:
        # Gaussian test target: X = precision matrix, ysum = mean.
        lp = 0.0
        for i in range(d):
            acc = 0.0
            for j in range(d):
                acc += X[i, j] * (theta[j] - ysum[j])
            lp -= 0.5 * (theta[i] - ysum[i]) * acc
            if need_grad:
                grad[i] = -acc
        return lp

    regression = model == 0 or model == 1
    use_simplex = model == 1 or model == 3
    G, p = X.shape
    n_nodes = left.shape[0]
    SIMP = 3 * n_nodes
    GSIMP = 4 * n_nodes
    TAU = 5 * n_nodes
    GTAU = 5 * n_nodes + 1
    GY = 5 * n_nodes + 4
    n_int = 0
    for n in range(n_nodes):
        if left[n] >= 0:
            n_int += 1
    n_leaf = n_nodes - n_int
    off_mu = n_int + (n_int * (p - 1) if use_simplex else 0)
    off_sig = off_mu + n_leaf

    lp = 0.0
    dir_const = 0.0
    a = hyp[4]
    if use_simplex:
        dir_const = math.lgamma(p * a) - p * math.lgamma(a)
    log_p = math.log(p)
    # ---- decode thresholds (and simplices) of the internal nodes
    for n in range(n_nodes):
        if left[n] >= 0:
            u = theta[int_pos[n]]
            t = _sigmoid(u)
            t = min(max(t, 1e-300), 1.0 - 1e-16)
            ws[TAU, n] = t
            if jacobian:
                lp += math.log(t) + math.log(max(_sigmoid(-u), 1e-300))
            if use_simplex:
                j = int_pos[n]
                lj = _stick_forward(theta[n_int + j * (p - 1): n_int + (j + 1) * (p - 1)], ws[SIMP + n, :p])
                if jacobian:
                    lp += lj
                lp += dir_const
                if a != 1.0:
                    for f in range(p):
                        lp += (a - 1.0) * math.log(max(ws[SIMP + n, f], 1e-300))
            else:
                lp -= log_p
    if regression:
        mu0 = hyp[0]
        smu = hyp[1]
        a_s = hyp[2]
        b_s = hyp[3]
        logsig = theta[off_sig]
        if not (-300.0 < logsig < 300.0):
            # σ² would under- or overflow: zero density (NUTS reports a divergence; prior-only runs reach here)
            return -np.inf
        sig = math.exp(logsig)
        inv_s2 = 1.0 / (sig * sig)
        # priors
        lsmu = math.log(smu) + 0.5 * _LOG_2PI
        for n in range(n_nodes):
            if left[n] < 0:
                m = theta[off_mu + leaf_pos[n]]
                zz = (m - mu0) / smu
                lp += -0.5 * zz * zz - lsmu
                if need_grad:
                    grad[off_mu + leaf_pos[n]] += -zz / smu
        lp += a_s * math.log(b_s) - math.lgamma(a_s) - (a_s + 1.0) * logsig - b_s / sig
        if jacobian:
            lp += logsig
        g_logsig = -(a_s + 1.0) + b_s / sig + (1.0 if jacobian else 0.0)
        q_tot, n_tot = _reg_rows(theta, grad, need_grad, use_simplex, h, X, w, ysum, yss, left, right,
                                 feature, leaf_pos, off_mu, off_sig, inv_s2, g_logsig, ws)
        lp += -0.5 * n_tot * (_LOG_2PI + 2.0 * logsig) - 0.5 * q_tot * inv_s2
        if need_grad:
            grad[off_sig] = g_logsig - n_tot + q_tot * inv_s2
    else:
        lp += _clf_rows(use_simplex, h, G, p, left, right, feature, alpha_cls, need_grad, ws)
    # ---- chain rule to unconstrained coordinates
    if need_grad:
        gy = ws[GY, :max(p - 1, 1)]
        for n in range(n_nodes):
            if left[n] >= 0:
                j = int_pos[n]
                t = ws[TAU, n]
                grad[j] += ws[GTAU, n] * t * (1.0 - t)
                if jacobian:
                    grad[j] += 1.0 - 2.0 * t
                if use_simplex:
                    if a != 1.0:
                        for f in range(p):
                            ws[GSIMP + n, f] += (a - 1.0) / max(ws[SIMP + n, f], 1e-300)
                    _stick_backward(theta[n_int + j * (p - 1): n_int + (j + 1) * (p - 1)], ws[SIMP + n, :p],
                                    ws[GSIMP + n, :p], gy, jacobian)
                    for f in range(p - 1):
                        grad[n_int + j * (p - 1) + f] += gy[f]
    return lp


@numba.njit(cache=True)
def _log_posterior_kernel(theta, grad, model, need_grad, jacobian, h, X, w, ysum, yss, ycnt,
                         left, right, feature, int_pos, leaf_pos, hyp, alpha_cls):
    """Log-density (and gradient into ``grad``) of the flat vector ``theta``.

    ``X`` (G, p): unique scaled rows; ``w`` (G,) their multiplicities; ``ysum``,
    ``yss`` (G,): per-row sums of y and y² (regression); ``ycnt`` (G, M): class
    counts (classification). ``hyp = [μ₀, s_μ, a_σ, b_σ, α_Δ]``. Allocates a
    workspace per call; samplers use ``_log_posterior_ws`` with one workspace.
    """
    ws = _new_workspace(X, left.shape[0], model, ycnt)
    return _log_posterior_ws(theta, grad, model, need_grad, jacobian, h, X, w, ysum, yss, ycnt, left, right,
                            feature, int_pos, leaf_pos, hyp, alpha_cls, ws)


# ---------------------------------------------------------------------------- transforms (Python)
def _stick_breaking(y):
    """Map ``y`` in R^{K−1} to the unit simplex in R^K (Stan's stick-breaking transform).

    Examples
    --------
    >>> _stick_breaking(np.zeros(2)).round(6).tolist()
    [0.333333, 0.333333, 0.333333]
    """
    y = np.ascontiguousarray(y, dtype=np.float64).ravel()
    x = np.zeros(y.shape[0] + 1)
    _stick_forward(y, x)
    return x


def _stick_breaking_log_jacobian(y):
    """Log absolute Jacobian determinant ``log |det ∂x_{1:K−1}/∂y|`` of ``_stick_breaking``.

    Examples
    --------
    >>> round(float(_stick_breaking_log_jacobian(np.zeros(1))), 6)  # x1 = logistic(y), J = 1/4
    -1.386294
    """
    y = np.ascontiguousarray(y, dtype=np.float64).ravel()
    x = np.zeros(y.shape[0] + 1)
    return float(_stick_forward(y, x))


def _stick_breaking_inverse(x):
    """Inverse of ``_stick_breaking`` for a point strictly inside the simplex.

    Examples
    --------
    >>> _stick_breaking_inverse(_stick_breaking(np.array([0.3, -1.0]))).round(6).tolist()
    [0.3, -1.0]
    """
    x = np.asarray(x, dtype=np.float64).ravel()
    K = x.shape[0]
    y = np.zeros(K - 1)
    rem = 1.0
    for k in range(K - 1):
        z = min(max(x[k] / rem, 1e-15), 1 - 1e-15)
        y[k] = np.log(z) - np.log1p(-z) + np.log(K - 1 - k)
        rem -= x[k]
    return y


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
    >>> from tabular_trees.bayes.soft_tree import SoftTree
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
    mu_loc, mu_scale, sigma_a, sigma_b, simplex_alpha, class_alpha :
        Prior hyperparameters (paper defaults 0, 1, 1.5, 1.5, 1, 1).
    alpha, beta : float
        Topology prior p_split(d) = α(1+d)^−β.

    Notes
    -----
    Identical rows are merged (their counts and target sums are sufficient
    statistics), which makes the likelihood exact and cheaper on gridded inputs
    such as the CGM data.

    Examples
    --------
    >>> from tabular_trees.bayes.soft_tree import SoftTree
    >>> rng = np.random.default_rng(0); X = rng.random((20, 2)); y = rng.normal(size=20)
    >>> post = TreePosterior(X, y, "regression", use_simplex=False)
    >>> tree = SoftTree(2).grow(0, 1, 0.5, None, 0.3)
    >>> theta = post.pack(tree, sigma=1.0)
    >>> lp, g = post.logp_grad(tree, theta, h=0.1)
    >>> g.shape
    (4,)
    """

    def __init__(self, X, y, task, use_simplex, n_classes=None, mu_loc=0.0, mu_scale=1.0,
                 sigma_a=1.5, sigma_b=1.5, simplex_alpha=1.0, class_alpha=1.0, alpha=0.95, beta=1.0):
        check_option(task, "task", {"regression", "classification"})
        if not isinstance(use_simplex, (bool, np.bool_)):
            raise TypeError(f"use_simplex must be True or False, got {use_simplex!r}.")
        X = as_float_matrix(X, "X")
        for name, val in (("mu_scale", mu_scale), ("sigma_a", sigma_a), ("sigma_b", sigma_b),
                          ("simplex_alpha", simplex_alpha), ("class_alpha", class_alpha)):
            check_real(val, name, min_val=0.0, include_boundaries="neither")
        check_real(mu_loc, "mu_loc")
        check_real(alpha, "alpha", min_val=0.0, max_val=1.0, include_boundaries="neither")
        check_real(beta, "beta", min_val=0.0)
        if task == "regression":
            y = as_regression_target(y, X.shape[0])
            if np.max(np.abs(y)) > 1e150:
                raise ValueError("y has values beyond 1e150 in magnitude, whose squares overflow; standardise y "
                                 "(BayesianTreeRegressor does so by default).")
        else:
            y = np.asarray(y)
            if y.shape != (X.shape[0],) or y.dtype.kind not in "iu":
                raise ValueError("y must be integer class codes of shape (n_samples,) for classification.")
            M = int(y.max()) + 1 if n_classes is None else check_int(n_classes, "n_classes", min_val=2)
            if y.min() < 0 or y.max() >= M:
                raise ValueError(f"class codes must lie in 0..{M - 1}; encode labels with numpy.unique first.")
        self.task = task
        self.use_simplex = bool(use_simplex)
        self.regression = task == "regression"
        self.model = (REG_DFI if use_simplex else REG_DF) if self.regression else (CLF_DFI if use_simplex else CLF_DF)
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
        self.hyp = np.array([mu_loc, mu_scale, sigma_a, sigma_b, simplex_alpha], dtype=np.float64)
        self.alpha_cls = np.full(max(self.n_classes, 1), float(class_alpha))
        self.alpha = float(alpha)
        self.beta = float(beta)

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
        >>> from tabular_trees.bayes.soft_tree import SoftTree
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
    def _kernel_args(self, tree):
        int_pos, leaf_pos = self.positions(tree)
        return (self.X, self.w, self.ysum, self.yss, self.ycnt, tree.left, tree.right, tree.feature,
                int_pos, leaf_pos, self.hyp, self.alpha_cls)

    def logp_grad(self, tree, theta, h, jacobian=True):
        """Log-density of θ (parameters only, no topology prior) and its gradient.

        ``jacobian=True`` includes the log-Jacobians of the unconstrained transforms (the
        density HMC samples); ``False`` gives the density of the constrained parameters.
        """
        theta, h = self._check(tree, theta, h)
        grad = np.zeros_like(theta)
        lp = _log_posterior_kernel(theta, grad, self.model, True, bool(jacobian), h, *self._kernel_args(tree))
        return float(lp), grad

    def logp(self, tree, theta, h, jacobian=True):
        """Log-density of θ alone (see :meth:`logp_grad`)."""
        theta, h = self._check(tree, theta, h)
        grad = np.zeros_like(theta)
        return float(_log_posterior_kernel(theta, grad, self.model, False, bool(jacobian), h,
                                           *self._kernel_args(tree)))

    def log_posterior(self, tree, theta, h):
        """Constrained-space log-posterior density π(T, κ/Δ, τ, θ) up to the evidence, tree prior included."""
        return self.logp(tree, theta, h, jacobian=False) + log_tree_prior(tree, self.alpha, self.beta)

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
