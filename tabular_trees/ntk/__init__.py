r"""Limiting neural tangent kernels of soft tree ensembles (Kanoh & Sugiyama, 2024).

A soft tree routes a sample to the left child of node :math:`n` with probability
:math:`\sigma(\mathbf w_n^\top\mathbf x + \beta b_n)`, where the decision function is the
scaled error function :math:`\sigma(c) = \tfrac12\operatorname{erf}(\alpha c) + \tfrac12`.
With all parameters drawn i.i.d. :math:`N(0, 1)` and the ensemble output scaled by
:math:`1/\sqrt M`, the NTK of :math:`M` trees converges, as :math:`M\to\infty`, to a
deterministic kernel that this module computes in closed form:

* :func:`node_expectations` — the per-split expectations :math:`\mathcal T` and
  :math:`\dot{\mathcal T}` (Theorem 3.1, Eqs. A.2-A.3; Theorem 2.1 for oblique splits);
* :func:`oblique_ntk` — unconstrained (oblique) perfect trees (Theorem 2.1);
* :func:`axis_aligned_ntk` — axis-aligned trees of *any* architecture given as root-to-leaf
  feature paths, AAA ("always axis-aligned") or AAI ("axis-aligned at initialisation"),
  Eq. (7)/(A.13), including splits on several features (the remark after A.13);
* :func:`oblivious_ntk` — the oblivious-tree shorthand;
* :func:`mixture_ntk` — ensembles mixing several architectures (Proposition 3.1);
* :func:`to_oblivious` — Proposition 4.1, any axis-aligned tree as a weighted set of oblivious trees;
* :func:`kernel_bank`, :func:`iter_kernel_bank`, :func:`weighted_kernel_sum` — many oblivious
  kernels at once from shared per-feature terms (numba, parallel over rows);
* :func:`ntk_trajectory` — the analytic gradient-descent trajectory of the linearised model.

The package holds one idea per private module — the closed forms and architectures
(``_closed_form``), the fused kernel bank (``_bank``, compiled loops in ``_ntk_kernels``) and the
training dynamics (``_trajectory``); import every name from :mod:`tabular_trees.ntk` itself.

Kernel conventions. A *path* is a tuple of splits from the root to one leaf; a split is a
feature index (``int``) or a tuple of feature indices (a split on several features). For a
path :math:`a` the rule-set kernel is

.. math::

   R_a = \sum_{n\in a} \Sigma_n \dot{\mathcal T}_n \prod_{t\in a,\, t\neq n} \mathcal T_t
         + \prod_{t\in a} \mathcal T_t ,

where the products run over the *nodes* of the path (a feature used at two depths of one
path counts twice: the two nodes have independent parameters), and the tree kernel is the
sum of :math:`R_a` over its leaves. :math:`\Sigma_n = \mathbf x_{S_n}^\top \mathbf x'_{S_n} + \beta^2`
for AAA and :math:`\mathbf x^\top\mathbf x' + \beta^2` for AAI. An oblivious tree of depth
:math:`D` has :math:`2^D` leaves with the same path, hence the factor :math:`2^D`.
"""

from __future__ import annotations

from ._bank import all_feature_sets, iter_kernel_bank, kernel_bank, weighted_kernel_sum
from ._closed_form import (
    axis_aligned_ntk,
    mixture_ntk,
    node_expectations,
    oblique_ntk,
    oblivious_ntk,
    to_oblivious,
    tree_paths,
)
from ._trajectory import ntk_trajectory

__all__ = [
    "node_expectations",
    "oblique_ntk",
    "oblivious_ntk",
    "axis_aligned_ntk",
    "mixture_ntk",
    "tree_paths",
    "to_oblivious",
    "all_feature_sets",
    "kernel_bank",
    "iter_kernel_bank",
    "weighted_kernel_sum",
    "ntk_trajectory",
]
