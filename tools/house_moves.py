"""Issue 34's moves: each model kind in its own rooms, paper tables out of ``model/``.

Run from the repository root: ``python tools/house_moves.py [--move]``. With ``--move`` it
``git mv``s every module in ``MOVES`` that is still at its old place; with or without it,
it rewrites every old module path left in the tree (dotted, ``schedlab/...py`` and
``pkg/...py`` forms) to the new one. The rewrite is idempotent, so it can run again on
code written against the old layout (a branch merged after the move).
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

#: old module (dotted, under ``schedlab.``) -> new module
MOVES: dict[str, str] = {
    # processes: one room per model kind; the shared infrastructure stays at the root
    "processes.machine": "processes.machine.machine",
    "processes.machine_view": "processes.machine.view",
    "processes.running": "processes.machine.running",
    "processes.capacity": "processes.machine.capacity",
    "processes.fitting": "processes.machine.fitting",
    "processes.job_body": "processes.machine.job_body",
    "processes.job_end": "processes.machine.job_end",
    "processes.job_snapshot": "processes.machine.job_snapshot",
    "processes.processor_ids": "processes.machine.processor_ids",
    "processes.node_faults": "processes.machine.node_faults",
    "processes.elastic": "processes.machine.elastic",
    "processes.replay": "processes.machine.replay",
    "processes.simpy_machine": "processes.machine.simpy_machine",
    "processes.cluster": "processes.cluster.cluster",
    "processes.cluster_view": "processes.cluster.view",
    "processes.placement_table": "processes.cluster.placement_table",
    "processes.power": "processes.cluster.power",
    "processes.pstates": "processes.cluster.pstates",
    "processes.grid": "processes.grid.grid",
    "processes.grid_resources": "processes.grid.resources",
    "processes.network": "processes.network.network",
    "processes.network_outcome": "processes.network.outcome",
    "processes.network_server": "processes.network.server",
    "processes.slotted": "processes.slotted.slotted",
    # envs: the same rooms
    "envs.machine_env": "envs.machine.env",
    "envs.machine_env_config": "envs.machine.config",
    "envs.machine_jobs": "envs.machine.jobs",
    "envs.machine_obs": "envs.machine.obs",
    "envs.machine_reward": "envs.machine.reward",
    "envs.agent_policy": "envs.machine.agent_policy",
    "envs.rlscheduler_env": "envs.rlscheduler.env",
    "envs.rlscheduler_obs": "envs.rlscheduler.obs",
    "envs.rlscheduler_model_files": "envs.rlscheduler.model_files",
    "envs.grid_agents": "envs.grid.agents",
    "envs.grid_obs": "envs.grid.obs",
    "envs.grid_parallel": "envs.grid.parallel",
    "envs.grid_policy": "envs.grid.policy",
    "envs.network_agents": "envs.network.agents",
    "envs.network_obs": "envs.network.obs",
    "envs.deeprm": "envs.slotted.deeprm",
    # RLScheduler's training pipeline joins the training package
    "envs.rlscheduler_search": "training.rlscheduler.search",
    "envs.rlscheduler_train": "training.rlscheduler.train",
    "envs.rlscheduler_checkpoint": "training.rlscheduler.checkpoint",
    "envs.rlscheduler_select": "training.rlscheduler.select",
    # model/papers: general concepts to the concept they are ...
    "model.papers.fair_share": "model.analysis.fair_share",
    "model.papers.estimates": "model.analysis.estimates",
    "model.papers.site_state": "model.contracts.site",
    "model.papers.deeprm_jobs": "model.core.deeprm_jobs",
    "model.papers.rlscheduler_draw": "model.formats.window_draw",
    # ... and analysis stops importing formats: a platform and an interval set are core data
    "model.formats.platform": "model.core.platform",
    "model.formats.procset": "model.core.procset",
    # ... and the paper tables to the top floor
    "model.papers.collectives_tables": "papers.collectives_tables",
    "model.papers.responsive_tables": "papers.responsive_tables",
    "model.papers.ring_bounds": "papers.ring_bounds",
    "model.papers.site_measures": "papers.site_measures",
    "model.papers.site_workloads": "papers.site_workloads",
    "model.papers.rlscheduler_published": "papers.rlscheduler_published",
}

#: old folder -> new folder, for data moved with a room
FOLDER_MOVES = {"envs/trained": "envs/rlscheduler/trained"}

TEXT = {".py", ".md", ".toml", ".yml", ".yaml", ".txt", ".cfg", ".ini", ".css"}


def _room_modules() -> dict[str, set[str]]:
    """New packages made of an old module's name (``processes.machine``) -> their modules."""
    rooms: dict[str, set[str]] = {}
    for new in MOVES.values():
        package, _, module = new.rpartition(".")
        rooms.setdefault(package, set()).add(module)
    return rooms


def _dotted_pattern() -> re.Pattern[str]:
    names = sorted(MOVES, key=len, reverse=True)
    alternatives = "|".join(re.escape(n) for n in names)
    return re.compile(r"(?<![\w.])schedlab\.(" + alternatives + r")(?![\w])((?:\.\w+)?)")


def rewrite(text: str) -> str:
    rooms = _room_modules()
    pattern = _dotted_pattern()

    def dotted(match: re.Match[str]) -> str:
        old, tail = match.group(1), match.group(2)
        # ``schedlab.processes.machine.running`` is already the new layout: the room's module
        if old in rooms and tail[1:] in rooms[old]:
            return match.group(0)
        # ... and so is ``from schedlab.processes.machine import simpy_machine``
        after = re.match(r"\s+import\s+(\w+)", match.string[match.end() :])
        if old in rooms and not tail and after and after.group(1) in rooms[old]:
            return match.group(0)
        return "schedlab." + MOVES[old] + tail

    text = pattern.sub(dotted, text)
    for old, new in sorted(MOVES.items(), key=lambda kv: len(kv[0]), reverse=True):
        old_path, new_path = old.replace(".", "/") + ".py", new.replace(".", "/") + ".py"
        text = re.sub(r"(?<![\w/])((?:schedlab/)?)" + re.escape(old_path), r"\g<1>" + new_path, text)
    for old, new in FOLDER_MOVES.items():
        text = re.sub(r"(?<![\w/])((?:schedlab/)?)" + re.escape(old) + r"(?=[/\s`'\")]|$)", r"\g<1>" + new, text)
    return text


def move() -> None:
    made: set[Path] = set()
    for old, new in MOVES.items():
        src = ROOT / "schedlab" / (old.replace(".", "/") + ".py")
        if not src.exists():
            continue
        dst = ROOT / "schedlab" / (new.replace(".", "/") + ".py")
        dst.parent.mkdir(parents=True, exist_ok=True)
        subprocess.run(["git", "mv", str(src), str(dst)], check=True, cwd=ROOT)
        made.add(dst.parent)
    for old, new in FOLDER_MOVES.items():
        src, dst = ROOT / "schedlab" / old, ROOT / "schedlab" / new
        if src.exists():
            dst.parent.mkdir(parents=True, exist_ok=True)
            subprocess.run(["git", "mv", str(src), str(dst)], check=True, cwd=ROOT)
    for folder in made:
        package = folder
        while package != ROOT / "schedlab":
            init = package / "__init__.py"
            if not init.exists():
                init.write_text(f'"""{package.relative_to(ROOT / "schedlab")}: see docs/architecture.md."""\n')
            package = package.parent


def main(argv: list[str]) -> int:
    if "--move" in argv:
        move()
    files = subprocess.run(
        ["git", "ls-files", "--cached", "--others", "--exclude-standard"],
        check=True,
        cwd=ROOT,
        capture_output=True,
        text=True,
    ).stdout.split()
    changed = 0
    for name in files:
        path = ROOT / name
        if path.suffix not in TEXT or not path.is_file() or name == "tools/house_moves.py":
            continue
        old = path.read_text(encoding="utf-8")
        new = rewrite(old)
        if new != old:
            path.write_text(new, encoding="utf-8")
            changed += 1
    print(f"rewrote {changed} files")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
