"""The compiled log-posterior kernels of soft decision trees, with analytic gradients.

``TreePosterior`` (``posterior.py``) is their Python front end; NUTS (``nuts.py``) calls
``_log_posterior_ws`` directly. The kernels receive their state as named tuples
(``_TreeData``: data and hyperparameters; ``_Topology``: the tree) and a workspace whose
row layout ``_ws_layout`` defines.

Models (integer codes, named in ``_codes``, so one compiled kernel serves every topology):

* ``REG_DF`` (0) / ``REG_DFI`` (1): Gaussian likelihood (Eq. 12) with leaf means μ
  and one shared σ;
* ``CLF_DF`` (2) / ``CLF_DFI`` (3): Dirichlet–multinomial likelihood on soft
  counts (Eq. 10), *with* the per-leaf normalising constant
  ``lgamma(A) - Σ_m lgamma(α_m)``;
* ``GAUSS`` (9): a multivariate Gaussian test target (used to test NUTS).

The priors and the layout of the flat vector θ are described in ``posterior.py``; the
kernels evaluate the density of θ (``jacobian=True``: with the log-Jacobians of the
unconstrained transforms) and its gradient.

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
from collections import namedtuple

import numba
import numpy as np
from llvmlite import ir as llvm_ir
from numba.core import types
from numba.extending import intrinsic

from ._codes import CLF_DF, CLF_DFI, GAUSS, REG_DF, REG_DFI

_LOG_2PI = math.log(2.0 * math.pi)

# Kernels that allocate nothing (they read and write arrays their caller owns) are compiled
# without numba's reference counting: otherwise every row view (``ws[PHI + n, :G]``) costs an
# atomic increment and decrement, about 30 % of a gradient on the CGM data (measured with perf).
_NO_REFCOUNT = dict(cache=True, _nrt=False)


# ----------------------------------------------------------------------------- stick-breaking (HMC-DFI's simplex)
# Stan's stick-breaking map and its gradient (they allocate nothing).
# (Python wrappers and the inverse: ``_simplex``.)


@numba.njit(**_NO_REFCOUNT)
def _stick_offsets(K, out):
    """``out[k] = log(K − 1 − k)`` for k < K − 1: the offsets that centre the stick-breaking map
    at the simplex's centre (constants, computed once per workspace)."""
    for k in range(K - 1):
        out[k] = math.log(K - 1 - k)


@numba.njit(**_NO_REFCOUNT)
def _stick_forward(y, x, offsets, e, log_rem_before):
    """Stan's stick-breaking map R^{K-1} → simplex in R^K; returns the log-Jacobian.

    With a_k = y_k − ``offsets[k]`` (``_stick_offsets``), break k takes the fraction
    z_k = logistic(a_k) of the remaining stick. The remaining stick is carried in log space, so a
    far-out ``y`` (a break taking the whole stick) gives tiny but valid simplex entries and a
    finite log-Jacobian instead of log(0). log z_k and log(1 − z_k) share one e^{−|a_k|}, which
    is kept in ``e[k]``, with the log of the stick before break k in ``log_rem_before[k]``, for
    ``_stick_backward``.
    """
    K = x.shape[0]
    log_rem = 0.0
    logj = 0.0
    for k in range(K - 1):
        a = y[k] - offsets[k]
        if a >= 0.0:  # log z = −log1p(e^{−a}), log(1 − z) = −a − log1p(e^{−a})
            ek = math.exp(-a)
            l1p = math.log1p(ek)
            log_z = -l1p
            log_1mz = -a - l1p
        else:  # log z = a − log1p(e^{a}), log(1 − z) = −log1p(e^{a})
            ek = math.exp(a)
            l1p = math.log1p(ek)
            log_z = a - l1p
            log_1mz = -l1p
        e[k] = ek
        log_rem_before[k] = log_rem
        x[k] = math.exp(log_rem + log_z)
        logj += log_z + log_1mz + log_rem
        log_rem += log_1mz
    x[K - 1] = math.exp(log_rem)
    return logj


@numba.njit(**_NO_REFCOUNT)
def _stick_backward(y, x, gx, gy, with_jac, offsets, e, log_rem_before):
    """Gradient w.r.t. y of L(x(y)) [+ log-Jacobian] given gx = ∂L/∂x (length K), from the
    intermediate values ``e`` and ``log_rem_before`` of the ``_stick_forward`` call at this y."""
    K = x.shape[0]
    gs = gx[K - 1]
    for k in range(K - 2, -1, -1):
        # s_k: the remaining stick before break k, a product of (1 − z_j) (no cancellation)
        s_k = math.exp(log_rem_before[k])
        z = 1.0 / (1.0 + e[k]) if y[k] - offsets[k] >= 0.0 else e[k] / (1.0 + e[k])
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


@numba.njit(**_NO_REFCOUNT)
def _digamma(x):
    r = 0.0
    while x < 6.0:
        r -= 1.0 / x
        x += 1.0
    f = 1.0 / (x * x)
    t = f * (-1.0 / 12 + f * (1.0 / 120 + f * (-1.0 / 252 + f * (1.0 / 240 + f * (-1.0 / 132)))))
    return r + math.log(x) - 0.5 / x + t



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


@intrinsic
def _pow2i(typingctx, k):
    """``2.0**k`` for an integer k in [−1022, 1023], written directly into the exponent bits
    (exact, and vectorisable: a table lookup would compile to a gather)."""
    sig = types.float64(types.int64)

    def codegen(context, builder, signature, args):
        i64 = llvm_ir.IntType(64)
        biased = builder.add(args[0], llvm_ir.Constant(i64, 1023))
        return builder.bitcast(builder.shl(biased, llvm_ir.Constant(i64, 52)), llvm_ir.DoubleType())

    return sig, codegen


@numba.njit(cache=True, error_model="numpy", inline="always")
def _logistic_clipped(zz, zmax):
    """``logistic(zz)``, with ``zz`` clipped to ±``zmax`` (40: beyond it the logistic equals 0 or
    1 to double precision and is set so); branch-free, so loops calling it vectorise.

    e^{−|z|} is evaluated as 2^{−k}·e^{r} with Cody–Waite reduction (|r| ≤ ln2/2) and a
    degree-13 Taylor polynomial, relative error ~2e-16 (numba has no vector exp; a scalar
    libm call per row would cost 4–5× more).
    """
    zc = zz if zz < zmax else zmax
    zc = zc if zc > -zmax else -zmax
    a = zc if zc < 0.0 else -zc
    k = np.floor(a * _LOG2E + 0.5)  # in [−58, 0]
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
    e = pr * _pow2i(np.int64(k))
    s = (1.0 if zc >= 0.0 else e) / (1.0 + e)
    s = 0.0 if zz < -zmax else s
    return 1.0 if zz > zmax else s


# ---------------------------------------------------------------------------- records
# The compiled code receives its state as a few named tuples (numba compiles them as
# structs, and caches functions taking them like any other argument type).

_TreeData = namedtuple("_TreeData", "model X w ysum yss ycnt hyp alpha_cls")
_TreeData.__doc__ = """The data and hyperparameters of one posterior (``TreePosterior.data_record``).

``model``: a model code (``_codes``); ``X`` (G, p): unique scaled rows; ``w`` (G,) their
multiplicities; ``ysum``, ``yss`` (G,): per-row sums of y and y² (regression); ``ycnt``
(G, M): class counts (classification); ``hyp = [μ₀, s_μ, a_σ, b_σ, α_Δ]``; ``alpha_cls``
(M,): the Dirichlet concentration of the class probabilities. For ``GAUSS``, ``X`` is the
precision matrix and ``ysum`` the mean."""

_Topology = namedtuple("_Topology", "left right feature int_pos leaf_pos")
_Topology.__doc__ = """A tree's topology in flat arrays: children (−1 at leaves), split indices
(updated in place by the Gibbs step of HMC-DF) and each node's position among the internal
nodes / leaves (−1 elsewhere), which places its parameters in θ."""

_WsLayout = namedtuple("_WsLayout", "PHI PSI S SIMP GSIMP TAU GTAU XV DP GY TMP DD CONST STE STL LOGK NBAND BAND "
                                    "ZB XT YT")
_WsLayout.__doc__ = """First row of each block of the workspace (see ``_ws_layout``)."""


@numba.njit(cache=True, inline="always")
def _is_regression(model):
    return model == REG_DF or model == REG_DFI


@numba.njit(cache=True, inline="always")
def _uses_simplex(model):
    return model == REG_DFI or model == CLF_DFI


@numba.njit(cache=True, inline="always")
def _ws_layout(n_nodes, p):
    """The workspace's row layout, the one place it is defined (one column per data row).

    Blocks of ``n_nodes`` rows, one row per node: φ (probability of reaching the node,
    ``PHI``), ψ (its split's logistic, ``PSI``), s (subtree values, ``S``), the simplex Δ and
    its gradient (``SIMP``, ``GSIMP``; column f = feature f); single rows holding one value
    per node: τ (``TAU``), its gradient (``GTAU``); scratch rows ``XV`` (split arguments),
    ``DP`` (per-row weights of the output's gradient), ``GY`` (stick-breaking gradient),
    ``TMP``; a block ``DD`` of per-leaf class counts / digamma terms; a row ``CONST`` of the
    density's constants (``_fill_constants``); two blocks of the stick-breaking map's
    intermediate values per node (``STE``, ``STL``: see ``_simplex._stick_forward``) and a row of
    its offsets (``LOGK``); a row holding, per node, how many rows lie in its split's band (``NBAND``,
    −1 where the split was evaluated densely, see ``_forward_rows``), a block of those rows' indices per
    node (``BAND``) and a scratch row for their split arguments (``ZB``); then ``X.T`` (``XT``, p rows)
    and, for classification, ``ycnt.T`` (``YT``, M rows).
    """
    b = 9 * n_nodes + 10  # first row after the stick-breaking offsets
    return _WsLayout(0, n_nodes, 2 * n_nodes, 3 * n_nodes, 4 * n_nodes, 5 * n_nodes, 5 * n_nodes + 1,
                     5 * n_nodes + 2, 5 * n_nodes + 3, 5 * n_nodes + 4, 5 * n_nodes + 5, 6 * n_nodes + 6,
                     7 * n_nodes + 8, 7 * n_nodes + 9, 8 * n_nodes + 9, 9 * n_nodes + 9, b, b + 1,
                     b + 1 + n_nodes, b + 2 + n_nodes, b + 2 + n_nodes + p)


# columns of the workspace row CONST: terms of the density that depend on the data record only
_C_DIR, _C_LOG_P, _C_LOG_SMU, _C_SIGMA_PRIOR, _C_LGAMMA_A, _C_LGAMMA_ALPHA, _C_A = range(7)


@numba.njit(cache=True)
def _fill_constants(data, row):
    """The density's constant terms, computed once per workspace instead of once per call
    (each in exactly the operations the density used to evaluate, so results are unchanged)."""
    model, hyp = data.model, data.hyp
    p = data.X.shape[1]
    if _uses_simplex(model):
        a = hyp[4]
        row[_C_DIR] = math.lgamma(p * a) - p * math.lgamma(a)
    row[_C_LOG_P] = math.log(p)
    if _is_regression(model):
        row[_C_LOG_SMU] = math.log(hyp[1]) + 0.5 * _LOG_2PI
        row[_C_SIGMA_PRIOR] = hyp[2] * math.log(hyp[3]) - math.lgamma(hyp[2])
    if model == CLF_DF or model == CLF_DFI:
        A = 0.0
        lg_alpha = 0.0
        for m in range(data.alpha_cls.shape[0]):
            A += data.alpha_cls[m]
            lg_alpha += math.lgamma(data.alpha_cls[m])
        row[_C_A] = A
        row[_C_LGAMMA_ALPHA] = lg_alpha
        row[_C_LGAMMA_A] = math.lgamma(A)


@numba.njit(cache=True)
def _fill_transposed(X, ws, base):
    for f in range(X.shape[1]):
        for g in range(X.shape[0]):
            ws[base + f, g] = X[g, f]


@numba.njit(cache=True)
def _new_workspace(data, n_nodes):
    """Workspace for ``_log_posterior_ws`` on ``data`` (a ``_TreeData``) and trees of
    ``n_nodes`` nodes, laid out by ``_ws_layout``, with ``X.T`` and ``ycnt.T`` filled in."""
    G, p = data.X.shape
    M = data.ycnt.shape[1] if data.model == CLF_DF or data.model == CLF_DFI else 0
    lay = _ws_layout(n_nodes, p)
    ws = np.zeros((lay.YT + M, max(n_nodes, G, p, M, 7)))
    if data.model != GAUSS:
        _fill_transposed(data.X, ws, lay.XT)
        _fill_constants(data, ws[lay.CONST])
        _stick_offsets(p, ws[lay.LOGK])
    if M > 0:
        _fill_transposed(data.ycnt, ws, lay.YT)
    return ws


@numba.njit(**_NO_REFCOUNT)
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


# Beyond ±_Z_SATURATED the logistic is exactly 0 or 1 (``_logistic_clipped``). At small h most rows lie
# outside a split's band |z| <= _Z_SATURATED, where its gradient term ψ(1 − ψ) is an exact zero.
_Z_SATURATED = 40.0
# A split whose band holds at most G / _BAND_SHARE of the G rows is evaluated sparsely (its band rows'
# indices listed); otherwise densely: listing and gathering many rows costs more than one vectorised pass over
# all of them (a quarter is the share at which the earlier sparse Δ-sums paid off, as measured then).
_BAND_SHARE = 4


@numba.njit(error_model="numpy", **_NO_REFCOUNT)
def _forward_rows(use_simplex, inv_h, G, p, left, right, feature, ws):
    """Forward sweep over all rows, node by node: ψ (row ``PSI + n``) and the probability
    φ of reaching every node (row ``PHI + n``); parents precede children.

    Each split's logistic is computed only for the rows in its band (|z| ≤ 40), listed in ``BAND + n``
    with their number in ``NBAND`` for ``_split_gradients``; the others are exactly 0 or 1. When the
    band holds many rows (large h) every row is evaluated in one vectorised pass instead and ``NBAND``
    is −1. Both give the same bits as evaluating ``_logistic_clipped`` at every row.
    """
    n_nodes = left.shape[0]
    lay = _ws_layout(n_nodes, p)
    PHI, PSI, SIMP, TAU, XV, XT = lay.PHI, lay.PSI, lay.SIMP, lay.TAU, lay.XV, lay.XT
    xv = ws[XV, :G]
    zb = ws[lay.ZB, :G]
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
            src = xv
        else:
            src = ws[XT + feature[n], :G]
        psi_n = ws[PSI + n, :G]
        n_band = 0
        for g in range(G):  # saturated values everywhere, and the size of the band (NaN counts as inside)
            zq = (src[g] - tn) * inv_h
            psi_n[g] = 1.0 if zq > _Z_SATURATED else 0.0
            n_band += not (zq > _Z_SATURATED or zq < -_Z_SATURATED)
        if _BAND_SHARE * n_band <= G:
            band = ws[lay.BAND + n, :G]
            k = 0
            for g in range(G if n_band > 0 else 0):
                zq = (src[g] - tn) * inv_h
                if not (zq > _Z_SATURATED or zq < -_Z_SATURATED):
                    band[k] = g
                    zb[k] = zq
                    k += 1
            for j in range(k):  # vectorised over the band's compacted arguments
                zb[j] = _logistic_clipped(zb[j], _Z_SATURATED)
            for j in range(k):
                psi_n[int(band[j])] = zb[j]
            ws[lay.NBAND, n] = k
        else:
            for g in range(G):
                psi_n[g] = _logistic_clipped((src[g] - tn) * inv_h, _Z_SATURATED)
            ws[lay.NBAND, n] = -1.0
        phi_n = ws[PHI + n, :G]
        phi_l = ws[PHI + ln, :G]
        phi_r = ws[PHI + rn, :G]
        for g in range(G):
            pr = phi_n[g] * psi_n[g]
            phi_r[g] = pr
            phi_l[g] = phi_n[g] - pr


@numba.njit(error_model="numpy", **_NO_REFCOUNT)
def _subtree_values(G, p, left, right, ws):
    """Backward sweep: s_n = (1 − ψ_n) s_left + ψ_n s_right for every internal node, given
    the leaves' rows ``S + k`` (children follow their parent, so a descending loop works)."""
    n_nodes = left.shape[0]
    lay = _ws_layout(n_nodes, p)
    PSI, S = lay.PSI, lay.S
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


@numba.njit(**_NO_REFCOUNT)
def _rsum_products(x, y, n):
    """``_rsum`` of the products ``x[:n] * y[:n]`` without storing them (the same products, lanes and
    order, so the same bits as ``_rsum(x * y, n)``)."""
    a0 = a1 = a2 = a3 = a4 = a5 = a6 = a7 = 0.0
    g = 0
    while g + 8 <= n:
        a0 += x[g] * y[g]
        a1 += x[g + 1] * y[g + 1]
        a2 += x[g + 2] * y[g + 2]
        a3 += x[g + 3] * y[g + 3]
        a4 += x[g + 4] * y[g + 4]
        a5 += x[g + 5] * y[g + 5]
        a6 += x[g + 6] * y[g + 6]
        a7 += x[g + 7] * y[g + 7]
        g += 8
    while g < n:
        a0 += x[g] * y[g]
        g += 1
    return ((a0 + a1) + (a2 + a3)) + ((a4 + a5) + (a6 + a7))


@numba.njit(**_NO_REFCOUNT)
def _combine_lanes(acc, b):
    """``_rsum``'s final combination of the eight partial sums ``acc[b:b + 8]``."""
    return ((acc[b] + acc[b + 1]) + (acc[b + 2] + acc[b + 3])) + ((acc[b + 4] + acc[b + 5]) + (acc[b + 6] + acc[b + 7]))


@numba.njit(error_model="numpy", **_NO_REFCOUNT)
def _band_split_gradient(use_simplex, inv_h, G, p, n, ln, rn, ws, lay, acc):
    """``_split_gradients`` for node n from its band rows only (``BAND + n``, listed by ``_forward_rows``).

    Outside the band ψ(1 − ψ) is an exact zero, so those rows' terms are ±0. Each band row's term is
    formed in the dense pass's operations and added to the partial sum ``_rsum`` would give it (lane
    g mod 8, the tail in lane 0), in increasing g, and the lanes are combined as ``_rsum`` combines
    them: the result is bit-identical to the dense sums at a cost proportional to the band.
    ``acc`` is scratch of at least 8 (p + 1) values.
    """
    k = int(ws[lay.NBAND, n])
    band = ws[lay.BAND + n, :G]
    n_acc = 8 * (p + 1) if use_simplex else 8
    for i in range(n_acc):
        acc[i] = 0.0
    g_main = G - G % 8  # rows _rsum adds in its unrolled loop; the rest go to lane 0
    for j in range(k):
        g = int(band[j])
        ps = ws[lay.PSI + n, g]
        v = ws[lay.DP, g] * ws[lay.PHI + n, g] * (ps - ps * ps) * (ws[lay.S + rn, g] - ws[lay.S + ln, g])
        lane = (g & 7) if g < g_main else 0
        acc[lane] += v
        if use_simplex:
            for f in range(p):
                acc[8 * (f + 1) + lane] += v * ws[lay.XT + f, g]
    ws[lay.GTAU, n] = -_combine_lanes(acc, 0) * inv_h
    if use_simplex:
        for f in range(p):
            ws[lay.GSIMP + n, f] = _combine_lanes(acc, 8 * (f + 1)) * inv_h


@numba.njit(error_model="numpy", **_NO_REFCOUNT)
def _split_gradients(use_simplex, inv_h, G, p, left, right, ws):
    """Gradients of Σ_g dp_g · (output of row g) w.r.t. every τ_n and Δ_n (rows ``GTAU``,
    ``GSIMP + n``), from φ, ψ, the subtree values s and the row weights dp (row ``DP``):
    ∂/∂z_n = dp φ_n ψ_n (1 − ψ_n)(s_right − s_left), z_n = (x·Δ_n − τ_n)/h. A split whose band
    ``_forward_rows`` listed is summed over its band rows only (``_band_split_gradient``)."""
    n_nodes = left.shape[0]
    lay = _ws_layout(n_nodes, p)
    PHI, PSI, S, GSIMP, GTAU, XV, DP, TMP, XT = (lay.PHI, lay.PSI, lay.S, lay.GSIMP, lay.GTAU, lay.XV, lay.DP,
                                                 lay.TMP, lay.XT)
    xv = ws[XV, :G]
    tmp = ws[TMP, :]
    dp = ws[DP, :G]
    for n in range(n_nodes):
        ln = left[n]
        if ln < 0:
            continue
        if ws[lay.NBAND, n] >= 0.0 and 8 * (p + 1) <= tmp.shape[0]:
            _band_split_gradient(use_simplex, inv_h, G, p, n, ln, right[n], ws, lay, tmp)
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
                ws[GSIMP + n, f] = _rsum_products(xv, xf, G) * inv_h


@numba.njit(error_model="numpy", **_NO_REFCOUNT)
def _clf_rows(use_simplex, h, data, topo, need_grad, ws):
    """Dirichlet–multinomial log-likelihood on soft counts over all rows, node by node.

    Per leaf k with soft counts C_km = Σ_g φ_k(x_g) n_gm: lgamma(A) − Σ_m lgamma(α_m)
    + Σ_m lgamma(C_km + α_m) − lgamma(Σ_m C_km + A). Fills the τ/Δ gradients like
    ``_reg_rows``, with leaf values s_k(g) = Σ_m n_gm ∂/∂C_km.
    """
    G, p = data.X.shape
    alpha_cls = data.alpha_cls
    left, right, feature = topo.left, topo.right, topo.feature
    n_nodes = left.shape[0]
    M = alpha_cls.shape[0]
    lay = _ws_layout(n_nodes, p)
    S, DP, DD, YT = lay.S, lay.DP, lay.DD, lay.YT
    inv_h = 1.0 / h
    _forward_rows(use_simplex, inv_h, G, p, left, right, feature, ws)
    A = ws[lay.CONST, _C_A]
    lg_alpha = ws[lay.CONST, _C_LGAMMA_ALPHA]
    lg_A = ws[lay.CONST, _C_LGAMMA_A]
    lp = 0.0
    for n in range(n_nodes):
        if left[n] >= 0:
            continue
        phi_n = ws[lay.PHI + n, :G]
        tot = 0.0
        for m in range(M):
            ym = ws[YT + m, :G]
            c = _rsum_products(ym, phi_n, G)
            ws[DD + n, m] = c
            tot += c
            lp += math.lgamma(c + alpha_cls[m])
        lp += lg_A - lg_alpha - math.lgamma(tot + A)
        if need_grad:
            dg = _digamma(tot + A)
            for m in range(M):
                ws[DD + n, m] = _digamma(ws[DD + n, m] + alpha_cls[m]) - dg
    if need_grad:
        for n in range(n_nodes):
            if left[n] >= 0:
                continue
            s_n = ws[S + n, :G]
            if M == 2:  # one pass, the same operations in the same order as the general loop
                y0 = ws[YT, :G]
                y1 = ws[YT + 1, :G]
                d0 = ws[DD + n, 0]
                d1 = ws[DD + n, 1]
                for g in range(G):
                    s_n[g] = (0.0 + y0[g] * d0) + y1[g] * d1
                continue
            for g in range(G):
                s_n[g] = 0.0
            for m in range(M):
                ym = ws[YT + m, :G]
                d = ws[DD + n, m]
                for g in range(G):
                    s_n[g] += ym[g] * d
        _subtree_values(G, p, left, right, ws)
        dp = ws[DP, :G]
        for g in range(G):
            dp[g] = 1.0
        _split_gradients(use_simplex, inv_h, G, p, left, right, ws)
    return lp


@numba.njit(error_model="numpy", **_NO_REFCOUNT)
def _reg_rows(theta, grad, need_grad, use_simplex, h, data, topo, off_mu, inv_s2, ws):
    """Regression likelihood over all rows, node by node (vectorised over rows).

    Returns ``(q_tot, n_tot)``, the weighted residual sum of squares and the number of
    rows, from which the caller forms the Gaussian log-likelihood; fills the gradient
    of μ and the τ/Δ-gradients ``g_tau`` / ``g_simp`` held in the workspace.
    """
    G, p = data.X.shape
    w, ysum, yss = data.w, data.ysum, data.yss
    left, right, feature, leaf_pos = topo.left, topo.right, topo.feature, topo.leaf_pos
    n_nodes = left.shape[0]
    lay = _ws_layout(n_nodes, p)
    PHI, S, DP, TMP = lay.PHI, lay.S, lay.DP, lay.TMP
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
    _subtree_values(G, p, left, right, ws)
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
                grad[off_mu + leaf_pos[n]] += _rsum_products(dp, phi_n, G)
        _split_gradients(use_simplex, inv_h, G, p, left, right, ws)
    return q_tot, n_tot


@numba.njit(**_NO_REFCOUNT)
def _log_posterior_ws(theta, grad, need_grad, jacobian, h, data, topo, ws):
    """``_log_posterior_kernel`` with a caller-owned workspace ``ws``.

    ``ws`` comes from ``_new_workspace`` for this data and number of nodes (its
    last rows hold ``X.T`` and ``ycnt.T``); nothing is allocated per call, so NUTS can
    evaluate the density millions of times cheaply.
    """
    model, X, hyp = data.model, data.X, data.hyp
    left, int_pos, leaf_pos = topo.left, topo.int_pos, topo.leaf_pos
    d = theta.shape[0]
    if need_grad:
        for i in range(d):
            grad[i] = 0.0
    if model == GAUSS:
        # Gaussian test target: X = precision matrix, ysum = mean.
        mean = data.ysum
        lp = 0.0
        for i in range(d):
            acc = 0.0
            for j in range(d):
                acc += X[i, j] * (theta[j] - mean[j])
            lp -= 0.5 * (theta[i] - mean[i]) * acc
            if need_grad:
                grad[i] = -acc
        return lp

    regression = _is_regression(model)
    use_simplex = _uses_simplex(model)
    G, p = X.shape
    n_nodes = left.shape[0]
    lay = _ws_layout(n_nodes, p)
    SIMP, GSIMP, TAU, GTAU, GY, STE, STL, LOGK = lay.SIMP, lay.GSIMP, lay.TAU, lay.GTAU, lay.GY, lay.STE, lay.STL, lay.LOGK
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
        dir_const = ws[lay.CONST, _C_DIR]
    log_p = ws[lay.CONST, _C_LOG_P]
    # ---- decode thresholds (and simplices) of the internal nodes
    for n in range(n_nodes):
        if left[n] >= 0:
            u = theta[int_pos[n]]
            # τ = logistic(u) and 1 − τ = logistic(−u) from one e^{−|u|}
            if u >= 0.0:
                eu = math.exp(-u)
                t = 1.0 / (1.0 + eu)
                t_neg = eu / (1.0 + eu)
            else:
                eu = math.exp(u)
                t = eu / (1.0 + eu)
                t_neg = 1.0 / (1.0 + eu)
            t = min(max(t, 1e-300), 1.0 - 1e-16)
            ws[TAU, n] = t
            if jacobian:
                lp += math.log(t) + math.log(max(t_neg, 1e-300))
            if use_simplex:
                j = int_pos[n]
                lj = _stick_forward(theta[n_int + j * (p - 1): n_int + (j + 1) * (p - 1)], ws[SIMP + n, :p],
                                    ws[LOGK, :p - 1], ws[STE + n, :p - 1], ws[STL + n, :p - 1])
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
        lsmu = ws[lay.CONST, _C_LOG_SMU]
        for n in range(n_nodes):
            if left[n] < 0:
                m = theta[off_mu + leaf_pos[n]]
                zz = (m - mu0) / smu
                lp += -0.5 * zz * zz - lsmu
                if need_grad:
                    grad[off_mu + leaf_pos[n]] += -zz / smu
        lp += ws[lay.CONST, _C_SIGMA_PRIOR] - (a_s + 1.0) * logsig - b_s / sig
        if jacobian:
            lp += logsig
        g_logsig = -(a_s + 1.0) + b_s / sig + (1.0 if jacobian else 0.0)
        q_tot, n_tot = _reg_rows(theta, grad, need_grad, use_simplex, h, data, topo, off_mu, inv_s2, ws)
        lp += -0.5 * n_tot * (_LOG_2PI + 2.0 * logsig) - 0.5 * q_tot * inv_s2
        if need_grad:
            grad[off_sig] = g_logsig - n_tot + q_tot * inv_s2
    else:
        lp += _clf_rows(use_simplex, h, data, topo, need_grad, ws)
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
                                    ws[GSIMP + n, :p], gy, jacobian, ws[LOGK, :p - 1], ws[STE + n, :p - 1],
                                    ws[STL + n, :p - 1])
                    for f in range(p - 1):
                        grad[n_int + j * (p - 1) + f] += gy[f]
    return lp


@numba.njit(cache=True)
def _log_posterior_kernel(theta, grad, need_grad, jacobian, h, data, topo):
    """Log-density (and gradient into ``grad``) of the flat vector ``theta`` for the data
    record ``data`` (``_TreeData``) and the tree ``topo`` (``_Topology``). Allocates a
    workspace per call; samplers use ``_log_posterior_ws`` with one workspace."""
    ws = _new_workspace(data, topo.left.shape[0])
    return _log_posterior_ws(theta, grad, need_grad, jacobian, h, data, topo, ws)


# ---------------------------------------------------------------------------- transforms (Python)
