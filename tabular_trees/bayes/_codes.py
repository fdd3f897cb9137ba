"""Integer codes shared by the compiled kernels and the samplers, named once.

Model codes select the log-density in the compiled kernels (one compiled kernel serves
every model and topology); move codes label the proposals in chain traces
(``ChainResult.move``).
"""

REG_DF, REG_DFI, CLF_DF, CLF_DFI, GAUSS = 0, 1, 2, 3, 9
"""Model codes: Gaussian regression with axis-aligned (DF) or simplex (DFI) splits,
Dirichlet–multinomial classification likewise, and a Gaussian test target for NUTS."""

SPLIT_FIXED, SPLIT_GIBBS, SPLIT_RANDOM_WALK = 0, 1, 2
"""How NUTS's split-index step updates HMC-DF's split indices before every transition: not at all
(HMC-DFI), by Liu's Metropolised Gibbs step, or by the authors' code's uniform random-walk
Metropolis step (NumPyro's ``DiscreteHMCGibbs(random_walk=True)``)."""

SPLIT_UPDATE_CODE = {"gibbs": SPLIT_GIBBS, "random_walk": SPLIT_RANDOM_WALK}
"""``SPLIT_UPDATE_CODE[name]`` is the code of a split-index update named in ``RJHMCSettings``."""

MOVE_GROW, MOVE_PRUNE, MOVE_STAY, MOVE_CHANGE, MOVE_SWAP = 0, 1, 2, 3, 4
"""Move codes of chain traces: RJHMC-Tree proposes grow / prune / stay, CGM grow / prune /
change / swap."""

MOVE_NAMES = ("grow", "prune", "stay", "change", "swap")
"""``MOVE_NAMES[code]`` is the name of a move code."""

MOVE_CODE = {name: code for code, name in enumerate(MOVE_NAMES)}
"""``MOVE_CODE[name]`` is the code of a move name."""


def model_code(regression, use_simplex):
    """The model code of a soft-tree posterior.

    Examples
    --------
    >>> model_code(True, False) == REG_DF, model_code(False, True) == CLF_DFI
    (True, True)
    """
    if regression:
        return REG_DFI if use_simplex else REG_DF
    return CLF_DFI if use_simplex else CLF_DF
