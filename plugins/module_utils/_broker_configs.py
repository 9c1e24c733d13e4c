# -*- coding: utf-8 -*-
# Copyright: kafkaops.cluster developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The module kafka_broker_config's run: dynamic broker settings, cluster-wide or of one broker.

What kafka-configs.sh --entity-type brokers (--entity-default) does, through the Kafka protocol: one
DescribeConfigs reads what is set dynamically at that level, the difference is computed without the
network (broker_config_changes), and one IncrementalAlterConfigs changes only the keys that differ,
so settings the module is not told about stay as they are. In check mode the same request is sent
with validate_only, so the brokers still refuse a key they cannot change dynamically or a bad value.

kafka-python's describe_configs and alter_configs only take a broker's id; the cluster-wide default
is the BROKER resource with an empty name, so the requests are built here as kafka-python builds
them and sent to any broker (a KRaft broker forwards the change to the controllers; a ZooKeeper-mode
broker writes it to ZooKeeper).

Why it matters: on Kafka 4.1+ with eligible leader replicas (finalized on every new KRaft cluster),
min.insync.replicas of topics without their own value comes from the cluster-wide default, and a
broker's static server.properties value is ignored (the kafka_broker role sets it through here).
"""

from __future__ import absolute_import, division, print_function


try:
    from kafka import errors as kafka_errors
    from kafka.admin import ConfigResourceType
    from kafka.protocol.admin import DescribeConfigsRequest, IncrementalAlterConfigsRequest
except ImportError:
    kafka_errors = ConfigResourceType = DescribeConfigsRequest = IncrementalAlterConfigsRequest = None

from ansible_collections.kafkaops.cluster.plugins.module_utils._input_errors import InputError
from ansible_collections.kafkaops.cluster.plugins.module_utils._kafka_admin import KafkaAdminError
from ansible_collections.kafkaops.cluster.plugins.module_utils._leader_election import (
    unclean_declared,
    unclean_setting_warning,
)

CLUSTER_DEFAULT = "default"
# IncrementalAlterConfigs' operations (AlterConfigOp): SET and DELETE are the two this module sends.
SET, DELETE = 0, 1
# Where a value comes from, as DescribeConfigs names it: what this module manages at each level.
DYNAMIC_SOURCE = {CLUSTER_DEFAULT: "DYNAMIC_DEFAULT_BROKER_CONFIG", "broker": "DYNAMIC_BROKER_CONFIG"}
SOURCE_NAMES = {1: "DYNAMIC_TOPIC_CONFIG", 2: "DYNAMIC_BROKER_CONFIG", 3: "DYNAMIC_DEFAULT_BROKER_CONFIG",
                4: "STATIC_BROKER_CONFIG", 5: "DEFAULT_CONFIG", 6: "DYNAMIC_BROKER_LOGGER_CONFIG"}


class BrokerConfigSpecError(InputError):
    """A declaration the module refuses before connecting; field names the option."""


def config_value(value):
    """A declared value as Kafka stores it: booleans as true/false, numbers and text as their text."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def check_broker_config_inputs(params):
    """{level, resource_name, config}: the declaration normalised, or BrokerConfigSpecError naming the field.

    level is "default" (cluster-wide) or "broker"; config maps each key to its text, or None to remove it.
    """
    broker = params.get("broker")
    broker = CLUSTER_DEFAULT if broker in (None, "") else str(broker).strip()
    if broker != CLUSTER_DEFAULT and not (broker.isdigit()):
        raise BrokerConfigSpecError("broker", "%r is neither 'default' (the cluster-wide default) nor a broker id "
                                              "(an integer >= 0)" % (params.get("broker"),))
    config = params.get("config")
    if not isinstance(config, dict) or not config:
        raise BrokerConfigSpecError("config", "give at least one setting, as a mapping of name to value "
                                              "(null to remove a setting)")
    normalized = {}
    for key, value in config.items():
        name = str(key).strip()
        if not name or any(character.isspace() for character in name):
            raise BrokerConfigSpecError("config", "%r is not a setting's name" % (key,))
        if isinstance(value, (dict, list)):
            kind = type(value).__name__
            raise BrokerConfigSpecError("config." + name, "a %s is not a setting's value; give text, a number or a "
                                                          "boolean (null removes the setting)" % kind)
        normalized[name] = None if value is None else config_value(value)
    return dict(level=CLUSTER_DEFAULT if broker == CLUSTER_DEFAULT else "broker",
                resource_name="" if broker == CLUSTER_DEFAULT else str(int(broker)),
                broker=broker, config=normalized)


def broker_config_changes(current, wanted):
    """What to change so the dynamic settings at a level hold wanted: {operations, before, after, changed}.

    current: {key: value} set dynamically at that level now; wanted: {key: value or None (remove)}.
    Keys not in wanted are left alone and left out of before/after.
    """
    operations, before, after = {}, {}, {}
    for key in sorted(wanted):
        value = wanted[key]
        if value is None:
            if key in current:
                operations[key] = (DELETE, None)
                before[key], after[key] = current[key], None
        elif current.get(key) != value:
            operations[key] = (SET, value)
            before[key], after[key] = current.get(key), value
    return dict(operations=operations, before=before, after=after, changed=bool(operations))


def _send(client, request, resource_name):
    """Send to any broker for the cluster-wide default; a broker's own settings only that broker serves."""
    node_id = int(resource_name) if resource_name else None
    return client._manager.run(client._manager.send, request, node_id)  # pylint: disable=protected-access


def read_dynamic_configs(client, level, resource_name):
    """{key: value} set dynamically at the level (cluster-wide default, or the broker's own), sensitive ones None."""
    # Version 1 and later say where each value comes from.
    request = DescribeConfigsRequest(resources=[(ConfigResourceType.BROKER.value, resource_name, None)],
                                     include_synonyms=False, min_version=1)
    response = _send(client, request, resource_name)
    wanted_source = DYNAMIC_SOURCE[level]
    configs = {}
    for result in response.results:
        if result.error_code:
            raise KafkaAdminError("describing the %s settings failed: %s" % (
                "cluster-wide broker" if level == CLUSTER_DEFAULT else "broker %s" % resource_name,
                result.error_message or kafka_errors.for_code(result.error_code).__name__))
        for entry in result.configs:
            entry = entry.to_dict() if hasattr(entry, "to_dict") else dict(entry)
            source = entry.get("config_source")
            source = SOURCE_NAMES.get(source, source)
            # The default resource lists only what is set at its level; a broker's lists everything.
            if level == CLUSTER_DEFAULT or source == wanted_source:
                configs[entry["name"]] = None if entry.get("is_sensitive") else entry.get("value")
    return configs


def alter_dynamic_configs(client, resource_name, operations, validate_only):
    """One IncrementalAlterConfigs of operations {key: (op, value)}; the brokers' refusal names the keys sent."""
    entries = [(key, operation, value) for key, (operation, value) in sorted(operations.items())]
    request = IncrementalAlterConfigsRequest(
        resources=[(ConfigResourceType.BROKER.value, resource_name, entries)], validate_only=validate_only)
    response = _send(client, request, resource_name)
    for result in response.responses:
        if result.error_code:
            keys = sorted(operations)
            field = "config" if len(keys) > 1 else "config.%s" % keys[0]
            raise KafkaAdminError("%s: the brokers refused the change%s (%s: %s); nothing was changed" % (
                field, " of " + ", ".join(keys) if len(keys) > 1 else "",
                kafka_errors.for_code(result.error_code).__name__, result.error_message or "no message"), field=field)


def unchanged_broker_config_result():
    return dict(changed=False, broker=CLUSTER_DEFAULT, changes={})


def run_broker_config(module, client, inputs):
    """kafka_broker_config: read the dynamic settings, set and remove what differs (validate only in check mode)."""
    current = read_dynamic_configs(client, inputs["level"], inputs["resource_name"])
    sensitive = sorted(key for key in inputs["config"] if key in current and current[key] is None)
    if sensitive:
        raise KafkaAdminError("config.%s: a sensitive setting cannot be read back and compared; this module "
                              "does not manage it" % sensitive[0], field="config.%s" % sensitive[0])
    if unclean_declared(inputs["config"]):
        module.warn(unclean_setting_warning("the cluster-wide default" if inputs["level"] == CLUSTER_DEFAULT
                                            else "broker " + inputs["resource_name"]))
    changes = broker_config_changes(current, inputs["config"])
    if changes["operations"]:
        # A refusal leaves the result as unchanged.
        alter_dynamic_configs(client, inputs["resource_name"], changes["operations"], validate_only=module.check_mode)
    module.result.update(changed=changes["changed"], broker=inputs["broker"],
                         changes=dict((key, changes["after"][key]) for key in changes["after"]))
    if module.diff:
        module.result["diff"] = dict(before=changes["before"], after=changes["after"])
