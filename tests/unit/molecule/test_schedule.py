"""The seeded fault schedule (molecule/shared/faults/schedule.py): the plan a seed gives, the options it refuses,
and a run against fake nemeses on a fake clock (no container is touched)."""

import io
import json

import pytest

from ansible_collections.kafkaops.cluster.molecule.shared.faults import schedule
from ansible_collections.kafkaops.cluster.molecule.shared.faults.nemesis import NemesisError

NODES = ["kafkaops-1", "kafkaops-2", "kafkaops-3"]
UNITS = {"kafkaops-1": ["kafka-broker-1", "zookeeper"], "kafkaops-2": ["kafka-broker-2"]}


def test_the_same_seed_gives_the_same_schedule_and_another_seed_another():
    first = schedule.plan(7, 30, 10, 12, NODES, ["partition", "pause", "slow-link"], UNITS)
    assert first == schedule.plan(7, 30, 10, 12, NODES, ["partition", "pause", "slow-link"], UNITS)
    assert first != schedule.plan(8, 30, 10, 12, NODES, ["partition", "pause", "slow-link"], UNITS)
    assert [event["at"] for event in first] == list(range(0, 600, 30))
    assert {event["fault"] for event in first} == {"partition", "pause", "slow-link"}
    # A pause stops one of its node's units; nodes without units are never paused.
    for event in first:
        if event["fault"] == "pause":
            assert event["unit"] in UNITS[event["node"]]
        else:
            assert event["unit"] is None and event["node"] in NODES


@pytest.mark.parametrize("every, minutes, hold, nodes, faults, units, option", [
    (30, 5, 30, NODES, ["pause"], UNITS, "--hold"),
    (30, 5, 0, NODES, ["pause"], UNITS, "--hold"),
    (0, 5, 1, NODES, ["pause"], UNITS, "--every/--minutes"),
    (30, 5, 12, [], ["pause"], UNITS, "--nodes"),
    (30, 5, 12, NODES, ["flood"], UNITS, "--faults"),
    (30, 5, 12, NODES[:1], ["partition"], UNITS, "--nodes"),
    (30, 5, 12, NODES, ["pause"], {}, "--units"),
])
def test_options_the_schedule_cannot_run_with_are_refused_naming_them(every, minutes, hold, nodes, faults, units,
                                                                      option):
    with pytest.raises(schedule.ScheduleError) as refused:
        schedule.plan(1, every, minutes, hold, nodes, faults, units)
    assert refused.value.option == option


class FakeNemesis:
    """Applies and heals in memory; a 'broken' node refuses to apply."""

    def __init__(self, event, log):
        self.event, self.log, self.on = event, log, False

    def apply(self):
        if self.event["node"] == "broken":
            raise NemesisError("broken: iptables: not found")
        self.on = True
        self.log.append(("apply", self.event["fault"], self.event["node"]))

    def heal(self):
        self.on = False
        self.log.append(("heal", self.event["fault"], self.event["node"]))

    def proof(self):
        return {"in_place": self.on, "dropped_packets": 12, "state": "T"}


def test_a_run_applies_holds_proves_and_heals_each_fault_at_its_time_and_reports_a_failure():
    events = [{"at": 0, "fault": "partition", "node": "kafkaops-1", "unit": None},
              {"at": 30, "fault": "pause", "node": "kafkaops-2", "unit": "kafka-broker-2"},
              {"at": 60, "fault": "slow-link", "node": "broken", "unit": None}]
    now, log = [100.0], []

    def sleep(seconds):
        log.append(("sleep", round(seconds, 1)))
        now[0] += seconds

    out = io.StringIO()
    done = schedule.run(events, NODES, 12, out, clock=lambda: now[0], sleep=sleep,
                        build=lambda event, nodes: FakeNemesis(event, log))
    # Each fault starts at its time, is held 12 s, then healed; never two at once.
    assert log[:8] == [("sleep", 0.0), ("apply", "partition", "kafkaops-1"), ("sleep", 12),
                       ("heal", "partition", "kafkaops-1"), ("sleep", 18.0), ("apply", "pause", "kafkaops-2"),
                       ("sleep", 12), ("heal", "pause", "kafkaops-2")]
    assert [(item["in_place"], item["healed"], item["error"]) for item in done] == [
        (True, True, None), (True, True, None), (False, True, "broken: iptables: not found")]
    assert done[0]["shown"] == "12 packets dropped" and done[1]["shown"] == "state T"
    text = schedule.table(done, 42)
    assert text.startswith("Faults (seed 42): 3 applied, 2 shown in place, 3 healed")
    assert "| 60 | slow-link | broken |  | NO | broken: iptables: not found | yes |" in text


def test_the_command_line_refuses_bad_options_with_exit_2(capsys):
    assert schedule.main(["--nodes", "kafkaops-1", "--faults", "partition"]) == 2
    assert "--nodes: a partition needs a second node" in capsys.readouterr().err
    with pytest.raises(schedule.ScheduleError, match="--units: expected node=unit"):
        schedule.parse_units("kafkaops-1")
    assert schedule.parse_units("a=x+y,b=z") == {"a": ["x", "y"], "b": ["z"]}
    assert json.dumps(schedule.FAULTS)


DISKS = {"kafkaops-2": ("/var/lib/kafka/faults-disk", "kafka-broker-2")}


def test_each_round_tries_every_fault_once_in_a_seeded_order():
    faults = ["partition", "pause", "slow-link", "full-disk"]
    events = schedule.plan(5, 20, 4, 8, NODES, faults, UNITS, DISKS, each=True)
    assert len(events) == 12
    rounds = [[event["fault"] for event in events[start:start + 4]] for start in (0, 4, 8)]
    assert all(sorted(kinds) == sorted(faults) for kinds in rounds)
    assert events == schedule.plan(5, 20, 4, 8, NODES, faults, UNITS, DISKS, each=True)
    # The seed shuffles each round.
    assert any(kinds != sorted(faults) for kinds in rounds)
    # A full disk falls on a node with a prepared log dir, and names its path and the broker to restart.
    for event in events:
        if event["fault"] == "full-disk":
            assert (event["node"], event["path"], event["unit"]) == (
                "kafkaops-2", "/var/lib/kafka/faults-disk", "kafka-broker-2")


def test_a_full_disk_needs_a_prepared_log_dir_and_the_disks_option_is_checked():
    with pytest.raises(schedule.ScheduleError) as refused:
        schedule.plan(1, 30, 5, 12, NODES, ["full-disk"], UNITS)
    assert refused.value.option == "--disks"
    assert schedule.parse_disks("a=/d:kafka-broker-1,b=/e:kafka-broker-2") == {
        "a": ("/d", "kafka-broker-1"), "b": ("/e", "kafka-broker-2")}
    for bad in ("a=/d", "a=d:kafka-broker-1", "a=/d:", "/d:unit"):
        with pytest.raises(schedule.ScheduleError, match="--disks: expected node=/path:broker-unit"):
            schedule.parse_disks(bad)


class Recorder:
    """A runner that records the commands and answers df and stat as a filled-then-emptied filesystem would."""

    def __init__(self):
        self.commands = []

    def run(self, argv):
        self.commands.append(list(argv))
        if argv[0] == "df":
            return 0, ("Filesystem Type 1B-blocks Used Avail Mounted on\n"
                       "kafkaops-nemesis tmpfs 67108864 67108864 0 /var/lib/kafka/faults-disk\n"), ""
        if argv[0] == "stat":
            return 1, "", "No such file or directory"
        return 0, "", ""


def test_a_full_log_dir_heals_by_deleting_the_filler_then_restarting_the_broker():
    runner = Recorder()
    event = {"at": 0, "fault": "full-disk", "node": "kafkaops-2", "unit": "kafka-broker-2",
             "path": "/var/lib/kafka/faults-disk"}
    nemesis = schedule.nemesis_of(event, NODES)
    assert isinstance(nemesis, schedule.FullLogDir)
    nemesis.runner = runner
    nemesis.heal()
    assert [command[-2:] for command in runner.commands if command[0] in ("rm", "systemctl")] == [
        ["-f", "/var/lib/kafka/faults-disk/kafkaops-nemesis-filler"], ["restart", "kafka-broker-2"]]
    assert schedule.shown("full-disk", nemesis.proof()) == "0 bytes free of 67108864"
    with pytest.raises(NemesisError):
        schedule.FullLogDir("kafkaops-2", "/var/lib/kafka/faults-disk", "bad unit; rm -rf /")
