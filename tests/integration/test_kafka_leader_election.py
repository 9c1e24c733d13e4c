"""kafka_leader_election against a live cluster (at least 3 brokers).

A partition's replicas are put in another order without electing (kafka_reassignment with elect_leaders:
false), so its leader is no longer its first replica; the module then elects it in four passes (check mode,
real, check mode again, real again: the last two change nothing) and the leader is the first replica. A
partition that does not exist is refused before any election. Unclean elections need a partition without an
in-sync replica alive, which a shared test cluster cannot spare: the unit tests cover them.
"""

import uuid

import pytest


@pytest.fixture
def reordered(kafka, cluster):
    """(topic, partition) whose leader is not its first replica any more."""
    name = "it-elect-%s" % uuid.uuid4().hex[:8]
    made = kafka("kafka_topic", name=name, partitions=3, replication_factor=3)
    assert made.changed, made.output
    replicas = cluster.replicas(name)[1]
    turned = replicas[1:] + replicas[:1]
    moved = kafka("kafka_reassignment", plan={"version": 1, "partitions": [
        {"topic": name, "partition": 1, "replicas": turned}]}, elect_leaders=False, poll_interval=0.2)
    assert not moved.failed and moved["moved"] == 1, moved.output
    assert cluster.replicas(name)[1] == turned
    yield name, 1
    kafka("kafka_topic", name=name, state="absent")


def _leader(cluster, topic, partition):
    described = cluster.admin.describe_topics([topic])[0]["partitions"]
    return next(item["leader_id"] for item in described if item["partition_index"] == partition)


def test_the_preferred_leader_is_elected_in_four_passes(kafka, cluster, reordered):
    topic, partition = reordered
    preferred = cluster.replicas(topic)[partition][0]
    before = _leader(cluster, topic, partition)
    assert before != preferred
    scope = dict(topics=[topic])
    predicted = kafka("kafka_leader_election", check=True, diff=True, **scope)
    assert not predicted.failed and predicted.changed, predicted.output
    assert predicted["elected"] == ["%s-%d" % (topic, partition)] and predicted["not_eligible"] == []
    assert predicted["diff"]["after"] == {"%s-%d" % (topic, partition): preferred}
    assert _leader(cluster, topic, partition) == before
    applied = kafka("kafka_leader_election", diff=True, **scope)
    assert not applied.failed and applied.changed and applied["elected"] == predicted["elected"], applied.output
    assert applied["diff"] == predicted["diff"]
    assert _leader(cluster, topic, partition) == preferred
    for check in (True, False):
        again = kafka("kafka_leader_election", check=check, **scope)
        assert not again.failed and not again.changed and again["elected"] == [], again.output


@pytest.mark.parametrize("arguments, field", [
    (dict(partitions=[{"topic": "it-elect-missing", "partition": 0}]), "partitions[0].topic"),
    (dict(topics=["it-elect-missing"]), "topics[0]"),
])
def test_what_does_not_exist_is_refused_naming_the_field(kafka, cluster, reordered, arguments, field):
    topic, partition = reordered
    before = _leader(cluster, topic, partition)
    for check in (True, False):
        refused = kafka("kafka_leader_election", check=check, **arguments)
        assert refused.failed and refused["field"] == field, refused.output
        assert refused["msg"].startswith(field + ": ") and "does not exist" in refused["msg"], refused["msg"]
    assert _leader(cluster, topic, partition) == before
