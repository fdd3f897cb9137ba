"""Prior recovery: with the likelihood switched off, every sampler must sample the tree prior.

The reversible-jump bookkeeping (move probabilities, numbers of leaves and prunable nodes,
proposal densities of the drawn parameters, the topology prior) enters the acceptance ratio
only through the sampled *topologies*. With the likelihood identically 1 the target over
topologies is the prior itself, so the chain's distribution of tree size and depth must equal
the prior's: for RJHMC-Tree the branching process α(1+d)^−β (computed exactly below by
recursion), for CGM its prior on the given inputs (splits only where a split is available;
computed by direct simulation). An error in any ratio term shifts these distributions.

The statistical test: a chi-square goodness-of-fit test on the leaf counts (and, separately, on
the depths) of the chain, thinned to roughly independent draws (thinning interval = number of
iterations / effective sample size of the trace, from ``bayes.effective_sample_size``), bins
merged until every expected count is at least 5. The test fails when p < 1e-3: for
independent draws that is a false-alarm rate of 0.1 % per comparison (4 comparisons per
sampler, so at most 0.4 % per sampler for a random seed); residual autocorrelation after
thinning makes the true rate somewhat higher, which is why the threshold is that strict.
The seeds are fixed, so the suite is deterministic. ``test_*_detects_a_dropped_tree_prior``
shows the same test rejects a sampler whose acceptance ratio omits the topology prior.
"""

import numpy as np
import pytest
from scipy import stats

import tabular_trees.bayes.cgm as cgm_module
import tabular_trees.bayes.posterior as posterior_module
from tabular_trees import bayes
from tabular_trees.bayes.posterior import TreePosterior

ALPHA, BETA = 0.95, 1.0
P_MIN = 1e-3


def prior_leaf_distribution(alpha, beta, k_max=80, d_max=400):
    """Exact P(n_leaves = k), k = 0..k_max, of the branching process p_split(d) = α(1+d)^−β.

    Generating functions per depth: G_d(z) = (1 − p_d) z + p_d G_{d+1}(z)², truncated at degree
    k_max (mass beyond it is returned in the last bin) and at depth d_max (p at d_max is
    α/(d_max+1)^β; the probability of reaching it is negligible for the priors used here).
    """
    G = np.zeros(k_max + 2)
    G[1] = 1.0  # below d_max every node is a leaf
    for d in range(d_max, -1, -1):
        p = alpha * (1.0 + d) ** (-beta)
        sq = np.convolve(G, G)
        tail = sq[k_max + 1:].sum()
        sq = sq[:k_max + 2]
        sq[k_max + 1] += tail
        new = p * sq
        new[1] += 1.0 - p
        G = new
    return G


def prior_depth_cdf(alpha, beta, m_max=60):
    """Exact P(depth <= m), m = 0..m_max (depth of a tree = deepest leaf, a single leaf has depth 0)."""
    out = np.zeros(m_max + 1)
    for m in range(m_max + 1):
        F = 1.0 - alpha * (1.0 + m) ** (-beta)  # a node at depth m must be a leaf
        for d in range(m - 1, -1, -1):
            p = alpha * (1.0 + d) ** (-beta)
            F = (1.0 - p) + p * F * F
        out[m] = F
    return out


def thinned(trace):
    """Every t-th draw, t = n / ESS (at least 1), so that the kept draws are roughly independent."""
    ess = bayes.effective_sample_size(trace.astype(float))
    step = max(1, int(np.ceil(trace.shape[0] / ess)))
    return trace[::step]


MIN_DRAWS = 100  # fewer roughly independent draws than this cannot confirm a distribution


def chi2_pvalue(observed_values, probs):
    """Chi-square goodness of fit of integer draws to probabilities over 0..len(probs)-1
    (the last entry holds the tail), bins merged from the right until each expects >= 5."""
    n = observed_values.shape[0]
    if n < MIN_DRAWS:
        return 0.0  # a chain this poorly mixed fails the recovery test
    counts = np.bincount(np.minimum(observed_values, probs.shape[0] - 1), minlength=probs.shape[0]).astype(float)
    keep = probs > 0
    counts, expected = counts[keep], n * probs[keep]
    obs_bins, exp_bins = [], []
    o_acc = e_acc = 0.0
    for o, e in zip(counts[::-1], expected[::-1]):
        o_acc += o
        e_acc += e
        if e_acc >= 5.0:
            obs_bins.append(o_acc)
            exp_bins.append(e_acc)
            o_acc = e_acc = 0.0
    if e_acc > 0:
        obs_bins[-1] += o_acc
        exp_bins[-1] += e_acc
    obs_bins, exp_bins = np.array(obs_bins), np.array(exp_bins)
    assert obs_bins.shape[0] >= 3, "too few bins for a meaningful test"
    return float(stats.chisquare(obs_bins, exp_bins).pvalue)


def tree_depths(trees):
    return np.array([int(t.depth[t.leaves()].max()) for t in trees])


def rjhmc_prior_chain(use_simplex, n_iter, seed, split_index_update="gibbs"):
    rng = np.random.default_rng(0)
    X = rng.random((12, 3))
    post = TreePosterior(X, rng.normal(size=12), "regression", use_simplex=use_simplex,
                         prior=bayes.TreePrior(alpha=ALPHA, beta=BETA)).without_likelihood()
    # k_warmup = 0: with the likelihood off the acceptance ratio does not depend on the continuous
    # parameters (their prior densities cancel the proposal densities), so NUTS quality is irrelevant
    # here and the chain tests the topology bookkeeping alone; n_burnin = 0 uses Eq. 18 throughout
    # (Eq. 19, the burn-in rule, is deliberately biased). No stay moves (they are always accepted
    # and only slow the chain down) and unequal grow/prune probabilities, so that the
    # move-probability terms of the ratio matter.
    settings = bayes.RJHMCSettings(k_warmup=0, h_init=0.05, h_final=0.05, sampling_probs=(0.55, 0.45, 0.0),
                                   split_index_update=split_index_update)
    out = bayes.rjhmc_chain(post, n_iter=n_iter, n_burnin=0, seed=seed, sampler=settings)
    return out.n_leaves, tree_depths(out.trees), out.trees


def test_exact_prior_distributions_match_simulation():
    """The recursions against direct simulation of the branching process (independent truth)."""
    rng = np.random.default_rng(1)
    leaves, depths = [], []
    for _ in range(20000):
        stack, n_leaf, deepest = [0], 0, 0
        while stack:
            d = stack.pop()
            if rng.random() < ALPHA * (1 + d) ** (-BETA):
                stack += [d + 1, d + 1]
            else:
                n_leaf += 1
                deepest = max(deepest, d)
        leaves.append(n_leaf)
        depths.append(deepest)
    probs = prior_leaf_distribution(ALPHA, BETA)
    assert abs(probs.sum() - 1.0) < 1e-12
    assert probs[1] == pytest.approx(1 - ALPHA)
    assert probs[2] == pytest.approx(ALPHA * (1 - ALPHA / 2) ** 2)
    assert chi2_pvalue(np.array(leaves), probs) > P_MIN
    cdf = prior_depth_cdf(ALPHA, BETA)
    assert chi2_pvalue(np.array(depths), np.diff(np.r_[0.0, cdf, 1.0])) > P_MIN


@pytest.mark.parametrize("use_simplex, split_index_update", [(False, "gibbs"), (True, "gibbs"), (False, "random_walk")],
                         ids=["hmc-df", "hmc-dfi", "hmc-df-random-walk-splits"])
def test_rjhmc_recovers_the_tree_prior(use_simplex, split_index_update):
    n_leaves, depths, trees = rjhmc_prior_chain(use_simplex, n_iter=5000, seed=11,
                                                split_index_update=split_index_update)
    probs = prior_leaf_distribution(ALPHA, BETA)
    assert chi2_pvalue(thinned(n_leaves), probs) > P_MIN
    cdf = prior_depth_cdf(ALPHA, BETA)
    assert chi2_pvalue(thinned(depths), np.diff(np.r_[0.0, cdf, 1.0])) > P_MIN
    if not use_simplex:
        # the split-index kernels keep the prior's uniform split index: the root's index (a root that split),
        # thinned like the sizes, is uniform over the 3 features
        root = np.array([t.feature[0] if t.n_leaves > 1 else -1 for t in trees])
        kept = thinned(root)
        kept = kept[kept >= 0]
        assert kept.shape[0] >= MIN_DRAWS
        assert chi2_pvalue(kept, np.full(3, 1 / 3)) > P_MIN


def test_rjhmc_prior_test_detects_a_dropped_tree_prior(monkeypatch):
    """The same test rejects a sampler whose acceptance ratio omits the topology prior."""
    monkeypatch.setattr(posterior_module, "log_tree_prior", lambda tree, alpha, beta: 0.0)
    n_leaves, _, _ = rjhmc_prior_chain(False, n_iter=400, seed=11)
    probs = prior_leaf_distribution(ALPHA, BETA)
    assert chi2_pvalue(thinned(n_leaves), probs) < P_MIN
    # and not merely for want of draws: the trees are far larger than the prior's
    assert n_leaves[200:].mean() > 2 * np.sum(np.arange(probs.shape[0]) * probs)


def simulate_cgm_prior(X, alpha, beta, n_trees, rng):
    """Leaf counts and depths of trees drawn directly from CGM's prior on the inputs X."""
    leaves, depths = np.zeros(n_trees, dtype=np.int64), np.zeros(n_trees, dtype=np.int64)
    for i in range(n_trees):
        stack, n_leaf, deepest = [(np.arange(X.shape[0]), 0)], 0, 0
        while stack:
            rows, d = stack.pop()
            avail = cgm_module._available(X, rows)
            if avail and rng.random() < alpha * (1 + d) ** (-beta):
                v = sorted(avail)[rng.integers(len(avail))]
                c = avail[v][rng.integers(avail[v].shape[0])]
                right = X[rows, v] > c
                stack += [(rows[~right], d + 1), (rows[right], d + 1)]
            else:
                n_leaf += 1
                deepest = max(deepest, d)
        leaves[i], depths[i] = n_leaf, deepest
    return leaves, depths


def cgm_prior_chain(n_iter, seed):
    rng = np.random.default_rng(2)
    X = rng.integers(0, 6, size=(30, 2)).astype(float)  # few distinct values: availability matters
    post = bayes.CGMPosterior(X, rng.normal(size=30), "regression", prior=bayes.CGMPrior(alpha=ALPHA, beta=BETA))
    out = bayes.cgm_chain(post.without_likelihood(), n_iter=n_iter, n_burnin=0, seed=seed)
    return X, out.n_leaves, tree_depths(out.trees)


def test_cgm_recovers_its_tree_prior():
    X, n_leaves, depths = cgm_prior_chain(n_iter=6000, seed=5)
    # the prior on these inputs by direct simulation (20,000 trees: its own sampling error in the
    # expected counts is small next to the chain's, < 1 % of the statistic's scale)
    sim_leaves, sim_depths = simulate_cgm_prior(X, ALPHA, BETA, 20000, np.random.default_rng(3))
    for trace, sim in ((n_leaves, sim_leaves), (depths, sim_depths)):
        probs = np.bincount(sim, minlength=sim.max() + 2) / sim.shape[0]
        assert chi2_pvalue(thinned(trace), probs) > P_MIN


def test_cgm_prior_test_detects_a_dropped_tree_prior(monkeypatch):
    original = cgm_module._cgm_log_prior

    def rules_only(tree, X, alpha, beta, rows=None):  # split-rule probabilities kept, α(1+d)^−β dropped
        lp = original(tree, X, alpha, beta, rows)
        return lp if not np.isfinite(lp) else lp - bayes.log_tree_prior(tree, alpha, beta)

    monkeypatch.setattr(cgm_module, "_cgm_log_prior", rules_only)
    X, n_leaves, _ = cgm_prior_chain(n_iter=3000, seed=5)
    sim_leaves, _ = simulate_cgm_prior(X, ALPHA, BETA, 20000, np.random.default_rng(3))
    probs = np.bincount(sim_leaves, minlength=sim_leaves.max() + 2) / sim_leaves.shape[0]
    assert chi2_pvalue(thinned(n_leaves), probs) < P_MIN
    assert n_leaves[1000:].mean() > 1.5 * sim_leaves.mean()
