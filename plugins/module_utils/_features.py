# -*- coding: utf-8 -*-
# Copyright: kafkaops.cluster developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Finalized feature levels for the module kafka_features: what each broker supports, what to change, the request.

A feature (metadata.version, transaction.version, group.version, ...) is finalized cluster-wide at one level,
and a level is safe only once every node can run it: a broker that does not support it would be fenced or
fail on records it cannot read. Each broker says what it supports in its ApiVersions answer, so the brokers
are asked one by one (read_node_features) and the level a feature can go to is the lowest of their maxima
(cluster_view). The controllers cannot be asked so: the admin client reaches only brokers. The controller
that handles UpdateFeatures checks every registered broker and controller itself, so every change is first
sent with validate_only, in check mode too, and a level a controller cannot run is refused there, before
anything changes.

plan_feature_changes() is plain data in, plain data out (unit-tested on its own); run_features() reads,
plans, validates, changes, and waits until every broker reports the new levels.
"""

from __future__ import absolute_import, division, print_function

import re
import time
from collections.abc import Mapping

try:
    from kafka import errors as kafka_errors
    from kafka.protocol.admin import UpdateFeaturesRequest
    from kafka.protocol.metadata import ApiVersionsRequest
except ImportError:
    kafka_errors = None
    UpdateFeaturesRequest = None
    ApiVersionsRequest = None

from ansible_collections.kafkaops.cluster.plugins.module_utils._cluster import read_brokers
from ansible_collections.kafkaops.cluster.plugins.module_utils._input_errors import InputError
from ansible_collections.kafkaops.cluster.plugins.module_utils._kafka_admin import KafkaAdminError, error_name

# UpdateFeatures' UpgradeType values.
UPGRADE = 1
DOWNGRADE_TYPES = {"safe": 2, "unsafe": 3}
UPGRADE_TYPE_NAMES = {1: "upgrade", 2: "safe downgrade", 3: "unsafe downgrade"}
# Levels travel as int16.
HIGHEST_LEVEL = 32767
# A feature's name as Kafka spells them: lower-case words joined by dots.
FEATURE_NAME = re.compile(r"^[a-z][a-z0-9_]*(\.[a-z0-9_]+)*$")
# A release name such as 4.4-IV0 or 3.9: metadata.version's levels have names, but this module takes numbers.
RELEASE_NAME = re.compile(r"^[0-9]+\.[0-9]+(-IV[0-9]+)?$")
# How often the brokers are asked whether they see the new levels yet.
SEEN_POLL_SECONDS = 1.0


class FeatureInputError(InputError):
    """A feature level asked for cannot be used; field names it, such as features.metadata.version."""


def parse_level(value, field):
    """A level asked for as a whole number 0-32767 (an inventory may give it as a string of digits)."""
    if isinstance(value, bool):
        raise FeatureInputError(field, "must be a level (a whole number), not %r" % (value,))
    if isinstance(value, str):
        text = value.strip()
        if RELEASE_NAME.match(text):
            raise FeatureInputError(field, "must be a level number, not the release name %r: Kafka's feature tool "
                                    "prints the level of a release (kafka-features.sh version-mapping "
                                    "--release-version %s)" % (value, text.split("-")[0]))
        if not text.isdigit():
            raise FeatureInputError(field, "must be a level (a whole number), not %r" % (value,))
        value = int(text)
    if not isinstance(value, int):
        raise FeatureInputError(field, "must be a level (a whole number), not %r" % (value,))
    if not 0 <= value <= HIGHEST_LEVEL:
        raise FeatureInputError(field, "must be a level from 0 to %d, not %d" % (HIGHEST_LEVEL, value))
    return value


def pin_problems(pins, variable):
    """What is wrong with an inventory's pins ({feature: level}) as far as the cluster is not needed to tell, one
    sentence per bad pin naming <variable>.<feature> and why, in the features' order; empty when nothing is.

    A name that is no feature's, a level that is not a whole number 0-32767 (a release name such as 4.4-IV0
    included). What the brokers support is run_features' check, once every node runs the new Kafka.
    """
    if pins in (None, ""):
        return []
    if not isinstance(pins, Mapping):
        return ["%s: expected a mapping of feature name to level, got %r" % (variable, pins)]
    problems = []
    for name in sorted(pins, key=str):
        field = "%s.%s" % (variable, name)
        if not isinstance(name, str) or not FEATURE_NAME.match(name):
            problems.append("%s: is not a feature's name (such as transaction.version)" % field)
            continue
        try:
            parse_level(pins[name], field)
        except FeatureInputError as error:
            problems.append(str(error))
    return problems


def check_feature_inputs(module):
    """The levels asked for, checked before connecting: {feature: level}."""
    params = module.params
    wanted = {}
    for name, value in sorted((params["features"] or {}).items()):
        field = "features.%s" % name
        if not isinstance(name, str) or not FEATURE_NAME.match(name):
            raise FeatureInputError(field, "is not a feature's name (such as metadata.version)")
        wanted[name] = parse_level(value, field)
    for index, name in enumerate(params["keep"] or []):
        if not isinstance(name, str) or not FEATURE_NAME.match(name):
            raise FeatureInputError("keep[%d]" % index, "%r is not a feature's name (such as metadata.version)"
                                    % (name,))
    return wanted


# ---- reading -------------------------------------------------------------------------------------------


def node_features(response):
    """What one ApiVersions answer says: {supported: {feature: (min, max)}, finalized: {feature: level}, epoch}."""
    epoch = getattr(response, "finalized_features_epoch", -1)
    return dict(
        supported=dict((item.name, (item.min_version, item.max_version))
                       for item in getattr(response, "supported_features", None) or []),
        # Kafka finalizes one level per feature (its max); the min level of the answer is not used.
        finalized=dict((item.name, item.max_version_level)
                       for item in getattr(response, "finalized_features", None) or []),
        epoch=-1 if epoch is None else epoch)


def read_node_features(client, broker_id):
    """node_features() of one broker's own ApiVersions answer: each broker speaks only for itself."""
    # Version 3 is the first that carries features; kafka-python asks for the highest both sides speak,
    # 4 on Kafka 3.9 and later, the first to list features whose lowest level is 0 (KAFKA-17011).
    request = ApiVersionsRequest(client_software_name="kafkaops.cluster", client_software_version="1", min_version=3)
    try:
        response = client._manager.run(client._manager.send, request, broker_id)  # pylint: disable=protected-access
    except Exception as error:  # pylint: disable=broad-except
        raise KafkaAdminError("broker %d did not say which feature levels it supports: %s; every broker's answer "
                              "is needed before a level is finalized" % (broker_id, error)) from None
    if getattr(response, "error_code", 0):
        raise KafkaAdminError("broker %d did not say which feature levels it supports: %s"
                              % (broker_id, error_name(response.error_code)))
    return node_features(response)


def read_nodes(client):
    """{broker id: node_features()} of every registered broker; a fenced one is refused, as it cannot be asked."""
    brokers = read_brokers(client)
    if brokers["fenced_brokers"]:
        raise KafkaAdminError("broker%s %s %s registered but not running (fenced): what %s cannot be read, "
                              "and Kafka counts it when a level is finalized; start it, or unregister it if it is "
                              "gone for good" % (
                                  "s" if len(brokers["fenced_brokers"]) > 1 else "",
                                  ", ".join(map(str, brokers["fenced_brokers"])),
                                  "are" if len(brokers["fenced_brokers"]) > 1 else "is",
                                  "they support" if len(brokers["fenced_brokers"]) > 1 else "it supports"))
    return dict((broker["id"], read_node_features(client, broker["id"])) for broker in brokers["brokers"])


def cluster_view(nodes):
    """{feature: {finalized, supported: (min, max), limited_by, by_broker}} over every broker's answer.

    supported is what every broker can run: the highest of the lowest levels and the lowest of the highest.
    A broker that does not list a feature (an older Kafka) supports only level 0 of it. limited_by: the
    brokers whose highest level is that lowest one, when the brokers differ (else empty). finalized comes
    from the answer with the highest epoch (the newest view of the cluster's metadata); 0 when not finalized.
    """
    names = set()
    for node in nodes.values():
        names.update(node["supported"])
        names.update(node["finalized"])
    newest = max(nodes.values(), key=lambda node: node["epoch"]) if nodes else dict(finalized={})
    view = {}
    for name in sorted(names):
        by_broker = dict((broker, node["supported"].get(name, (0, 0))) for broker, node in sorted(nodes.items()))
        lowest = max([low for low, unused in by_broker.values()] or [0])
        highest = min([high for unused, high in by_broker.values()] or [0])
        limited_by = [broker for broker, (unused, high) in by_broker.items() if high == highest]
        if len(limited_by) == len(by_broker):
            limited_by = []
        view[name] = dict(finalized=newest["finalized"].get(name, 0), supported=(lowest, highest),
                          limited_by=limited_by, by_broker=by_broker,
                          known=any(name in node["supported"] for node in nodes.values()))
    return view


# ---- planning ------------------------------------------------------------------------------------------


def _brokers_words(brokers):
    return "broker%s %s" % ("s" if len(brokers) > 1 else "", ", ".join(map(str, brokers)))


def _check_level(name, level, feature):
    """Refuse a level some broker cannot run, naming the broker(s) that limit it."""
    field = "features.%s" % name
    lowest, highest = feature["supported"]
    if level > highest:
        limiting = [broker for broker, (unused, high) in feature["by_broker"].items() if high < level]
        raise FeatureInputError(field, "level %d is beyond what the brokers can run: %s support%s %s only up to %d; "
                                "the highest level every broker supports is %d" % (
                                    level, _brokers_words(limiting), "" if len(limiting) > 1 else "s", name,
                                    min(feature["by_broker"][broker][1] for broker in limiting), highest))
    if 0 < level < lowest:
        limiting = [broker for broker, (low, unused) in feature["by_broker"].items() if low > level]
        raise FeatureInputError(field, "level %d is below what the brokers can run: %s support%s %s only from %d" % (
            level, _brokers_words(limiting), "" if len(limiting) > 1 else "s", name, lowest))


def plan_feature_changes(view, wanted, upgrade_to_latest=False, keep=(), allow_downgrade="never"):
    """{feature: (upgrade type, level)} to send, or FeatureInputError naming features.<name> and why.

    view: cluster_view(). wanted: {feature: level} asked for; upgrade_to_latest: every other feature (but
    those in keep) raised to the highest level every broker supports, never lowered. allow_downgrade: never,
    safe or unsafe; a level below the finalized one is refused unless it is safe or unsafe. Every level asked
    for is checked before any is planned, so one bad level refuses the whole run.
    """
    changes = {}
    for name, level in sorted(wanted.items()):
        feature = view.get(name)
        if feature is None or not feature["known"] and not feature["finalized"]:
            raise FeatureInputError("features.%s" % name, "no broker knows the feature %s; the brokers know %s" % (
                name, ", ".join(sorted(known for known, item in view.items() if item["known"])) or "none"))
        finalized = feature["finalized"]
        if level == finalized:
            continue
        if level < finalized and allow_downgrade == "never":
            raise FeatureInputError("features.%s" % name, "is finalized at level %d; %d would be a downgrade, done "
                                    "only with allow_downgrade (safe or unsafe)" % (finalized, level))
        _check_level(name, level, feature)
        changes[name] = (UPGRADE if level > finalized else DOWNGRADE_TYPES[allow_downgrade], level)
    if upgrade_to_latest:
        for name, feature in sorted(view.items()):
            if name in wanted or name in keep or not feature["known"]:
                continue
            highest = feature["supported"][1]
            if highest > feature["finalized"]:
                changes[name] = (UPGRADE, highest)
    return changes


def describe_features(view, changes=None):
    """The module's features result: {feature: {finalized, supported: {min, max}, limited_by}}, after changes."""
    changes = changes or {}
    return dict((name, dict(finalized=changes[name][1] if name in changes else feature["finalized"],
                            supported=dict(min=feature["supported"][0], max=feature["supported"][1]),
                            limited_by=list(feature["limited_by"])))
                for name, feature in sorted(view.items()))


# ---- changing ------------------------------------------------------------------------------------------


def update_features(client, changes, validate_only, timeout_ms):
    """Send the changes in one UpdateFeatures to the controller; a refusal raises, naming the feature.

    Kafka applies the changes of one request all together or not at all. The request is built as
    kafka-python's update_features builds it and sent the way it sends it, to the controller, but
    without raising: kafka-python's error quotes the whole request and response, and only the
    controller's message is worth reading.
    """
    request = UpdateFeaturesRequest(
        timeout_ms=timeout_ms, validate_only=validate_only,
        # Version 1 is the first with validate_only and upgrade types.
        min_version=1,
        feature_updates=[UpdateFeaturesRequest.FeatureUpdateKey(feature=name, max_version_level=level,
                                                                allow_downgrade=upgrade_type != UPGRADE,
                                                                upgrade_type=upgrade_type)
                         for name, (upgrade_type, level) in sorted(changes.items())])
    response = client._manager.run(  # pylint: disable=protected-access
        client._send_request_to_controller, request, _update_errors, False)  # pylint: disable=protected-access
    refusals = []
    if response.error_code:
        refusals.append((None, response.error_code, response.error_message))
    for result in getattr(response, "results", None) or []:
        if result.error_code:
            refusals.append((result.feature, result.error_code, result.error_message))
    if not refusals:
        return
    named = set(feature for feature, unused, unused in refusals if feature)
    if not named:
        # Version 2 answers with one message for the whole request; it names the feature that failed.
        named = set(name for name in changes if any(name in (message or "") for unused, unused, message in refusals))
    if not named and len(changes) == 1:
        named = set(changes)
    field = "features.%s" % sorted(named)[0] if len(named) == 1 else "features"
    words = "; ".join("%s%s%s" % (feature + ": " if feature else "", error_name(code),
                                  ": " + message if message else "")
                      for feature, code, message in refusals)
    raise KafkaAdminError("the controller refused %s (%s)%s: %s" % (
        ", ".join("%s to %d" % (name, level) for name, (unused, level) in sorted(changes.items())),
        ", ".join(sorted(set(UPGRADE_TYPE_NAMES[upgrade_type] for upgrade_type, unused in changes.values()))),
        "; nothing was changed" if validate_only else "", words), field)


def _update_errors(response):
    # Read by kafka-python to ask again which broker is the controller when the one asked is no longer it.
    return [kafka_errors.for_code(response.error_code)]


def wait_until_seen(client, levels, timeout_seconds):
    """Wait until every broker reports the finalized levels; the brokers still behind when time is up, else [].

    The controller answers once the change is in its log; each broker learns it from there a moment later,
    and a next run (or task) asking a broker behind would find the old level and try again.
    """
    deadline = time.monotonic() + timeout_seconds
    while True:
        nodes = read_nodes(client)
        behind = sorted(broker for broker, node in nodes.items()
                        if any(node["finalized"].get(name, 0) != level for name, level in levels.items()))
        if not behind or time.monotonic() >= deadline:
            return behind
        time.sleep(SEEN_POLL_SECONDS)


def run_features(module, client, wanted):
    """kafka_features: read every broker, plan, validate (check mode too), change unless in check mode."""
    params, result = module.params, module.result
    view = cluster_view(read_nodes(client))
    # A level refused by the plan is returned beside the levels the cluster has.
    result["features"] = describe_features(view)
    changes = plan_feature_changes(view, wanted, params["upgrade_to_latest"], params["keep"] or (),
                                   params["allow_downgrade"])
    before = dict((name, feature["finalized"]) for name, feature in view.items())
    after = dict(before, **dict((name, level) for name, (unused, level) in changes.items()))
    # Until the controller accepts the change, the result says what is: a refusal returns it as it stands.
    result.update(changed=False, features=describe_features(view),
                  changes=[dict(feature=name, before=before[name], after=level, type=UPGRADE_TYPE_NAMES[upgrade_type])
                           for name, (upgrade_type, level) in sorted(changes.items())])
    if module.diff:
        result["diff"] = dict(before=before, after=after)
    if not changes:
        return
    timeout_ms = params["request_timeout"] * 1000
    # The controller checks what the brokers and the controllers support; asked first with validate_only, a
    # level some node cannot run is refused with nothing changed, and check mode predicts that refusal.
    update_features(client, changes, True, timeout_ms)
    result.update(changed=True, features=describe_features(view, changes))
    if any(upgrade_type != UPGRADE for upgrade_type, unused in changes.values()):
        module.warn("downgrading %s: %s" % (
            ", ".join("%s from %d to %d" % (name, before[name], level) for name, (upgrade_type, level)
                      in sorted(changes.items()) if upgrade_type != UPGRADE),
            "unsafe: what was written for the higher levels can be lost" if params["allow_downgrade"] == "unsafe"
            else "safe: the controller accepted it as losing nothing"))
    if module.check_mode:
        return
    update_features(client, changes, False, timeout_ms)
    behind = wait_until_seen(client, dict((name, level) for name, (unused, level) in changes.items()),
                             params["request_timeout"])
    if behind:
        module.warn("the controller finalized the new levels, and %s did not report them within %d s"
                    % (_brokers_words(behind), params["request_timeout"]))
