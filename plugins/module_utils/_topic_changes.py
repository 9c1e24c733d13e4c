# -*- coding: utf-8 -*-
# Copyright: kafkaops.cluster developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Declared topics against the live ones: what to create, grow, reconfigure or delete.

Pure (plain dicts in, plain dicts out) and unit-tested: the topics a module call declares,
normalised and checked, and their difference from the cluster's state, which _topics.py reads
and then applies.
"""

from __future__ import absolute_import, division, print_function


import re

from ansible_collections.kafkaops.cluster.plugins.module_utils._input_errors import InputError, field_name

TOPIC_NAME = re.compile(r"^[a-zA-Z0-9._-]{1,249}$")
# The keys a topic of the topics option takes; those left out come from the module-level options.
TOPIC_KEYS = ("partitions", "replication_factor", "config", "state")
# Set and cleared by the reassignment machinery; never reset by config_mode=replace.
REPLACE_EXEMPT_KEYS = frozenset(["leader.replication.throttled.replicas", "follower.replication.throttled.replicas"])


def declared_topics(params):
    """The topics to manage, each with the module-level options filling what it leaves out.

    Returns them with the option they came from: name (one topic) or topics.
    """
    if params["name"] is not None:
        return [dict(name=params["name"], partitions=params["partitions"],
                     replication_factor=params["replication_factor"], config=params["config"])], "name"
    items = []
    for item in params["topics"]:
        merged = dict((key, params[key]) for key in TOPIC_KEYS)
        merged.update(dict((key, value) for key, value in item.items() if value is not None))
        items.append(merged)
    return items, "topics"


class TopicSpecError(InputError):
    """A declared topic cannot be applied; field names the offending input, such as topics[2].partitions."""


def config_value(value):
    """Kafka configs are strings on the wire; YAML gives booleans and numbers."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (list, tuple)):
        return ",".join(config_value(item) for item in value)
    if value is None:
        return None
    return str(value)


def _positive_int(value, field, allow_none=True):
    if value is None and allow_none:
        return None
    if isinstance(value, bool):
        raise TopicSpecError(field, "must be a whole number, not %r" % (value,))
    try:
        number = int(value)
    except (TypeError, ValueError):
        raise TopicSpecError(field, "must be a whole number, not %r" % (value,)) from None
    if number < 1 or str(number) != str(value).strip():
        raise TopicSpecError(field, "must be a whole number of at least 1, not %r" % (value,))
    return number


def check_topic_name(name, field):
    if not isinstance(name, str) or not name:
        raise TopicSpecError(field, "a topic name is required")
    if name in (".", ".."):
        raise TopicSpecError(field, "%r is not a legal topic name" % name)
    if not TOPIC_NAME.match(name):
        raise TopicSpecError(field, "%r is not a legal topic name: use up to 249 of the characters "
                                    "a-z A-Z 0-9 . _ -" % name)
    return name


def normalize_topics(topics, default_state="present", field_prefix="topics"):
    """Declared topics as [{name, partitions, replication_factor, config, state}], checked.

    Raises TopicSpecError for a bad entry, naming it (topics[3].partitions) so a user can find it.
    """
    normalized = []
    seen = {}
    for index, item in enumerate(topics):
        # With a single topic (field_prefix None) the fields are the module options themselves.
        where = "%s[%d]" % (field_prefix, index) if field_prefix else ""
        if not isinstance(item, dict):
            raise TopicSpecError(where or "name", "each topic is a mapping with at least a name")
        unknown = sorted(set(item) - set(["name", "partitions", "replication_factor", "config", "state"]))
        if unknown:
            raise TopicSpecError(where or "topics", "unknown key(s) %s; a topic takes name, partitions, "
                                                    "replication_factor, config, state" % ", ".join(unknown))
        name = check_topic_name(item.get("name"), field_name(where, "name"))
        if name in seen:
            raise TopicSpecError(field_name(where, "name"), "topic %r is declared twice (also %s[%d])"
                                 % (name, field_prefix, seen[name]))
        seen[name] = index
        state = item.get("state") or default_state
        if state not in ("present", "absent"):
            raise TopicSpecError(field_name(where, "state"), "must be present or absent, not %r" % (state,))
        config = item.get("config") or {}
        if not isinstance(config, dict):
            raise TopicSpecError(field_name(where, "config"), "must be a mapping of topic config keys to values")
        clean_config = {}
        for key, value in config.items():
            if not isinstance(key, str) or not key.strip():
                raise TopicSpecError(field_name(where, "config"), "config keys must be non-empty strings")
            if value is None:
                raise TopicSpecError(field_name(where, "config." + key), "has no value")
            clean_config[key.strip()] = config_value(value)
        normalized.append(dict(
            name=name,
            state=state,
            partitions=_positive_int(item.get("partitions"), field_name(where, "partitions")),
            replication_factor=_positive_int(item.get("replication_factor"), field_name(where, "replication_factor")),
            config=clean_config,
            field=where,
        ))
    return normalized


def topic_view(state):
    """What diff mode shows of one topic: its counts and the configs set on the topic itself."""
    if state is None:
        return None
    return dict(partitions=state["partitions"], replication_factor=state["replication_factor"],
                config=dict(sorted(state["overrides"].items())))


def plan_topic_changes(desired, actual, live_brokers, config_mode="merge"):
    """Compute the difference between declared topics and the cluster, or raise TopicSpecError.

    desired: normalize_topics() output.
    actual: {name: {partitions, replication_factor, configs: {key: value}, overrides: {key: value}}}
      for the declared topics that exist (configs: every effective value; overrides: those set on
      the topic itself).
    live_brokers: number of brokers alive now.
    Returns {create, add_partitions, alter_configs, delete, topics, changed, before, after}: the
    requests to send and, per changed topic, its state before and after.
    """
    create, add_partitions, alter_configs, delete = [], {}, {}, []
    before, after, changed_names = {}, {}, []
    for topic in desired:
        name, where = topic["name"], topic["field"]
        current = actual.get(name)
        if topic["state"] == "absent":
            if current is not None:
                delete.append(name)
                before[name], after[name] = topic_view(current), None
                changed_names.append(name)
            continue
        replication_factor = topic["replication_factor"]
        if replication_factor is not None and replication_factor > live_brokers:
            raise TopicSpecError(field_name(where, "replication_factor"), "%d is more than the %d live broker(s) of "
                                 "the cluster; topic %r" % (replication_factor, live_brokers, name))
        if current is None:
            create.append(dict(name=name, partitions=topic["partitions"], replication_factor=replication_factor,
                               config=dict(topic["config"])))
            before[name] = None
            after[name] = dict(partitions=topic["partitions"], replication_factor=replication_factor,
                               config=dict(sorted(topic["config"].items())))
            changed_names.append(name)
            continue
        wanted = dict(partitions=current["partitions"], replication_factor=current["replication_factor"],
                      overrides=dict(current["overrides"]))
        if topic["partitions"] is not None:
            if topic["partitions"] < current["partitions"]:
                raise TopicSpecError(field_name(where, "partitions"), "topic %r has %d partitions; Kafka cannot reduce "
                                     "that to %d (only raise it, or recreate the topic)"
                                     % (name, current["partitions"], topic["partitions"]))
            if topic["partitions"] > current["partitions"]:
                add_partitions[name] = topic["partitions"]
                wanted["partitions"] = topic["partitions"]
        if replication_factor is not None and replication_factor != current["replication_factor"]:
            raise TopicSpecError(field_name(where, "replication_factor"), "topic %r has replication factor %d; "
                                 "changing it to %d moves data, so it is done by a reassignment: run "
                                 "ansible-playbook kafkaops.cluster.prepare_reassignment -e '{\"topics\": [\"%s\"], "
                                 "\"replication_factor\": %d}' and then kafkaops.cluster.execute_reassignment"
                                 % (name, current["replication_factor"], replication_factor, name,
                                    replication_factor))
        operations = {}
        for key, value in sorted(topic["config"].items()):
            if current["configs"].get(key) != value:
                operations[key] = ("SET", value)
                wanted["overrides"][key] = value
            elif key not in current["overrides"]:
                # The default already has this value; leave the topic following the default.
                pass
        if config_mode == "replace":
            for key in sorted(current["overrides"]):
                if key not in topic["config"] and key not in REPLACE_EXEMPT_KEYS:
                    operations[key] = ("DELETE", None)
                    del wanted["overrides"][key]
        if operations:
            alter_configs[name] = operations
        if wanted["partitions"] != current["partitions"] or operations:
            before[name], after[name] = topic_view(current), topic_view(wanted)
            changed_names.append(name)
    return dict(create=create, add_partitions=add_partitions, alter_configs=alter_configs, delete=delete,
                changed=bool(changed_names), topics=changed_names, before=before, after=after)


def topics_needing_configs(desired, config_mode):
    """Topics whose configs the difference depends on: those declaring configs, or all with replace."""
    return [topic["name"] for topic in desired
            if topic["state"] == "present" and (topic["config"] or config_mode == "replace")]
