"""An exact posterior over trees: RJHMC-Tree on a problem small enough to integrate.

Prior recovery (``test_bayes_prior_recovery``) checks the reversible-jump bookkeeping with the
likelihood switched off; here the likelihood is on. The problem: one feature, ten rows, a step
in y, the soft-tree regression model of ``TreePosterior`` (h = 0.1). For a tree with L ≤ 3
leaves the posterior mass is computed by quadrature: the leaf values μ enter the soft tree's
prediction linearly, so they are integrated analytically (y | τ, σ is Gaussian with covariance
σ²I + s_μ² Φ Φᵀ, Φ the rows' soft leaf memberships); the thresholds τ (uniform prior) by the
midpoint rule on a grid, σ (inverse-gamma prior) by the trapezoid rule in log σ. The three
3-leaf topologies (the root's left or right child split) are summed. A Monte-Carlo estimate
from the prior, which shares nothing with the quadrature but the model's definition, checks it.

Why the chain should match exactly: with one feature there is no split-index update, and with
``k_warmup=0`` each NUTS leg is one transition with a fixed step size and unit mass matrix,
which is reversible. Then Eq. 18 with the HMC targets as intermediate targets is the
Metropolis–Hastings ratio of the whole path x → x' → x'' → x* (the legs' terms cancel by
reversibility), so the chain leaves the posterior invariant and its share of time at each tree
size, among sizes 1–3, must equal the exact conditional probabilities. (With adaptation inside the
legs, or a Gibbs step before NUTS, a leg is no longer reversible and this argument does not hold,
which is why the test uses this setting; the prior-recovery tests cover the other samplers.)

The statistical test: the chain's sizes, thinned to roughly independent draws by their effective
sample size, restricted to 1–3 leaves, against the exact probabilities by a chi-square test
(``chi2_pvalue`` of the prior-recovery tests). It fails when p < 1e-3, a 0.1 % false-alarm rate
for independent draws per test; the seeds are fixed, so the suite is deterministic.
``test_exact_posterior_test_detects_a_tempered_likelihood`` shows that the same test rejects a
sampler whose acceptance ratio uses half the log-likelihood, which prior recovery cannot see.
"""

import numpy as np
import pytest
from scipy.special import expit, gammaln, logsumexp

import tabular_trees.bayes.posterior as posterior_module
from tabular_trees import bayes
from tabular_trees.bayes.posterior import TreePosterior
from test_bayes_prior_recovery import P_MIN, chi2_pvalue, thinned

ALPHA, BETA, H = 0.5, 2.0, 0.1
PRIOR = bayes.TreePrior(alpha=ALPHA, beta=BETA, mu_loc=0.0, mu_scale=1.0, sigma_a=3.0, sigma_b=1.5)
# no stays (they are always accepted and only slow the chain down); k_warmup = 0: fixed-step NUTS legs
SETTINGS = bayes.RJHMCSettings(k_warmup=0, h_init=H, h_final=H, sampling_probs=(0.5, 0.5, 0.0), step_size=0.1)


def tiny_problem():
    x = np.linspace(0.0, 1.0, 10)
    noise = np.array([0.1, -0.3, 0.2, 0.0, -0.1, 0.3, -0.2, 0.1, 0.0, -0.2])
    return x[:, None], np.where(x > 0.5, 0.5, -0.5) + noise


def split_probs():
    """p_d = α(1+d)^−β for the depths 0, 1, 2."""
    return [ALPHA * (1.0 + d) ** (-BETA) for d in range(3)]


def log_prior_of_sizes():
    """Log prior probability of the topologies with 1, 2 leaves and of each 3-leaf topology."""
    p0, p1, p2 = split_probs()
    return {1: np.log1p(-p0), 2: np.log(p0) + 2 * np.log1p(-p1),
            3: np.log(p0) + np.log(p1) + np.log1p(-p1) + 2 * np.log1p(-p2)}


def memberships(x, taus):
    """Soft leaf memberships Φ of every topology with up to 3 leaves: {size: [array (n_grid, n, L), ...]},
    one array per topology, for the thresholds on ``taus`` (3 leaves: all pairs)."""
    psi = expit((x[None, :] - taus[:, None]) / H)  # right-branch probability at each threshold
    a = np.repeat(psi, taus.shape[0], axis=0)  # root threshold
    b = np.tile(psi, (taus.shape[0], 1))  # the child's threshold
    return {1: [np.ones((1, x.shape[0], 1))],
            2: [np.stack([1 - psi, psi], -1)],
            3: [np.stack([(1 - a) * (1 - b), (1 - a) * b, a], -1),  # the root's left child splits
                np.stack([1 - a, a * (1 - b), a * b], -1)]}  # its right child splits


def log_marginal_given_split(Phi, y, n_sigma=300):
    """log ∫ p(y | Φ, μ, σ) p(μ) p(σ) dμ dσ for each row of ``Phi`` (n_grid, n, L): μ analytically, σ by
    the trapezoid rule in log σ."""
    n = y.shape[0]
    log_s = np.linspace(np.log(0.02), np.log(20.0), n_sigma)
    sig = np.exp(log_s)
    a, b, s_mu = PRIOR.sigma_a, PRIOR.sigma_b, PRIOR.mu_scale
    log_p_sig = a * np.log(b) - gammaln(a) - (a + 1) * log_s - b / sig + log_s  # density of log σ
    r = y[None, :] - PRIOR.mu_loc * Phi.sum(-1)
    lam, V = np.linalg.eigh(np.einsum("kil,kim->klm", Phi, Phi))
    u2 = np.einsum("klm,kl->km", V, np.einsum("kil,ki->kl", Phi, r)) ** 2
    c = (s_mu / sig)[None, :, None] ** 2 * lam[:, None, :]  # eigenvalues of s_μ² ΦᵀΦ / σ²
    # Gaussian with covariance σ²(I + (s_μ²/σ²) ΦΦᵀ): determinant and quadratic form through ΦᵀΦ's eigenbasis
    log_det = 2 * n * log_s[None, :] + np.log1p(c).sum(-1)
    quad = ((r * r).sum(-1)[:, None] - (u2[:, None, :] * c / lam.clip(1e-300)[:, None, :] / (1 + c)).sum(-1)) \
        / sig[None, :] ** 2
    integrand = -0.5 * (n * np.log(2 * np.pi) + log_det + quad) + log_p_sig[None, :]
    peak = integrand.max(1, keepdims=True)
    return peak[:, 0] + np.log(np.trapezoid(np.exp(integrand - peak), log_s, axis=1))


def exact_size_probabilities(x, y, n_tau=160):
    """P(L leaves | y, L ≤ 3), L = 1, 2, 3, by quadrature."""
    taus = (np.arange(n_tau) + 0.5) / n_tau  # midpoint rule for τ ~ U(0, 1)
    prior = log_prior_of_sizes()
    log_mass = []
    for size, phis in memberships(x, taus).items():
        per_topology = [logsumexp(log_marginal_given_split(Phi, y)) - np.log(Phi.shape[0]) for Phi in phis]
        log_mass.append(prior[size] + logsumexp(per_topology))
    log_mass = np.array(log_mass)
    return np.exp(log_mass - logsumexp(log_mass))


def monte_carlo_size_probabilities(x, y, n_draws, rng):
    """The same probabilities from the prior by simple Monte Carlo (marginal likelihood = prior mean of the
    likelihood), with the soft tree's prediction written out directly."""
    n = y.shape[0]
    sig = PRIOR.sigma_b / rng.gamma(PRIOR.sigma_a, 1.0, n_draws)
    mu = rng.normal(PRIOR.mu_loc, PRIOR.mu_scale, (n_draws, 3))
    a = expit((x[None, :] - rng.random((n_draws, 1))) / H)
    b = expit((x[None, :] - rng.random((n_draws, 1))) / H)
    preds = {1: [mu[:, :1] + 0 * a],
             2: [(1 - a) * mu[:, :1] + a * mu[:, 1:2]],
             3: [(1 - a) * (1 - b) * mu[:, :1] + (1 - a) * b * mu[:, 1:2] + a * mu[:, 2:3],
                 (1 - a) * mu[:, :1] + a * (1 - b) * mu[:, 1:2] + a * b * mu[:, 2:3]]}
    prior = log_prior_of_sizes()
    log_mass = []
    for size, topologies in preds.items():
        ll = [-0.5 * n * np.log(2 * np.pi) - n * np.log(sig) - 0.5 * ((y[None, :] - pred) ** 2).sum(1) / sig ** 2
              for pred in topologies]
        log_mass.append(prior[size] + logsumexp([logsumexp(v) - np.log(n_draws) for v in ll]))
    log_mass = np.array(log_mass)
    return np.exp(log_mass - logsumexp(log_mass))


def chain_sizes(use_simplex, n_iter, seed):
    X, y = tiny_problem()
    post = TreePosterior(X, y, "regression", use_simplex=use_simplex, prior=PRIOR)
    return bayes.rjhmc_chain(post, n_iter=n_iter, n_burnin=0, seed=seed, sampler=SETTINGS).n_leaves


def exact_test_pvalue(sizes):
    X, y = tiny_problem()
    kept = thinned(sizes)
    kept = kept[kept <= 3]
    return chi2_pvalue(kept, np.r_[0.0, exact_size_probabilities(X[:, 0], y)])


def test_quadrature_matches_monte_carlo():
    """The exact probabilities against an independent Monte-Carlo estimate (8·10⁵ prior draws: the
    estimate's log masses vary by about 0.01 between seeds, 1 % in the probabilities)."""
    X, y = tiny_problem()
    exact = exact_size_probabilities(X[:, 0], y)
    mc = monte_carlo_size_probabilities(X[:, 0], y, 800_000, np.random.default_rng(0))
    np.testing.assert_allclose(mc, exact, atol=0.01)
    assert exact_size_probabilities(X[:, 0], y, n_tau=80) == pytest.approx(exact, abs=1e-3)  # converged grid
    # the data move the posterior far from the prior (P(1 leaf) 0.51 → 0.08), so the test below has power
    assert exact[0] < 0.1 and exact[2] > 0.15


@pytest.mark.parametrize("use_simplex", [False, True], ids=["hmc-df", "hmc-dfi"])
def test_rjhmc_matches_the_exact_posterior_over_tree_sizes(use_simplex):
    assert exact_test_pvalue(chain_sizes(use_simplex, n_iter=6000, seed=2)) > P_MIN


def test_exact_posterior_test_detects_a_tempered_likelihood(monkeypatch):
    """An acceptance ratio with half the log-likelihood (priors intact): the chain's sizes drift towards the
    prior and the same test rejects them."""
    full = posterior_module.TreePosterior.log_posterior

    def tempered(self, tree, theta, h, **kwargs):
        return 0.5 * (full(self, tree, theta, h, **kwargs) + full(self.without_likelihood(), tree, theta, h, **kwargs))

    monkeypatch.setattr(posterior_module.TreePosterior, "log_posterior", tempered)
    assert exact_test_pvalue(chain_sizes(False, n_iter=6000, seed=2)) < P_MIN
