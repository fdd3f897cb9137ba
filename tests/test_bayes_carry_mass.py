"""RJHMCSettings(carry_mass=True): each NUTS run's warm-up starts from the mass matrix the chain last adapted.

The carried diagonal inverse mass is mapped node by node from the tree it was adapted on to the tree the next run
samples (``_carry_inverse_mass``); these tests check that mapping against the tree's own layout, that without warm-up
the option changes nothing (so the exact-posterior and prior-recovery tests, which run without warm-up, hold for it),
that a carried chain is a deterministic function of its seed, and that carrying saves leapfrog steps.
"""

import numpy as np
import pytest

from tabular_trees.bayes import RJHMCSettings, NUTSSettings, SoftTree, TreePosterior, TreePrior, rjhmc_chain, run_tree_nuts
from tabular_trees.bayes.rjhmc import _carry_inverse_mass, _node_masses, _propose


def _posterior(use_simplex, task="regression", n=40, p=3, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.random((n, p))
    y = X[:, 0] + 0.1 * rng.normal(size=n) if task == "regression" else (X[:, 0] > 0.5).astype(int)
    return TreePosterior(X, y, task, use_simplex=use_simplex, prior=TreePrior(alpha=0.95, beta=1.0))


def _tree(post):
    t = SoftTree(post.n_features, post.use_simplex).grow(0, 0, 0.5, None, 0.1)
    return t.grow(1, 1, 0.3, None, -0.2).grow(2, 2, 0.7, None, 0.4)  # root, both children split: 4 leaves


@pytest.mark.parametrize("use_simplex", [False, True], ids=["hmc-df", "hmc-dfi"])
@pytest.mark.parametrize("task", ["regression", "classification"])
def test_the_carried_mass_follows_every_node(use_simplex, task):
    post = _posterior(use_simplex, task)
    old = _tree(post)
    mass = np.arange(1.0, post.dim(old) + 1.0)  # every entry different, so a misplaced one shows
    thr, smp, val, sigma = _node_masses(post, old, mass)
    inner = old.internal_nodes()

    grown = old.grow(4, 0, 0.2, None if not use_simplex else np.full(3, 1 / 3), 0.0)  # node 4 is a leaf
    g = _node_masses(post, grown, _carry_inverse_mass(post, old, grown, "grow", 4, mass))
    assert _carry_inverse_mass(post, old, grown, "grow", 4, mass).shape == (post.dim(grown),)
    keep = np.setdiff1d(inner, [4])
    np.testing.assert_array_equal(g[0][keep], thr[keep])
    assert g[0][4] == pytest.approx(np.exp(np.mean(np.log(thr[inner]))))
    if use_simplex:
        np.testing.assert_array_equal(g[1][keep], smp[keep])
        np.testing.assert_allclose(g[1][4], np.exp(np.mean(np.log(smp[inner]), axis=0)))
    if task == "regression":
        np.testing.assert_array_equal(g[2][[5, 6, 7, 8]], val[[5, 6, 4, 4]])  # children start from leaf 4's entry
        assert g[3] == sigma

    pruned, _ = old.prune(1)  # node 1's children (3, 4) go; nodes 5, 6 become 3, 4
    q = _node_masses(post, pruned, _carry_inverse_mass(post, old, pruned, "prune", 1, mass))
    np.testing.assert_array_equal(q[0][[0, 2]], thr[[0, 2]])
    if use_simplex:
        np.testing.assert_array_equal(q[1][[0, 2]], smp[[0, 2]])
    if task == "regression":
        np.testing.assert_array_equal(q[2][[1, 3, 4]], val[[3, 5, 6]])  # the merged leaf keeps its left child's

    np.testing.assert_array_equal(_carry_inverse_mass(post, old, old.copy(), "stay", -1, mass), mass)


@pytest.mark.parametrize("use_simplex", [False, True], ids=["hmc-df", "hmc-dfi"])
def test_the_carried_mass_fits_every_proposal_of_a_random_walk_over_trees(use_simplex):
    post = _posterior(use_simplex)
    rng = np.random.default_rng(1)
    tree = SoftTree(post.n_features, post.use_simplex)
    mass = np.ones(post.dim(tree))
    for _ in range(200):
        new, _, move, node = _propose(post, tree, ["grow", "prune"][int(rng.integers(2))], (0.5, 0.5, 0.0), rng)
        mapped = _carry_inverse_mass(post, tree, new, move, node, mass)
        assert mapped.shape == (post.dim(new),) and np.all(mapped > 0)
        tree, mass = new, mapped * rng.uniform(0.5, 2.0, size=mapped.shape)


def _chain(post, carry, k_warmup, seed=3, n_iter=8):
    steps = []
    out = rjhmc_chain(post, n_iter=n_iter, n_burnin=n_iter // 2, seed=seed, observer=steps.append,
                      sampler=RJHMCSettings(k_warmup=k_warmup, h_init=0.05, h_final=0.05, carry_mass=carry))
    return out, sum(run.n_leapfrog for s in steps for run in s.nuts)


@pytest.mark.parametrize("use_simplex", [False, True], ids=["hmc-df", "hmc-dfi"])
def test_without_warmup_carrying_changes_nothing(use_simplex):
    """k_warmup = 0 adapts nothing, so the carried mass stays the unit matrix: the exact tests cover the option."""
    post = _posterior(use_simplex)
    plain, _ = _chain(post, False, 0, n_iter=30)
    carried, _ = _chain(post, True, 0, n_iter=30)
    for name in ("n_leaves", "log_posterior", "log_alpha", "accepted", "move"):
        np.testing.assert_array_equal(getattr(plain, name), getattr(carried, name))


def test_burn_in_is_the_plain_chain_and_carrying_starts_after_it():
    """carry_mass carries nothing in burn-in (carrying there lost chains in a misplaced split, recorded run
    rjhmc_paper_carry_mass): a chain's burn-in equals the plain chain's to the bit, and after it the carried
    warm-ups differ (they start from an adapted mass, so they take other leapfrog counts)."""
    post = _posterior(False)
    steps = {}
    for carry in (False, True):
        steps[carry] = []
        rjhmc_chain(post, n_iter=12, n_burnin=6, seed=5, observer=steps[carry].append,
                    sampler=RJHMCSettings(k_warmup=40, h_init=0.05, h_final=0.05, carry_mass=carry))
    legs = {c: [(leg.n_leapfrog, leg.step_size) for s in steps[c] for leg in s.nuts] for c in steps}
    assert legs[True][:12] == legs[False][:12]  # 6 burn-in iterations, two NUTS legs each
    # the first sampling leg still starts cold (nothing adapted in burn-in is carried), the ones after it do not
    assert legs[True][12] == legs[False][12]
    assert legs[True][13:] != legs[False][13:]


def test_a_carried_chain_is_a_function_of_its_seed():
    post = _posterior(True)
    a, steps_a = _chain(post, True, 60)
    b, steps_b = _chain(post, True, 60)
    np.testing.assert_array_equal(a.log_posterior, b.log_posterior)
    np.testing.assert_array_equal(a.log_alpha, b.log_alpha)
    assert steps_a == steps_b


def test_a_warm_started_warmup_needs_fewer_leapfrog_steps_on_a_stiff_posterior():
    """CGM data at h = 0.001, a posterior-sized tree: the warm-up from an adapted mass is cheaper than from the unit
    matrix (what carry_mass relies on; benchmarks/profile_nuts_warmup.py measures it at k = 500)."""
    from tabular_trees.datasets import make_cgm
    X, y, _, _ = make_cgm(random_state=0)
    X = (X - X.min(0)) / (X.max(0) - X.min(0))
    post = TreePosterior(X, y, "regression", use_simplex=False, prior=TreePrior(alpha=0.45, beta=2.5))
    chain = rjhmc_chain(post, n_iter=30, n_burnin=15, seed=0,
                        sampler=RJHMCSettings(k_warmup=100, h_init=0.001, h_final=0.001))
    tree, theta = chain.trees[-1], post.pack(chain.trees[-1], chain.sigmas[-1])
    settings = NUTSSettings(n_warmup=300, h_init=0.001, h_final=0.001)
    cold = [run_tree_nuts(post, tree, theta, settings=settings, seed=s) for s in (1, 2)]
    warm = [run_tree_nuts(post, tree, theta, settings=settings, seed=s + 10, inverse_mass=c.stats.inverse_mass,
                          mass_prior_weight=10.0) for s, c in zip((1, 2), cold)]
    n_cold = sum(c.stats.n_leapfrog for c in cold)
    n_warm = sum(w.stats.n_leapfrog for w in warm)
    # the margin (measured about 3x) keeps the check independent of the platform's rounding
    assert n_warm < n_cold / 1.5, (n_warm, n_cold)


def test_bad_carry_settings_are_named():
    with pytest.raises(TypeError, match="carry_mass"):
        RJHMCSettings(carry_mass="yes")
    post = _posterior(False)
    tree = _tree(post)
    theta = post.pack(tree, sigma=1.0)
    with pytest.raises(ValueError, match="mass_prior_weight"):
        run_tree_nuts(post, tree, theta, settings=NUTSSettings(n_warmup=10), mass_prior_weight=-1.0)
    assert RJHMCSettings().carry_mass is False
