"""pyarrow arrays made from numpy arrays and texts without importing pandas.

``pyarrow.array`` and ``pyarrow.scalar`` import pandas on their first call, to ask
whether their argument is a pandas object, a large part of a short run's time start
to finish (measured: benchmarks/README.md). These functions build the arrays from their buffers instead, with the
values ``pyarrow.array(values, from_pandas=True)`` gives (a float's nan becomes a
null, as in a column that came from a DataFrame).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np
    import pyarrow as pa

__all__ = ["floats", "ints", "texts", "texts_at"]

#: up to this many distinct texts, texts_at fills the bytes with numpy, one pass per text
_FEW = 16


def floats(values: np.ndarray) -> pa.Array:
    """A ``double`` array of float64 ``values``, each nan a null."""
    import numpy as np
    import pyarrow as pa

    values = np.ascontiguousarray(values, dtype=np.float64)
    missing = np.isnan(values)
    nulls = int(missing.sum())
    valid = pa.py_buffer(np.packbits(~missing, bitorder="little")) if nulls else None
    return pa.Array.from_buffers(pa.float64(), len(values), [valid, pa.py_buffer(values)], null_count=nulls)


def ints(values: np.ndarray) -> pa.Array:
    """An ``int64`` array of int64 ``values``."""
    import numpy as np
    import pyarrow as pa

    values = np.ascontiguousarray(values, dtype=np.int64)
    return pa.Array.from_buffers(pa.int64(), len(values), [None, pa.py_buffer(values)], null_count=0)


def texts(values: Sequence[str]) -> pa.Array:
    """A ``large_string`` array of ``values`` (``str``, stored as UTF-8)."""
    import numpy as np
    import pyarrow as pa

    encoded = [v.encode() for v in values]
    offsets = np.zeros(len(encoded) + 1, dtype=np.int64)
    np.cumsum([len(e) for e in encoded], out=offsets[1:])
    return pa.Array.from_buffers(
        pa.large_string(), len(encoded), [None, pa.py_buffer(offsets), pa.py_buffer(b"".join(encoded))], null_count=0
    )


def texts_at(values: Sequence[str], codes: np.ndarray) -> pa.Array:
    """``texts(values).take(codes)``: a ``large_string`` array whose row ``i`` is ``values[codes[i]]``.

    Built with numpy from the few distinct ``values``: ``take`` would import
    ``pyarrow.compute``, which a short run's start-up need not pay (measured: benchmarks/README.md).
    Many distinct values (a machine's interval sets, one per allocation) are joined row
    by row instead: the numpy fill costs a pass over the rows per distinct value.
    """
    import numpy as np
    import pyarrow as pa

    encoded = [v.encode() for v in values]
    codes = np.asarray(codes, dtype=np.int64)
    offsets = np.zeros(len(codes) + 1, dtype=np.int64)
    np.cumsum(np.array([len(e) for e in encoded], dtype=np.int64)[codes], out=offsets[1:])
    if len(encoded) > _FEW:
        joined = b"".join([encoded[c] for c in codes.tolist()])
        return pa.Array.from_buffers(
            pa.large_string(), len(codes), [None, pa.py_buffer(offsets), pa.py_buffer(joined)], null_count=0
        )
    data = np.empty(int(offsets[-1]), dtype=np.uint8)
    for code, text in enumerate(encoded):  # each distinct text's bytes into its rows, byte by byte
        if text:
            starts = offsets[:-1][codes == code]
            for k, byte in enumerate(text):
                data[starts + k] = byte
    return pa.Array.from_buffers(
        pa.large_string(), len(codes), [None, pa.py_buffer(offsets), pa.py_buffer(data)], null_count=0
    )
