"""Tests for tabular_trees.shapley: exact interventional Shapley values by enumeration.

Independent truths: hand-computed games, the closed form for linear models, a pure-Python
implementation of the Shapley formula over itertools subsets, the Shapley axioms, and
shap.TreeExplainer's interventional TreeSHAP (a different, polynomial-time algorithm).
"""

import itertools
import math
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from sklearn.ensemble import RandomForestRegressor
from sklearn.tree import DecisionTreeRegressor

from tabular_trees.shapley import (
    coalition_values,
    interaction_from_coalition_values,
    interventional_shapley,
    interventional_shapley_interactions,
    shapley_from_coalition_values,
)

# Minimum shap version the book relies on: shap < 0.50 cannot read models of xgboost >= 3.1
# (base_score is stored as a vector, shap/shap#4184, fixed by shap/shap#4187 in 0.50).
SHAP_MIN_VERSION = (0, 50)


def _import_shap():
    """Import shap, which is a book extra (installed in CI through the test extra)."""
    with warnings.catch_warnings():
        # shap 0.50-0.51 call Colormap.set_bad at import, which matplotlib >= 3.11 marks as
        # pending deprecation; harmless, and not ours to fix.
        warnings.filterwarnings("ignore", message="The set_bad function", category=PendingDeprecationWarning)
        return pytest.importorskip("shap")


# ------------------------------------------------------------------------------------------
# Independent reference: the Shapley formula written out over itertools subsets.
# ------------------------------------------------------------------------------------------


def _reference_shapley(f, x, background):
    """Pure-Python Shapley values of v(S) = mean_b f(x_S, b_rest) for one point x."""
    x = np.asarray(x, dtype=float)
    background = np.asarray(background, dtype=float)
    p = x.shape[0]

    def v(S):
        Z = background.copy()
        Z[:, list(S)] = x[list(S)]
        return float(np.mean(f(Z)))

    phi = np.zeros(p)
    for j in range(p):
        others = [k for k in range(p) if k != j]
        for r in range(p):
            for S in itertools.combinations(others, r):
                w = math.factorial(r) * math.factorial(p - r - 1) / math.factorial(p)
                phi[j] += w * (v(S + (j,)) - v(S))
    return phi, v(())


def _random_tree_function(rng, p, depth=3):
    """A random axis-aligned piecewise-constant function with products, as a vectorised callable."""
    feats = rng.integers(0, p, size=depth)
    thr = rng.normal(size=depth)
    leaf = rng.normal(size=2**depth)

    def f(Z):
        idx = np.zeros(Z.shape[0], dtype=int)
        for d in range(depth):
            idx = 2 * idx + (Z[:, feats[d]] > thr[d])
        return leaf[idx] + 0.5 * Z[:, 0] * Z[:, p - 1]

    return f


# ------------------------------------------------------------------------------------------
# Hand-computed cases.
# ------------------------------------------------------------------------------------------


class TestHandComputed:
    def test_product_two_background_rows(self):
        # f(x) = x1 x2, x = (3, 5), background {(0, 0), (2, 4)}.
        # Background row (0,0): v() = 0, v(1) = 3*0 = 0, v(2) = 0*5 = 0, v(12) = 15
        #   -> phi1 = 1/2 (0 - 0) + 1/2 (15 - 0) = 7.5, phi2 = 7.5.
        # Background row (2,4): v() = 8, v(1) = 3*4 = 12, v(2) = 2*5 = 10, v(12) = 15
        #   -> phi1 = 1/2 (12 - 8) + 1/2 (15 - 10) = 4.5, phi2 = 1/2 (10 - 8) + 1/2 (15 - 12) = 2.5.
        # The game is linear in the background, so phi = mean: (6, 5); base = (0 + 8)/2 = 4.
        f = lambda Z: Z[:, 0] * Z[:, 1]  # noqa: E731
        phi, base = interventional_shapley(f, [[3.0, 5.0]], [[0.0, 0.0], [2.0, 4.0]])
        np.testing.assert_allclose(phi, [[6.0, 5.0]], rtol=0, atol=1e-14)
        assert base == pytest.approx(4.0, abs=1e-14)
        values = coalition_values(f, [[3.0, 5.0]], [[0.0, 0.0], [2.0, 4.0]])
        # bit 0 = feature 1, bit 1 = feature 2: v(), v({1}) = (0 + 12)/2, v({2}) = (0 + 10)/2, v({1,2})
        np.testing.assert_allclose(values, [[4.0, 6.0, 5.0, 15.0]], rtol=0, atol=1e-14)

    def test_three_feature_max_game(self):
        # f = max(x1, x2, x3) with x = (1, 1, 1), background (0, 0, 0): v(S) = 1 if S nonempty.
        # Only the first feature to join adds value; each feature is first in 1/3 of orderings.
        f = lambda Z: Z.max(axis=1)  # noqa: E731
        phi, base = interventional_shapley(f, [[1.0, 1.0, 1.0]], [[0.0, 0.0, 0.0]])
        np.testing.assert_allclose(phi, [[1 / 3, 1 / 3, 1 / 3]], atol=1e-15)
        assert base == 0.0

    def test_single_feature(self):
        f = lambda Z: 2.0 * Z[:, 0] ** 2  # noqa: E731
        phi, base = interventional_shapley(f, [[3.0], [1.0]], [[1.0], [2.0]])
        # base = mean(2, 8) = 5; phi = f(x) - base
        np.testing.assert_allclose(phi, [[18.0 - 5.0], [2.0 - 5.0]])
        assert base == pytest.approx(5.0)

    def test_interactions_hand_computed(self):
        # f = x1 x2 + x3 at x = (1, 1, 1), background 0: the pair {1,2} has interaction index 1
        # (split 0.5 / 0.5 off the diagonal), no main effects for x1, x2, and x3 has main effect 1.
        f = lambda Z: Z[:, 0] * Z[:, 1] + Z[:, 2]  # noqa: E731
        Phi, base = interventional_shapley_interactions(f, [[1.0, 1.0, 1.0]], [[0.0, 0.0, 0.0]])
        np.testing.assert_allclose(Phi[0], [[0, 0.5, 0], [0.5, 0, 0], [0, 0, 1.0]], atol=1e-15)
        assert base == 0.0

    def test_linear_model_closed_form(self):
        # For f = w.x + c the interventional Shapley value is w_j (x_j - mean_b b_j).
        rng = np.random.default_rng(0)
        w, c = rng.normal(size=6), 0.7
        X, B = rng.normal(size=(4, 6)), rng.normal(size=(9, 6))
        phi, base = interventional_shapley(lambda Z: Z @ w + c, X, B)
        np.testing.assert_allclose(phi, w * (X - B.mean(axis=0)), atol=1e-12)
        assert base == pytest.approx(float(np.mean(B @ w + c)), abs=1e-12)


# ------------------------------------------------------------------------------------------
# Properties (hypothesis): additivity, agreement with the reference, and the Shapley axioms.
# ------------------------------------------------------------------------------------------

finite = st.floats(-3, 3, allow_nan=False, allow_infinity=False)


@st.composite
def problems(draw, min_p=1, max_p=5):
    p = draw(st.integers(min_p, max_p))
    n = draw(st.integers(1, 3))
    m = draw(st.integers(1, 5))
    X = draw(arrays(np.float64, (n, p), elements=finite))
    B = draw(arrays(np.float64, (m, p), elements=finite))
    seed = draw(st.integers(0, 2**31 - 1))
    return X, B, seed


class TestProperties:
    @settings(max_examples=40, deadline=None)
    @given(problems())
    def test_additivity_and_reference(self, prob):
        X, B, seed = prob
        f = _random_tree_function(np.random.default_rng(seed), X.shape[1])
        phi, base = interventional_shapley(f, X, B, batch_size=7)  # tiny batches exercise chunking
        np.testing.assert_allclose(base + phi.sum(axis=1), f(X), atol=1e-10)
        for i in range(X.shape[0]):
            ref_phi, ref_base = _reference_shapley(f, X[i], B)
            np.testing.assert_allclose(phi[i], ref_phi, atol=1e-10)
            assert base == pytest.approx(ref_base, abs=1e-12)

    @settings(max_examples=30, deadline=None)
    @given(problems(min_p=2), st.floats(-2, 2, allow_nan=False))
    def test_linearity(self, prob, c):
        X, B, seed = prob
        rng = np.random.default_rng(seed)
        f, g = _random_tree_function(rng, X.shape[1]), _random_tree_function(rng, X.shape[1])
        phi_f, base_f = interventional_shapley(f, X, B)
        phi_g, base_g = interventional_shapley(g, X, B)
        phi_h, base_h = interventional_shapley(lambda Z: f(Z) + c * g(Z), X, B)
        np.testing.assert_allclose(phi_h, phi_f + c * phi_g, atol=1e-10)
        assert base_h == pytest.approx(base_f + c * base_g, abs=1e-10)

    @settings(max_examples=30, deadline=None)
    @given(problems(min_p=2))
    def test_dummy(self, prob):
        # A feature the model never reads gets exactly zero.
        X, B, seed = prob
        p = X.shape[1]
        rng = np.random.default_rng(seed)
        g = _random_tree_function(rng, p - 1)
        f = lambda Z: g(Z[:, : p - 1])  # noqa: E731  (last column unused)
        phi, _ = interventional_shapley(f, X, B)
        np.testing.assert_array_equal(phi[:, p - 1], 0.0)

    @settings(max_examples=30, deadline=None)
    @given(problems(min_p=3))
    def test_symmetry(self, prob):
        # f depends on features 0 and 1 only through x0 + x1, plus a term in feature 2. If x and
        # every background row have equal entries 0 and 1, the two features are interchangeable
        # players and must receive equal Shapley values.
        X, B, seed = prob
        X, B = X.copy(), B.copy()
        X[:, 1] = X[:, 0]
        B[:, 1] = B[:, 0]
        a = np.random.default_rng(seed).normal(size=3)
        f = lambda Z: np.sin(a[0] * (Z[:, 0] + Z[:, 1])) * (1 + a[1] * Z[:, 2]) + a[2] * Z[:, 2]  # noqa: E731
        phi, _ = interventional_shapley(f, X, B)
        np.testing.assert_allclose(phi[:, 0], phi[:, 1], atol=1e-12)

    @settings(max_examples=25, deadline=None)
    @given(problems(min_p=2, max_p=5))
    def test_interaction_rows_sum_to_shapley(self, prob):
        X, B, seed = prob
        f = _random_tree_function(np.random.default_rng(seed), X.shape[1])
        Phi, base = interventional_shapley_interactions(f, X, B)
        phi, base2 = interventional_shapley(f, X, B)
        np.testing.assert_allclose(Phi, np.swapaxes(Phi, 1, 2), atol=0)
        np.testing.assert_allclose(Phi.sum(axis=2), phi, atol=1e-10)
        np.testing.assert_allclose(base + Phi.sum(axis=(1, 2)), f(X), atol=1e-10)
        assert base == base2

    def test_interaction_reference_formula(self):
        # Off-diagonal cells against the Shapley interaction index written out with itertools.
        rng = np.random.default_rng(3)
        values = rng.normal(size=(1, 16))  # an arbitrary 4-player game
        p = 4
        v = lambda S: values[0, sum(1 << k for k in S)]  # noqa: E731
        Phi = interaction_from_coalition_values(values)[0]
        for j, k in itertools.combinations(range(p), 2):
            others = [q for q in range(p) if q not in (j, k)]
            idx = 0.0
            for r in range(p - 1):
                for S in itertools.combinations(others, r):
                    w = math.factorial(r) * math.factorial(p - r - 2) / math.factorial(p - 1)
                    idx += w * (v(S + (j, k)) - v(S + (j,)) - v(S + (k,)) + v(S))
            assert Phi[j, k] == pytest.approx(idx / 2, abs=1e-12)
            assert Phi[k, j] == Phi[j, k]

    def test_batching_does_not_change_result(self):
        rng = np.random.default_rng(5)
        f = _random_tree_function(rng, 4)
        X, B = rng.normal(size=(5, 4)), rng.normal(size=(6, 4))
        a = coalition_values(f, X, B, batch_size=1)
        b = coalition_values(f, X, B, batch_size=10**6)
        np.testing.assert_allclose(a, b, rtol=1e-14, atol=1e-14)

    def test_deterministic(self):
        rng = np.random.default_rng(6)
        f = _random_tree_function(rng, 5)
        X, B = rng.normal(size=(3, 5)), rng.normal(size=(4, 5))
        np.testing.assert_array_equal(interventional_shapley(f, X, B)[0], interventional_shapley(f, X, B)[0])

    def test_predict_sees_a_copy(self):
        # A model that scribbles on its input must not corrupt later batches.
        f0 = lambda Z: Z[:, 0] * Z[:, 1] + Z[:, 2]  # noqa: E731

        def f(Z):
            out = f0(Z)
            Z[:] = np.nan
            return out

        rng = np.random.default_rng(7)
        X, B = rng.normal(size=(2, 3)), rng.normal(size=(3, 3))
        np.testing.assert_allclose(
            interventional_shapley(f, X, B, batch_size=5)[0], interventional_shapley(f0, X, B)[0]
        )

    def test_accepts_dataframes_and_column_predictions(self):
        pd = pytest.importorskip("pandas")
        X = pd.DataFrame({"a": [3.0], "b": [5.0]})
        B = pd.DataFrame({"a": [0.0, 2.0], "b": [0.0, 4.0]})
        phi, base = interventional_shapley(lambda Z: (Z[:, 0] * Z[:, 1])[:, None], X, B)
        np.testing.assert_allclose(phi, [[6.0, 5.0]])


# ------------------------------------------------------------------------------------------
# Input validation.
# ------------------------------------------------------------------------------------------


class TestValidation:
    f = staticmethod(lambda Z: Z.sum(axis=1))

    def test_too_many_features(self):
        X = np.zeros((1, 11))
        with pytest.raises(ValueError, match=r"11 features, more than max_features=10.*TreeExplainer"):
            interventional_shapley(self.f, X, X)
        # Raising the limit is allowed (and cheap here: one point, one background row).
        phi, _ = interventional_shapley(self.f, X, X, max_features=11)
        assert phi.shape == (1, 11)

    def test_max_features_range(self):
        with pytest.raises(ValueError, match="max_features"):
            interventional_shapley(self.f, [[1.0]], [[0.0]], max_features=0)
        with pytest.raises(ValueError, match="max_features"):
            interventional_shapley(self.f, [[1.0]], [[0.0]], max_features=40)
        with pytest.raises(TypeError, match="max_features"):
            interventional_shapley(self.f, [[1.0]], [[0.0]], max_features=2.0)

    def test_batch_size(self):
        with pytest.raises(ValueError, match="batch_size"):
            interventional_shapley(self.f, [[1.0]], [[0.0]], batch_size=0)

    def test_mismatched_background(self):
        with pytest.raises(ValueError, match="background has 2 columns but X has 3"):
            interventional_shapley(self.f, np.zeros((2, 3)), np.zeros((4, 2)))

    @pytest.mark.parametrize("bad", [np.zeros((0, 3)), np.full((2, 3), np.nan), np.array([[0.0, np.inf, 1.0]])])
    def test_bad_background(self, bad):
        with pytest.raises(ValueError, match="background"):
            interventional_shapley(self.f, np.zeros((1, 3)), bad)

    @pytest.mark.parametrize("bad", [np.zeros((0, 3)), np.full((2, 3), np.nan)])
    def test_bad_X(self, bad):
        with pytest.raises(ValueError, match="X"):
            interventional_shapley(self.f, bad, np.zeros((2, 3)))

    def test_one_dimensional_inputs(self):
        with pytest.raises(ValueError, match="X must be 2-D"):
            interventional_shapley(self.f, np.zeros(3), np.zeros((2, 3)))
        with pytest.raises(ValueError, match="background must be 2-D"):
            interventional_shapley(self.f, np.zeros((1, 3)), np.zeros(3))

    def test_predict_not_callable(self):
        with pytest.raises(TypeError, match="predict must be a callable"):
            interventional_shapley(np.ones(3), np.zeros((1, 3)), np.zeros((1, 3)))

    def test_predict_wrong_shape(self):
        with pytest.raises(ValueError, match="one number per row.*predict_proba"):
            interventional_shapley(lambda Z: np.c_[Z[:, 0], Z[:, 1]], np.zeros((1, 2)), np.zeros((1, 2)))
        with pytest.raises(ValueError, match="one number per row"):
            interventional_shapley(lambda Z: Z[:1, 0], np.zeros((1, 2)), np.zeros((2, 2)))

    def test_predict_non_finite_or_non_numeric(self):
        with pytest.raises(ValueError, match="NaN or infinity"):
            interventional_shapley(lambda Z: np.full(len(Z), np.nan), np.zeros((1, 2)), np.zeros((1, 2)))
        with pytest.raises(TypeError, match="numbers"):
            interventional_shapley(lambda Z: np.array(["a"] * len(Z)), np.zeros((1, 2)), np.zeros((1, 2)))

    def test_values_table_shape(self):
        with pytest.raises(ValueError, match="2\\*\\*p columns"):
            shapley_from_coalition_values(np.zeros((1, 3)))
        with pytest.raises(ValueError, match="2\\*\\*p columns"):
            interaction_from_coalition_values(np.zeros((1, 1)))


# ------------------------------------------------------------------------------------------
# Agreement with shap.TreeExplainer (interventional TreeSHAP) and shap call shapes.
# ------------------------------------------------------------------------------------------


def _tree_data(p=5, n=200, seed=0):
    rng = np.random.default_rng(seed)
    # float32-representable inputs so that xgboost (float32 thresholds) sees exactly our numbers
    X = rng.normal(size=(n, p)).astype(np.float32).astype(np.float64)
    y = X[:, 0] * X[:, 1] + np.sin(2 * X[:, 2]) + 0.1 * rng.normal(size=n)
    return X, y


def _assert_matches_interventional_treeshap(model, background, Xe, atol):
    """Our enumeration equals shap.TreeExplainer's interventional TreeSHAP (values and base value)."""
    shap = _import_shap()
    explainer = shap.TreeExplainer(model, data=background, feature_perturbation="interventional")
    sv = explainer.shap_values(Xe)
    phi, base = interventional_shapley(model.predict, Xe, background)
    np.testing.assert_allclose(phi, sv, atol=atol)
    assert base == pytest.approx(float(np.ravel(explainer.expected_value)[0]), abs=atol)


class TestAgainstShap:
    def test_shap_version(self):
        shap = _import_shap()
        version = tuple(int(part) for part in shap.__version__.split(".")[:2])
        assert version >= SHAP_MIN_VERSION, (
            f"shap {shap.__version__} is older than the book needs ({SHAP_MIN_VERSION}); "
            'upgrade with pip install -U "shap>=0.50"'
        )

    @pytest.mark.parametrize(
        "model",
        [
            DecisionTreeRegressor(max_depth=5, random_state=0),
            RandomForestRegressor(n_estimators=10, max_depth=4, random_state=0),
        ],
        ids=["tree", "forest"],
    )
    def test_sklearn_interventional_treeshap(self, model):
        X, y = _tree_data()
        _assert_matches_interventional_treeshap(model.fit(X, y), X[:25], X[100:108], atol=1e-6)

    def test_xgboost_interventional_treeshap(self):
        xgb = pytest.importorskip("xgboost")
        X, y = _tree_data(p=4)
        model = xgb.XGBRegressor(n_estimators=20, max_depth=3, learning_rate=0.3, random_state=0, n_jobs=1)
        # xgboost predicts in float32: agreement to float32 rounding of O(1) outputs.
        _assert_matches_interventional_treeshap(model.fit(X, y), X[:20], X[100:106], atol=1e-5)

    def test_call_shapes_the_book_relies_on(self):
        """Return types the chapter uses (they changed across shap releases)."""
        shap = _import_shap()
        X, y = _tree_data(p=4, n=120)
        model = RandomForestRegressor(n_estimators=5, max_depth=3, random_state=0).fit(X, y)
        explainer = shap.TreeExplainer(model)  # tree_path_dependent
        sv = explainer.shap_values(X[:7])
        assert isinstance(sv, np.ndarray) and sv.shape == (7, 4)  # regression: one array, not a list
        assert np.size(explainer.expected_value) == 1
        base = float(np.ravel(explainer.expected_value)[0])
        np.testing.assert_allclose(base + sv.sum(axis=1), model.predict(X[:7]), atol=1e-10)
        expl = explainer(X[:7])
        assert isinstance(expl, shap.Explanation)
        assert expl.values.shape == (7, 4) and np.shape(expl.base_values) == (7,)
        assert expl.data.shape == (7, 4)
        one = expl[0]  # what shap.plots.waterfall takes
        assert one.values.shape == (4,) and np.ndim(one.base_values) == 0
        iv = explainer.shap_interaction_values(X[:7])
        assert isinstance(iv, np.ndarray) and iv.shape == (7, 4, 4)
        np.testing.assert_allclose(iv.sum(axis=2), sv, atol=1e-10)

    def test_native_contribution_shapes(self):
        """Each boosting library's own TreeSHAP: (n, p + 1) with the bias in the last column."""
        shap = _import_shap()
        xgb = pytest.importorskip("xgboost")
        lgb = pytest.importorskip("lightgbm")
        cb = pytest.importorskip("catboost")
        X, y = _tree_data(p=4, n=150)
        xm = xgb.XGBRegressor(n_estimators=10, max_depth=3, random_state=0, n_jobs=1).fit(X, y)
        lm = lgb.LGBMRegressor(n_estimators=10, num_leaves=8, random_state=0, n_jobs=1, verbose=-1).fit(X, y)
        cm = cb.CatBoostRegressor(iterations=10, depth=3, random_seed=0, verbose=0, thread_count=1,
                                  allow_writing_files=False).fit(X, y)
        natives = {
            "xgboost": xm.get_booster().predict(xgb.DMatrix(X[:6]), pred_contribs=True),
            "lightgbm": lm.predict(X[:6], pred_contrib=True),
            "catboost": cm.get_feature_importance(cb.Pool(X[:6]), type="ShapValues"),
        }
        for name, model in (("xgboost", xm), ("lightgbm", lm), ("catboost", cm)):
            native = np.asarray(natives[name])
            assert native.shape == (6, 5), name
            np.testing.assert_allclose(native.sum(axis=1), model.predict(X[:6]), rtol=1e-5, atol=1e-5)
            sv = shap.TreeExplainer(model).shap_values(X[:6])
            assert sv.shape == (6, 4), name
            np.testing.assert_allclose(sv, native[:, :4], rtol=1e-5, atol=1e-5)
