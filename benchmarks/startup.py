"""``schedlab run scenarios/mmc.py`` as a user runs it: import time, and start to finish against plain SimPy.

    python benchmarks/startup.py                     # --repeat 3, 300,000 customers
    python benchmarks/startup.py --customers 50000   # quicker

Two measures, each the best of ``--repeat`` runs in fresh interpreters, the two
sides interleaved:

- **imports**: ``schedlab run scenarios/mmc.py --reps 1 --executor serial --set
  customers=2000`` under ``python -X importtime``; the sum of the top-level imports'
  cumulative times (target <= 0.6 s), and whether scipy.stats, NetworkX or torch were
  imported (none of them should be).
- **start to finish**: ``schedlab run scenarios/mmc.py --reps 1 --executor serial --set
  c=50 --set arrival_rate=45 --set customers=N`` (imports, simulation, records, saving
  to a temporary folder) against :data:`SCRIPT`, ``schedlab/processes/machine/simpy_machine.py``
  run as a plain SimPy script (it imports only SimPy and the standard library) that
  simulates the same queue and prints its mean wait; the ratio is script / schedlab
  (target >= 0.9).

Both sides are child processes started the same way (``sys.executable``), so the
interpreter's own start-up is in both. They run in a temporary folder, so
``PYTHONPATH=/path/to/other/checkout python /path/to/other/checkout/benchmarks/startup.py``
measures that checkout (run in the repository, ``python -c`` would import the one in
its folder). Nothing is asserted.
"""

from __future__ import annotations

import argparse
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MMC = ROOT / "scenarios" / "mmc.py"

#: the M/M/c queue as a SimPy user would write it, start to finish: the package's plain-SimPy
#: machine, copied out and run as a script, so that importing it loads no part of schedlab
SCRIPT = ROOT / "schedlab" / "processes" / "machine" / "simpy_machine.py"

HEAVY = ("scipy.stats", "networkx", "torch")


def _cli(*args: str) -> list[str]:
    return [
        sys.executable,
        "-c",
        "import sys; from schedlab.experiment.cli import main; sys.exit(main())",
        "run",
        str(MMC),
        "--reps",
        "1",
        "--executor",
        "serial",
        *args,
    ]


def import_seconds(out: Path) -> tuple[float, list[str]]:
    """Total top-level import time of a small mmc run, and which heavy packages it imported."""
    cmd = [cmd for cmd in _cli("--set", "customers=2000", "--out", str(out))]
    cmd.insert(1, "-X")
    cmd.insert(2, "importtime")
    done = subprocess.run(cmd, capture_output=True, text=True, check=True, cwd=out.parent)
    total, heavy = 0, set()
    for line in done.stderr.splitlines():
        if not line.startswith("import time:") or "|" not in line:
            continue
        _, cumulative, name = line.split("|")
        if not cumulative.strip().isdigit():
            continue  # the header line
        if name.startswith(" ") and not name.startswith("  "):  # top level: one space before the name
            total += int(cumulative)
        heavy.update(h for h in HEAVY if name.strip() == h)
    return total / 1e6, sorted(heavy)


def timed(cmd: list[str]) -> tuple[float, float]:
    """Wall-clock seconds of ``cmd``, and the CPU seconds (user + system) the child used."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    began = time.perf_counter()
    # run outside the repository: ``python -c`` puts its folder first on sys.path, and a
    # checkout there would shadow the one PYTHONPATH names (a before/after comparison)
    subprocess.run(cmd, capture_output=True, check=True, cwd=tempfile.gettempdir())
    wall = time.perf_counter() - began
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--customers", type=int, default=300_000)
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--skip-run", action="store_true", help="measure the imports only")
    args = p.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        script = Path(tmp) / "mmc_simpy.py"
        script.write_text(SCRIPT.read_text())
        imports, heavy = min(import_seconds(Path(tmp) / f"imp{i}") for i in range(args.repeat))
        print(
            f"schedlab run mmc: {imports:.3f} s of imports, best of {args.repeat} (target <= 0.6 s); "
            f"heavy packages imported: {', '.join(heavy) or 'none'}"
        )
        if args.skip_run:
            return 0
        ours, script_ = [], []
        for i in range(args.repeat):
            ours.append(
                timed(
                    _cli(
                        "--set",
                        "c=50",
                        "--set",
                        "arrival_rate=45",
                        "--set",
                        f"customers={args.customers}",
                        "--out",
                        f"{tmp}/run{i}",
                    )
                )
            )
            script_.append(timed([sys.executable, str(script), str(args.customers)]))
    (wall_ours, cpu_ours), (wall_script, cpu_script) = (tuple(map(min, zip(*t, strict=True))) for t in (ours, script_))
    print(f"M/M/50, {args.customers} customers, start to finish, best of {args.repeat} (wall-clock; CPU of the child):")
    print(f"  schedlab run    {wall_ours:7.2f} s  {cpu_ours:7.2f} s CPU")
    print(f"  SimPy script    {wall_script:7.2f} s  {cpu_script:7.2f} s CPU")
    print(
        f"  ratio script / schedlab: {wall_script / wall_ours:.2f} wall-clock, {cpu_script / cpu_ours:.2f} CPU "
        "(target >= 0.9)"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
