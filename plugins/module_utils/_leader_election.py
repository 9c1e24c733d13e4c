# -*- coding: utf-8 -*-
# Copyright: kafkaops.cluster developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Leader elections for the module kafka_leader_election: which partitions need one, then the request.

choose_elections() is plain data in, plain data out (unit-tested on its own); run_leader_election() reads the
partitions (one Metadata request), asks for the elections chosen (one ElectLeaders request) and fills the
module's result.

A preferred election makes each partition's first replica its leader again, where it is in sync: after a
restart or a reassignment leadership piles up on the brokers that stayed, and the election spreads it back
without moving data. An unclean election gives a partition that has no leader (no in-sync replica alive) a
leader among its live replicas that are out of sync: the partition serves again, and the records only the lost
in-sync replicas held are gone. That is why it is only done when asked by name (election_type: unclean).
"""

from __future__ import absolute_import, division, print_function

from ansible_collections.kafkaops.cluster.plugins.module_utils._cluster import read_topics
from ansible_collections.kafkaops.cluster.plugins.module_utils._input_errors import InputError
from ansible_collections.kafkaops.cluster.plugins.module_utils._kafka_admin import KafkaAdminError, error_name

# Kafka's ElectionType values in the ElectLeaders request.
ELECTION_TYPES = {"preferred": 0, "unclean": 1}
# The setting that makes Kafka elect a replica out of sync on its own, for a topic, a broker or the cluster.
UNCLEAN_ELECTION_SETTING = "unclean.leader.election.enable"


def unclean_declared(config):
    """Whether settings ({name: value as text}) turn UNCLEAN_ELECTION_SETTING on: Kafka reads true in any case."""
    return str(config.get(UNCLEAN_ELECTION_SETTING)).strip().lower() == "true"


def unclean_setting_warning(where):
    """The warning for UNCLEAN_ELECTION_SETTING declared true at where ("the cluster-wide default", "topic orders").

    The modules that set it (kafka_broker_config, kafka_topic) give it every run the declaration asks for it, so
    that a playbook that turns it on never does so quietly; the collection itself never does."""
    return ("%s: %s=true lets a replica that is out of sync become leader when no in-sync one is left, and the "
            "records only the in-sync replicas held, acknowledged ones included, are then gone for good"
            % (where, UNCLEAN_ELECTION_SETTING))


# ELECTION_NOT_NEEDED: the partition has the leader the election would give it already.
_NOT_NEEDED = 84


class ElectionInputError(InputError):
    """An option is wrong; field names it, such as partitions[2].partition."""


def check_election_inputs(module):
    """The partitions asked for, checked before connecting: [(topic, partition)] (empty: every partition)."""
    params = module.params
    asked = []
    for index, entry in enumerate(params["partitions"] or []):
        where = "partitions[%d]" % index
        topic, partition = entry.get("topic"), entry.get("partition")
        if not isinstance(topic, str) or not topic:
            raise ElectionInputError(where + ".topic", "a topic name is required")
        if isinstance(partition, bool) or not isinstance(partition, int) or partition < 0:
            raise ElectionInputError(where + ".partition", "must be a partition number (0 or more), not %r"
                                     % (partition,))
        asked.append((topic, partition))
    for index, topic in enumerate(params["topics"] or []):
        if not topic:
            raise ElectionInputError("topics[%d]" % index, "a topic name is required")
    return asked


def choose_elections(partitions_by_topic, election_type, asked=(), topics=()):
    """(elections, not_eligible) for the partitions in scope.

    partitions_by_topic: read_topics() output. asked: (topic, partition) pairs; topics: names whose every
    partition is in scope; neither: every partition. elections: [{"partition": "t-p", "topic", "number",
    "leader" (now, -1 for none), "new_leader" (the preferred replica; for unclean, None: the controller picks)}]
    of the partitions that need the election and can have it; not_eligible: [{"partition", "reason"}] of those
    that need it and cannot. A partition that needs nothing is in neither.
    Raises ElectionInputError naming the entry for a partition that does not exist.
    """
    scope = []
    if asked or topics:
        for index, (topic, number) in enumerate(asked):
            known = dict((item["partition"], item) for item in partitions_by_topic.get(topic, []))
            if topic not in partitions_by_topic:
                raise ElectionInputError("partitions[%d].topic" % index, "topic %r does not exist" % (topic,))
            if number not in known:
                raise ElectionInputError("partitions[%d].partition" % index, "%s has partitions 0-%d, not %d"
                                         % (topic, len(known) - 1, number))
            scope.append((topic, known[number]))
        for topic in topics:
            scope.extend((topic, item) for item in partitions_by_topic.get(topic, []))
    else:
        scope = [(topic, item) for topic, items in sorted(partitions_by_topic.items()) for item in items]

    elections, not_eligible, seen = [], [], set()
    for topic, item in scope:
        key = (topic, item["partition"])
        if key in seen:
            continue
        seen.add(key)
        name = "%s-%d" % key
        replicas, isr = item["replicas"], item["isr"]
        offline = set(item.get("offline_replicas") or [])
        if election_type == "preferred":
            if not replicas or item["leader"] == replicas[0]:
                continue
            if replicas[0] not in isr or replicas[0] in offline:
                not_eligible.append(dict(partition=name, reason="its preferred replica, broker %d, is not in sync"
                                         % replicas[0]))
                continue
            elections.append(dict(partition=name, topic=topic, number=item["partition"], leader=item["leader"],
                                  new_leader=replicas[0]))
        else:
            if item["leader"] >= 0:
                continue
            if not [broker for broker in replicas if broker not in offline]:
                not_eligible.append(dict(partition=name, reason="none of its replicas (brokers %s) is alive"
                                         % ", ".join(map(str, replicas))))
                continue
            elections.append(dict(partition=name, topic=topic, number=item["partition"], leader=item["leader"],
                                  new_leader=None))
    return elections, not_eligible


def elect(client, election_type, elections, timeout_ms):
    """Ask for the elections; returns [{"partition", "error"}] of those that failed (none needed counts as done)."""
    by_topic = {}
    for election in elections:
        by_topic.setdefault(election["topic"], []).append(election["number"])
    response = client.elect_leaders(ELECTION_TYPES[election_type], by_topic, timeout_ms=timeout_ms,
                                    raise_errors=False)
    top_error = getattr(response, "error_code", 0)
    if top_error:
        raise KafkaAdminError("the %s leader election was refused: %s" % (election_type, error_name(top_error)))
    failed = []
    for result in getattr(response, "replica_election_results", []) or []:
        for partition in result.partition_result:
            if partition.error_code not in (0, _NOT_NEEDED):
                failed.append(dict(partition="%s-%d" % (result.topic, partition.partition_id),
                                   error=error_name(partition.error_code)))
    return failed


def run_leader_election(module, client, asked):
    """kafka_leader_election: choose, then elect unless in check mode, filling module.result."""
    params, result = module.params, module.result
    topics = list(params["topics"] or [])
    wanted = sorted(set(topics) | set(topic for topic, unused in asked))
    partitions = read_topics(client, wanted or None, include_internal=not wanted, missing_ok=True)
    for index, topic in enumerate(topics):
        if topic not in partitions:
            raise ElectionInputError("topics[%d]" % index, "topic %r does not exist" % (topic,))
    elections, not_eligible = choose_elections(partitions, params["election_type"], asked, topics)
    result.update(changed=bool(elections), elected=[election["partition"] for election in elections],
                  not_eligible=not_eligible)
    if module.diff:
        result["diff"] = dict(
            before=dict((election["partition"], election["leader"]) for election in elections),
            after=dict((election["partition"], election["new_leader"] if election["new_leader"] is not None
                        else "a live replica the controller picks") for election in elections))
    if params["election_type"] == "unclean" and elections:
        module.warn("unclean leader election for %s: each gets a leader that was not in sync, and the records only "
                    "its lost in-sync replicas held are gone for good" % ", ".join(result["elected"]))
    if module.check_mode or not elections:
        return
    failed = elect(client, params["election_type"], elections, params["request_timeout"] * 1000)
    if failed:
        result["failed_elections"] = failed
        raise KafkaAdminError("the %s leader election failed for %s" % (
            params["election_type"], ", ".join("%s (%s)" % (entry["partition"], entry["error"]) for entry in failed)))
