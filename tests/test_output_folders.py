"""Config fields that name a folder a run writes into are checked before any cell runs (issue 35).

``pool_log=/proc/nope/x`` failed after 12 cells and left a journal, so the corrected
rerun into the same ``--out`` was refused. Such a field is declared with
:func:`schedlab.model.core.fields.folder`, and the runner tries each one first.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from schedlab.experiment import ExperimentError, run
from schedlab.experiment.cli import main
from schedlab.experiment.scenario import load_scenario
from schedlab.model.core.fields import field_checks

SCENARIOS = Path(__file__).parent.parent / "scenarios"


def test_an_output_folder_that_cannot_be_written_is_refused_before_any_cell(tmp_path):
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    out = tmp_path / "o"
    ran: list = []
    with pytest.raises(ExperimentError, match=rf"^series_dir={str(blocker / 'x')!r} cannot be written: .*"):
        run(
            SCENARIOS / "osl_grid.py",
            quick=True,
            executor="serial",
            out=out,
            on_result=ran.append,
            overrides={"series_dir": str(blocker / "x"), "experiments": ("scale",)},
        )
    assert ran == [] and not out.exists()  # no journal: the corrected rerun is not refused
    good = tmp_path / "series"
    run(
        SCENARIOS / "osl_grid.py",
        quick=True,
        reps=1,
        executor="serial",
        out=out,
        on_result=ran.append,
        overrides={"series_dir": str(good), "experiments": ("scale",), "policies": ("osl",)},
    )
    assert ran and any(good.iterdir())


def test_each_swept_value_is_checked_and_the_cli_says_it_in_one_line(tmp_path, capsys):
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    args = ["run", str(SCENARIOS / "osl_grid.py"), "--quick", "--executor", "serial", "--out", str(tmp_path / "o")]
    code = main([*args, "--sweep", f"series_dir={tmp_path / 'ok'},{blocker}"])
    err = capsys.readouterr().err.splitlines()
    assert code == 2 and err[0].startswith(f"error: series_dir={str(blocker)!r} cannot be written")
    assert not (tmp_path / "ok").exists()  # the check makes no folder


@pytest.mark.parametrize(
    ("script", "name"),
    [
        ("responsive_grid.py", "pool_log"),
        ("osl_grid.py", "series_dir"),
        ("collectives.py", "curves_dir"),
        ("collectives_sensitivity.py", "curves_dir"),
        ("deeprm.py", "out_dir"),
        ("machine_rl.py", "out_dir"),
        ("rlscheduler.py", "out_dir"),
    ],
)
def test_the_scenarios_output_folders_are_declared_as_such(script, name):
    scenario = load_scenario(SCENARIOS / script)
    checks = field_checks(scenario.config_type)
    assert checks[name].output
    assert not any(checks[f.name].output for f in dataclasses.fields(scenario.config_type) if f.name.startswith("logs"))
