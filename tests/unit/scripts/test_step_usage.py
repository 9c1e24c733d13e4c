"""scripts/step-usage.py: make test's table of wall time and CPU-seconds per step, and its budget warning."""

import importlib.util
import json
import os
import sys

SCRIPT = os.path.join(os.path.dirname(__file__), "..", "..", "..", "scripts", "step-usage.py")


def _load():
    spec = importlib.util.spec_from_file_location("step_usage", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


step_usage = _load()


def test_machine_busy_seconds_counts_all_but_idle_and_iowait():
    ticks = os.sysconf("SC_CLK_TCK")
    # user nice system idle iowait irq softirq steal
    line = "cpu  %d %d %d %d %d %d %d %d 0 0" % (ticks * 10, ticks, ticks * 2, ticks * 500, ticks * 7, 0, ticks, 0)
    assert step_usage.machine_busy_seconds(line) == 14


def _row(step, within="", wall=60, own=10, containers=0.0, status=0, started=0):
    return {"step": step, "within": within, "status": status, "started": started, "wall_seconds": wall,
            "process_cpu_seconds": own, "container_cpu_seconds": containers, "containers": 0,
            "machine_cpu_seconds": own}


def test_table_puts_scenarios_under_their_step_and_sums_their_containers():
    steps = [_row("molecule", wall=1800, own=900, started=2),
             _row("kraft", within="molecule", wall=600, own=300, containers=700, started=3),
             _row("secure", within="molecule", wall=300, own=200, containers=100.5, started=4)]
    lines = step_usage.table_lines({"begin": 0, "machine_busy_seconds": 0}, steps, now=1900, busy_now=3000)
    assert lines[2] == "| molecule | 30.0 | 900 | 800 | 1700 | ok |"
    assert lines[3] == "| &nbsp;&nbsp;kraft | 10.0 | 300 | 700 | 1000 | ok |"
    assert lines[-1] == "| whole run (machine, /proc/stat) | 31.7 | | | 3000 | |"


def test_budget_warning_only_past_the_budget():
    steps = [_row("lint", wall=120)]
    within = step_usage.table_lines({"begin": 0, "machine_busy_seconds": 0}, steps, 39 * 60, 10, budget_minutes=40)
    over = step_usage.table_lines({"begin": 0, "machine_busy_seconds": 0}, steps, 41 * 60, 10, budget_minutes=40)
    assert not any("WARNING" in line for line in within)
    assert "WARNING: make test took 41.0 minutes, over its budget of 40" in over[-1]


def test_a_failed_step_shows_its_exit_status():
    lines = step_usage.table_lines(None, [_row("unit", status=2)], 100, 0)
    assert lines[-1].endswith("| exit 2 |")


def test_run_records_a_step_and_its_exit_status(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert step_usage.main(["begin"]) == 0
    burn = "sum(range(20000000)); raise SystemExit(3)"
    assert step_usage.main(["run", "burn", "--", sys.executable, "-c", burn]) == 3
    start, steps = step_usage.read_ledger()
    assert start["begin"] > 0
    [row] = steps
    assert row["step"] == "burn" and row["status"] == 3
    # The child's CPU is charged to the step (its control group, or the children's times without one).
    assert row["process_cpu_seconds"] > 0
    assert json.loads((tmp_path / ".cache" / "logs" / "step-usage.jsonl").read_text().splitlines()[1])["step"] == "burn"


def test_the_action_log_follows_molecule_as_its_log_grows_and_starts_again(tmp_path):
    log = tmp_path / "molecule-x.log"
    actions = step_usage.ActionLog(str(log))
    assert actions.read() == "start"
    log.write_text("INFO     \x1b[32mx\x1b[0m \u279c \x1b[33mcreate\x1b[0m: Executing\nTASK [a]\n")
    assert actions.read() == "create"
    with log.open("a") as more:
        more.write("INFO     x \u279c create: Executed: Successful\nINFO     x \u279c converge: Executing\n")
    assert actions.read() == "converge"
    log.write_text("INFO     x \u279c destroy: Executing\n")
    assert actions.read() == "destroy"


def test_the_table_splits_a_scenario_by_molecule_action():
    row = dict(_row("kraft", within="molecule"), actions={
        "converge": {"wall_seconds": 90, "cpu_seconds": 120.4}, "verify": {"wall_seconds": 30, "cpu_seconds": 50}})
    lines = step_usage.table_lines(None, [row], 0, 0)
    header = lines.index("| scenario: wall min / CPU-s per Molecule action | dependency | create | converge | "
                         "idempotence | side_effect | verify | destroy |")
    assert lines[header + 2] == "| kraft |  |  | 1.5 / 120 |  |  | 0.5 / 50 |  |"


def test_container_cpu_names_a_container_no_control_group_accounts(capsys):
    assert step_usage.main(["container-cpu", "0" * 64]) == 1
    assert "no control group accounts the CPU of container " + "0" * 64 in capsys.readouterr().err
