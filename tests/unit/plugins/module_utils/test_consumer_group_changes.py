"""The pure part of kafka_consumer_group: options, target offsets of each reset, lag."""

import pytest
from ansible_collections.kafkaops.cluster.plugins.module_utils._consumer_group_changes import (
    GroupSpecError,
    check_group_options,
    describe_members,
    lag_report,
    offsets_by_topic,
    parse_timestamp,
    parse_topics,
    plan_reset,
)
from hypothesis import given
from hypothesis import strategies as st

A0, A1, B0 = ("a", 0), ("a", 1), ("b", 0)
EARLIEST = {A0: 10, A1: 0, B0: 5}
LATEST = {A0: 100, A1: 0, B0: 50}


def options(**given_options):
    params = dict(group="g", state="present", topics=None, reset=None, reset_timestamp=None, reset_offset=None,
                  reset_shift=None)
    params.update(given_options)
    return params


@pytest.mark.parametrize("text, expected", [
    ("0", 0),
    ("1714550400000", 1714550400000),
    ("2024-05-01T08:00:00Z", 1714550400000),
    ("2024-05-01 08:00Z", 1714550400000),
    ("2024-05-01T10:00:00.250+02:00", 1714550400250),
    ("2024-05-01T03:30:00-0430", 1714550400000),
    ("1970-01-01T00:00:00.000001Z", 0),
])
def test_timestamps_parse_to_milliseconds(text, expected):
    assert parse_timestamp(text) == expected


@pytest.mark.parametrize("text, reason", [
    ("2024-05-01T08:00:00", "no time zone"),
    ("yesterday", "neither milliseconds"),
    ("-5", "neither milliseconds"),
    ("2024-02-30T00:00:00Z", "not a valid date"),
    ("1969-12-31T23:59:59Z", "before 1970"),
])
def test_bad_timestamps_are_refused_naming_the_option(text, reason):
    with pytest.raises(GroupSpecError) as refused:
        parse_timestamp(text)
    assert refused.value.field == "reset_timestamp" and reason in str(refused.value)


def test_topics_take_partitions_and_merge_repeats():
    assert parse_topics(["a", "b:2,0", "b:1", "c:1", "c"]) == [("a", None), ("b", [0, 1, 2]), ("c", None)]
    assert parse_topics(None) is None


@pytest.mark.parametrize("items, field, reason", [
    ([":1"], "topics[0]", "names no topic"),
    (["a", "b:x"], "topics[1]", "not 'x'"),
    (["a:-1"], "topics[0]", "not '-1'"),
    ([], "topics", "at least one topic"),
])
def test_bad_topics_are_refused_naming_the_item(items, field, reason):
    with pytest.raises(GroupSpecError) as refused:
        parse_topics(items)
    assert refused.value.field == field and reason in str(refused.value)


@pytest.mark.parametrize("given_options, field, reason", [
    (dict(group=" "), "group", "name of a consumer group"),
    (dict(reset="timestamp"), "reset_timestamp", "required with reset=timestamp"),
    (dict(reset="offset"), "reset_offset", "required with reset=offset"),
    (dict(reset="shift"), "reset_shift", "required with reset=shift"),
    (dict(reset="earliest", reset_offset=3), "reset_offset", "only with reset=offset, not with reset=earliest"),
    (dict(reset_shift=3), "reset_shift", "goes only with reset=shift"),
    (dict(reset="offset", reset_offset=1, reset_timestamp="0"), "reset_timestamp", "only with reset=timestamp"),
    (dict(state="absent", reset="latest"), "reset", "does not go with state=absent"),
    (dict(state="absent", topics=["a"]), "topics", "does not go with state=absent"),
    (dict(reset="timestamp", reset_timestamp="soon"), "reset_timestamp", "neither milliseconds"),
])
def test_options_that_do_not_go_together_are_refused(given_options, field, reason):
    with pytest.raises(GroupSpecError) as refused:
        check_group_options(options(**given_options))
    assert refused.value.field == field and reason in str(refused.value)


def test_options_normalised():
    assert check_group_options(options(topics=["a:1"], reset="timestamp", reset_timestamp="1970-01-01T00:00:01Z")) == \
        dict(group="g", state="present", topics=[("a", [1])], reset="timestamp", value=1000)
    assert check_group_options(options(reset="shift", reset_shift=-3))["value"] == -3


@pytest.mark.parametrize("reset, value, committed, by_timestamp, targets", [
    ("earliest", None, {A0: 50, A1: 0, B0: 7}, None, {A0: 10, A1: 0, B0: 5}),
    ("latest", None, {A0: 50}, None, {A0: 100, A1: 0, B0: 50}),
    # No record that new (None or -1): the end of the log.
    ("timestamp", 1000, {}, {A0: 42, A1: None, B0: -1}, {A0: 42, A1: 0, B0: 50}),
    # Clamped into each log: below the start, above the end.
    ("offset", 7, {}, None, {A0: 10, A1: 0, B0: 7}),
    ("offset", 70, {}, None, {A0: 70, A1: 0, B0: 50}),
    ("shift", -20, {A0: 50, A1: 0, B0: 20}, None, {A0: 30, A1: 0, B0: 5}),
    ("shift", 40, {A0: 90, A1: 0, B0: 20}, None, {A0: 100, A1: 0, B0: 50}),
], ids=["earliest", "latest", "timestamp", "offset-low", "offset-high", "shift-back", "shift-forward"])
def test_targets_of_each_reset(reset, value, committed, by_timestamp, targets):
    plan = plan_reset(reset, value, [A0, A1, B0], committed, EARLIEST, LATEST, by_timestamp)
    assert plan["targets"] == targets
    assert plan["changes"] == [dict(topic=partition[0], partition=partition[1], before=committed.get(partition),
                                    after=targets[partition])
                               for partition in sorted(targets) if committed.get(partition) != targets[partition]]
    assert plan["changed"] == bool(plan["changes"])


def test_a_reset_to_where_the_offsets_are_changes_nothing():
    committed = {A0: 10, A1: 0, B0: 5}
    assert not plan_reset("earliest", None, [A0, A1, B0], committed, EARLIEST, LATEST)["changed"]
    # A shift clamped to where the offsets already are is no change either.
    assert not plan_reset("shift", -3, [A0, A1, B0], committed, EARLIEST, LATEST)["changed"]


def test_a_shift_needs_a_committed_offset():
    with pytest.raises(GroupSpecError) as refused:
        plan_reset("shift", 1, [A0, B0], {A0: 20}, EARLIEST, LATEST)
    assert refused.value.field == "reset_shift" and "partition 0 of topic 'b'" in str(refused.value)


@given(reset=st.sampled_from(["earliest", "latest", "timestamp", "offset", "shift"]),
       value=st.integers(min_value=-1000, max_value=1000),
       logs=st.lists(st.tuples(st.integers(0, 500), st.integers(0, 500), st.integers(0, 500), st.integers(-1, 900)),
                     min_size=1, max_size=6))
def test_targets_always_lie_in_the_log_and_a_second_plan_is_no_change_unless_a_shift(reset, value, logs):
    partitions = [("t", index) for index in range(len(logs))]
    earliest = dict((("t", index), min(low, high)) for index, (low, high, unused, unused) in enumerate(logs))
    latest = dict((("t", index), max(low, high)) for index, (low, high, unused, unused) in enumerate(logs))
    committed = dict((("t", index), offset) for index, (unused, unused, offset, unused) in enumerate(logs))
    by_timestamp = dict((("t", index), found) for index, (unused, unused, unused, found) in enumerate(logs))
    if reset == "offset":
        value = abs(value)
    plan = plan_reset(reset, value, partitions, committed, earliest, latest, by_timestamp)
    for partition, target in plan["targets"].items():
        assert earliest[partition] <= target <= latest[partition]
    again = plan_reset(reset, value, partitions, plan["targets"], earliest, latest, by_timestamp)
    if reset != "shift":
        assert not again["changed"]


def test_lag_and_the_diff_shape():
    rows, total = lag_report([B0, A0, A1], {A0: 40, B0: 60}, EARLIEST, LATEST)
    assert rows == [
        dict(topic="a", partition=0, committed_offset=40, log_start_offset=10, log_end_offset=100, lag=60),
        dict(topic="a", partition=1, committed_offset=None, log_start_offset=0, log_end_offset=0, lag=None),
        dict(topic="b", partition=0, committed_offset=60, log_start_offset=5, log_end_offset=50, lag=0),
    ]
    assert total == 60
    assert offsets_by_topic({A1: 3, A0: None, B0: 5}) == {"a": {"0": None, "1": 3}, "b": {"0": 5}}


def test_members_in_words():
    members = [dict(member_id="m-1", client_id="billing", host="/10.0.0.5", group_instance_id=None),
               dict(member_id="m-2", client_id="billing", host="/10.0.0.6", group_instance_id="pod-2")]
    assert describe_members(members) == (
        "member m-1 (client id 'billing', host /10.0.0.5); member m-2 (client id 'billing', host /10.0.0.6, "
        "instance pod-2)")
