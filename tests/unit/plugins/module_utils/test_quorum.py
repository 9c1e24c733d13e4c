"""The quorum as Kafka's MetadataQuorumCommand prints it, and what the waits make of it."""

import pytest
from ansible_collections.kafkaops.cluster.plugins.module_utils._quorum import (
    QuorumOutputError,
    describe_command,
    describe_wait,
    node_role,
    parse_replication,
    tool_error,
)

# As Kafka 4.3.1 printed it for three combined nodes and a broker (tabs between the columns).
REPLICATION = (
    "NodeId\tDirectoryId           \tLogEndOffset\tLag\tLastFetchTimestamp\tLastCaughtUpTimestamp\tStatus  \t\n"
    "1     \taPrAQCd5RdKJ-aVpXQx5dw\t133         \t0  \t1795551051427     \t1795551051427        \tLeader  \t\n"
    "2     \t0FOUJJNCRWaRUugrEILXbA\t133         \t0  \t1795551051108     \t1795551051108        \tFollower\t\n"
    "3     \tIk4lldX6QwiOgDT1vXbErg\t20          \t113\t1795551051098     \t1795551051098        \tFollower\t\n"
    "4     \tnqhTwJoL_y-CAl2Itvt9lw\t133         \t0  \t1795551051098     \t1795551051098        \tObserver\t\n")


def test_the_replication_table_is_read_into_voters_and_observers():
    quorum = parse_replication("a log line first\n" + REPLICATION)
    assert quorum["leader_id"] == 1
    assert [row["node_id"] for row in quorum["voters"]] == [1, 2, 3]
    assert quorum["voters"][2] == {"node_id": 3, "directory_id": "Ik4lldX6QwiOgDT1vXbErg", "log_end_offset": 20,
                                   "lag": 113, "status": "Follower"}
    assert [row["node_id"] for row in quorum["observers"]] == [4]
    assert node_role(quorum, 2) == "voter" and node_role(quorum, 4) == "observer" and node_role(quorum, 9) is None


@pytest.mark.parametrize("text, message", [
    ("", "no replication table in the tool's output: nothing"),
    ("NodeId\tLag\n", "lacks the columns"),
    (REPLICATION + "x\ty\n", "unexpected line in the replication table"),
], ids=["empty", "columns", "garbage"])
def test_anything_else_is_an_error_that_quotes_it(text, message):
    with pytest.raises(QuorumOutputError, match=message):
        parse_replication(text)


@pytest.mark.parametrize("node_id, wait_for, max_lag, expected", [
    (1, "voter", 100, None),
    (3, "voter", 100, "node 3 is 113 records behind the leader (at most 100 wanted)"),
    (3, "voter", 200, None),
    (4, "voter", 100, "node 4 is an observer, not a voter"),
    (4, "observer", 100, None),
    (2, "observer", 100, None),
    (9, "member", 100, "node 9 is neither a voter nor an observer (voters: [1, 2, 3])"),
    (None, "voter", 100, "voters behind the leader by more than 100 records: 3 (lag 113)"),
    (None, "voter", 113, None),
], ids=["leader", "lagging", "lag-allowed", "observer-not-voter", "observer", "voter-as-observer", "unknown",
        "quorum-lagging", "quorum-caught-up"])
def test_a_wait_says_what_is_missing(node_id, wait_for, max_lag, expected):
    assert describe_wait(parse_replication(REPLICATION), node_id, wait_for, max_lag) == expected


def test_no_leader_is_never_ready():
    quorum = parse_replication(REPLICATION.replace("Leader  ", "Follower"))
    assert describe_wait(quorum, 2, "voter", 100) == "the quorum has no leader"


def test_the_command_and_a_failure_s_root_cause():
    assert describe_command("/usr/bin/java", "/opt/k/libs/*", ["a:9093", "b:9093"], "/tmp/c.properties") == [
        "/usr/bin/java", "-Xmx128m", "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-cp", "/opt/k/libs/*",
        "org.apache.kafka.tools.MetadataQuorumCommand",
        "--bootstrap-controller", "a:9093,b:9093", "--command-config", "/tmp/c.properties", "describe", "--replication"]
    failure = ("java.util.concurrent.ExecutionException: org.apache.kafka.common.errors.TimeoutException: x\n"
               "\tat org.apache.kafka.tools.MetadataQuorumCommand.main(MetadataQuorumCommand.java:76)\n"
               "Caused by: org.apache.kafka.common.errors.TimeoutException: Timed out waiting for a node assignment.\n")
    assert tool_error(failure) == ("org.apache.kafka.common.errors.TimeoutException: "
                                   "Timed out waiting for a node assignment.")
    assert tool_error("") == "no output"
    assert tool_error("just words") == "just words"
