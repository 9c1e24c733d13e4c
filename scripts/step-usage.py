"""Wall time and CPU-seconds of make test's steps, and a table of them at the end.

The machine is shared by two lanes of scenarios and by the containers they start, so wall time alone
says little about what a step costs. Each step runs in a control group of its own, which charges the
CPU of every process it starts (daemonised ones included) to it; the containers a scenario starts are
charged through their own control groups, read while the scenario runs (the last reading before a
container is removed counts; they idle by then). The whole run's CPU-seconds come from /proc/stat, so
what no step owns (the Docker engine serving `docker exec`, for one) is in the total too.

Usage:
  python3 scripts/step-usage.py begin
  python3 scripts/step-usage.py run STEP [--within PARENT] [--network NETWORK] [--log LOG] -- COMMAND...
  python3 scripts/step-usage.py table [--budget-minutes N] [--markdown FILE]
  python3 scripts/step-usage.py container-cpu CONTAINER_ID     (its CPU-seconds so far, for bench/)

The ledger is .cache/logs/step-usage.jsonl; `begin` starts a new one.
"""

import argparse
import glob
import json
import os
import re
import subprocess
import sys
import time

LEDGER = os.path.join(".cache", "logs", "step-usage.jsonl")
CGROUP_ROOTS = ("/sys/fs/cgroup/cpuacct", "/sys/fs/cgroup/unified", "/sys/fs/cgroup")
SAMPLE_SECONDS = 5
# Where a step's command finds its step's control group.
OUTER_CGROUP = "KAFKAOPS_STEP_CGROUP"
# /proc/stat's first line: user nice system idle iowait irq softirq steal; all but idle and iowait are busy.
BUSY_FIELDS = (0, 1, 2, 5, 6, 7)


def machine_busy_seconds(stat_text=None):
    """CPU-seconds the whole machine has been busy since boot (every process, containers included)."""
    if stat_text is None:
        with open("/proc/stat", encoding="ascii") as stat:
            stat_text = stat.readline()
    fields = [int(value) for value in stat_text.split()[1:]]
    return sum(fields[index] for index in BUSY_FIELDS if index < len(fields)) / os.sysconf("SC_CLK_TCK")


def cgroup_usage_seconds(folder):
    """CPU-seconds charged to a control group and its descendants (cgroup v1 cpuacct or v2), or None."""
    usage = os.path.join(folder, "cpuacct.usage")
    if os.path.exists(usage):
        with open(usage, encoding="ascii") as handle:
            return int(handle.read()) / 1e9
    stat = os.path.join(folder, "cpu.stat")
    if os.path.exists(stat):
        with open(stat, encoding="ascii") as handle:
            for line in handle:
                key, unused, value = line.partition(" ")
                if key == "usage_usec":
                    return int(value) / 1e6
    return None


def step_cgroup(step):
    """A fresh control group for a step, in the first hierarchy that accounts CPU and lets us write; or None.

    A step run by another step's command gets its group inside that step's, so the outer step's figure
    includes it."""
    outer = os.environ.get(OUTER_CGROUP, "")
    roots = ([outer] if os.path.isdir(outer) else []) + list(CGROUP_ROOTS)
    for root in roots:
        if not any(os.path.exists(os.path.join(root, name)) for name in ("cpuacct.usage", "cgroup.procs")):
            continue
        name = "%s-%d" % (step, os.getpid())
        folder = os.path.join(root, name) if root == outer else os.path.join(root, "kafkaops-steps", name)
        try:
            os.makedirs(folder, exist_ok=True)
        except OSError:
            continue
        if cgroup_usage_seconds(folder) is not None:
            return folder
    return None


def container_cgroup(container_id):
    for pattern in ("docker/%s", "system.slice/docker-%s.scope"):
        for root in CGROUP_ROOTS:
            folder = os.path.join(root, pattern % container_id)
            if os.path.isdir(folder):
                return folder
    matches = glob.glob("/sys/fs/cgroup/cpuacct/**/%s" % container_id, recursive=True)
    return matches[0] if matches else None


def containers_on(network):
    try:
        listing = subprocess.run(["docker", "ps", "-q", "--no-trunc", "--filter", "network=" + network],
                                 capture_output=True, text=True, timeout=30, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return []
    return listing.stdout.split()


ACTION = re.compile(r"\u279c (\w+): Executing")
# Molecule colours the scenario and action names.
ESCAPES = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")


class ActionLog:
    """Which Molecule action (create, converge, verify, ...) a scenario's log says is running, read as it grows."""

    def __init__(self, path):
        self.path = path
        self.offset = 0
        self.current = "start"

    def read(self):
        if not self.path or not os.path.exists(self.path):
            return self.current
        if os.path.getsize(self.path) < self.offset:
            # Started again (tee truncates the log): read from the top.
            self.offset = 0
        with open(self.path, encoding="utf-8", errors="replace") as log:
            log.seek(self.offset)
            text = log.read()
            self.offset = log.tell()
        found = ACTION.findall(ESCAPES.sub("", text))
        if found:
            self.current = found[-1]
        return self.current


def run(step, within, network, command, log_path=""):
    folder = step_cgroup(step)
    actions = ActionLog(log_path)
    # CPU-seconds and wall seconds per Molecule action, each sample's growth charged to the action running
    # at its start.
    phases, last = {}, None

    def enter_cgroup():
        if folder:
            with open(os.path.join(folder, "cgroup.procs"), "w", encoding="ascii") as procs:
                procs.write(str(os.getpid()))

    started, busy_before = time.time(), machine_busy_seconds()
    children_before = os.times()
    environment = dict(os.environ, **({OUTER_CGROUP: folder} if folder else {}))
    process = subprocess.Popen(command, preexec_fn=enter_cgroup, env=environment)  # pylint: disable=subprocess-popen-preexec-fn
    container_seconds = {}
    while process.poll() is None:
        if network:
            for container_id in containers_on(network):
                container_folder = container_cgroup(container_id)
                seconds = cgroup_usage_seconds(container_folder) if container_folder else None
                if seconds is not None:
                    container_seconds[container_id] = max(seconds, container_seconds.get(container_id, 0.0))
        if folder and log_path:
            sample = (time.time(), (cgroup_usage_seconds(folder) or 0.0) + sum(container_seconds.values()))
            if last is not None:
                phase = phases.setdefault(last[2], [0.0, 0.0])
                phase[0] += sample[0] - last[0]
                phase[1] += sample[1] - last[1]
            last = sample + (actions.read(),)
        try:
            process.wait(timeout=SAMPLE_SECONDS)
        except subprocess.TimeoutExpired:
            pass
    if folder:
        own_seconds = cgroup_usage_seconds(folder)
        # A task that just exited can keep the group busy for a moment.
        deadline = time.monotonic() + 2
        while True:
            try:
                os.rmdir(folder)
                break
            except OSError:
                if time.monotonic() > deadline:
                    break
                time.sleep(0.1)
    else:
        # Without a control group, the children this process waited for (daemons it did not wait for are missed).
        children_after = os.times()
        own_seconds = (children_after.children_user - children_before.children_user
                       + children_after.children_system - children_before.children_system)
    row = {"step": step, "within": within, "status": process.returncode, "started": round(started, 1),
           "wall_seconds": round(time.time() - started, 1),
           "process_cpu_seconds": round(own_seconds, 1),
           "container_cpu_seconds": round(sum(container_seconds.values()), 1),
           "containers": len(container_seconds),
           "machine_cpu_seconds": round(machine_busy_seconds() - busy_before, 1),
           "actions": dict((name, {"wall_seconds": round(wall, 1), "cpu_seconds": round(cpu, 1)})
                           for name, (wall, cpu) in phases.items())}
    os.makedirs(os.path.dirname(LEDGER), exist_ok=True)
    with open(LEDGER, "a", encoding="utf-8") as ledger:
        ledger.write(json.dumps(row) + "\n")
    return process.returncode


def begin():
    os.makedirs(os.path.dirname(LEDGER), exist_ok=True)
    with open(LEDGER, "w", encoding="utf-8") as ledger:
        ledger.write(json.dumps({"begin": time.time(), "machine_busy_seconds": machine_busy_seconds()}) + "\n")


def read_ledger(path=LEDGER):
    with open(path, encoding="utf-8") as ledger:
        rows = [json.loads(line) for line in ledger if line.strip()]
    start = next((row for row in rows if "begin" in row), None)
    return start, sorted((row for row in rows if "step" in row), key=lambda row: row.get("started", 0))


def table_lines(start, steps, now, busy_now, budget_minutes=None):
    """The table as Markdown lines: each step (scenarios under the step that ran them), then the whole run."""
    lines = ["| step | wall (min) | CPU-s, its processes | CPU-s, its containers | CPU-s, both | status |",
             "|---|---|---|---|---|---|"]
    for row in steps:
        inner = [other for other in steps if other.get("within") == row["step"]]
        if inner and not row["container_cpu_seconds"]:
            row = dict(row, container_cpu_seconds=sum(other["container_cpu_seconds"] for other in inner))
        name = row["step"] if not row.get("within") else "&nbsp;&nbsp;" + row["step"]
        both = row["process_cpu_seconds"] + row["container_cpu_seconds"]
        lines.append("| %s | %.1f | %.0f | %.0f | %.0f | %s |" % (
            name, row["wall_seconds"] / 60, row["process_cpu_seconds"], row["container_cpu_seconds"], both,
            "ok" if row["status"] == 0 else "exit %s" % row["status"]))
    scenarios = [row for row in steps if row.get("actions")]
    if scenarios:
        names = ["dependency", "create", "converge", "idempotence", "side_effect", "verify", "destroy"]
        lines += ["", "| scenario: wall min / CPU-s per Molecule action | " + " | ".join(names) + " |",
                  "|---|" + "---|" * len(names)]
        for row in scenarios:
            cells = []
            for name in names:
                action = row["actions"].get(name)
                cells.append("%.1f / %.0f" % (action["wall_seconds"] / 60, action["cpu_seconds"]) if action else "")
            lines.append("| %s | %s |" % (row["step"], " | ".join(cells)))
        lines.append("")
    if start:
        total_minutes = (now - start["begin"]) / 60
        lines.append("| whole run (machine, /proc/stat) | %.1f | | | %.0f | |" % (
            total_minutes, busy_now - start["machine_busy_seconds"]))
        if budget_minutes and total_minutes > budget_minutes:
            lines.append("")
            lines.append("WARNING: make test took %.1f minutes, over its budget of %d: find what the last change "
                         "cost (the table above) before adding more." % (total_minutes, budget_minutes))
    return lines


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser("begin")
    run_parser = commands.add_parser("run")
    run_parser.add_argument("step")
    run_parser.add_argument("--within", default="")
    run_parser.add_argument("--network", default="")
    run_parser.add_argument("--log", default="", help="the scenario's Molecule log, to split its figures by action")
    table_parser = commands.add_parser("table")
    table_parser.add_argument("--budget-minutes", type=int, default=0)
    table_parser.add_argument("--markdown", default="")
    container_parser = commands.add_parser("container-cpu")
    container_parser.add_argument("container_id")
    argv = sys.argv[1:] if argv is None else list(argv)
    command = argv[argv.index("--") + 1:] if "--" in argv else []
    arguments = parser.parse_args(argv[:argv.index("--")] if "--" in argv else argv)
    if arguments.command == "begin":
        begin()
        return 0
    if arguments.command == "run":
        if not command:
            parser.error("run: give the command after --")
        return run(arguments.step, arguments.within, arguments.network, command, arguments.log)
    if arguments.command == "container-cpu":
        folder = container_cgroup(arguments.container_id)
        seconds = cgroup_usage_seconds(folder) if folder else None
        if seconds is None:
            print("no control group accounts the CPU of container %s" % arguments.container_id, file=sys.stderr)
            return 1
        print("%.6f" % seconds)
        return 0
    start, steps = read_ledger()
    lines = table_lines(start, steps, time.time(), machine_busy_seconds(), arguments.budget_minutes)
    print("\n".join(lines))
    if arguments.markdown:
        with open(arguments.markdown, "w", encoding="utf-8") as markdown:
            markdown.write("\n".join(lines) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
