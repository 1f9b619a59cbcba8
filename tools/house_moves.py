"""Issue 34's moves and names: each model kind in its own rooms, one word for one concept.

Run from the repository root: ``python tools/house_moves.py [--move]``. With ``--move`` it
``git mv``s every module in ``MOVES`` (and every file in ``FILE_MOVES``) that is still at
its old place and not yet at its new one; with or without it, it rewrites every old module
path left in the tree (dotted, ``schedlab/...py`` and ``pkg/...py`` forms) to the new one,
then every old name in ``NAMES`` (a whole word: ``load_trace`` but not ``load_traces``) to
the vocabulary's name (docs/architecture.md, "Vocabulary"). The rewrite is idempotent, so
it can run again on code written against the old layout and names (a branch merged
after the move): ``python tools/house_moves.py --move && python tools/house_moves.py``.

A line that must keep an old name (a deprecated alias, its test, the record of a rename)
says so with the marker ``old name kept`` (a comment: ``# old name kept``, or in Markdown
``<!-- old name kept -->``); the rewrite leaves such a line as it is, and a whole file whose
first line says it (a deprecated module kept at its old path).
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
    # fitting.py's mix-in went into Machine itself (fits, can_ever_fit, time_limit), at both of its places
    "processes.fitting": "processes.machine.machine",
    "processes.machine.fitting": "processes.machine.machine",
    "processes.job_body": "processes.machine.job_body",
    "processes.job_end": "processes.machine.job_end",
    "processes.job_snapshot": "processes.machine.job_snapshot",
    "processes.processor_ids": "processes.machine.cpu_ids",
    "processes.node_faults": "processes.machine.node_failures",
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
    # the vocabulary: a module that reads the input workload is named for a log
    "model.formats.traces": "model.formats.logs",
    "replay.trace_replay": "replay.log_replay",
    # the vocabulary: processors are cpus, and a node failure is a failure
    "model.contracts.processor_map": "model.contracts.cpu_map",
    "processes.machine.processor_ids": "processes.machine.cpu_ids",
    "plots.processor_gantt": "plots.cpu_gantt",
    "processes.machine.node_faults": "processes.machine.node_failures",
}

#: old folder -> new folder, for data moved with a room
FOLDER_MOVES = {"envs/trained": "envs/rlscheduler/trained"}

#: files outside ``schedlab/`` moved with a name (their text is rewritten by ``NAMES``)
FILE_MOVES = {
    "scenarios/trace_replay.py": "scenarios/log_replay.py",
    "tests/data/quick_runs/trace_replay.json": "tests/data/quick_runs/log_replay.json",
    "tests/test_processor_ids.py": "tests/test_cpu_ids.py",
}

#: old identifier -> the vocabulary's (docs/architecture.md): a whole word, in code and text.
#: Only names that mean one thing everywhere are here; a word with two meanings (``trace``,
#: ``procs``) is renamed by hand where it means the other one.
NAMES: dict[str, str] = {
    # log = the input workload (an SWF file, a Batsim workload, a window of either)
    "load_trace": "load_log",
    "trace_path": "log_path",
    "LoadedTrace": "LoadedLog",
    "SWFTrace": "SWFLog",
    "check_traces": "check_logs",
    "trace_name_problem": "log_name_problem",
    "traces_dir_problem": "logs_dir_problem",
    "TRACES_DIR": "LOGS_DIR",
    "traces_dir": "logs_dir",
    "traces-dir": "logs-dir",  # its command-line flag
    "trace_replay": "log_replay",
    "trace_scenario": "replay_scenario",
    "TraceWindows": "LogWindows",
    "trace_window": "log_window",
    "DEFAULT_TRACE": "DEFAULT_LOG",
    "needs_traces": "needs_logs",
    # responsive_grid's log-driven experiment's settings (fields.RENAMED_FIELDS reads the old ones)
    "trace_weeks": "log_weeks",
    "trace_week": "log_week",
    "trace_jobs": "log_jobs",
    "trace_cores": "log_cores",
    "trace_reading": "log_reading",
    "reps_trace": "reps_log",
    "trace_table": "log_table",
    # cpus = processors, in code: a loaded log's machine size (the names it is read through)
    "MAX_PROCESSORS": "MAX_CPUS",
    "loaded.procs": "loaded.cpus",
    "trace.procs": "trace.cpus",
    "log.procs": "log.cpus",
    # cpus: a machine's CPU ids (the free map, the part that gives ids, their Gantt chart)
    "ProcessorMap": "CpuMap",
    "ProcessorIds": "CpuIds",
    "processor_map": "cpu_map",
    "processor_ids": "cpu_ids",
    "test_processor_ids": "test_cpu_ids",
    "processor_gantt": "cpu_gantt",
    "processor_states": "cpu_states",
    # ... and the machine's free map, the attribute ``processors`` (a whole word too in prose: named by its owner)
    "ids.processors": "ids.cpu_map",
    "self.processors": "self.cpu_map",
    "machine.processors": "machine.cpu_map",
    "def processors": "def cpu_map",
    # failure = a node failure: the machine's part that fails and repairs nodes
    "NodeFaults": "NodeFailures",
    "node_faults": "node_failures",
    "FaultsPart": "FailuresPart",
    "faults": "failures",
    # policy = what decides: the grid's policy (every broker's rule), a trained per-agent policy run as one
    "GridDecider": "GridPolicy",
    "PolicyDecider": "GridAgentPolicy",
    "EnvDecider": "EnvGridPolicy",
    "as_decider": "as_grid_policy",
    "make_decider": "make_policy",
}

#: a line bearing this is left as it is (it names an old name on purpose)
KEEP = "old name kept"

TEXT = {".py", ".md", ".toml", ".yml", ".yaml", ".txt", ".cfg", ".ini", ".css", ".ipynb"}


def _room_modules() -> dict[str, set[str]]:
    """New packages made of an old module's name (``processes.machine``) -> their modules.

    Those moved there and those in the tree now: a module added to a room after the move
    (``processes.machine.with_ids``) is the new layout too, not the old ``processes.machine``
    and a name in it, to be moved again.
    """
    rooms: dict[str, set[str]] = {}
    for new in MOVES.values():
        package, _, module = new.rpartition(".")
        rooms.setdefault(package, set()).add(module)
    for package, modules in rooms.items():
        folder = ROOT / "schedlab" / package.replace(".", "/")
        modules.update(p.stem for p in folder.glob("*.py"))
        modules.update(p.parent.name for p in folder.glob("*/__init__.py"))
    return rooms


def _dotted_pattern() -> re.Pattern[str]:
    names = sorted(MOVES, key=len, reverse=True)
    alternatives = "|".join(re.escape(n) for n in names)
    return re.compile(r"(?<![\w.])schedlab\.(" + alternatives + r")(?![\w])((?:\.\w+)?)")


def _names_pattern() -> re.Pattern[str]:
    names = sorted(NAMES, key=len, reverse=True)
    return re.compile(r"(?<![\w])(" + "|".join(re.escape(n) for n in names) + r")(?![\w])")


def rewrite(text: str) -> str:
    """``text`` with every old module path and old name replaced, lines marked ``KEEP`` left as they are."""
    if KEEP in text.partition("\n")[0]:
        return text
    new = _rewrite_names(_rewrite_paths(text))
    if KEEP not in text:
        return new
    old_lines, new_lines = text.splitlines(keepends=True), new.splitlines(keepends=True)
    assert len(old_lines) == len(new_lines), "a rewrite never adds or removes a line"
    return "".join(o if KEEP in o else n for o, n in zip(old_lines, new_lines, strict=True))


def _rewrite_names(text: str) -> str:
    return _names_pattern().sub(lambda m: NAMES[m.group(1)], text)


def _rewrite_paths(text: str) -> str:
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
        dst = ROOT / "schedlab" / (new.replace(".", "/") + ".py")
        if not src.exists() or dst.exists():  # moved already (the old path may be a deprecated stub)
            continue
        dst.parent.mkdir(parents=True, exist_ok=True)
        subprocess.run(["git", "mv", str(src), str(dst)], check=True, cwd=ROOT)
        made.add(dst.parent)
    for old, new in FOLDER_MOVES.items():
        src, dst = ROOT / "schedlab" / old, ROOT / "schedlab" / new
        if src.exists() and not dst.exists():
            dst.parent.mkdir(parents=True, exist_ok=True)
            subprocess.run(["git", "mv", str(src), str(dst)], check=True, cwd=ROOT)
    for old, new in FILE_MOVES.items():
        if (ROOT / old).exists() and not (ROOT / new).exists():
            subprocess.run(["git", "mv", old, new], check=True, cwd=ROOT)
    for folder in made:
        package = folder
        while package != ROOT / "schedlab":
            init = package / "__init__.py"
            if not init.exists():
                init.write_text(f'"""{package.relative_to(ROOT / "schedlab")}: see docs/architecture.md."""\n')
            package = package.parent


def tree_files(suffixes: set[str] = TEXT) -> list[Path]:
    """The repository's text files (tracked, or new and not ignored) with one of ``suffixes``; this tool left out."""
    names = subprocess.run(
        ["git", "ls-files", "--cached", "--others", "--exclude-standard"],
        check=True,
        cwd=ROOT,
        capture_output=True,
        text=True,
    ).stdout.split()
    paths = (ROOT / name for name in names if name != "tools/house_moves.py")
    return [p for p in paths if p.suffix in suffixes and p.is_file()]


def tree_texts(rev: str | None = None, suffixes: set[str] = TEXT) -> dict[str, str]:
    """Path -> text of the repository's text files: the work tree's, or those at git revision ``rev``."""
    if rev is None:
        return {str(p.relative_to(ROOT)): p.read_text(encoding="utf-8") for p in tree_files(suffixes)}
    names = subprocess.run(
        ["git", "ls-tree", "-r", "--name-only", rev], check=True, cwd=ROOT, capture_output=True, text=True
    ).stdout.split()
    return {
        name: subprocess.run(
            ["git", "show", f"{rev}:{name}"], check=True, cwd=ROOT, capture_output=True
        ).stdout.decode()
        for name in names
        if Path(name).suffix in suffixes and name != "tools/house_moves.py"
    }


def main(argv: list[str]) -> int:
    if "--move" in argv:
        move()
    changed = 0
    for path in tree_files():
        old = path.read_text(encoding="utf-8")
        new = rewrite(old)
        if new != old:
            path.write_text(new, encoding="utf-8")
            changed += 1
    print(f"rewrote {changed} files")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
