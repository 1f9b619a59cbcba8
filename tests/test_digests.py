"""Every scenario's ``--quick`` run gives the very results it gave before: rows, replications, records.

The digests below were taken from ``schedlab run scenarios/<name>.py --quick --executor
serial`` before the framework was reshaped (one contract per model kind, issue 14), and
are what any later change that claims "no result changes" (a refactoring, a speed-up)
is checked against. A change that *means* to change results (a bug fix, a new default)
updates the digest here, in the same commit, and says why in its message:

- ``responsive_grid``: re-taken after seed 001's baselines, readings and the LPC-EGEE
  trace (issue 15) changed what its quick run runs and prints (FIFO, EDF, RL, RL+smdp;
  one week of LPC). ``first_look`` (the README's main job, issue 19) was taken when it was
  added. ``trace_replay``: re-taken when replays began to kill a job at its requested
  time (issue 18 item 1: ``walltime="kill"``, what Slurm does, is the new default where
  the log gives requested times, and some of Gaia's jobs ran past theirs) and
  ``evaluate`` gained its ``killed`` column; under ``walltime=run-on`` its rows are the
  old ones plus ``killed`` = 0. Every other digest is the one taken before the reshaping.

Regenerate one with ``python tests/digests.py DIR`` on a folder ``schedlab run`` wrote.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from digests import digest

from schedlab.experiment.cli import main

ROOT = Path(__file__).resolve().parent.parent

DIGESTS = {
    "mmc": {"rows": "a6099ccfefad12a9", "replications": "989eaf1c9660156b", "records": "418888dad997e838"},
    "utility_scheduling": {
        "rows": "d730956e3761b930", "replications": "409a204a43a240ff", "records": "7f6abbdb36be87c6",
    },
    "responsive_grid": {
        "rows": "df244229dd3bac7e", "replications": "3c107996f45af545", "records": "afad93dbbf59f29b",
    },
    "deeprm": {"rows": "9c5b35cb6cd6584a", "replications": "522cfb0eb9304aa3", "records": "b158a79ec3492878"},
    "osl_grid": {"rows": "a1cd2b2cf68951be", "replications": "68eaad6d5a7ba302", "records": "a69eb1fa9009e754"},
    "collectives": {"rows": "079152d2f890e060", "replications": "7cfff725a4afdd56", "records": "bcbaabf7fa91c37a"},
    "collectives_sensitivity": {
        "rows": "7d06cadaf16b8fa3", "replications": "89e9a018b146c95e", "records": "d2d0f25ac8244127",
    },
    "trace_replay": {"rows": "a44c32858139e2bc", "replications": "31b982f0932f4842", "records": "cac856a3da36185e"},
    "machine_rl": {"rows": "1e8b53cc6d985bc2", "replications": "be4495af4871d7a6", "records": "1b1934788006fe27"},
    "first_look": {"rows": "e63550037aaeb3d4", "replications": "28806ed10413f922", "records": "6f1eda2c032b7567"},
}


@pytest.mark.parametrize("name", sorted(DIGESTS))
def test_quick_run_gives_the_stored_results(name, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(ROOT)  # scenarios read ../shared/traces relative to the repository root
    out = tmp_path / name
    script = ROOT / "scenarios" / f"{name}.py"
    assert main(["run", str(script), "--quick", "--executor", "serial", "--out", str(out)]) == 0
    assert digest(out) == DIGESTS[name]
