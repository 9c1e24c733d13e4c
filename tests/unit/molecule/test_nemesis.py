"""The nemeses (molecule/shared/faults/nemesis.py): the exact commands each fault runs on a node, and the
proofs parsed from outputs as the project's containers print them (Debian bookworm: iptables 1.8.9 with
the nf_tables backend, iproute2's tc, coreutils' df, Docker's inspect). No container is touched: a fake
node records the commands and answers with those outputs.
"""

import io
import json
import os
import subprocess
import sys

import pytest

from ansible_collections.kafkaops.cluster.molecule.shared.faults import nemesis

SCRIPT = os.path.join(os.path.dirname(__file__), "..", "..", "..", "molecule", "shared", "faults", "nemesis.py")

# getent ahostsv4 kafkaops-res1: one line per socket type.
GETENT_RES1 = "172.23.0.2      STREAM kafkaops-res1\n172.23.0.2      DGRAM  \n172.23.0.2      RAW    \n"
GETENT_RES3 = "172.23.0.4      STREAM kafkaops-res3\n172.23.0.4      DGRAM  \n172.23.0.4      RAW    \n"

# iptables -w -S on a fresh container, and with a partition and a rule of someone else's in place.
RULES_FRESH = "-P INPUT ACCEPT\n-P FORWARD ACCEPT\n-P OUTPUT ACCEPT\n"
RULES_PARTITIONED = """-P INPUT ACCEPT
-P FORWARD ACCEPT
-P OUTPUT ACCEPT
-N KAFKAOPS-PARTITION
-A INPUT -j KAFKAOPS-PARTITION
-A INPUT -p tcp -m tcp --dport 22 -j ACCEPT
-A OUTPUT -j KAFKAOPS-PARTITION
-A KAFKAOPS-PARTITION -s 172.23.0.2/32 -j DROP
-A KAFKAOPS-PARTITION -d 172.23.0.2/32 -j DROP
"""
RULES_SLOW = """-P INPUT ACCEPT
-P FORWARD ACCEPT
-P OUTPUT ACCEPT
-N KAFKAOPS-SLOWLINK
-A INPUT -i eth0 -j KAFKAOPS-SLOWLINK
-A OUTPUT -o eth0 -j KAFKAOPS-SLOWLINK
-A KAFKAOPS-SLOWLINK -m statistic --mode random --probability 0.05000000000 -j DROP
"""

# iptables -w -L -v -n -x with kafkaops-res2 cut off from res1 and res3 (1.8.9 prints protocol 0 for all).
LISTING_PARTITIONED = """Chain INPUT (policy ACCEPT 5130 packets, 1234567 bytes)
    pkts      bytes target     prot opt in     out     source               destination
    1893   221411 KAFKAOPS-PARTITION  0    --  *      *       0.0.0.0/0            0.0.0.0/0

Chain FORWARD (policy ACCEPT 0 packets, 0 bytes)
    pkts      bytes target     prot opt in     out     source               destination

Chain OUTPUT (policy ACCEPT 4891 packets, 998877 bytes)
    pkts      bytes target     prot opt in     out     source               destination
    1750   190322 KAFKAOPS-PARTITION  0    --  *      *       0.0.0.0/0            0.0.0.0/0

Chain KAFKAOPS-PARTITION (2 references)
    pkts      bytes target     prot opt in     out     source               destination
      41     2460 DROP       0    --  *      *       172.23.0.2           0.0.0.0/0
      38     2280 DROP       0    --  *      *       0.0.0.0/0            172.23.0.2
      12      720 DROP       0    --  *      *       172.23.0.4           0.0.0.0/0
      15      900 DROP       0    --  *      *       0.0.0.0/0            172.23.0.4
"""
LISTING_FRESH = """Chain INPUT (policy ACCEPT 120 packets, 9000 bytes)
    pkts      bytes target     prot opt in     out     source               destination

Chain FORWARD (policy ACCEPT 0 packets, 0 bytes)
    pkts      bytes target     prot opt in     out     source               destination

Chain OUTPUT (policy ACCEPT 118 packets, 8800 bytes)
    pkts      bytes target     prot opt in     out     source               destination
"""
# Column widths as iptables prints them, which puts the statistic match past the line length of this file.
RANDOM_DROP_RULE = ("     187   170544 DROP       0    --  *      *       0.0.0.0/0            0.0.0.0/0           "
                    " statistic mode random probability 0.05000000000")
LISTING_SLOW = """Chain INPUT (policy ACCEPT 91234 packets, 80123456 bytes)
    pkts      bytes target     prot opt in     out     source               destination
    3702  5012230 KAFKAOPS-SLOWLINK  0    --  eth0   *       0.0.0.0/0            0.0.0.0/0

Chain FORWARD (policy ACCEPT 0 packets, 0 bytes)
    pkts      bytes target     prot opt in     out     source               destination

Chain OUTPUT (policy ACCEPT 88120 packets, 70456123 bytes)
    pkts      bytes target     prot opt in     out     source               destination
    3411  1902233 KAFKAOPS-SLOWLINK  0    --  *      eth0    0.0.0.0/0            0.0.0.0/0

Chain KAFKAOPS-SLOWLINK (2 references)
    pkts      bytes target     prot opt in     out     source               destination
%s
""" % RANDOM_DROP_RULE
# The same kind of listing from an iptables that prints "all" (legacy backend, other versions).
LISTING_LEGACY = """Chain KAFKAOPS-PARTITION (2 references)
    pkts      bytes target     prot opt in     out     source               destination
       7      420 DROP       all  --  *      *       172.23.0.2           0.0.0.0/0
"""

# /proc/PID/stat of a paused JVM, and of a process whose name holds spaces and parentheses.
STAT_PAUSED = ("4127 (java) T 1 4127 4127 0 -1 4194560 81234 0 12 0 9123 2210 0 0 20 0 61 0 351234 2874372096 98213 "
               "18446744073709551615 1 1 0 0 0 0 0 2 16800973 0 0 0 17 1 0 0 0 0 0\n")
STAT_ODD_NAME = "77 (a) b (c) S 1 77 77 0 -1 4194560 10 0 0 0 1 0 0 0 20 0 1 0 100 1000 10\n"

# df -B1 --output=source,fstype,size,used,avail,target: the 64 MB filesystem, empty, then filled; the
# container's own disk (overlay) where nothing was mounted.
DF_MOUNTED = """Filesystem       Type     1B-blocks    Used    Avail Mounted on
kafkaops-nemesis tmpfs     67108864 1052672 66056192 /var/lib/kafka/small-2
"""
DF_FILLED = """Filesystem       Type     1B-blocks     Used Avail Mounted on
kafkaops-nemesis tmpfs     67108864 67108864     0 /var/lib/kafka/small-2
"""
DF_OVERLAY = """Filesystem     Type       1B-blocks        Used       Avail Mounted on
overlay        overlay 105088212992 40103063552 59597131776 /
"""

# tc -s qdisc show dev eth0: a container's veth as Docker leaves it, and with the slow link on.
TC_FRESH = """qdisc noqueue 0: root refcnt 2
 Sent 0 bytes 0 pkt (dropped 0, overlimits 0 requeues 0)
 backlog 0b 0p requeues 0
"""
TC_SLOW = """qdisc tbf 6b6f: root refcnt 2 rate 1Mbit burst 4000b lat 400ms
 Sent 1843260 bytes 2315 pkt (dropped 17, overlimits 1402 requeues 0)
 backlog 3028b 2p requeues 0
"""
# A root tbf someone else put there (another handle): not ours to remove.
TC_OTHERS = """qdisc tbf 8001: root refcnt 2 rate 10Mbit burst 4000b lat 50ms
 Sent 100 bytes 1 pkt (dropped 0, overlimits 0 requeues 0)
 backlog 0b 0p requeues 0
"""


def docker_inspect(status, running, exit_code):
    """docker inspect --type container kafkaops-res2, cut to the fields a reader needs, in Docker's layout."""
    return json.dumps([{
        "Id": "5f0c2e9d41a7b3c8e6f1d2a9b4c7e0f3a6d9c2b5e8f1a4d7c0b3e6f9a2d5c8b1",
        "Created": "2026-11-27T10:01:58.305117215Z",
        "Path": "/lib/systemd/systemd",
        "Args": [],
        "State": {"Status": status, "Running": running, "Paused": False, "Restarting": False, "OOMKilled": False,
                  "Dead": False, "Pid": 31877 if running else 0, "ExitCode": exit_code, "Error": "",
                  "StartedAt": "2026-11-27T10:02:00.117642853Z",
                  "FinishedAt": "0001-01-01T00:00:00Z" if running else "2026-11-27T10:14:40.802231546Z"},
        "Name": "/kafkaops-res2",
        "RestartCount": 0,
    }], indent=4)


class FakeNode:
    """A node that records the commands it is given and answers them from a script.

    answers: (argv prefix, result) pairs, the first matching prefix wins; a result is (exit code, stdout,
    stderr), or a list of them given out in turn (the last one stays). Anything else succeeds silently.
    """

    def __init__(self, *answers):
        self.answers = [(list(prefix), result if isinstance(result, list) else [result]) for prefix, result in answers]
        self.commands = []

    def run(self, argv):
        self.commands.append(list(argv))
        for prefix, results in self.answers:
            if argv[:len(prefix)] == prefix:
                return results.pop(0) if len(results) > 1 else results[0]
        return 0, "", ""


def ok(stdout=""):
    return 0, stdout, ""


def getent_answers():
    return (["getent", "ahostsv4", "kafkaops-res1"], ok(GETENT_RES1)), \
        (["getent", "ahostsv4", "kafkaops-res3"], ok(GETENT_RES3))


# Partition


def test_partition_cuts_both_directions_in_a_chain_of_its_own_hooked_last():
    node = FakeNode(*getent_answers(), (["iptables", "-w", "-S"], ok(RULES_FRESH)))
    nemesis.Partition("kafkaops-res2", ["kafkaops-res1", "kafkaops-res3"], runner=node).apply()
    assert node.commands == [
        ["getent", "ahostsv4", "kafkaops-res1"],
        ["getent", "ahostsv4", "kafkaops-res3"],
        ["iptables", "-w", "-S"],
        ["iptables", "-w", "-N", "KAFKAOPS-PARTITION"],
        ["iptables", "-w", "-F", "KAFKAOPS-PARTITION"],
        ["iptables", "-w", "-A", "KAFKAOPS-PARTITION", "-s", "172.23.0.2", "-j", "DROP"],
        ["iptables", "-w", "-A", "KAFKAOPS-PARTITION", "-d", "172.23.0.2", "-j", "DROP"],
        ["iptables", "-w", "-A", "KAFKAOPS-PARTITION", "-s", "172.23.0.4", "-j", "DROP"],
        ["iptables", "-w", "-A", "KAFKAOPS-PARTITION", "-d", "172.23.0.4", "-j", "DROP"],
        ["iptables", "-w", "-I", "INPUT", "1", "-j", "KAFKAOPS-PARTITION"],
        ["iptables", "-w", "-I", "OUTPUT", "1", "-j", "KAFKAOPS-PARTITION"],
    ]


def test_a_one_way_partition_drops_only_what_the_node_sends():
    node = FakeNode(*getent_answers(), (["iptables", "-w", "-S"], ok(RULES_FRESH)))
    nemesis.Partition("kafkaops-res2", ["kafkaops-res1"], one_way=True, runner=node).apply()
    added = [command[4:] for command in node.commands if command[:3] == ["iptables", "-w", "-A"]]
    assert added == [["-d", "172.23.0.2", "-j", "DROP"]]


def test_applying_again_replaces_the_rules_without_a_second_chain_or_jump():
    node = FakeNode(*getent_answers(), (["iptables", "-w", "-S"], ok(RULES_PARTITIONED)))
    nemesis.Partition("kafkaops-res2", ["kafkaops-res1"], runner=node).apply()
    assert ["iptables", "-w", "-F", "KAFKAOPS-PARTITION"] in node.commands
    assert not [command for command in node.commands if command[2] in ("-N", "-I")]


def test_heal_removes_only_our_jumps_and_chain():
    node = FakeNode((["iptables", "-w", "-S"], ok(RULES_PARTITIONED)))
    nemesis.Partition("kafkaops-res2", ["kafkaops-res1"], runner=node).heal()
    assert node.commands == [
        ["iptables", "-w", "-S"],
        ["iptables", "-w", "-D", "INPUT", "-j", "KAFKAOPS-PARTITION"],
        ["iptables", "-w", "-D", "OUTPUT", "-j", "KAFKAOPS-PARTITION"],
        ["iptables", "-w", "-F", "KAFKAOPS-PARTITION"],
        ["iptables", "-w", "-X", "KAFKAOPS-PARTITION"],
    ]


def test_heal_when_nothing_was_applied_only_looks():
    node = FakeNode((["iptables", "-w", "-S"], ok(RULES_FRESH)))
    nemesis.Partition("kafkaops-res2", ["kafkaops-res1"], runner=node).heal()
    assert node.commands == [["iptables", "-w", "-S"]]


def test_partition_proof_lists_the_rules_and_the_packets_they_dropped():
    node = FakeNode((["iptables", "-w", "-L"], ok(LISTING_PARTITIONED)))
    proof = nemesis.Partition("kafkaops-res2", ["kafkaops-res1", "kafkaops-res3"], runner=node).proof()
    assert node.commands == [["iptables", "-w", "-L", "-v", "-n", "-x"]]
    assert proof["in_place"] is True
    assert proof["hooked_from"] == ["INPUT", "OUTPUT"]
    assert proof["dropped_packets"] == 41 + 38 + 12 + 15
    assert proof["rules"][0] == {"target": "DROP", "source": "172.23.0.2", "destination": "0.0.0.0/0", "match": "",
                                 "packets": 41, "bytes": 2460}
    assert (proof["node"], proof["chain"], proof["one_way"]) == ("kafkaops-res2", "KAFKAOPS-PARTITION", False)


def test_partition_proof_after_heal_says_it_is_gone():
    node = FakeNode((["iptables", "-w", "-L"], ok(LISTING_FRESH)))
    proof = nemesis.Partition("kafkaops-res2", ["kafkaops-res1"], runner=node).proof()
    assert (proof["in_place"], proof["exists"], proof["hooked_from"], proof["rules"]) == (False, False, [], [])


def test_the_listing_parser_reads_either_way_iptables_prints_the_protocol():
    rules = nemesis.parse_iptables_listing(LISTING_LEGACY)["KAFKAOPS-PARTITION"]["rules"]
    assert [(rule["prot"], rule["target"], rule["source"], rule["pkts"]) for rule in rules] == \
        [("all", "DROP", "172.23.0.2", 7)]
    chains = nemesis.parse_iptables_listing(LISTING_PARTITIONED)
    assert chains["INPUT"]["policy"] == "ACCEPT" and chains["KAFKAOPS-PARTITION"]["references"] == 2


def test_an_unresolvable_peer_is_named_with_the_node_and_nothing_changes():
    node = FakeNode((["getent"], (2, "", "")))
    with pytest.raises(nemesis.NemesisError, match="kafkaops-res2: cannot resolve peer kafkaops-res9"):
        nemesis.Partition("kafkaops-res2", ["kafkaops-res9"], runner=node).apply()
    assert node.commands == [["getent", "ahostsv4", "kafkaops-res9"]]


@pytest.mark.parametrize("peers", [[], ["kafkaops-res2"], ["postgres"], ["-j"]])
def test_a_partition_needs_project_peers_other_than_the_node(peers):
    with pytest.raises(nemesis.NemesisError):
        nemesis.Partition("kafkaops-res2", peers, runner=FakeNode())


# Pause


def test_pause_stops_the_units_main_process_and_heal_continues_it():
    node = FakeNode((["systemctl", "show"], ok("4127\n")))
    pause = nemesis.Pause("kafkaops-res2", "kafka-broker-2", runner=node)
    pause.apply()
    pause.heal()
    show = ["systemctl", "show", "--property=MainPID", "--value", "kafka-broker-2"]
    assert node.commands == [show, ["kill", "-STOP", "4127"], show, ["kill", "-CONT", "4127"]]


def test_pause_of_a_unit_that_is_not_running_says_so():
    node = FakeNode((["systemctl", "show"], ok("0\n")))
    with pytest.raises(nemesis.NemesisError, match="kafkaops-res2: unit zookeeper has no main process"):
        nemesis.Pause("kafkaops-res2", "zookeeper", runner=node).apply()


def test_heal_of_a_unit_that_is_not_running_sends_nothing():
    node = FakeNode((["systemctl", "show"], ok("0\n")))
    nemesis.Pause("kafkaops-res2", "zookeeper", runner=node).heal()
    assert [command[0] for command in node.commands] == ["systemctl"]


def test_pause_proof_reads_the_state_letter():
    node = FakeNode((["systemctl", "show"], ok("4127\n")), (["cat"], ok(STAT_PAUSED)))
    proof = nemesis.Pause("kafkaops-res2", "kafka-broker-2", runner=node).proof()
    assert node.commands[-1] == ["cat", "/proc/4127/stat"]
    assert proof == {"node": "kafkaops-res2", "unit": "kafka-broker-2", "pid": 4127, "command": "java", "state": "T",
                     "in_place": True}


def test_the_stat_parser_takes_the_state_after_the_last_parenthesis():
    assert nemesis.parse_proc_stat(STAT_ODD_NAME) == {"pid": 77, "command": "a) b (c", "state": "S"}


@pytest.mark.parametrize("unit", ["--all", "", "kafka broker"])
def test_a_unit_name_cannot_be_read_as_an_option(unit):
    with pytest.raises(nemesis.NemesisError, match="unit"):
        nemesis.Pause("kafkaops-res2", unit, runner=FakeNode())


# FullDisk

PATH = "/var/lib/kafka/small-2"
DF = ["df", "-B1", "--output=source,fstype,size,used,avail,target", PATH]
FILLER = PATH + "/kafkaops-nemesis-filler"


def test_prepare_mounts_a_small_filesystem_on_an_empty_directory():
    node = FakeNode((DF, (1, "", "df: %s: No such file or directory\n" % PATH)))
    nemesis.FullDisk("kafkaops-res2", PATH, 64, runner=node).prepare()
    assert node.commands == [
        DF,
        ["mkdir", "-p", PATH],
        ["find", PATH, "-mindepth", "1", "-maxdepth", "1", "-print", "-quit"],
        ["mount", "-t", "tmpfs", "-o", "size=64m,mode=0755", "kafkaops-nemesis", PATH],
    ]


def test_prepare_again_finds_it_mounted():
    node = FakeNode((DF, ok(DF_MOUNTED)))
    nemesis.FullDisk("kafkaops-res2", PATH, 64, runner=node).prepare()
    assert node.commands == [DF]


def test_prepare_refuses_to_hide_files_already_there():
    node = FakeNode((DF, ok(DF_OVERLAY)), (["find"], ok(PATH + "/meta.properties\n")))
    with pytest.raises(nemesis.NemesisError, match="kafkaops-res2: /var/lib/kafka/small-2 is not empty"):
        nemesis.FullDisk("kafkaops-res2", PATH, 64, runner=node).prepare()
    assert not [command for command in node.commands if command[0] == "mount"]


def test_fill_reserves_the_free_space_but_what_it_is_asked_to_leave():
    node = FakeNode((DF, [ok(DF_MOUNTED), ok(DF_FILLED)]), (["stat"], (1, "", "No such file or directory")))
    nemesis.FullDisk("kafkaops-res2", PATH, 64, leave_bytes=4096, runner=node).apply()
    assert node.commands == [
        DF,
        ["stat", "--format=%s", FILLER],
        ["fallocate", "--offset", "0", "--length", str(66056192 - 4096), FILLER],
        DF,
    ]


def test_fill_measures_again_when_the_service_took_the_space_meanwhile():
    node = FakeNode((DF, [ok(DF_MOUNTED), ok(DF_MOUNTED), ok(DF_FILLED)]), (["stat"], ok("0\n")),
                    (["fallocate"], [(1, "", "fallocate: fallocate failed: No space left on device\n"), ok()]))
    nemesis.FullDisk("kafkaops-res2", PATH, 64, runner=node).fill()
    assert [command[0] for command in node.commands] == ["df", "stat", "fallocate", "df", "stat", "fallocate", "df"]


def test_fill_never_touches_a_filesystem_it_did_not_mount():
    # The container's own disk is the host's: filling it would fill the machine.
    node = FakeNode((DF, ok(DF_OVERLAY)))
    with pytest.raises(nemesis.NemesisError, match="not the small filesystem FullDisk mounts"):
        nemesis.FullDisk("kafkaops-res2", PATH, 64, runner=node).fill()
    assert node.commands == [DF]


def test_heal_removes_the_filler_only():
    node = FakeNode()
    nemesis.FullDisk("kafkaops-res2", PATH, 64, runner=node).heal()
    assert node.commands == [["rm", "-f", FILLER]]


def test_full_disk_proof_reads_df_and_the_fillers_size():
    node = FakeNode((DF, ok(DF_FILLED)), (["stat"], ok("66052096\n")))
    proof = nemesis.FullDisk("kafkaops-res2", PATH, 64, runner=node).proof()
    assert proof == {"node": "kafkaops-res2", "path": PATH, "mounted": True, "leave_bytes": 0,
                     "source": "kafkaops-nemesis", "filesystem": "tmpfs", "size_bytes": 67108864,
                     "used_bytes": 67108864, "available_bytes": 0, "mounted_on": PATH, "filler_bytes": 66052096,
                     "in_place": True}


def test_full_disk_proof_where_nothing_is_mounted():
    node = FakeNode((DF, ok(DF_OVERLAY)), (["stat"], (1, "", "No such file or directory")))
    proof = nemesis.FullDisk("kafkaops-res2", PATH, 64, runner=node).proof()
    assert (proof["mounted"], proof["filesystem"], proof["filler_bytes"], proof["in_place"]) == \
        (False, "overlay", 0, False)


@pytest.mark.parametrize("path", ["relative", "/", "/var/lib/../lib/kafka", "/var/lib/kafka/"])
def test_full_disk_needs_a_plain_absolute_path(path):
    with pytest.raises(nemesis.NemesisError, match="not an absolute, normalized path"):
        nemesis.FullDisk("kafkaops-res2", path, 64, runner=FakeNode())


# SlowLink


def test_slow_link_limits_the_rate_and_drops_at_random_on_the_interface_only():
    node = FakeNode((["iptables", "-w", "-S"], ok(RULES_FRESH)))
    nemesis.SlowLink("kafkaops-res2", rate="1mbit", loss=0.05, runner=node).apply()
    assert node.commands == [
        ["tc", "qdisc", "replace", "dev", "eth0", "root", "handle", "6b6f:", "tbf", "rate", "1mbit", "burst", "32kbit",
         "latency", "400ms"],
        ["iptables", "-w", "-S"],
        ["iptables", "-w", "-N", "KAFKAOPS-SLOWLINK"],
        ["iptables", "-w", "-F", "KAFKAOPS-SLOWLINK"],
        ["iptables", "-w", "-A", "KAFKAOPS-SLOWLINK", "-m", "statistic", "--mode", "random", "--probability", "0.05",
         "-j", "DROP"],
        ["iptables", "-w", "-I", "INPUT", "1", "-i", "eth0", "-j", "KAFKAOPS-SLOWLINK"],
        ["iptables", "-w", "-I", "OUTPUT", "1", "-o", "eth0", "-j", "KAFKAOPS-SLOWLINK"],
    ]


def test_slow_link_without_loss_uses_no_iptables():
    node = FakeNode()
    nemesis.SlowLink("kafkaops-res2", rate="500kbit", loss=0, runner=node).apply()
    assert [command[0] for command in node.commands] == ["tc"]


def test_slow_link_heal_removes_its_qdisc_and_chain():
    node = FakeNode((["tc", "-s"], ok(TC_SLOW)), (["iptables", "-w", "-S"], ok(RULES_SLOW)))
    nemesis.SlowLink("kafkaops-res2", runner=node).heal()
    assert node.commands == [
        ["tc", "-s", "qdisc", "show", "dev", "eth0"],
        ["tc", "qdisc", "del", "dev", "eth0", "root"],
        ["iptables", "-w", "-S"],
        ["iptables", "-w", "-D", "INPUT", "-i", "eth0", "-j", "KAFKAOPS-SLOWLINK"],
        ["iptables", "-w", "-D", "OUTPUT", "-o", "eth0", "-j", "KAFKAOPS-SLOWLINK"],
        ["iptables", "-w", "-F", "KAFKAOPS-SLOWLINK"],
        ["iptables", "-w", "-X", "KAFKAOPS-SLOWLINK"],
    ]


@pytest.mark.parametrize("qdiscs", [TC_FRESH, TC_OTHERS])
def test_slow_link_heal_leaves_a_root_qdisc_that_is_not_ours(qdiscs):
    node = FakeNode((["tc", "-s"], ok(qdiscs)), (["iptables", "-w", "-S"], ok(RULES_FRESH)))
    nemesis.SlowLink("kafkaops-res2", runner=node).heal()
    assert node.commands == [["tc", "-s", "qdisc", "show", "dev", "eth0"], ["iptables", "-w", "-S"]]


def test_slow_link_proof_shows_the_qdisc_its_counters_and_the_random_drops():
    node = FakeNode((["tc", "-s"], ok(TC_SLOW)), (["iptables", "-w", "-L"], ok(LISTING_SLOW)))
    proof = nemesis.SlowLink("kafkaops-res2", runner=node).proof()
    assert proof["in_place"] is True and proof["rate_limited"] is True
    assert proof["root_qdisc"] == {
        "kind": "tbf", "handle": "6b6f:", "parent": "root", "rate": "1Mbit",
        "options": "qdisc tbf 6b6f: root refcnt 2 rate 1Mbit burst 4000b lat 400ms", "sent_bytes": 1843260,
        "sent_packets": 2315, "dropped": 17, "overlimits": 1402, "requeues": 0, "backlog": "3028b",
        "backlog_packets": 2}
    drops = proof["random_drop"]
    assert drops["hooked_from"] == ["INPUT", "OUTPUT"] and drops["dropped_packets"] == 187
    assert drops["rules"][0]["match"] == "statistic mode random probability 0.05000000000"


def test_slow_link_proof_on_a_fresh_container():
    node = FakeNode((["tc", "-s"], ok(TC_FRESH)), (["iptables", "-w", "-L"], ok(LISTING_FRESH)))
    proof = nemesis.SlowLink("kafkaops-res2", runner=node).proof()
    assert (proof["in_place"], proof["rate_limited"], proof["root_qdisc"]["kind"]) == (False, False, "noqueue")


@pytest.mark.parametrize("settings", [{"rate": "fast"}, {"rate": "-1mbit"}, {"loss": 1}, {"loss": -0.1},
                                      {"rate": "", "loss": 0}, {"interface": "-o"}, {"burst": "lots"}])
def test_slow_link_refuses_settings_tc_or_iptables_would_misread(settings):
    with pytest.raises(nemesis.NemesisError):
        nemesis.SlowLink("kafkaops-res2", runner=FakeNode(), **settings)


# NodeStop


def test_node_stop_runs_docker_on_the_host():
    host = FakeNode()
    stop = nemesis.NodeStop("kafkaops-res2", timeout=20, runner=host)
    stop.apply()
    stop.heal()
    assert host.commands == [["docker", "stop", "-t", "20", "kafkaops-res2"], ["docker", "start", "kafkaops-res2"]]


def test_an_abrupt_node_stop_kills_a_running_container_only():
    running = FakeNode((["docker", "inspect"], ok(docker_inspect("running", True, 0))))
    nemesis.NodeStop("kafkaops-res2", abrupt=True, runner=running).apply()
    assert running.commands[-1] == ["docker", "kill", "kafkaops-res2"]
    stopped = FakeNode((["docker", "inspect"], ok(docker_inspect("exited", False, 137))))
    nemesis.NodeStop("kafkaops-res2", abrupt=True, runner=stopped).apply()
    assert stopped.commands == [["docker", "inspect", "--type", "container", "kafkaops-res2"]]


def test_node_stop_proof_reads_docker_inspect():
    host = FakeNode((["docker", "inspect"], ok(docker_inspect("exited", False, 137))))
    proof = nemesis.NodeStop("kafkaops-res2", runner=host).proof()
    assert proof == {"node": "kafkaops-res2", "status": "exited", "running": False, "paused": False, "exit_code": 137,
                     "oom_killed": False, "started_at": "2026-11-27T10:02:00.117642853Z",
                     "finished_at": "2026-11-27T10:14:40.802231546Z", "in_place": True}


def test_node_stop_uses_the_host_not_the_container_by_default():
    assert isinstance(nemesis.NodeStop("kafkaops-res2").runner, nemesis.HostCommands)
    assert nemesis.Pause("kafkaops-res2", "zookeeper").runner.container == "kafkaops-res2"


# What every nemesis shares


@pytest.mark.parametrize("name", ["postgres", "kafkaops-", "-kafkaops-res2", "kafkaops-res2;reboot", None])
def test_only_project_containers_are_acted_on(name):
    with pytest.raises(nemesis.NemesisError, match="not a project container"):
        nemesis.NodeStop(name, runner=FakeNode())


def test_a_failure_names_the_node_the_command_and_its_error_output():
    node = FakeNode((["iptables", "-w", "-S"], (4, "", "iptables v1.8.9 (nf_tables): Could not fetch rule set "
                                                       "generation id: Permission denied (you must be root)\n")))
    with pytest.raises(nemesis.NemesisError) as failure:
        nemesis.Partition("kafkaops-res2", ["kafkaops-res1"], runner=node).heal()
    message = str(failure.value)
    assert message.startswith("kafkaops-res2: listing the rules: `iptables -w -S` failed (exit 4): iptables v1.8.9")
    assert "capabilities [SYS_ADMIN, NET_ADMIN]" in message


def test_a_missing_command_points_at_the_image():
    node = FakeNode((["tc"], (127, "", 'OCI runtime exec failed: exec failed: unable to start container process: '
                                       'exec: "tc": executable file not found in $PATH: unknown\n')))
    with pytest.raises(nemesis.NemesisError, match="rebuild the image"):
        nemesis.SlowLink("kafkaops-res2", runner=node).heal()


def test_docker_exec_runs_argv_in_the_container_with_the_c_locale(monkeypatch):
    seen = []

    def run(argv, **settings):
        seen.append((argv, settings))
        return subprocess.CompletedProcess(argv, 0, "out", "err")

    monkeypatch.setattr(nemesis.subprocess, "run", run)
    assert nemesis.DockerExec("kafkaops-res2").run(["tc", "-s", "qdisc"]) == (0, "out", "err")
    argv, settings = seen[0]
    assert argv == ["docker", "exec", "--env", "LC_ALL=C", "kafkaops-res2", "tc", "-s", "qdisc"]
    assert settings["capture_output"] and settings["text"] and "shell" not in settings


def test_a_command_that_hangs_is_named(monkeypatch):
    def run(argv, **_settings):
        raise subprocess.TimeoutExpired(argv, 1)

    monkeypatch.setattr(nemesis.subprocess, "run", run)
    with pytest.raises(nemesis.NemesisError, match="kafkaops-res2: `docker exec .* cat /proc/1/stat` did not end"):
        nemesis.DockerExec("kafkaops-res2").run(["cat", "/proc/1/stat"])


# The command line


def test_the_command_line_applies_and_prints_the_proof_as_json():
    node = FakeNode(*getent_answers(), (["iptables", "-w", "-S"], ok(RULES_FRESH)),
                    (["iptables", "-w", "-L"], ok(LISTING_PARTITIONED)))
    out = io.StringIO()
    status = nemesis.main(["apply", "partition", "--node", "kafkaops-res2", "--peers", "kafkaops-res1,kafkaops-res3"],
                          runner=node, out=out)
    printed = json.loads(out.getvalue())
    assert status == 0
    assert (printed["action"], printed["fault"], printed["node"]) == ("apply", "partition", "kafkaops-res2")
    assert printed["proof"]["in_place"] is True and printed["proof"]["dropped_packets"] == 106
    assert ["iptables", "-w", "-I", "OUTPUT", "1", "-j", "KAFKAOPS-PARTITION"] in node.commands


def test_the_command_line_proof_only_reads():
    node = FakeNode((DF, ok(DF_MOUNTED)), (["stat"], ok("0\n")))
    out = io.StringIO()
    assert nemesis.main(["proof", "full-disk", "--node", "kafkaops-res2", "--path", PATH, "--size-mb", "64"],
                        runner=node, out=out) == 0
    assert [command[0] for command in node.commands] == ["df", "stat"]
    assert json.loads(out.getvalue())["proof"]["available_bytes"] == 66056192


def test_the_command_line_names_what_a_fault_lacks(capsys):
    assert nemesis.main(["apply", "pause", "--node", "kafkaops-res2"], runner=FakeNode()) == 1
    assert "nemesis apply pause: pause needs --unit" in capsys.readouterr().err


def test_the_script_runs_on_its_own_and_refuses_other_containers_before_running_anything():
    done = subprocess.run([sys.executable, SCRIPT, "apply", "node-stop", "--node", "postgres"],
                          capture_output=True, text=True, check=False, env={"PATH": ""})
    assert done.returncode == 1 and done.stdout == ""
    assert "'postgres' is not a project container" in done.stderr


class FakeHost:
    """docker on the host: inspect answers with a container's networks, or fails for a container not there."""

    def __init__(self, networks=None):
        self.networks, self.asked = networks, []

    def run(self, argv):
        self.asked.append(argv)
        if self.networks is None:
            return 1, "", "Error: No such container: %s\n" % argv[-1]
        return 0, json.dumps(dict((name, {}) for name in self.networks)) + "\n", ""


@pytest.mark.parametrize("networks, accepted, words", [
    (["kafkaops-kraft"], True, None),
    (["bridge", "kafkaops"], True, None),
    (["bridge"], False, "its networks: bridge"),
    (["kafkaopsx"], False, "its networks: kafkaopsx"),
    (None, False, "No such container: kraft-b2"),
])
def test_a_container_on_a_project_network_is_a_project_container(networks, accepted, words):
    host = FakeHost(networks)
    if accepted:
        assert nemesis.check_node("kraft-b2", host) == "kraft-b2"
    else:
        with pytest.raises(nemesis.NemesisError, match="not a project container") as refused:
            nemesis.check_node("kraft-b2", host)
        assert words in str(refused.value)
    assert host.asked == [["docker", "inspect", "--type", "container", "--format", "{{json .NetworkSettings.Networks}}",
                           "kraft-b2"]]
    # A name that could be read as an option is refused before docker is asked.
    quiet = FakeHost(["kafkaops"])
    with pytest.raises(nemesis.NemesisError, match="not a project container"):
        nemesis.check_node("--help", quiet)
    assert quiet.asked == []
