"""A fake Kafka cluster of plain data, and a way to run an admin module's main() against it.

The admin modules' run functions take a client; here the client is a FakeAdminClient that answers
from a FakeCluster (brokers, topics, configs, moves in progress) and records every request, so a
test can say which requests a run sent, in check mode none that writes. Writes change the data, so
a second run sees what the first one did. No network, no Kafka.
"""

from types import SimpleNamespace

import pytest
from ansible.module_utils import basic
from ansible.module_utils.testing import patch_module_args
from ansible_collections.kafkaops.cluster.plugins.module_utils._admin_module import KafkaAdminModule
from kafka import TopicPartition
from kafka.admin import ConfigResourceType, ScramMechanism
from kafka.errors import KafkaConnectionError
from kafka.protocol.admin import AlterUserScramCredentialsRequest

# Kafka's protocol error codes the fake answers with.
UNKNOWN_TOPIC = 3
TOPIC_ALREADY_EXISTS = 36
INVALID_CONFIG = 40
NO_REASSIGNMENT_IN_PROGRESS = 85
UNACCEPTABLE_CREDENTIAL = 93
# DUPLICATE_RESOURCE: a request that names one user twice.
DUPLICATE_RESOURCE = 92
# Requests that change the cluster (unless sent with validate_only).
WRITES = frozenset(["create_topics", "create_partitions", "alter_configs", "delete_topics",
                    "alter_partition_reassignments", "elect_leaders"])
THROTTLE_LIST_KEYS = ("leader.replication.throttled.replicas", "follower.replication.throttled.replicas")


class FakeCluster:
    """The state of a cluster as plain data, shared by the clients connected to it.

    brokers: {broker id: rack or None}. topics: {name: {partition: [replicas]}}, the first replica
    leading. defaults: the config every topic inherits; overrides: {topic: {key: value}} set on
    topics. broker_defaults: what every broker reports for a key not set dynamically (Kafka's defaults);
    broker_configs: {broker id: {key: value}} set dynamically; configs_refused: brokers whose
    DescribeConfigs fails (a broker that does not answer). moving: {(topic, partition):
    target replicas} in progress. sizes: {topic: bytes each replica of each partition holds}.
    isr: {(topic, partition): in-sync replicas} of the partitions not fully in sync, set by a test;
    one with none in sync has no leader (offline); the leader is the first of them. offline:
    {(topic, partition): brokers} whose replica of it is on a failed log dir, set by a test. Topics
    named __* are internal, as Kafka's own are.
    """

    def __init__(self, brokers=(1, 2, 3), topics=None, overrides=None, moving=None, sizes=None, disks=None):
        self.brokers = brokers if isinstance(brokers, dict) else dict((broker, None) for broker in brokers)
        self.topics = dict((name, dict(partitions)) for name, partitions in (topics or {}).items())
        self.defaults = {"retention.ms": "604800000", "cleanup.policy": "delete", "min.insync.replicas": "1",
                         "unclean.leader.election.enable": "false"}
        self.overrides = dict((name, dict(configs)) for name, configs in (overrides or {}).items())
        self.broker_defaults = {"log.segment.delete.delay.ms": "60000"}
        self.broker_configs = {}
        self.configs_refused = set()
        self.moving = dict(moving or {})
        # KRaft: registered brokers that are stopped (DescribeCluster v2 lists them with is_fenced).
        self.fenced = set()
        self.sizes = dict(sizes or {})
        # {broker: (total bytes, usable bytes)} of its one log dir, as Kafka 3.3+ reports them; else -1.
        self.disks = dict(disks or {})
        # Brokers that refuse DescribeLogDirs (a login without Describe on the Cluster): they list no log dir.
        self.log_dirs_refused = set()
        self.isr = {}
        self.offline = {}
        # A KRaft cluster's DescribeQuorum answer, in kafka-python's shape; None in ZooKeeper mode.
        self.quorum = None
        self.calls = []
        self.clients = []

    # What a cluster of this kind answers with (set once the client classes exist) and the requests
    # that change it: the ACL, SCRAM and group clusters below extend both.
    client_class = None
    write_names = WRITES

    def connect(self):
        client = self.client_class(self)
        self.clients.append(client)
        return client

    def writes(self):
        """The requests that changed something: (name, arguments) without those sent with validate_only."""
        return [(name, arguments) for name, arguments in self.calls
                if name in self.write_names and not arguments.get("validate_only")]

    def requests(self, name):
        return [arguments for called, arguments in self.calls if called == name]

    def assignment(self):
        return dict((name, dict(partitions)) for name, partitions in self.topics.items())

    def replicas_for_new_partition(self, index, replication_factor):
        ids = sorted(self.brokers)
        return [ids[(index + offset) % len(ids)] for offset in range(replication_factor)]


class FakeAdminClient:
    """Answers the admin requests the collection sends, in kafka-python's shapes, from a FakeCluster."""

    def __init__(self, cluster):
        self.cluster = cluster
        self.closed = False

    def _record(self, name, **arguments):
        self.cluster.calls.append((name, arguments))

    def close(self):
        self.closed = True

    # ---- reads

    def api_versions(self):
        """The API keys the brokers advertise; a KRaft cluster's include DescribeQuorum (55)."""
        return dict((key, (0, 2)) for key in ([0, 1, 3, 18, 19] + ([55] if self.cluster.quorum else [])))

    def describe_metadata_quorum(self):
        self._record("describe_metadata_quorum")
        return self.cluster.quorum

    def describe_cluster(self):
        self._record("describe_cluster")
        return dict(cluster_id="fake-cluster", controller_id=min(self.cluster.brokers),
                    brokers=[dict(broker_id=broker, host="kafka%d" % broker, port=9092, rack=rack,
                                  is_fenced=broker in self.cluster.fenced)
                             for broker, rack in self.cluster.brokers.items()])

    def describe_topics(self, topics=None):
        self._record("describe_topics", topics=topics)
        described = []
        for name in (topics if topics is not None else sorted(self.cluster.topics)):
            partitions = self.cluster.topics.get(name)
            if partitions is None:
                described.append(dict(name=name, error_code=UNKNOWN_TOPIC, is_internal=False, partitions=[]))
                continue
            described.append(dict(name=name, error_code=0, is_internal=name.startswith("__"), partitions=[
                dict(partition_index=index, leader_id=(isr[0] if isr else -1), replica_nodes=list(replicas),
                     isr_nodes=list(isr), offline_replicas=list(self.cluster.offline.get((name, index), [])))
                for index, replicas, isr in ((index, replicas, self.cluster.isr.get((name, index), replicas))
                                             for index, replicas in sorted(partitions.items()))]))
        return described

    def describe_configs(self, resources, config_filter=None):
        self._record("describe_configs", resources=[(resource.resource_type, resource.name) for resource in resources])
        described = {}
        for resource in resources:
            if resource.resource_type == ConfigResourceType.TOPIC:
                entries = dict((key, dict(value=value, config_source="DEFAULT_CONFIG"))
                               for key, value in self.cluster.defaults.items())
                entries.update((key, dict(value=value, config_source="DYNAMIC_TOPIC_CONFIG"))
                               for key, value in self.cluster.overrides.get(resource.name, {}).items())
                described.setdefault("topic", {})[resource.name] = entries
            else:
                if int(resource.name) in self.cluster.configs_refused:
                    raise KafkaConnectionError("broker %s did not answer" % resource.name)
                entries = dict((key, dict(value=value, config_source="DEFAULT_CONFIG"))
                               for key, value in self.cluster.broker_defaults.items())
                entries.update((key, dict(value=value, config_source="DYNAMIC_BROKER_CONFIG"))
                               for key, value in self.cluster.broker_configs.get(int(resource.name), {}).items())
                described.setdefault("broker", {})[resource.name] = entries
            if resource.configs is not None:
                # Asked for some keys only: the broker answers those.
                held = described["topic" if resource.resource_type == ConfigResourceType.TOPIC else "broker"]
                held[resource.name] = dict((key, entry) for key, entry in held[resource.name].items()
                                           if key in resource.configs)
        return described

    def list_partition_reassignments(self):
        self._record("list_partition_reassignments")
        ongoing = {}
        for (topic, partition), target in self.cluster.moving.items():
            current = self.cluster.topics[topic][partition]
            ongoing[TopicPartition(topic, partition)] = dict(
                replicas=target + [broker for broker in current if broker not in target],
                adding_replicas=[broker for broker in target if broker not in current],
                removing_replicas=[broker for broker in current if broker not in target])
        return ongoing

    def describe_log_dirs(self, topics=None):
        self._record("describe_log_dirs", topics=topics)
        by_broker = dict((broker, {}) for broker in self.cluster.brokers)
        # topics: names (every partition of each), {name: [partitions]}, or None for every topic.
        for name in topics or sorted(self.cluster.topics):
            wanted = topics[name] if isinstance(topics, dict) else None
            for partition, replicas in sorted(self.cluster.topics.get(name, {}).items()):
                if wanted is not None and partition not in wanted:
                    continue
                # A broker that is gone answers nothing.
                for broker in (broker for broker in replicas if broker in by_broker):
                    by_broker[broker].setdefault(name, []).append(dict(
                        partition_index=partition, partition_size=self.cluster.sizes.get(name, 0),
                        is_future_key=False))
        return [dict(broker=broker, log_dirs=[] if broker in self.cluster.log_dirs_refused else [
            dict(error_code=0, log_dir="/var/lib/kafka/data",
                 topics=[dict(name=name, partitions=partitions) for name, partitions in sorted(held.items())],
                 total_bytes=self.cluster.disks.get(broker, (-1, -1))[0],
                 usable_bytes=self.cluster.disks.get(broker, (-1, -1))[1])])
                for broker, held in sorted(by_broker.items())]

    # ---- writes

    def _config_problem(self, key):
        if key not in self.cluster.defaults and key not in THROTTLE_LIST_KEYS:
            return "Unknown topic config name: %s" % key
        return None

    def create_topics(self, topics, timeout_ms=None, validate_only=False, raise_errors=True):
        self._record("create_topics", topics=sorted(topics), validate_only=validate_only)
        answers = []
        for name, settings in sorted(topics.items()):
            problems = [self._config_problem(key) for key in settings["configs"]]
            problems = [problem for problem in problems if problem]
            if name in self.cluster.topics:
                answers.append(dict(name=name, error_code=TOPIC_ALREADY_EXISTS,
                                    error_message="Topic '%s' already exists." % name))
            elif problems:
                answers.append(dict(name=name, error_code=INVALID_CONFIG, error_message=problems[0]))
            else:
                answers.append(dict(name=name, error_code=0, error_message=None))
                if not validate_only:
                    count = settings["num_partitions"] if settings["num_partitions"] > 0 else 1
                    factor = settings["replication_factor"] if settings["replication_factor"] > 0 else 1
                    self.cluster.topics[name] = dict((index, self.cluster.replicas_for_new_partition(index, factor))
                                                     for index in range(count))
                    self.cluster.overrides[name] = dict(settings["configs"])
        return dict(topics=answers)

    def create_partitions(self, counts, timeout_ms=None, validate_only=False, raise_errors=True):
        self._record("create_partitions", counts=dict(counts), validate_only=validate_only)
        if not validate_only:
            for name, count in counts.items():
                partitions = self.cluster.topics[name]
                factor = len(partitions[0])
                for index in range(len(partitions), count):
                    partitions[index] = self.cluster.replicas_for_new_partition(index, factor)
        return SimpleNamespace(results=[SimpleNamespace(name=name, error_code=0, error_message=None)
                                        for name in sorted(counts)])

    def alter_configs(self, resources, validate_only=False, raise_on_unknown=True, incremental=False):
        self._record("alter_configs", validate_only=validate_only, changes=[
            (resource.resource_type, resource.name, dict(resource.configs)) for resource in resources])
        outcome = {}
        for resource in resources:
            is_topic = resource.resource_type == ConfigResourceType.TOPIC
            problems = [self._config_problem(key) for key in resource.configs] if is_topic else []
            problems = [problem for problem in problems if problem]
            outcome.setdefault("topic" if is_topic else "broker", {})[resource.name] = \
                "InvalidConfigurationError: %s" % problems[0] if problems else "OK"
            if problems or validate_only:
                continue
            held = (self.cluster.overrides.setdefault(resource.name, {}) if is_topic
                    else self.cluster.broker_configs.setdefault(int(resource.name), {}))
            for key, (operation, value) in resource.configs.items():
                if operation == "SET":
                    held[key] = value
                else:
                    held.pop(key, None)
        return outcome

    def delete_topics(self, topics, timeout_ms=None, raise_errors=True):
        self._record("delete_topics", topics=list(topics))
        answers = []
        for name in topics:
            found = self.cluster.topics.pop(name, None) is not None
            self.cluster.overrides.pop(name, None)
            answers.append(dict(name=name, error_code=0 if found else UNKNOWN_TOPIC))
        return dict(topics=answers)

    def alter_partition_reassignments(self, request, timeout_ms=None):
        """Moves finish at once; a cancel (None) stops a move in progress, leaving the replicas where they were."""
        self._record("alter_partition_reassignments",
                     request=dict(((tp.topic, tp.partition), replicas) for tp, replicas in request.items()))
        outcome = {}
        for tp, replicas in request.items():
            key = (tp.topic, tp.partition)
            if replicas is None:
                outcome[tp] = None if self.cluster.moving.pop(key, None) is not None else NO_REASSIGNMENT_IN_PROGRESS
            else:
                self.cluster.moving.pop(key, None)
                self.cluster.topics[tp.topic][tp.partition] = list(replicas)
                outcome[tp] = None
        return outcome

    def elect_leaders(self, election_type, partitions, timeout_ms=None, raise_errors=True):
        self._record("elect_leaders", partitions=dict(partitions))
        # Leadership follows: preferred (0) puts the first replica first in the ISR where it is in sync;
        # unclean (1) makes the first replica of a partition without an in-sync one its leader.
        for topic, numbers in partitions.items():
            for number in numbers:
                isr = self.cluster.isr.get((topic, number))
                replicas = self.cluster.topics.get(topic, {}).get(number, [])
                if isr is None or not replicas:
                    continue
                if election_type == 0 and replicas[0] in isr:
                    others = [broker for broker in isr if broker != replicas[0]]
                    self.cluster.isr[(topic, number)] = [replicas[0]] + others
                elif election_type == 1 and not isr:
                    self.cluster.isr[(topic, number)] = [replicas[0]]
        return SimpleNamespace(replica_election_results=[
            SimpleNamespace(topic=topic, partition_result=[SimpleNamespace(partition_id=partition, error_code=0)
                                                           for partition in numbers])
            for topic, numbers in sorted(partitions.items())])


FakeCluster.client_class = FakeAdminClient


@pytest.fixture
def fake_cluster():
    """FakeCluster, the class: tests build the cluster they need (a fixture works whatever pytest's import mode)."""
    return FakeCluster


class ModuleExit(SystemExit):
    """exit_json or fail_json was called; outcome holds what the module returned."""

    def __init__(self, outcome):
        super().__init__(1 if outcome.get("failed") else 0)
        self.outcome = outcome


@pytest.fixture
def run_module(monkeypatch):
    """run_module(main, args, cluster, check_mode=False, diff=False): a module's main() against the cluster.

    Returns what the module returned (failed=True when it failed) with its warnings. Every client it
    opens comes from cluster.connect(); None as the cluster means it must not connect.
    """

    def leave(**outcome):
        raise ModuleExit(outcome)

    def fail(**outcome):
        raise ModuleExit(dict(outcome, failed=True))

    monkeypatch.setattr(basic.AnsibleModule, "exit_json", lambda self, **outcome: leave(**outcome))
    monkeypatch.setattr(basic.AnsibleModule, "fail_json", lambda self, **outcome: fail(**outcome))
    monkeypatch.setattr(basic.AnsibleModule, "log", lambda self, message, log_args=None: None)
    warnings = []
    monkeypatch.setattr(basic.AnsibleModule, "warn", lambda self, warning: warnings.append(warning))

    def run(main, args, cluster, check_mode=False, diff=False):
        def connect(module):
            if cluster is None:
                raise AssertionError("the module connected, but it should not need a cluster")
            return cluster.connect()

        monkeypatch.setattr(KafkaAdminModule, "connect", connect)
        del warnings[:]
        with patch_module_args(dict(args, _ansible_check_mode=check_mode, _ansible_diff=diff)):
            with pytest.raises(ModuleExit) as ended:
                main()
        outcome = dict(ended.value.outcome)
        outcome["warnings"] = list(warnings)
        return outcome

    return run


# ---- SCRAM users (kafka_user) -------------------------------------------------------------------


class FakeScramCluster(FakeCluster):
    """A FakeCluster that also keeps SCRAM credentials: scram_users {name: {mechanism: iterations}}.

    stored {(name, mechanism): (salt, salted password)} is what a broker keeps of a password, so a
    test can check the client derived it from the password declared. refuse: {user name: error
    message} the cluster answers for that user's alterations, which it then leaves alone (Kafka
    applies each user's alterations on their own).
    """

    def __init__(self, scram_users=None, refuse=None, **cluster):
        super().__init__(**cluster)
        self.scram_users = dict((name, dict(credentials)) for name, credentials in (scram_users or {}).items())
        self.stored = {}
        self.refuse = dict(refuse or {})

    write_names = WRITES | frozenset(["alter_user_scram_credentials"])


class FakeScramAdminClient(FakeAdminClient):
    """Answers DescribeUserScramCredentials and AlterUserScramCredentials in kafka-python's shapes."""

    def describe_user_scram_credentials(self, users=None):
        self._record("describe_user_scram_credentials", users=users)
        names = sorted(self.cluster.scram_users) if users is None else users
        described = {}
        for name in names:
            credentials = self.cluster.scram_users.get(name)
            if not credentials:
                described[name] = dict(error="Attempt to describe a user credential that does not exist",
                                       credential_infos=[])
                continue
            described[name] = dict(error=None, credential_infos=[
                dict(mechanism=ScramMechanism[mechanism.replace("-", "_")], iterations=iterations)
                for mechanism, iterations in sorted(credentials.items())])
        return described

    # AlterUserScramCredentials goes to the controller through kafka-python's own routing, so the
    # fake answers at that level: a manager that runs the call, and the request as built for the wire.

    @property
    def _manager(self):
        return SimpleNamespace(run=lambda function, *arguments: function(*arguments))

    def _send_request_to_controller(self, request, get_errors_fn=None, raise_errors=True):
        assert isinstance(request, AlterUserScramCredentialsRequest) and not raise_errors
        deletions = [(name, ScramMechanism(mechanism).name.replace("_", "-")) for name, mechanism in request.deletions]
        upsertions = [(name, ScramMechanism(mechanism).name.replace("_", "-"), iterations, salt, salted)
                      for name, mechanism, iterations, salt, salted in request.upsertions]
        # Recorded without the salts and salted passwords: a test compares requests, and those are secret.
        self._record("alter_user_scram_credentials", alterations=[
            ("delete", name, mechanism, None) for name, mechanism in deletions] + [
            ("upsert", name, mechanism, iterations) for name, mechanism, iterations, unused, unused in upsertions])
        # As a KRaft controller answers (a ZooKeeper-mode one is laxer): a user named twice in one
        # request is refused whole, and none of that user's alterations is applied.
        named = [deletion[0] for deletion in deletions] + [upsertion[0] for upsertion in upsertions]
        twice = dict((name, "A user credential cannot be altered twice in the same request")
                     for name in named if named.count(name) > 1)
        if twice:
            return SimpleNamespace(results=[SimpleNamespace(user=name, error_code=DUPLICATE_RESOURCE,
                                                            error_message=message)
                                            for name, message in sorted(twice.items())])
        results = {}
        for name, mechanism in deletions:
            if name not in self.cluster.refuse:
                self.cluster.scram_users.get(name, {}).pop(mechanism, None)
                self.cluster.stored.pop((name, mechanism), None)
                if not self.cluster.scram_users.get(name):
                    self.cluster.scram_users.pop(name, None)
        for name, mechanism, iterations, salt, salted in upsertions:
            if name not in self.cluster.refuse:
                self.cluster.scram_users.setdefault(name, {})[mechanism] = iterations
                self.cluster.stored[(name, mechanism)] = (salt, salted)
        for name in [deletion[0] for deletion in deletions] + [upsertion[0] for upsertion in upsertions]:
            refused = self.cluster.refuse.get(name)
            results[name] = SimpleNamespace(user=name, error_code=UNACCEPTABLE_CREDENTIAL if refused else 0,
                                            error_message=refused)
        return SimpleNamespace(results=list(results.values()))


FakeScramCluster.client_class = FakeScramAdminClient


@pytest.fixture
def fake_scram_cluster():
    """FakeScramCluster, the class, as fake_cluster gives FakeCluster."""
    return FakeScramCluster


# ---- ACLs (kafka_acl) -------------------------------------------------------------------------
# A cluster that also keeps ACLs. Kept apart from FakeCluster so the other admin modules' fakes stay
# as they are; a test of kafka_acl builds FakeAclCluster through the fake_acl_cluster fixture. The
# kafka-python names it needs are imported where used, so this part stays one block of the file.

ACL_WRITES = frozenset(["create_acls", "delete_acls"])


def _filter_matches(acl_filter, acl):
    """Whether one of kafka-python's ACLFilter matches a concrete ACL, as the broker decides it."""
    from kafka.admin import ACLOperation, ACLPermissionType, ACLResourcePatternType, ResourceType

    wanted, pattern = acl_filter.resource_pattern, acl.resource_pattern
    return all((
        acl_filter.principal is None or acl_filter.principal == acl.principal,
        acl_filter.host is None or acl_filter.host == acl.host,
        acl_filter.operation == ACLOperation.ANY or acl_filter.operation == acl.operation,
        acl_filter.permission_type == ACLPermissionType.ANY or acl_filter.permission_type == acl.permission_type,
        wanted.resource_type == ResourceType.ANY or wanted.resource_type == pattern.resource_type,
        wanted.resource_name is None or wanted.resource_name == pattern.resource_name,
        wanted.pattern_type == ACLResourcePatternType.ANY or wanted.pattern_type == pattern.pattern_type,
    ))


class FakeAclCluster(FakeCluster):
    """A FakeCluster that keeps ACLs: a set of kafka-python ACL objects.

    authorizer False answers every ACL request with SECURITY_DISABLED, as a broker without
    authorizer.class.name does. refuse: ACLs a CreateAcls refuses (the broker's error class).
    """

    def __init__(self, acls=(), authorizer=True, refuse=None, **cluster):
        super().__init__(**cluster)
        self.acls = set(acls)
        self.authorizer = authorizer
        self.refuse = dict(refuse or {})

    write_names = WRITES | ACL_WRITES


class FakeAclAdminClient(FakeAdminClient):
    """A FakeAdminClient that also answers DescribeAcls, CreateAcls and DeleteAcls in kafka-python's shapes."""

    def _check_authorizer(self):
        from kafka.errors import SecurityDisabledError

        if not self.cluster.authorizer:
            raise SecurityDisabledError("No Authorizer is configured.")

    def describe_acls(self, acl_filter):
        from kafka.errors import NoError

        self._record("describe_acls", acl_filter=acl_filter)
        self._check_authorizer()
        return [acl for acl in self.cluster.acls if _filter_matches(acl_filter, acl)], NoError

    def create_acls(self, acls):
        self._record("create_acls", acls=list(acls))
        self._check_authorizer()
        outcome = dict(succeeded=[], failed=[])
        for acl in acls:
            if acl in self.cluster.refuse:
                outcome["failed"].append(self.cluster.refuse[acl])
            else:
                self.cluster.acls.add(acl)
                outcome["succeeded"].append(acl)
        return outcome

    def delete_acls(self, acl_filters):
        from kafka.errors import NoError

        self._record("delete_acls", acl_filters=list(acl_filters))
        self._check_authorizer()
        answers = []
        for acl_filter in acl_filters:
            matched = [acl for acl in self.cluster.acls if _filter_matches(acl_filter, acl)]
            self.cluster.acls.difference_update(matched)
            answers.append((acl_filter, matched, NoError))
        return answers


FakeAclCluster.client_class = FakeAclAdminClient


@pytest.fixture
def fake_acl_cluster():
    """FakeAclCluster, the class, as fake_cluster gives FakeCluster."""
    return FakeAclCluster


# ---- consumer groups (kafka_consumer_group) ---------------------------------------------------
# A cluster that also keeps consumer groups and the offsets of its partitions' logs, kept apart
# from FakeCluster like the ACL part.

GROUP_WRITES = frozenset(["alter_group_offsets", "delete_groups"])


class FakeGroupCluster(FakeCluster):
    """A FakeCluster with consumer groups and logs.

    logs: {(topic, partition): (earliest offset, latest offset)}; partitions not listed hold no
    records (0, 0). record_times: {(topic, partition): [timestamp of each record from the earliest]}.
    groups: {name: {"offsets": {(topic, partition): committed offset}, "members": [(member id,
    client id, host, [(topic, partition) assigned])]}}; a group with members is Stable, one
    without Empty. A commit for a group with members is refused as a broker refuses a commit from
    outside the group's generation.
    """

    def __init__(self, groups=None, logs=None, record_times=None, **cluster):
        super().__init__(**cluster)
        self.groups = dict((name, dict(offsets=dict(group.get("offsets", {})), members=list(group.get("members", []))))
                           for name, group in (groups or {}).items())
        self.logs = dict(logs or {})
        self.record_times = dict(record_times or {})

    write_names = WRITES | GROUP_WRITES


class FakeGroupAdminClient(FakeAdminClient):
    """Answers DescribeGroups, OffsetFetch, ListOffsets, OffsetCommit and DeleteGroups in kafka-python's shapes."""

    def describe_groups(self, group_ids, group_coordinator_id=None, include_authorized_operations=False):
        self._record("describe_groups", group_ids=list(group_ids))
        described = {}
        for name in group_ids:
            group = self.cluster.groups.get(name)
            if group is None:
                described[name] = dict(group_id=name,
                                       error="[Error 69] GroupIdNotFoundError: Group %s not found." % name,
                                       group_state="Dead", protocol_type="", protocol_data="", members=[])
                continue
            members = [dict(member_id=member_id, group_instance_id=None, client_id=client_id, client_host=host,
                            member_metadata={}, member_assignment=dict(user_data="", assigned_partitions=[
                                dict(topic=topic, partitions=[number for name_, number in assigned if name_ == topic])
                                for topic in sorted(set(name_ for name_, unused in assigned))]))
                       for member_id, client_id, host, assigned in group["members"]]
            described[name] = dict(group_id=name, error=None, group_state="Stable" if members else "Empty",
                                   protocol_type="consumer", protocol_data="range" if members else "", members=members)
        return described

    def list_groups(self, broker_ids=None, states_filter=None, types_filter=None):
        self._record("list_groups")
        return [dict(group_id=name, protocol_type="consumer", group_state="Stable" if group["members"] else "Empty",
                     group_type="classic") for name, group in sorted(self.cluster.groups.items(), reverse=True)]

    def list_group_offsets(self, group_specs):
        from kafka.structs import OffsetAndMetadata

        self._record("list_group_offsets", groups=sorted(group_specs))
        committed = dict((name, self.cluster.groups.get(name, {}).get("offsets", {})) for name in group_specs)
        return dict((name, dict((TopicPartition(topic, number), OffsetAndMetadata(offset, "", 0))
                                for (topic, number), offset in offsets.items()))
                    for name, offsets in committed.items())

    def list_partition_offsets(self, topic_partition_specs, isolation_level=None, timeout_ms=None):
        from kafka.errors import UnknownTopicOrPartitionError
        from kafka.structs import OffsetAndTimestamp

        self._record("list_partition_offsets", specs=dict(((tp.topic, tp.partition), int(spec))
                                                          for tp, spec in topic_partition_specs.items()))
        found = {}
        for tp, spec in topic_partition_specs.items():
            if tp.partition not in self.cluster.topics.get(tp.topic, {}):
                raise UnknownTopicOrPartitionError("ListOffsetsRequest failed for %s" % (tp,))
            earliest, latest = self.cluster.logs.get((tp.topic, tp.partition), (0, 0))
            if int(spec) == -2:
                offset = earliest
            elif int(spec) == -1:
                offset = latest
            else:
                times = self.cluster.record_times.get((tp.topic, tp.partition), [])
                later = [earliest + index for index, moment in enumerate(times) if moment >= int(spec)]
                offset = later[0] if later else -1
            found[tp] = OffsetAndTimestamp(offset, -1, None)
        return found

    def alter_group_offsets(self, group_id, offsets, group_coordinator_id=None):
        from kafka.errors import NoError, UnknownMemberIdError

        self._record("alter_group_offsets", group_id=group_id,
                     offsets=dict(((tp.topic, tp.partition), committed.offset) for tp, committed in offsets.items()))
        group = self.cluster.groups.setdefault(group_id, dict(offsets={}, members=[]))
        if group["members"]:
            return dict((tp, UnknownMemberIdError) for tp in offsets)
        for tp, committed in offsets.items():
            group["offsets"][(tp.topic, tp.partition)] = committed.offset
        return dict((tp, NoError) for tp in offsets)

    def delete_groups(self, group_ids, group_coordinator_id=None):
        self._record("delete_groups", group_ids=list(group_ids))
        outcome = {}
        for name in group_ids:
            group = self.cluster.groups.get(name)
            if group is None:
                outcome[name] = "GroupIdNotFoundError"
            elif group["members"]:
                outcome[name] = "NonEmptyGroupError"
            else:
                del self.cluster.groups[name]
                outcome[name] = "OK"
        return outcome


FakeGroupCluster.client_class = FakeGroupAdminClient


@pytest.fixture
def fake_group_cluster():
    """FakeGroupCluster, the class, as fake_cluster gives FakeCluster."""
    return FakeGroupCluster
