"""NUTS, RJHMC-Tree moves and the CGM baseline of tabular_trees.bayes."""

import math

import numpy as np
import pytest
from scipy import integrate
from scipy.special import betaln
from scipy.stats import invgamma, norm

from tabular_trees.bayes import CGMPosterior, CGMPrior, CGMSettings, ChainResult, ChainStep, NUTSResult, \
    NUTSSettings, RJHMCSettings, SoftTree, TreePosterior, TreePrior, cgm_chain, log_tree_prior, predict_hard_tree, \
    rjhmc_chain, run_tree_nuts, softness_schedule
from tabular_trees.bayes.cgm import _cgm_log_marginal
from tabular_trees.bayes.nuts import _adaptation_schedule, _sample_gaussian
from tabular_trees.bayes.rjhmc import _propose_move


def test_adaptation_schedule_is_stans():
    assert _adaptation_schedule(500) == [(0, 74), (75, 99), (100, 149), (150, 249), (250, 449), (450, 499)]
    assert _adaptation_schedule(10) == [(0, 9)]
    assert _adaptation_schedule(100) == [(0, 14), (15, 89), (90, 99)]
    assert softness_schedule(500) == (75, 349)


@pytest.mark.parametrize("cov", [np.diag([1.0, 4.0, 0.25]), np.array([[1.0, 0.9, 0.0], [0.9, 1.0, 0.3], [0.0, 0.3, 2.0]])])
def test_nuts_recovers_gaussian_moments(cov):
    mean = np.array([1.0, -2.0, 0.5])
    s, info = _sample_gaussian(mean, cov, n_warmup=500, n_samples=4000, seed=3)
    sd = np.sqrt(np.diag(cov))
    # NUTS draws on a Gaussian are nearly independent; allow an effective size of N/4
    n_eff = s.shape[0] / 4
    assert np.all(np.abs(s.mean(0) - mean) < 4 * sd / np.sqrt(n_eff))
    var = s.var(0)
    assert np.all(np.abs(var / np.diag(cov) - 1) < 4 * np.sqrt(2 / n_eff))
    corr = np.corrcoef(s.T)[0, 1]
    assert corr == pytest.approx(cov[0, 1] / (sd[0] * sd[1]), abs=0.05)
    assert info.divergences == 0


def test_nuts_same_seed_same_chain():
    a, _ = _sample_gaussian([0.0, 0.0], np.eye(2), n_warmup=100, n_samples=50, seed=11)
    b, _ = _sample_gaussian([0.0, 0.0], np.eye(2), n_warmup=100, n_samples=50, seed=11)
    c, _ = _sample_gaussian([0.0, 0.0], np.eye(2), n_warmup=100, n_samples=50, seed=12)
    np.testing.assert_array_equal(a, b)
    assert not np.array_equal(a, c)


def _small_regression(seed=0, n=40):
    rng = np.random.default_rng(seed)
    X = rng.random((n, 1))
    y = np.where(X[:, 0] > 0.4, 1.0, -0.5) + 0.3 * rng.normal(size=n)
    return X, y


def test_fixed_topology_nuts_matches_long_random_walk():
    X, y = _small_regression()
    post = TreePosterior(X, y, "regression", use_simplex=False)
    tree = SoftTree(1).grow(0, 0, 0.5, None, 0.0)
    h = 0.1
    theta0 = post.pack(tree, 0.5)
    s = run_tree_nuts(post, tree, theta0, settings=NUTSSettings(n_warmup=500, h_init=h), n_samples=3000,
                      seed=5).samples
    # long random-walk Metropolis on the same unconstrained density
    rng = np.random.default_rng(0)
    cur = s[0].copy()
    lp = post.logp(tree, cur, h)
    step = 1.2 * s.std(0)
    rw = []
    for i in range(60000):
        prop = cur + step * rng.normal(size=cur.shape[0]) / 2
        lpp = post.logp(tree, prop, h)
        if math.log(rng.random()) < lpp - lp:
            cur, lp = prop, lpp
        if i % 10 == 0:
            rw.append(cur.copy())
    rw = np.array(rw[500:])
    sd = rw.std(0)
    np.testing.assert_array_less(np.abs(s.mean(0) - rw.mean(0)), 0.2 * sd + 1e-3)
    np.testing.assert_allclose(s.std(0), sd, rtol=0.2)


def test_hmc_df_gibbs_finds_the_informative_feature():
    rng = np.random.default_rng(1)
    X = rng.random((80, 3))
    y = np.where(X[:, 2] > 0.5, 2.0, 0.0) + 0.2 * rng.normal(size=80)
    post = TreePosterior(X, y, "regression", use_simplex=False)
    tree = SoftTree(3).grow(0, 0, 0.5, None, 0.0)
    feats = run_tree_nuts(post, tree, post.pack(tree, 1.0), settings=NUTSSettings(n_warmup=150, h_init=0.05),
                          n_samples=20, seed=2).features
    assert np.all(feats[:, 0] == 2)


def test_grow_prune_reversible_and_ratio_terms_cancel():
    X, y = _small_regression(n=30)
    X = np.column_stack([X, np.random.default_rng(3).random(30)])
    for use_simplex in (False, True):
        post = TreePosterior(X, y, "regression", use_simplex, prior=TreePrior(alpha=0.45, beta=2.5))
        rng = np.random.default_rng(4)
        base = SoftTree(2, use_simplex).grow(0, 1, 0.4, np.array([0.3, 0.7]), 0.8)
        probs = (0.5, 0.25, 0.25)
        grown, lq_grow, mv = _propose_move(post, base, "grow", probs, rng)
        assert mv == "grow" and grown.prunable_nodes().shape[0] == 1
        pruned, lq_prune, mv = _propose_move(post, grown, "prune", probs, rng)
        assert mv == "prune" and pruned.same_as(base)
        assert lq_grow + lq_prune == pytest.approx(0.0, abs=1e-10)
        h, sigma = 0.05, 0.6
        lp_base = post.log_posterior(base, post.pack(base, sigma), h)
        lp_grown = post.log_posterior(grown, post.pack(grown, sigma), h)
        log_a_fwd = lp_grown - lp_base + lq_grow
        log_a_bwd = lp_base - lp_grown + lq_prune
        assert log_a_fwd == pytest.approx(-log_a_bwd, abs=1e-9)
        # prior densities of the drawn parameters cancel: only likelihood, topology prior and move probabilities remain
        th_b, th_g = post.pack(base, sigma), post.pack(grown, sigma)
        expected = (post.log_likelihood(grown, th_g, h) - post.log_likelihood(base, th_b, h)
                    + log_tree_prior(grown, 0.45, 2.5) - log_tree_prior(base, 0.45, 2.5)
                    + math.log(0.25 / 1) - math.log(0.5 / 2))
        assert log_a_fwd == pytest.approx(expected, abs=1e-8)


def test_prune_of_single_leaf_is_a_stay():
    X, y = _small_regression()
    post = TreePosterior(X, y, "regression", False)
    t, lq, mv = _propose_move(post, SoftTree(1), "prune", (0.2, 0.2, 0.6), np.random.default_rng(0))
    assert mv == "stay" and lq == 0.0 and t.n_leaves == 1


@pytest.mark.parametrize("use_simplex", [False, True])
def test_rjhmc_same_seed_same_chain_and_finds_split(use_simplex):
    X, y = _small_regression(n=60)
    post = TreePosterior(X, y, "regression", use_simplex, prior=TreePrior(alpha=0.45, beta=2.5))
    kw = dict(n_iter=8, n_burnin=4, sampler=RJHMCSettings(k_warmup=40, h_init=0.05, h_final=0.02))
    a = rjhmc_chain(post, seed=7, **kw)
    b = rjhmc_chain(post, seed=7, **kw)
    np.testing.assert_array_equal(a.n_leaves, b.n_leaves)
    np.testing.assert_array_equal(a.log_posterior, b.log_posterior)
    for ta, tb in zip(a.trees, b.trees):
        assert ta.same_as(tb)
    assert a.n_leaves[-1] >= 2


def test_rjhmc_classification_runs():
    rng = np.random.default_rng(0)
    X = rng.random((60, 2))
    y = (X[:, 0] > 0.5).astype(int) + (X[:, 1] > 0.5).astype(int)
    post = TreePosterior(X, y, "classification", True, n_classes=3, prior=TreePrior(alpha=0.9, beta=1.0))
    out = rjhmc_chain(post, n_iter=6, n_burnin=3, seed=0,
                      sampler=RJHMCSettings(k_warmup=30, h_init=0.05, h_final=0.05))
    for P in out.leaf_probs:
        np.testing.assert_allclose(P.sum(1), 1.0)


def test_cgm_regression_marginal_matches_numerical_integration():
    y = np.array([0.3, 1.1, 0.7])
    nu, lam, a, mubar = 3.0, 0.5, 0.5, 0.2
    X = np.zeros((3, 1))

    def integrand(mu, s2):
        return (np.prod(norm.pdf(y, mu, np.sqrt(s2))) * norm.pdf(mu, mubar, np.sqrt(s2 / a))
                * invgamma.pdf(s2, nu / 2, scale=nu * lam / 2))

    val, _ = integrate.dblquad(integrand, 1e-6, 40, -15, 15, epsabs=1e-12)
    assert _cgm_log_marginal(SoftTree(1), X, y, "regression", (nu, lam, a, mubar)) == pytest.approx(np.log(val), abs=1e-5)


def test_cgm_classification_marginal_is_beta_function():
    y = np.array([0, 1, 1, 1, 0, 1])
    X = np.zeros((6, 1))
    assert _cgm_log_marginal(SoftTree(1), X, y, "classification", (2, 1.0)) == pytest.approx(betaln(3, 5))


def test_cgm_chain_finds_the_step_and_is_reproducible():
    X, y = _small_regression(n=80)
    post = CGMPosterior(X, y, "regression", prior=CGMPrior(alpha=0.45, beta=2.5))
    a = cgm_chain(post, n_iter=400, n_burnin=200, seed=0)
    b = cgm_chain(post, n_iter=400, n_burnin=200, seed=0, sampler=CGMSettings())
    np.testing.assert_array_equal(a.n_leaves, b.n_leaves)
    assert np.median(a.n_leaves[200:]) >= 2
    t = a.trees[-1]
    assert np.any(np.abs(t.threshold[t.internal_nodes()] - 0.4) < 0.1)


def test_sampler_bad_inputs():
    X, y = _small_regression()
    post = TreePosterior(X, y, "regression", False)
    tree = SoftTree(1)
    short = NUTSSettings(n_warmup=10)
    with pytest.raises(ValueError, match="h_init"):
        NUTSSettings(n_warmup=10, h_init=0.0)
    with pytest.raises(ValueError, match="n_warmup"):
        NUTSSettings(n_warmup=-1)
    with pytest.raises(TypeError, match="settings must be a NUTSSettings"):
        run_tree_nuts(post, tree, post.pack(tree, 1.0), settings=RJHMCSettings())
    with pytest.raises(ValueError, match="theta0"):
        run_tree_nuts(post, tree, np.zeros(5), settings=short)
    with pytest.raises(ValueError, match="NaN|infinity"):
        run_tree_nuts(post, tree, np.array([np.nan, 0.0]), settings=short)
    with pytest.raises(ValueError, match="n_iter"):
        rjhmc_chain(post, n_iter=-1, n_burnin=0, seed=0)
    with pytest.raises(ValueError, match="sampling_probs"):
        rjhmc_chain(post, n_iter=2, n_burnin=0, seed=0, sampler=RJHMCSettings(sampling_probs=(0.0, 0.5, 0.5)))
    with pytest.raises(ValueError, match="alpha"):
        TreePosterior(X, y, "regression", False, prior=TreePrior(alpha=1.5))
    with pytest.raises(TypeError, match="prior must be a TreePrior"):
        TreePosterior(X, y, "regression", False, prior=CGMPrior())
    with pytest.raises(TypeError, match="sampler must be an RJHMCSettings"):
        rjhmc_chain(post, n_iter=2, n_burnin=0, seed=0, sampler={"k_warmup": 10})
    with pytest.raises(ValueError, match="NaN|infinity"):
        TreePosterior(np.full_like(X, np.nan), y, "regression", False)
    with pytest.raises(ValueError, match="task"):
        TreePosterior(X, y, "ranking", False)
    with pytest.raises(ValueError, match="class codes"):
        TreePosterior(X, np.full(X.shape[0], 3), "classification", False, n_classes=2)
    with pytest.raises(ValueError, match="move"):
        _propose_move(post, tree, "jump", (0.2, 0.2, 0.6), np.random.default_rng(0))


# ---------------------------------------------------------------------------- validation before compiled code
def _post(task="regression", use_simplex=False):
    rng = np.random.default_rng(0)
    X = rng.random((30, 3))
    y = rng.normal(size=30) if task == "regression" else rng.integers(0, 2, size=30)
    return TreePosterior(X, y, task, use_simplex=use_simplex)


def test_bad_trees_and_vectors_are_refused_before_the_kernels():
    post = _post()
    tree = SoftTree(3).grow(0, 1, 0.4, None, 0.5)
    theta = post.pack(tree, sigma=1.0)
    with pytest.raises(ValueError, match="feature"):
        SoftTree(3).grow(0, 99, 0.4, None, 0.5)
    bad = tree.copy()
    bad.feature[0] = 99  # a tree edited by hand
    for call in (lambda: predict_hard_tree(bad, np.zeros((2, 3))), lambda: post.logp_grad(bad, theta, 0.1),
                 lambda: run_tree_nuts(post, bad, theta, settings=NUTSSettings(n_warmup=5)),
                 lambda: rjhmc_chain(post, n_iter=2, n_burnin=1, seed=0, sampler=RJHMCSettings(k_warmup=2),
                                     init=(bad, 1.0))):
        with pytest.raises(ValueError, match="feature 99"):
            call()
    bad = tree.copy()
    bad.left[0] = 7  # a child outside the arrays
    with pytest.raises(ValueError, match="children"):
        post.logp(bad, theta, 0.1)
    with pytest.raises(ValueError, match=r"theta must have shape \(4,\)"):
        post.logp_grad(tree, theta[:2], 0.1)
    with pytest.raises(ValueError, match="NaN"):
        post.logp_grad(tree, np.full(4, np.nan), 0.1)
    with pytest.raises(ValueError, match="h"):
        post.logp(tree, theta, 0.0)
    with pytest.raises(ValueError, match="does not match"):
        _post(use_simplex=True).logp(tree, theta, 0.1)


@pytest.mark.parametrize("call, err, match", [
    (lambda X, y: CGMPosterior(X, y, "regression", prior=CGMPrior(alpha=2)), ValueError, "alpha"),
    (lambda X, y: CGMPosterior(X, y, "regression", prior=TreePrior()), TypeError, "prior must be a CGMPrior"),
    (lambda X, y: cgm_chain((X, y, "regression"), n_iter=5, n_burnin=1, seed=0), TypeError, "CGMPosterior"),
    (lambda X, y: cgm_chain(CGMPosterior(X, y, "regression"), n_iter=5, n_burnin=1, seed=0, sampler=RJHMCSettings()),
     TypeError, "sampler must be a CGMSettings"),
    (lambda X, y: cgm_chain(CGMPosterior(X, y, "regression"), n_iter=5, n_burnin=1, seed=0, observer=1),
     TypeError, "observer"),
    (lambda X, y: CGMPosterior(X, -1 - (y > 0).astype(int), "classification"), ValueError, "y has class codes"),
    (lambda X, y: CGMPrior(nu=0.0), ValueError, "nu"),
    (lambda X, y: CGMPrior(mubar=np.nan), ValueError, "mubar"),
    (lambda X, y: RJHMCSettings(max_tree_depth=2.5), TypeError, "max_tree_depth"),
    (lambda X, y: RJHMCSettings(target_accept=1.0), ValueError, "target_accept"),
    (lambda X, y: TreePrior(mu_loc="0"), TypeError, "mu_loc"),
    (lambda X, y: CGMPosterior(X[:, 0], y, "regression"), ValueError, "2-D"),
    (lambda X, y: CGMPosterior(X, y, "Regression"), ValueError, "task"),
    (lambda X, y: CGMPosterior(np.where(X > 0.5, np.nan, X), y, "regression"), ValueError, "NaN"),
    (lambda X, y: CGMSettings(move_probs=(1, 0, 0, 0)), ValueError, "move_probs"),
    (lambda X, y: NUTSSettings(max_tree_depth=0), ValueError, "max_tree_depth"),
    (lambda X, y: NUTSSettings(h_final=np.nan), ValueError, "h_final"),
    (lambda X, y: SoftTree(0), ValueError, "n_features"),
    (lambda X, y: SoftTree(2.5), TypeError, "n_features"),
    (lambda X, y: SoftTree(2).prune(5), ValueError, "node"),
    (lambda X, y: run_tree_nuts(_post(), SoftTree(3), np.zeros(2), settings=NUTSSettings(n_warmup=2), seed=2**70),
     ValueError, "seed"),
    (lambda X, y: run_tree_nuts("post", SoftTree(3), np.zeros(2), settings=NUTSSettings(n_warmup=2)), TypeError,
     "posterior"),
    (lambda X, y: rjhmc_chain(_post(), n_iter=2, n_burnin=1, seed=0, observer="print"), TypeError, "observer"),
    (lambda X, y: _propose_move(_post(), SoftTree(3), "grow", (0.5, 0.25, 0.25), 0), TypeError, "rng"),
    (lambda X, y: rjhmc_chain(_post(), n_iter=2, n_burnin=1, seed=-1), ValueError, "seed"),
    (lambda X, y: RJHMCSettings(prune_start="x"), ValueError, "prune_start"),
    (lambda X, y: RJHMCSettings(step_size=0.0), ValueError, "step_size"),
    (lambda X, y: RJHMCSettings(step_size=np.inf), ValueError, "step_size"),
    (lambda X, y: RJHMCSettings(step_size="0.1"), TypeError, "step_size"),
    (lambda X, y: softness_schedule(-1), ValueError, "n_warmup"),
    (lambda X, y: log_tree_prior(SoftTree(2), 1.5, 1.0), ValueError, "alpha"),
])
def test_public_functions_name_the_bad_argument(call, err, match):
    rng = np.random.default_rng(0)
    X, y = rng.random((20, 2)), rng.normal(size=20)
    with pytest.raises(err, match=match):
        call(X, y)


# ---------------------------------------------------------------------------- the reference's prune warm start
def test_reference_prune_start_copies_by_position():
    """On a small tree: pruning node 2 (the root's left child, pre-order position 1) shifts every later split
    and leaf value one place to the left; pruning the last prunable node in pre-order changes nothing."""
    from tabular_trees.bayes.rjhmc import _positional_prune_start, _reading_order

    t = SoftTree(3).grow(0, 0, 0.5, None, 2.0)        # root 0 -> leaves 1 (value 0), 2 (value 2)
    t = t.grow(1, 1, 0.3, None, 1.0)                  # 1 -> leaves 3 (0), 4 (1)
    t = t.grow(2, 2, 0.7, None, 3.0)                  # 2 -> leaves 5 (2), 6 (3)
    t.value[:] = [0, 0, 0, 10, 11, 12, 13]            # leaves left to right: 3, 4, 5, 6
    inner, leaves = _reading_order(t)
    assert inner.tolist() == [0, 1, 2] and leaves.tolist() == [3, 4, 5, 6]
    pruned, _ = t.prune(1)                            # paper rule: node 1 becomes a leaf with value 10
    ref = _positional_prune_start(t, pruned)
    ni, nl = _reading_order(pruned)                   # internal [root, old node 2]; leaves [old 1, old 5, old 6]
    # paper: each node keeps its own values
    assert pruned.feature[ni].tolist() == [0, 2] and pruned.threshold[ni].tolist() == [0.5, 0.7]
    assert pruned.value[nl].tolist() == [10, 12, 13]
    # reference: by position -> old node 2 gets old node 1's split; leaves get old leaves 3, 4, 5's values
    assert ref.feature[ni].tolist() == [0, 1] and ref.threshold[ni].tolist() == [0.5, 0.3]
    assert ref.value[nl].tolist() == [10, 11, 12]
    # the last prunable node in pre-order: the positional copy equals the paper's rule
    pruned2, _ = t.prune(2)
    ref2 = _positional_prune_start(t, pruned2)
    assert ref2.same_as(pruned2)


def test_prune_start_reference_changes_only_prune_proposals():
    post = _post()
    base = SoftTree(3).grow(0, 0, 0.5, None, 1.0).grow(1, 1, 0.3, None, -1.0).grow(2, 2, 0.7, None, 2.0)
    for seed in range(6):
        a = _propose_move(post, base, "prune", (0.2, 0.2, 0.6), np.random.default_rng(seed), "paper")
        b = _propose_move(post, base, "prune", (0.2, 0.2, 0.6), np.random.default_rng(seed), "reference")
        assert a[1] == b[1] and a[0].n_nodes == b[0].n_nodes  # same move, same ratio terms
        g1 = _propose_move(post, base, "grow", (0.2, 0.2, 0.6), np.random.default_rng(seed), "paper")
        g2 = _propose_move(post, base, "grow", (0.2, 0.2, 0.6), np.random.default_rng(seed), "reference")
        assert g1[0].same_as(g2[0])


def test_chain_results_are_typed_records():
    rng = np.random.default_rng(0)
    X, y = rng.random((30, 2)), rng.normal(size=30)
    post = TreePosterior(X, y, "regression", use_simplex=False)
    for out in (rjhmc_chain(post, n_iter=3, n_burnin=1, seed=0, sampler=RJHMCSettings(k_warmup=5)),
                cgm_chain(CGMPosterior(X, y, "regression"), n_iter=20, n_burnin=10, seed=0)):
        assert isinstance(out, ChainResult)
        assert len(out.trees) == out.sigmas.shape[0] and out.log_alpha.shape == out.n_leaves.shape
        with pytest.warns(DeprecationWarning, match="out.n_leaves|result.n_leaves"):
            assert out["n_leaves"] is out.n_leaves  # key access still works, with a warning
        with pytest.raises(KeyError, match="nleaves"):
            out["nleaves"]


@pytest.mark.parametrize("kind", ["rjhmc", "cgm"])
def test_observer_sees_every_iteration_and_changes_nothing(kind):
    """The observer gets one ChainStep per iteration that agrees with the returned traces; observing a chain
    does not change it (same seed, same chain)."""
    rng = np.random.default_rng(0)
    X, y = rng.random((30, 2)), rng.normal(size=30)
    if kind == "rjhmc":
        post, kw = TreePosterior(X, y, "regression", use_simplex=False), dict(sampler=RJHMCSettings(k_warmup=10))
    else:
        post, kw = CGMPosterior(X, y, "regression"), {}
    steps = []
    seen = (rjhmc_chain if kind == "rjhmc" else cgm_chain)(post, n_iter=6, n_burnin=2, seed=3, observer=steps.append,
                                                          **kw)
    plain = (rjhmc_chain if kind == "rjhmc" else cgm_chain)(post, n_iter=6, n_burnin=2, seed=3, **kw)
    np.testing.assert_array_equal(seen.log_posterior, plain.log_posterior)
    assert all(isinstance(s, ChainStep) for s in steps) and [s.iteration for s in steps] == list(range(6))
    assert [s.burn_in for s in steps] == [True, True, False, False, False, False]
    assert [s.accepted for s in steps] == seen.accepted.tolist()
    after = [s.proposed_leaves if s.accepted else s.current_leaves for s in steps]
    assert after == seen.n_leaves.tolist()
    assert [s.current_leaves for s in steps[1:]] == seen.n_leaves[:-1].tolist()
    np.testing.assert_array_equal([s.log_alpha for s in steps], seen.log_alpha)
    assert all(s.seconds >= 0 for s in steps)
    if kind == "rjhmc":
        # two NUTS runs, but one after burn-in when the proposal is rejected (its run is skipped)
        assert [len(s.nuts) for s in steps] == [1 if not (s.burn_in or s.accepted) else 2 for s in steps]
        assert all(n.n_leapfrog > 0 and n.step_size > 0 and n.seconds >= 0 for s in steps for n in s.nuts)
        assert [sum(n.divergences for n in s.nuts) for s in steps] == seen.divergences.tolist()
    else:
        assert all(s.nuts == () for s in steps)


def test_run_tree_nuts_returns_named_records_read_from_one_settings_record():
    X, y = _small_regression()
    post = TreePosterior(X, y, "regression", use_simplex=False)
    tree = SoftTree(1).grow(0, 0, 0.5, None, 0.0)
    chain_settings = RJHMCSettings(k_warmup=40, h_init=0.05, h_final=0.02, max_tree_depth=6, step_size=0.5)
    nuts = chain_settings.nuts(use_simplex=False)
    assert (nuts.n_warmup, nuts.h_init, nuts.h_final, nuts.max_tree_depth, nuts.step_size) == (40, 0.05, 0.02, 6, 0.5)
    assert RJHMCSettings().nuts(use_simplex=True).h_init == 0.01  # Table 4's default for HMC-DFI
    res = run_tree_nuts(post, tree, post.pack(tree, 0.5), settings=nuts, n_samples=3, seed=1)
    assert isinstance(res, NUTSResult) and res.samples.shape == (3, 4) and res.features.shape == (3, 3)
    assert res.log_densities.shape == (3,) and res.stats.h == 0.02 and res.stats.inverse_mass.shape == (4,)
    with pytest.raises(TypeError):
        run_tree_nuts(post, tree, post.pack(tree, 0.5), settings=nuts, n_warmup=10)  # one route per setting


def test_numpyro_step_size_start_samples_the_same_posterior():
    """step_size_search=False (NumPyro's start at step 1, the reference code's) changes the path, not the target."""
    X, y = _small_regression()
    post = TreePosterior(X, y, "regression", use_simplex=False)
    tree = SoftTree(1).grow(0, 0, 0.5, None, 0.0)
    theta0 = post.pack(tree, 0.5)
    runs = {search: run_tree_nuts(post, tree, theta0, settings=NUTSSettings(n_warmup=500, h_init=0.1,
                                                                          step_size_search=search),
                                  n_samples=3000, seed=5) for search in (True, False)}
    s_stan, s_numpyro, info = runs[True].samples, runs[False].samples, runs[False].stats
    assert not np.array_equal(s_stan, s_numpyro)  # the option is not a no-op
    assert 0 < info.step_size < 1  # adapted down from NumPyro's start at 1
    # Same posterior moments: the means agree to 0.15 posterior sds (each mean's Monte Carlo error is below 0.05 sd
    # with an ESS of several hundred) and the sds to 15 %.
    sd = s_stan.std(0)
    np.testing.assert_array_less(np.abs(s_stan.mean(0) - s_numpyro.mean(0)), 0.15 * sd)
    np.testing.assert_allclose(s_numpyro.std(0), sd, rtol=0.15)
    with pytest.raises(TypeError, match="step_size_search"):
        RJHMCSettings(step_size_search="no")
    with pytest.raises(TypeError, match="settings"):
        run_tree_nuts(post, tree, theta0, settings={"step_size_search": False})


@pytest.mark.parametrize("update", ["gibbs", "random_walk"])
def test_split_index_updates_sample_twin_features_equally(update):
    """Both split-index kernels (Liu's Metropolised Gibbs and the authors' uniform random walk) leave the
    posterior invariant. Independent truth: with feature 1 an exact copy of feature 0 the posterior gives the
    twins equal probability, and the pure-noise feature 2 almost none."""
    rng = np.random.default_rng(7)
    x = rng.random(80)
    X = np.column_stack([x, x, rng.random(80)])
    y = np.where(x > 0.5, 2.0, 0.0) + 0.2 * rng.normal(size=80)
    post = TreePosterior(X, y, "regression", use_simplex=False)
    tree = SoftTree(3).grow(0, 2, 0.5, None, 0.0)
    feats = run_tree_nuts(post, tree, post.pack(tree, 1.0), n_samples=4000, seed=3,
                          settings=NUTSSettings(n_warmup=300, h_init=0.05, split_index_update=update)).features
    share = np.bincount(feats[:, 0], minlength=3) / feats.shape[0]
    assert share[2] < 0.02
    # each kernel proposes the twin at least once in three steps and always accepts it, so draws of the split index
    # are nearly independent: with an effective size above 1000 the difference of the twins' shares has sd < 0.032;
    # 0.13 is four sds (false alarm ~6e-5, and the seeds are fixed)
    assert abs(share[0] - share[1]) < 0.13


def test_split_index_update_option_changes_the_path_and_is_validated():
    X, y = _small_regression()
    X = np.column_stack([X, np.random.default_rng(1).random(X.shape[0])])
    post = TreePosterior(X, y, "regression", use_simplex=False)
    tree = SoftTree(2).grow(0, 0, 0.5, None, 0.0)
    runs = [run_tree_nuts(post, tree, post.pack(tree, 0.5), n_samples=200, seed=2,
                          settings=NUTSSettings(n_warmup=50, h_init=0.1, split_index_update=u)).samples
            for u in ("gibbs", "random_walk")]
    assert not np.array_equal(runs[0], runs[1])  # a different kernel (and random stream): a different path
    with pytest.raises(ValueError, match="split_index_update"):
        RJHMCSettings(split_index_update="uniform")
    with pytest.raises(TypeError, match="split_index_update"):
        RJHMCSettings(split_index_update=1)
    assert RJHMCSettings(split_index_update="random_walk").split_index_update == "random_walk"


def test_fixed_step_size_without_warmup_samples_the_posterior():
    """With n_warmup=0 nothing adapts: every transition uses the given step size and a unit mass matrix (the
    setting of the exact-posterior tests). On a Gaussian-like one-leaf posterior the fixed-step chain's moments
    agree with an adapted chain's, and the step size is the one given."""
    X, y = _small_regression()
    post = TreePosterior(X, y, "regression", use_simplex=False)
    tree = SoftTree(1)
    theta0 = post.pack(tree, 0.5)
    fixed = run_tree_nuts(post, tree, theta0, settings=NUTSSettings(n_warmup=0, step_size=0.05), n_samples=4000,
                          seed=4)
    adapted = run_tree_nuts(post, tree, theta0, settings=NUTSSettings(n_warmup=500), n_samples=4000, seed=4)
    assert fixed.stats.step_size == 0.05 and fixed.stats.divergences == 0
    np.testing.assert_array_equal(fixed.stats.inverse_mass, np.ones(theta0.shape[0]))
    # means within 0.15 posterior sds (Monte Carlo error of each mean < 0.05 sd at ESS > 400), sds within 15 %
    sd = adapted.samples.std(0)
    np.testing.assert_array_less(np.abs(fixed.samples.mean(0) - adapted.samples.mean(0)), 0.15 * sd)
    np.testing.assert_allclose(fixed.samples.std(0), sd, rtol=0.15)


def test_burnin_leaf_draw_is_the_conjugate_gaussian_conditional():
    """The burn-in leaf draw: mean and covariance against the closed form on the raw rows (no grouping)."""
    from tabular_trees.bayes import RJHMCSettings, SoftTree, TreePosterior, TreePrior, soft_leaf_probabilities
    from tabular_trees.bayes.rjhmc import _leaf_values_given_splits

    rng = np.random.default_rng(0)
    X = np.round(rng.random((60, 2)), 1)             # repeated rows: the posterior groups them
    y = 3.0 * (X[:, 0] > 0.45) + 0.3 * rng.normal(size=60)
    prior = TreePrior(mu_loc=0.5, mu_scale=2.0)
    post = TreePosterior(X, y, "regression", use_simplex=False, prior=prior)
    tree = SoftTree(2).grow(0, 0, 0.45, None, 0.0).grow(2, 1, 0.5, None, -4.0)
    sigma, h = 0.3, 0.05
    phi = soft_leaf_probabilities(tree, X, h)
    a = phi.T @ phi / sigma**2 + np.eye(3) / 2.0**2
    mean = np.linalg.solve(a, phi.T @ y / sigma**2 + 0.5 / 2.0**2)
    draws = np.array([_leaf_values_given_splits(post, tree, sigma, h, rng).value[tree.leaves()]
                      for _ in range(4000)])
    cov = np.linalg.inv(a)
    assert np.all(np.abs(draws.mean(axis=0) - mean) < 5 * np.sqrt(np.diag(cov) / 4000))
    np.testing.assert_allclose(np.cov(draws.T), cov, rtol=0.15, atol=1e-4)
    # the splits are untouched
    new = _leaf_values_given_splits(post, tree, sigma, h, rng)
    assert np.array_equal(new.threshold, tree.threshold) and np.array_equal(new.feature, tree.feature)
    with pytest.raises(TypeError, match="burnin_leaf_draw"):
        RJHMCSettings(burnin_leaf_draw="yes")


def test_burnin_leaf_draw_leaves_the_default_chain_and_the_sampling_phase_alone():
    """Off by default (the chain is bit-identical to the paper's sampler); with n_burnin=0 it changes nothing."""
    from tabular_trees.bayes import RJHMCSettings, TreePosterior, rjhmc_chain

    rng = np.random.default_rng(1)
    X = rng.random((40, 2))
    y = 2.0 * (X[:, 0] > 0.5) + 0.1 * rng.normal(size=40)
    post = TreePosterior(X, y, "regression", use_simplex=False)
    base = dict(k_warmup=10, h_init=0.05, h_final=0.05)
    runs = {flag: rjhmc_chain(post, n_iter=5, n_burnin=0, seed=3, sampler=RJHMCSettings(**base, burnin_leaf_draw=flag))
            for flag in (False, True)}
    np.testing.assert_array_equal(runs[False].log_posterior, runs[True].log_posterior)
    assert RJHMCSettings().burnin_leaf_draw is False


@pytest.mark.parametrize("use_simplex, task", [(False, "regression"), (True, "regression"), (False, "classification")])
def test_skipping_a_rejected_proposals_run_leaves_the_chain_unchanged(monkeypatch, use_simplex, task):
    """After burn-in Eq. 18 is decided before the proposal's NUTS run, which is made only for an accepted jump.
    Against the same chain with every run made (Algorithm 1 as written): identical traces and samples, the same
    first run in every iteration, and the proposal's run missing exactly where a jump was rejected after burn-in."""
    from tabular_trees.bayes import rjhmc

    rng = np.random.default_rng(2)
    X = rng.random((40, 2))
    y = 2.0 * (X[:, 0] > 0.5) + 0.1 * rng.normal(size=40) if task == "regression" else (X[:, 1] > 0.4).astype(int)
    post = TreePosterior(X, y, task, use_simplex=use_simplex)
    sampler = RJHMCSettings(k_warmup=10, h_init=0.05, h_final=0.05, sampling_probs=(0.4, 0.4, 0.2))
    runs, steps = {}, {}
    for skip in (True, False):
        monkeypatch.setattr(rjhmc, "_SKIP_UNUSED_PROPOSAL_RUNS", skip)
        steps[skip] = []
        runs[skip] = rjhmc_chain(post, n_iter=14, n_burnin=4, seed=5, sampler=sampler, observer=steps[skip].append)
    made, every = runs[True], runs[False]
    for field in ("log_posterior", "n_leaves", "move", "accepted", "log_alpha", "sigmas"):
        np.testing.assert_array_equal(getattr(made, field), getattr(every, field))
    for a, b in zip(made.trees, every.trees):
        np.testing.assert_array_equal(a.threshold, b.threshold)
        np.testing.assert_array_equal(a.value, b.value)
    rejected_after = [not (s.burn_in or s.accepted) for s in steps[True]]
    assert sum(rejected_after) >= 2                     # the case this test is about happened
    assert [len(s.nuts) for s in steps[True]] == [1 if r else 2 for r in rejected_after]
    assert all(len(s.nuts) == 2 for s in steps[False])
    for a, b in zip(steps[True], steps[False]):
        assert [(n.n_leapfrog, n.step_size) for n in a.nuts] == [(n.n_leapfrog, n.step_size) for n in b.nuts[:len(a.nuts)]]
