"""A fuzzy rulebase with product inference: a linear value-function architecture.

Each input ``x_j`` (scaled to [0, 1]) is softly classified as *small* (degree
``1 - x_j``) or *large* (degree ``x_j``). A rule per combination of labels says
"IF x_1 is S and x_2 is L and ... THEN output = p^i"; its weight is the product of
its labels' degrees, and the output is the weighted mean of the ``p^i`` (seed 000,
eq. 1 and section 3.3). The normalised weights are basis functions ``phi^i(x)``, so
``f(x) = p . phi(x)``, and tuning ``p`` is linear function approximation.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence

from schedlab.model.core.fields import is_int

__all__ = ["FuzzyRulebase"]


class FuzzyRulebase:
    """``2 ** inputs`` rules over inputs in [0, 1], each labelled small or large.

    Parameters
    ----------
    inputs
        Number of input variables K (3 in seed 000: x1, x2, x3).

    Attributes
    ----------
    labels
        The rules' label codes in order, e.g. ``"SSS", "SSL", ..., "LLL"`` for K = 3:
        rule i's j-th letter is the label of input j, with the last input varying
        fastest, as rules 1-8 are listed in seed 000 section 3.3.

    Notes
    -----
    With the complementary memberships ``mu_S = 1 - x`` and ``mu_L = x`` the rule
    weights of any x in [0, 1]^K sum to 1, so eq. 1's normalisation is the identity
    there; it is still applied, as eq. 1 writes it. Inputs outside [0, 1] are clipped
    to it: a membership degree is a degree.

    References
    ----------
    D. Vengerov, "A Reinforcement Learning Framework for Utility-Based Scheduling in
    Resource-Constrained Systems", sections 3.2-3.3 (../shared/seeds/000).

    Examples
    --------
    >>> rb = FuzzyRulebase(3)
    >>> rb.labels[:3]
    ('SSS', 'SSL', 'SLS')
    >>> rb.basis([1.0, 0.0, 0.0])[rb.labels.index("LSS")]
    1.0
    """

    def __init__(self, inputs: int = 3) -> None:
        if not is_int(inputs, 1):
            raise ValueError(f"FuzzyRulebase: inputs must be a whole number >= 1, got {inputs!r}")
        self.inputs = inputs
        self.labels: tuple[str, ...] = tuple("".join(c) for c in itertools.product("SL", repeat=inputs))

    @property
    def size(self) -> int:
        """Number of rules (and of basis functions, and of parameters)."""
        return len(self.labels)

    def weights(self, x: Sequence[float]) -> list[float]:
        """Unnormalised rule weights ``w^i(x)``: products of membership degrees.

        Plain floats, not numpy: a scheduler evaluates a handful of inputs per
        waiting job at every decision, where numpy's per-call cost would dominate.
        """
        if len(x) != self.inputs:
            raise ValueError(f"FuzzyRulebase: expected {self.inputs} inputs, got {len(x)}")
        w = [1.0]
        for xj in x:
            if not math.isfinite(xj):
                raise ValueError(f"FuzzyRulebase: inputs must be finite, got {list(x)}")
            xj = 0.0 if xj < 0.0 else 1.0 if xj > 1.0 else float(xj)
            small = 1.0 - xj
            # each rule so far splits into (..., S) and (..., L): the last input varies fastest
            w = [v for wi in w for v in (wi * small, wi * xj)]
        return w

    def basis(self, x: Sequence[float]) -> list[float]:
        """Normalised rule weights ``phi^i(x) = w^i(x) / sum_k w^k(x)``."""
        w = self.weights(x)
        total = sum(w)
        return [wi / total for wi in w]

    def value(self, p: Sequence[float], x: Sequence[float]) -> float:
        """Output of eq. 1 for rule outputs ``p`` at input ``x``.

        Computed without the basis: with complementary memberships, eq. 1 is the
        multilinear interpolation of the ``p^i`` at the corners of [0, 1]^K, so one
        input at a time halves the table (``2^K - 1`` blends instead of ``K 2^K``
        products), the cost that matters when a scheduler scores every waiting job.
        """
        if len(x) != self.inputs:
            raise ValueError(f"FuzzyRulebase: expected {self.inputs} inputs, got {len(x)}")
        if self.inputs == 3:  # seed 000's rulebase, unrolled
            x1, x2, x3 = x
            if not (0.0 <= x1 <= 1.0 and 0.0 <= x2 <= 1.0 and 0.0 <= x3 <= 1.0):  # rare: clip, or refuse nan
                if not (math.isfinite(x1) and math.isfinite(x2) and math.isfinite(x3)):
                    raise ValueError(f"FuzzyRulebase: inputs must be finite, got {list(x)}")
                x1, x2, x3 = (min(1.0, max(0.0, v)) for v in x)
            s3 = 1.0 - x3
            a, b = p[0] * s3 + p[1] * x3, p[2] * s3 + p[3] * x3  # x1 small: x2 small, large
            c, d = p[4] * s3 + p[5] * x3, p[6] * s3 + p[7] * x3  # x1 large
            s2 = 1.0 - x2
            return (a * s2 + b * x2) * (1.0 - x1) + (c * s2 + d * x2) * x1
        table = list(p)
        for xj in reversed(x):  # the last input varies fastest in the rule order
            if not math.isfinite(xj):
                raise ValueError(f"FuzzyRulebase: inputs must be finite, got {list(x)}")
            xj = 0.0 if xj < 0.0 else 1.0 if xj > 1.0 else xj
            small = 1.0 - xj
            table = [table[i] * small + table[i + 1] * xj for i in range(0, len(table), 2)]
        return table[0]

    def __repr__(self) -> str:
        return f"FuzzyRulebase(inputs={self.inputs})"
