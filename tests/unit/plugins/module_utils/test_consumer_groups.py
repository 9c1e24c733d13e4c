"""kafka_consumer_group's main() and run against a fake cluster that keeps groups and logs."""

import pytest
from ansible_collections.kafkaops.cluster.plugins.modules import kafka_consumer_group

SERVERS = {"bootstrap_servers": ["kafka1:9092"]}
READS_ONLY = ("changed", "exists", "state", "members", "partitions", "total_lag", "offsets_changed", "deleted")


@pytest.fixture
def cluster(fake_group_cluster):
    """orders: 2 partitions, logs 10-100 and 0-50 with a record a second from t=1000 s; payments: 1 partition, 0-8.

    Group billing (empty) committed orders 40 and 20; group live has a member consuming orders-0.
    """
    return fake_group_cluster(
        topics={"orders": {0: [1, 2], 1: [2, 3]}, "payments": {0: [3, 1]}},
        logs={("orders", 0): (10, 100), ("orders", 1): (0, 50), ("payments", 0): (0, 8)},
        record_times={("orders", 0): [1000000 + 1000 * index for index in range(90)],
                      ("orders", 1): [1000000 + 1000 * index for index in range(50)]},
        groups={"billing": {"offsets": {("orders", 0): 40, ("orders", 1): 20}},
                "live": {"offsets": {("orders", 0): 60},
                         "members": [("consumer-live-1-ab12", "reporting", "/10.0.0.5", [("orders", 0)]),
                                     ("consumer-live-2-cd34", "reporting", "/10.0.0.6", [("orders", 1)])]}})


def partition_rows(result):
    return dict(((row["topic"], row["partition"]), (row["committed_offset"], row["lag"]))
                for row in result["partitions"])


def test_reading_a_group_reports_its_lag_and_writes_nothing(run_module, cluster):
    result = run_module(kafka_consumer_group.main, dict(SERVERS, group="billing"), cluster, diff=True)
    assert not result.get("failed"), result
    assert not result["changed"] and result["exists"] and result["state"] == "Empty" and result["members"] == []
    assert result["partitions"] == [
        dict(topic="orders", partition=0, committed_offset=40, log_start_offset=10, log_end_offset=100, lag=60),
        dict(topic="orders", partition=1, committed_offset=20, log_start_offset=0, log_end_offset=50, lag=30)]
    assert result["total_lag"] == 90 and result["offsets_changed"] == [] and not result["deleted"]
    assert cluster.writes() == []
    assert all(client.closed for client in cluster.clients)


def test_reading_shows_the_members_and_named_topics_without_commits(run_module, cluster):
    result = run_module(kafka_consumer_group.main, dict(SERVERS, group="live", topics=["orders", "payments"]), cluster)
    assert result["state"] == "Stable"
    assert result["members"] == [
        dict(member_id="consumer-live-1-ab12", group_instance_id=None, client_id="reporting", host="/10.0.0.5",
             assignment=[dict(topic="orders", partition=0)]),
        dict(member_id="consumer-live-2-cd34", group_instance_id=None, client_id="reporting", host="/10.0.0.6",
             assignment=[dict(topic="orders", partition=1)])]
    assert partition_rows(result) == {("orders", 0): (60, 40), ("orders", 1): (None, None),
                                      ("payments", 0): (None, None)}
    assert result["total_lag"] == 40 and cluster.writes() == []


def test_without_topics_the_partitions_members_consume_are_shown_too(run_module, cluster):
    result = run_module(kafka_consumer_group.main, dict(SERVERS, group="live"), cluster)
    assert partition_rows(result) == {("orders", 0): (60, 40), ("orders", 1): (None, None)}


def test_a_group_that_does_not_exist_reads_as_dead(run_module, cluster):
    result = run_module(kafka_consumer_group.main, dict(SERVERS, group="nobody"), cluster)
    assert not result.get("failed"), result
    assert (result["exists"], result["state"], result["partitions"], result["changed"]) == (False, "Dead", [], False)


@pytest.mark.parametrize("reset, targets", [
    (dict(reset="earliest"), {("orders", 0): 10, ("orders", 1): 0}),
    (dict(reset="latest"), {("orders", 0): 100, ("orders", 1): 50}),
    # t=1030 s: the 31st record of each partition; orders-0 starts at offset 10.
    (dict(reset="timestamp", reset_timestamp="1970-01-01T00:17:10Z"), {("orders", 0): 40, ("orders", 1): 30}),
    # Newer than every record: the end of each log.
    (dict(reset="timestamp", reset_timestamp="9999999999999"), {("orders", 0): 100, ("orders", 1): 50}),
    (dict(reset="offset", reset_offset=45), {("orders", 0): 45, ("orders", 1): 45}),
    # Clamped: orders-0's log starts at 10, orders-1's ends at 50.
    (dict(reset="offset", reset_offset=5), {("orders", 0): 10, ("orders", 1): 5}),
    (dict(reset="offset", reset_offset=500), {("orders", 0): 100, ("orders", 1): 50}),
], ids=["earliest", "latest", "timestamp", "timestamp-past-the-end", "offset", "offset-below-start",
        "offset-past-the-end"])
def test_check_mode_predicts_each_reset_and_a_second_run_changes_nothing(run_module, cluster, reset, targets):
    args = dict(SERVERS, group="billing", **reset)
    before = {("orders", 0): 40, ("orders", 1): 20}
    predicted = run_module(kafka_consumer_group.main, args, cluster, check_mode=True, diff=True)
    assert not predicted.get("failed"), predicted
    assert cluster.writes() == [] and cluster.groups["billing"]["offsets"] == before
    applied = run_module(kafka_consumer_group.main, args, cluster, diff=True)
    changes = [dict(topic=topic, partition=number, before=before[(topic, number)], after=offset)
               for (topic, number), offset in sorted(targets.items()) if before[(topic, number)] != offset]
    for result in (predicted, applied):
        assert result["changed"] and result["offsets_changed"] == changes
        assert dict((key, offset) for key, (offset, unused) in partition_rows(result).items()) == targets
        after = dict((str(number), offset) for (unused, number), offset in targets.items())
        assert result["diff"] == dict(before={"offsets": {"orders": {"0": 40, "1": 20}}},
                                      after={"offsets": {"orders": after}})
    assert predicted["partitions"] == applied["partitions"] and predicted["total_lag"] == applied["total_lag"]
    assert cluster.groups["billing"]["offsets"] == targets
    assert [(name, arguments["offsets"]) for name, arguments in cluster.writes()] == [("alter_group_offsets", targets)]
    for check_mode in (True, False):
        again = run_module(kafka_consumer_group.main, args, cluster, check_mode=check_mode)
        assert not again.get("failed") and not again["changed"] and again["offsets_changed"] == []
    assert len(cluster.writes()) == 1


def test_a_reset_of_named_partitions_leaves_the_others_and_gives_uncommitted_ones_an_offset(run_module, cluster):
    args = dict(SERVERS, group="billing", topics=["orders:1", "payments"], reset="earliest")
    result = run_module(kafka_consumer_group.main, args, cluster)
    assert result["offsets_changed"] == [dict(topic="orders", partition=1, before=20, after=0),
                                         dict(topic="payments", partition=0, before=None, after=0)]
    assert cluster.groups["billing"]["offsets"] == {("orders", 0): 40, ("orders", 1): 0, ("payments", 0): 0}


def test_a_shift_moves_again_on_every_run_until_clamped(run_module, cluster):
    args = dict(SERVERS, group="billing", reset="shift", reset_shift=-15)
    predicted = run_module(kafka_consumer_group.main, args, cluster, check_mode=True)
    assert predicted["offsets_changed"] == [dict(topic="orders", partition=0, before=40, after=25),
                                            dict(topic="orders", partition=1, before=20, after=5)]
    assert cluster.writes() == []
    first = run_module(kafka_consumer_group.main, args, cluster)
    assert first["offsets_changed"] == predicted["offsets_changed"]
    second = run_module(kafka_consumer_group.main, args, cluster)
    assert second["changed"] and second["offsets_changed"] == [
        dict(topic="orders", partition=0, before=25, after=10), dict(topic="orders", partition=1, before=5, after=0)]
    third = run_module(kafka_consumer_group.main, args, cluster)
    assert not third["changed"] and len(cluster.writes()) == 2


def test_a_reset_is_refused_while_the_group_has_members_naming_them(run_module, cluster):
    result = run_module(kafka_consumer_group.main, dict(SERVERS, group="live", reset="earliest"), cluster)
    assert result["failed"] and result["field"] == "group"
    assert "2 active member(s)" in result["msg"] and "'reporting'" in result["msg"]
    assert all(words in result["msg"] for words in ("consumer-live-1-ab12", "/10.0.0.5", "consumer-live-2-cd34",
                                                    "/10.0.0.6"))
    assert result["members"][0]["client_id"] == "reporting" and not result["changed"]
    assert cluster.writes() == [] and cluster.groups["live"]["offsets"] == {("orders", 0): 60}
    assert cluster.requests("list_partition_offsets") == []


def test_a_commit_refused_because_a_consumer_joined_meanwhile_names_the_partitions(run_module, cluster):
    # The group is empty when read; a member joins before the commit arrives.
    original = cluster.connect

    def connect():
        client = original()
        described = client.describe_groups

        def describe_then_join(group_ids, **unused):
            answer = described(group_ids)
            cluster.groups["billing"]["members"] = [("late-1", "late", "/10.0.0.9", [])]
            return answer

        client.describe_groups = describe_then_join
        return client

    cluster.connect = connect
    result = run_module(kafka_consumer_group.main, dict(SERVERS, group="billing", reset="latest"), cluster)
    assert result["failed"] and "orders-0: UnknownMemberIdError" in result["msg"] and "start meanwhile" in result["msg"]
    assert cluster.groups["billing"]["offsets"] == {("orders", 0): 40, ("orders", 1): 20}


@pytest.mark.parametrize("args, field, reason", [
    (dict(reset="timestamp", reset_timestamp="2024-05-01T08:00:00"), "reset_timestamp", "no time zone"),
    (dict(reset="offset", reset_offset=-1), "reset_offset", "at least 0"),
    (dict(reset="latest", reset_shift=2), "reset_shift", "goes only with reset=shift"),
    (dict(reset="offset"), "reset_offset", "required with reset=offset"),
    (dict(state="absent", reset="earliest"), "reset", "does not go with state=absent"),
    (dict(topics=["orders:a"], reset="earliest"), "topics[0]", "partitions are numbers"),
])
def test_bad_options_are_refused_before_connecting(run_module, args, field, reason):
    result = run_module(kafka_consumer_group.main, dict(SERVERS, group="billing", **args), None)
    assert result["failed"] and result["field"] == field and reason in result["msg"], result


@pytest.mark.parametrize("args, field, reason", [
    (dict(topics=["missing"], reset="earliest"), "topics", "topic 'missing' does not exist"),
    (dict(topics=["orders:0,7"], reset="earliest"), "topics", "has no partition 7 (it has 2)"),
    (dict(topics=["payments"], reset="shift", reset_shift=1), "reset_shift", "no committed offset to shift from"),
])
def test_inputs_the_cluster_contradicts_are_refused_before_any_write(run_module, cluster, args, field, reason):
    result = run_module(kafka_consumer_group.main, dict(SERVERS, group="billing", **args), cluster)
    assert result["failed"] and result["field"] == field and reason in result["msg"], result
    assert cluster.writes() == []


def test_a_reset_of_a_group_without_offsets_needs_topics(run_module, cluster):
    result = run_module(kafka_consumer_group.main, dict(SERVERS, group="new", reset="earliest"), cluster)
    assert result["failed"] and result["field"] == "topics" and "no committed offsets" in result["msg"]
    created = run_module(kafka_consumer_group.main, dict(SERVERS, group="new", topics=["payments"], reset="latest"),
                         cluster)
    assert created["changed"] and not created["exists"] and cluster.groups["new"]["offsets"] == {("payments", 0): 8}


def test_deleting_a_group_in_four_passes(run_module, cluster):
    args = dict(SERVERS, group="billing", state="absent")
    predicted = run_module(kafka_consumer_group.main, args, cluster, check_mode=True, diff=True)
    assert predicted["changed"] and predicted["deleted"] and cluster.writes() == []
    applied = run_module(kafka_consumer_group.main, args, cluster, diff=True)
    assert applied["changed"] and applied["deleted"] and "billing" not in cluster.groups
    assert predicted["diff"] == applied["diff"] == dict(before={"offsets": {"orders": {"0": 40, "1": 20}}}, after={})
    for check_mode in (True, False):
        again = run_module(kafka_consumer_group.main, args, cluster, check_mode=check_mode)
        assert not again["changed"] and not again["deleted"] and not again["exists"]
    assert cluster.writes() == [("delete_groups", dict(group_ids=["billing"]))]


def test_deleting_a_group_with_members_is_refused(run_module, cluster):
    result = run_module(kafka_consumer_group.main, dict(SERVERS, group="live", state="absent"), cluster)
    assert result["failed"] and "cannot be deleted" in result["msg"] and "consumer-live-1-ab12" in result["msg"]
    assert cluster.writes() == [] and "live" in cluster.groups
