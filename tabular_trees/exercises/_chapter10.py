"""Checkable exercises of chapter 10, "Bayesian decision trees".

The reference answers are computed here when a student first checks: closed forms of the CGM tree prior, the
two acceptance rules of RJHMC-Tree on given log densities, the gradient of a soft split, and (inside the function
only, with pandas and the MPEA data of ``tabular_trees.datasets.load_mpea``) the acceptance of a random-walk
threshold on real alloy data. Module import needs only numpy; every reference takes well under a second.
"""

from __future__ import annotations

import numpy as np

from ._core import numeric_exercise


# What a student reads after a close or a wrong answer: (hint when close, hint when wrong), by exercise.
_HINTS = {
    "10.1": ("a Monte Carlo mean is only close; run the recursion E[L(d)] = 1 - p(d) + 2 p(d) E[L(d+1)] "
             "from depth 30 up to the root, starting with E[L(31)] = 1.",
             "answer [E for (0.45, 2.5), E for (0.95, 1)], both at the root (depth 0), "
             "with p(d) = alpha (1 + d)^(-beta)."),
    "10.2": ("an estimate from prior draws is only close; derive the exact product as in the proposition's proof.",
             "a three-leaf tree needs the root to split, exactly one of its two children to split (either one), "
             "and the three remaining nodes (two at depth 2, one at depth 1) not to."),
    "10.3": ("keep more digits (exponentiate the exact log ratio).",
             "answer [Eq. 19, Eq. 18]. Eq. 19 compares x* with the start x; with the HMC targets as intermediate "
             "targets, Eq. 18 compares x'' with x'. In both, add the log proposal ratio before exponentiating, "
             "and cap at 1."),
    "10.4": ("only the iterations after burn-in count, and every stay among them is accepted.",
             "answer in percentage points (0-100): the share of iterations after burn-in times "
             "the probability of a stay move there."),
    "10.5": ("use the exact distance 1/18 and psi(1 - psi)/h without rounding intermediate values.",
             "answer three numbers, log10 |dpsi/dtau| for h = 0.1, 0.01, 0.001 in that order, "
             "evaluated 1/18 away from the threshold."),
    "10.6": ("solve alpha' / (1 - alpha') = alpha / (2 (1 - alpha)) exactly.",
             "omitting the constant halves the prior *odds* alpha / (1 - alpha) of a root split; "
             "convert the halved odds back to a probability."),
    "10.7": ("refit both leaf means at every threshold, keep sigma = 1 on the standardised hardness, "
             "and average min(1, exp(loglik - max loglik)) over all 399 thresholds.",
             "scale VEC to [0, 1] with its min and max, standardise the hardness, and use the chapter's grid "
             "np.linspace(0.0025, 0.9975, 399); the answer is a mean acceptance probability (between 0 and 1)."),
    "10.8": ("keep the exact fractions: the prune is accepted with min(1, pi(stump) q(grow) / (pi(tree) q(prune))).",
             "answer [acceptance probability of a prune, long-run share of iterations in the two-leaf tree]; "
             "by detailed balance the chain's long-run distribution is the posterior itself."),
}


def _p_split(alpha, beta, depth):
    return alpha * (1.0 + depth) ** (-beta)


# 10.1 -----------------------------------------------------------------------------------------------------
# The recursion converges fast: truncating at depth 10 already agrees with depth 60 to 1e-6 relative, so any
# truncation at depth >= 20 (or a direct sum) is right within rtol 1e-5. A Monte Carlo mean of the chapter's
# 20,000 prior draws lands within about 1 % (standard errors 0.5-0.7 %): "close", with a hint to use the recursion.
@numeric_exercise("10.1", "apply", "expected number of leaves under the CGM prior",
                  expects="two numbers [E_L(0.45, 2.5), E_L(0.95, 1)]", rtol=1e-5, close_rtol=0.03, hints=_HINTS)
def _expected_leaves(depth=60):
    out = []
    for alpha, beta in ((0.45, 2.5), (0.95, 1.0)):
        e = 1.0
        for d in range(depth, -1, -1):
            p = _p_split(alpha, beta, d)
            e = (1.0 - p) + 2.0 * p * e
        out.append(e)
    return np.array(out)


# 10.2 -----------------------------------------------------------------------------------------------------
# A closed form of a few products: any correct derivation agrees to rounding (rtol 1e-6). The share of 3-leaf
# trees among the chapter's 20,000 prior draws has a standard error of about 3 % of the value, so within 10 %
# is "close" (an estimate, not the derivation); forgetting the factor 2 halves it (wrong).
@numeric_exercise("10.2", "extend", "prior probability of a three-leaf tree",
                  expects="a probability between 0 and 1", rtol=1e-6, close_rtol=0.10, hints=_HINTS)
def _three_leaves():
    alpha, beta = 0.45, 2.5
    p1, p2 = _p_split(alpha, beta, 1), _p_split(alpha, beta, 2)
    return alpha * 2.0 * p1 * (1.0 - p1) * (1.0 - p2) ** 2


# 10.3 -----------------------------------------------------------------------------------------------------
# Exact arithmetic on given numbers (rtol 1e-6, atol 1e-9 for the tiny Eq. 18 value). Within 5 % is "close":
# a rounded answer.
@numeric_exercise("10.3", "understand", "acceptance of one grow under Eq. 19 and under Eq. 18",
                  expects="two probabilities [Eq. 19, Eq. 18]", rtol=1e-6, close_rtol=0.05, atol=1e-9, hints=_HINTS)
def _acceptances():
    log_pi_x, log_pi_x1, log_pi_x2, log_pi_star = -1203.0, -1202.0, -1208.0, -1201.2
    log_q_ratio = -2.5                     # log q_nm(x' | x'') - log q_mn(x'' | x')
    eq19 = min(1.0, np.exp(log_pi_star - log_pi_x + log_q_ratio))
    eq18 = min(1.0, np.exp(log_pi_x2 - log_pi_x1 + log_q_ratio))     # Proposition ch10-prop-eq18
    return np.array([eq19, eq18])


# 10.4 -----------------------------------------------------------------------------------------------------
# A product of three given numbers (rtol 1e-9 plus atol 0.01 for a value written with two decimals). Within
# 5 % is "close" (for example the burn-in stays counted with a slightly different share).
@numeric_exercise("10.4", "understand", "percentage points of acceptance that stays after burn-in contribute",
                  expects="a number of percentage points (0-100)",
                  rtol=1e-9, close_rtol=0.05, atol=0.01, close_atol=0.1, hints=_HINTS)
def _stay_points(n_iter=1000, n_burnin=300, p_stay=0.6):
    return 100.0 * p_stay * (n_iter - n_burnin) / n_iter


# 10.5 -----------------------------------------------------------------------------------------------------
# Closed forms evaluated in double precision: any correct formula (expit, tanh, ...) agrees to 1e-10. atol
# 0.005 in log10 (about 1 % of the gradient) accepts answers rounded to two decimals. Within 0.3 (a factor of
# two) is "close": for example a distance rounded to 0.056 moves the h = 0.001 entry by 0.19.
@numeric_exercise("10.5", "apply", "log10 of the soft-split gradient at the nearest grid value",
                  expects="three numbers (base-10 logarithms)",
                  rtol=0.0, close_rtol=1e-6, atol=0.005, close_atol=0.3, hints=_HINTS)
def _log10_gradients():
    dist = 1.0 / 18.0
    out = []
    for h in (0.1, 0.01, 0.001):
        z = dist / h
        out.append(np.log10(np.exp(-z) / (h * (1.0 + np.exp(-z)) ** 2)))
    return np.array(out)


# 10.6 -----------------------------------------------------------------------------------------------------
# A closed form (rtol 1e-4 accepts four significant digits). Within 5 % is "close" (a rounded answer); halving
# alpha itself instead of its odds gives 0.225, 22 % off (wrong).
@numeric_exercise("10.6", "extend", "the root's effective alpha without the Dirichlet-multinomial constant",
                  expects="a probability between 0 and 1", rtol=1e-4, close_rtol=0.05, hints=_HINTS)
def _effective_alpha(alpha=0.45):
    odds = alpha / (2.0 * (1.0 - alpha))
    return odds / (1.0 + odds)


# 10.7 -----------------------------------------------------------------------------------------------------
# Fixed data and a fixed grid: the computation is exact up to summation order. Standardising y with ddof=1
# instead of 0 changes the answer by 0.25 %, so rtol 0.005 accepts either convention. Within 15 % is "close"
# (for example leaf values not refitted at each threshold); the chapter's synthetic n = 60 and 800 values are
# far off (wrong).
@numeric_exercise("10.7", "extend", "random-walk acceptance of a VEC threshold on the MPEA hardness data",
                  expects="a probability between 0 and 1", rtol=0.005, close_rtol=0.15, hints=_HINTS)
def _mpea_random_walk_acceptance():
    from ..datasets import load_mpea

    X, y = load_mpea(target="hardness")
    x = X["VEC"].to_numpy(dtype=float)
    x = (x - x.min()) / (x.max() - x.min())
    y = y.to_numpy(dtype=float)
    y = (y - y.mean()) / y.std()
    loglik = []
    for tau in np.linspace(0.0025, 0.9975, 399):
        right = x > tau
        pred = np.where(right, y[right].mean() if right.any() else 0.0, y[~right].mean() if (~right).any() else 0.0)
        loglik.append(-0.5 * np.sum((y - pred) ** 2))
    loglik = np.array(loglik)
    return float(np.mean(np.minimum(1.0, np.exp(loglik - loglik.max()))))


# 10.8 -----------------------------------------------------------------------------------------------------
# Exact numbers (6/7 and 0.7). The reference is computed independently of the detailed-balance argument the
# exercise asks for: the stationary distribution is the left eigenvector of the 2 x 2 transition matrix for
# eigenvalue 1. Within 5 % is "close" (for example a long-run share read off a short simulation).
@numeric_exercise("10.8", "understand", "a grow-prune chain on two trees: prune acceptance and long-run share",
                  expects="two numbers [prune acceptance, long-run share of the two-leaf tree]", rtol=1e-6,
                  close_rtol=0.05, hints=_HINTS)
def _two_tree_chain(post_stump=0.3, post_tree=0.7, p_grow=0.5, p_prune=0.25):
    accept_grow = min(1.0, post_tree * p_prune / (post_stump * p_grow))
    accept_prune = min(1.0, post_stump * p_grow / (post_tree * p_prune))
    move_up, move_down = p_grow * accept_grow, p_prune * accept_prune
    transition = np.array([[1.0 - move_up, move_up], [move_down, 1.0 - move_down]])
    values, vectors = np.linalg.eig(transition.T)
    stationary = np.real(vectors[:, np.argmin(np.abs(values - 1.0))])
    stationary = stationary / stationary.sum()
    return np.array([accept_prune, stationary[1]])
