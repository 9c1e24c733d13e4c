#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: kafkaops.cluster developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function


DOCUMENTATION = r"""
---
module: kafka_cluster_info
short_description: Read a Kafka cluster's brokers, topics, replicas, reassignments and sizes
version_added: "0.1.0"
description:
  - Returns the cluster id, the controller, the live brokers (id, host, port, rack) and the fenced ones; whether the
    cluster runs in KRaft or ZooKeeper mode and, in KRaft mode, its metadata quorum (leader, voters,
    observers and how far each is behind); per topic the
    partitions with leader, replicas and in-sync replicas; the under-replicated and offline partitions;
    and the reassignments in progress.
  - Totals over the partitions read (C(summary)) and the partitions with a problem by kind, so a large
    cluster can be checked without listing every partition (O(partitions=problems) or O(partitions=none)).
  - Optionally the configs set on each topic, the size of every partition replica on disk
    (DescribeLogDirs), the replication throttles set on brokers and topics, and the consumer groups.
  - Optionally the TLS certificate each live broker serves, with its expiry, warning of those that expire soon.
  - Speaks the Kafka protocol through kafka-python's admin client, in a few batched requests.
  - Only reads, so it never reports a change and runs the same in check mode.
author:
  - kafkaops.cluster developers (@kafkaops)
extends_documentation_fragment:
  - kafkaops.cluster.kafka_connection
  - kafkaops.cluster.read_only
options:
  topics:
    description:
      - Topics to describe, by name or shell-style pattern (an item with C(*), C(?) or C([), for example
        C(orders-*)). Empty means every topic (internal ones only with O(include_internal)).
      - Only these topics are described, counted in C(summary) and, with O(include_configs) or
        O(include_sizes), asked for configs and sizes.
      - A named topic that does not exist is an error naming it. A pattern that matches no topic is not
        an error, it adds nothing.
      - With a pattern, every topic's metadata is read (Kafka has no request for topic names alone) and
        the choice is made in the module; with names only, only those topics are read.
    type: list
    elements: str
    default: []
  include_internal:
    description:
      - Also describe internal topics such as C(__consumer_offsets) when O(topics) is empty or one of its
        patterns matches them. An internal topic named in O(topics) is always described.
    type: bool
    default: false
  partitions:
    description:
      - Which partitions C(topics) lists.
      - V(all) lists every partition of every topic.
      - V(problems) lists only the partitions with a problem, each with C(problems), the kinds it has,
        C(offline) (no leader), C(under_replicated) (fewer in-sync replicas than replicas),
        C(reassigning) (a reassignment of it is in progress) and C(leader_not_preferred) (led by a
        replica other than the first, the one a preferred leader election chooses); a topic without
        such a partition is left out of C(topics).
      - V(none) lists no partitions, only each topic's counts (and C(config) and C(size_bytes) when asked).
      - C(summary) and the lists of problem partitions always count every partition of the topics read,
        whatever this option says.
      - A partition below its topic's C(min.insync.replicas) is also under-replicated (the setting is at
        most the replication factor for producers to work at all), so it is among the problems; the
        module does not read that setting to tell it apart.
    type: str
    choices: [all, problems, none]
    default: all
    version_added: "0.3.0"
  include_configs:
    description: Also return, per topic returned, the configs set on the topic itself (C(config)).
    type: bool
    default: false
  include_sizes:
    description:
      - Also return, per partition listed, the bytes each replica holds on its broker (C(sizes)), and per
        topic returned its C(size_bytes).
      - Sizes are asked only for the topics returned, from every broker (DescribeLogDirs).
      - From the same answer, per broker and log dir the bytes of those topics it holds and its volume's
        total and usable bytes (RV(log_dirs)).
    type: bool
    default: false
  include_throttles:
    description:
      - Also return the replication throttles set now (C(throttles)) on the live brokers and on the topics
        described - those a reassignment sets, and leaves behind when it does not end cleanly.
    type: bool
    default: false
    version_added: "0.3.0"
  include_consumer_groups:
    description:
      - Also return every consumer group the brokers coordinate (C(consumer_groups)), with its state.
      - The lag of one group is what M(kafkaops.cluster.kafka_consumer_group) reads.
    type: bool
    default: false
    version_added: "0.3.0"
  include_certificates:
    description:
      - Also return the certificate each live broker serves (RV(certificates)), when O(security_protocol) is
        V(SSL) or V(SASL_SSL) - one TLS handshake to each broker's advertised address on the listener the module
        connects through, from where the module runs.
      - The certificate is verified as the connection verifies it (O(ssl_cafile), or the system's CAs without
        one; the host name unless O(ssl_check_hostname=false)). One that fails verification is still read,
        with C(verified=false) and why; that is how a wrong or expired certificate shows.
      - A broker whose certificate cannot be read (no handshake from here) is listed with C(error) and warned of.
      - With any other O(security_protocol) the brokers serve no certificate there, and the lists are empty.
      - Read with the standard library only; no package beyond kafka-python is needed.
    type: bool
    default: false
    version_added: "0.5.0"
  certificate_warn_days:
    description:
      - With O(include_certificates), a certificate that expires within this many days (or has expired) is
        also listed in RV(certificates_expiring) and warned of, naming the broker, its address, the
        certificate's subject and the date.
      - At least 0.
    type: int
    default: 30
    version_added: "0.5.0"
seealso:
  - module: kafkaops.cluster.kafka_topic
  - module: kafkaops.cluster.kafka_consumer_group
"""

EXAMPLES = r"""
- name: Read the cluster
  kafkaops.cluster.kafka_cluster_info:
    bootstrap_servers: [kafka1:9092]
  register: cluster

- name: Stop if any partition is under-replicated
  ansible.builtin.assert:
    that: cluster.under_replicated_partitions | length == 0
    fail_msg: "under-replicated: {{ cluster.under_replicated_partitions | join(', ') }}"

- name: Only what needs attention, on a cluster of many partitions
  kafkaops.cluster.kafka_cluster_info:
    bootstrap_servers: [kafka1:9092]
    partitions: problems
  register: cluster

- name: Stop if any partition has no leader or too few in-sync replicas
  ansible.builtin.assert:
    that: cluster.summary.offline == 0 and cluster.summary.under_replicated == 0
    fail_msg: "{{ cluster.topics | to_nice_json }}"

- name: Per-topic counts and sizes of the orders topics, without the partition lists
  kafkaops.cluster.kafka_cluster_info:
    bootstrap_servers: [kafka1:9092]
    topics: ["orders-*"]
    partitions: none
    include_sizes: true

- name: Sizes of two topics' partitions and their topic-level configs
  kafkaops.cluster.kafka_cluster_info:
    bootstrap_servers: [kafka1:9092]
    topics: [orders, payments]
    include_sizes: true
    include_configs: true

- name: Stop if a reassignment left a replication throttle set
  kafkaops.cluster.kafka_cluster_info:
    bootstrap_servers: [kafka1:9092]
    include_throttles: true
  register: throttled
  failed_when: throttled.throttles.brokers or throttled.throttles.topics

- name: Warn of broker certificates that expire within 60 days
  kafkaops.cluster.kafka_cluster_info:
    bootstrap_servers: [kafka1:9093]
    security_protocol: SSL
    ssl_cafile: /etc/kafkaops/ca.crt
    partitions: none
    include_certificates: true
    certificate_warn_days: 60
  register: served
"""

RETURN = r"""
cluster_id:
  description: The cluster's id.
  returned: always
  type: str
  sample: g0rjzhLITpCuyBKXIGf2BA
controller_id:
  description:
    - Id of the controller broker in ZooKeeper mode. In KRaft mode brokers name one of the brokers here
      (clients' requests for the controller go to it and are forwarded); the active controller is
      C(quorum.leader_id).
  returned: always
  type: int
  sample: 2
mode:
  description:
    - C(kraft) when the brokers answer DescribeQuorum (they advertise it in ApiVersions), else C(zookeeper).
    - C(mixed) part-way through a ZooKeeper-to-KRaft migration, when a broker that advertised it sent the request
      on to one that does not serve it (some brokers still in ZooKeeper mode); RV(quorum) is then null.
  returned: always
  type: str
  sample: kraft
quorum:
  description:
    - In KRaft mode, the metadata quorum; null in ZooKeeper mode.
    - C(leader_id), C(leader_epoch) and C(high_watermark) of the metadata log, and C(voters) and C(observers)
      (brokers, and controllers not yet voters), each a list of C(id), C(log_end_offset), C(lag) (records
      behind the high watermark; null when unknown) and C(last_caught_up_timestamp) (milliseconds; -1 when
      unknown), sorted by id.
  returned: always
  type: dict
  sample: {leader_id: 3001, leader_epoch: 4, high_watermark: 812,
           voters: [{id: 3001, log_end_offset: 812, lag: 0, last_caught_up_timestamp: 1795488553590}],
           observers: [{id: 1, log_end_offset: 812, lag: 0, last_caught_up_timestamp: -1}]}
brokers:
  description: Live brokers, sorted by id.
  returned: always
  type: list
  elements: dict
  sample: [{id: 1, host: kafka1, port: 9092, rack: rack-a}]
fenced_brokers:
  description:
    - Ids of the brokers the KRaft controllers keep registered but fenced (stopped, or without a session), sorted.
      They serve nothing and are not in RV(brokers); they stay until they come back or are unregistered
      (the kafkaops.cluster.decommission playbook unregisters the brokers it takes out). Always empty in ZooKeeper mode.
  returned: always
  type: list
  elements: int
  sample: [4]
topics:
  description:
    - Per topic name, C(partition_count), C(replication_factor) and C(partitions), a list of
      C(partition), C(leader) (-1 when offline), C(replicas), C(isr) and C(offline_replicas).
    - With O(partitions=problems), only the topics with a problem partition, each listing only those
      partitions, each with C(problems) (its kinds, see O(partitions)); C(partition_count) still counts all.
    - With O(partitions=none), no C(partitions).
    - With O(include_configs), C(config) holds the configs set on the topic.
    - With O(include_sizes), each listed partition has C(sizes), bytes per broker id, and the topic
      C(size_bytes), the sum over all its partitions' replicas.
  returned: always
  type: dict
  sample: {myTopic: {partition_count: 1, replication_factor: 3,
           partitions: [{partition: 0, leader: 1, replicas: [1, 2, 3], isr: [1, 2, 3], offline_replicas: []}]}}
summary:
  description:
    - Counts over every partition of the topics read (all topics, or those of O(topics)), whatever
      O(partitions) lists.
    - C(topics), C(partitions), C(replicas); C(problem_partitions), the partitions with any problem; and
      per kind of problem (see O(partitions)) C(offline), C(under_replicated), C(reassigning) and
      C(leader_not_preferred), the partitions of that kind.
  returned: always
  type: dict
  version_added: "0.3.0"
  sample: {topics: 2, partitions: 100, replicas: 300, problem_partitions: 1, offline: 0, under_replicated: 1,
           reassigning: 0, leader_not_preferred: 0}
under_replicated_partitions:
  description: Partitions (C(topic-partition)) with fewer in-sync replicas than replicas, among the topics read.
  returned: always
  type: list
  elements: str
offline_partitions:
  description: Partitions (C(topic-partition)) without a leader, among the topics read.
  returned: always
  type: list
  elements: str
leader_not_preferred_partitions:
  description:
    - Partitions (C(topic-partition)) led by a replica other than their first (preferred) one, among the
      topics read. A preferred leader election moves their leadership back.
  returned: always
  type: list
  elements: str
  version_added: "0.3.0"
reassignments:
  description:
    - Reassignments in progress, each with C(topic), C(partition), C(replicas), C(adding_replicas)
      and C(removing_replicas), of the topics read.
  returned: always
  type: list
  elements: dict
log_dirs:
  description:
    - One entry per live broker and log dir, sorted by broker and dir, read with the partition sizes
      (DescribeLogDirs), each with C(broker), C(log_dir) (its path), C(bytes) (what the dir holds of the topics
      returned, replicas still being copied between dirs left out), C(total_bytes) and C(usable_bytes) (of the
      volume the dir is on; null when the broker does not report them, before Kafka 3.3) and C(error_code)
      (Kafka's error for the dir, 0 when it is fine; 56, KAFKA_STORAGE_ERROR, when it is offline).
    - Empty when no topic is returned (the request then is not sent).
  returned: when O(include_sizes)
  type: list
  elements: dict
  version_added: "0.5.0"
  sample: [{broker: 1, log_dir: /var/lib/kafka/data, bytes: 52428800, total_bytes: 107374182400,
            usable_bytes: 64424509440, error_code: 0}]
throttles:
  description:
    - The replication throttles set now. C(brokers) - each C(id) and C(configs), the throttle rates set on
      it (C(leader.replication.throttled.rate), C(follower.replication.throttled.rate), bytes per second),
      on that broker or as the cluster-wide default. C(topics) - each C(topic) and C(configs), its throttled
      replicas (C(leader.replication.throttled.replicas), C(follower.replication.throttled.replicas)).
    - Only brokers and topics with something set are listed.
  returned: when O(include_throttles)
  type: dict
  sample: {brokers: [{id: 1, configs: {leader.replication.throttled.rate: "10485760"}}],
           topics: [{topic: orders, configs: {follower.replication.throttled.replicas: "0:4"}}]}
certificates:
  description:
    - With O(include_certificates), one entry per live broker, sorted by id - C(broker), C(address) (the
      advertised C(host:port) the handshake went to), C(subject) and C(issuer) (RFC 4514, such as C(CN=kafka1)),
      C(serial) (upper-case hex), C(not_before) and C(not_after) (ISO 8601, UTC), C(days_left) (whole days until
      C(not_after), negative once expired), C(expiring) (within O(certificate_warn_days)), C(verified) (whether
      the certificate passed the connection's verification) and C(verify_error) (why not; null when verified).
    - A broker whose certificate could not be read has only C(broker), C(address) and C(error).
    - Empty when O(security_protocol) is not V(SSL) or V(SASL_SSL).
  returned: when O(include_certificates)
  type: list
  elements: dict
  version_added: "0.5.0"
  sample: [{broker: 1, address: "kafka1:9093", subject: CN=kafka1, issuer: CN=kafkaops.cluster CA,
            serial: 3A0F9C21, not_before: "2026-01-05T10:00:00Z", not_after: "2028-04-10T10:00:00Z",
            days_left: 822, expiring: false, verified: true, verify_error: null}]
certificates_expiring:
  description: The entries of RV(certificates) that expire within O(certificate_warn_days) or have expired.
  returned: when O(include_certificates)
  type: list
  elements: dict
  version_added: "0.5.0"
consumer_groups:
  description:
    - Every consumer group, sorted by name, each C(group), C(state) (such as V(Stable) or V(Empty); null when
      the brokers do not tell it) and C(protocol_type) (V(consumer) for consumers).
  returned: when O(include_consumer_groups)
  type: list
  elements: dict
  sample: [{group: billing, state: Stable, protocol_type: consumer}]
"""

from ansible_collections.kafkaops.cluster.plugins.module_utils._admin_module import KafkaAdminModule
from ansible_collections.kafkaops.cluster.plugins.module_utils._cluster import (
    PARTITION_VIEWS,
    check_cluster_info_inputs,
    run_cluster_info,
)
from ansible_collections.kafkaops.cluster.plugins.module_utils._option_limits import NumberLimit

ARGUMENT_SPEC = dict(
    topics=dict(type="list", elements="str", default=[]),
    include_internal=dict(type="bool", default=False),
    partitions=dict(type="str", choices=list(PARTITION_VIEWS), default="all"),
    include_configs=dict(type="bool", default=False),
    include_sizes=dict(type="bool", default=False),
    include_throttles=dict(type="bool", default=False),
    include_consumer_groups=dict(type="bool", default=False),
    include_certificates=dict(type="bool", default=False),
    certificate_warn_days=dict(type="int", default=30),
)
LIMITS = dict(certificate_warn_days=NumberLimit(minimum=0))


def main():
    KafkaAdminModule(ARGUMENT_SPEC, limits=LIMITS).run(run_cluster_info, check_inputs=check_cluster_info_inputs)


if __name__ == "__main__":
    main()
