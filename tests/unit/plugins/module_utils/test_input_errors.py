"""Input the collection refuses is one kind of error: an InputError naming the field, whatever checked it."""

import pytest
from ansible_collections.kafkaops.cluster.plugins.action.config_files import FileEntryError, check_file_entries
from ansible_collections.kafkaops.cluster.plugins.module_utils import (
    _acl_changes,
    _topic_changes,
    _topics,
    _user_changes,
)
from ansible_collections.kafkaops.cluster.plugins.module_utils._acl_changes import AclSpecError
from ansible_collections.kafkaops.cluster.plugins.module_utils._broker_configs import (
    BrokerConfigSpecError,
    check_broker_config_inputs,
)
from ansible_collections.kafkaops.cluster.plugins.module_utils._cluster import TopicSelectionError
from ansible_collections.kafkaops.cluster.plugins.module_utils._consumer_group_changes import GroupSpecError
from ansible_collections.kafkaops.cluster.plugins.module_utils._disk_ledger import CapacityOrderError, RoomTooLate
from ansible_collections.kafkaops.cluster.plugins.module_utils._input_errors import InputError, field_name
from ansible_collections.kafkaops.cluster.plugins.module_utils._kafka_admin import KafkaAdminError, failure_details
from ansible_collections.kafkaops.cluster.plugins.module_utils._leader_election import ElectionInputError
from ansible_collections.kafkaops.cluster.plugins.module_utils._option_limits import OptionValueError
from ansible_collections.kafkaops.cluster.plugins.module_utils._quorum import QuorumOutputError
from ansible_collections.kafkaops.cluster.plugins.module_utils._reassignment_executor import ReassignmentTimedOut
from ansible_collections.kafkaops.cluster.plugins.module_utils._reassignment_moves import PlanInputError
from ansible_collections.kafkaops.cluster.plugins.module_utils._reassignment_planner import PlanError
from ansible_collections.kafkaops.cluster.plugins.module_utils._topic_changes import TopicSpecError
from ansible_collections.kafkaops.cluster.plugins.module_utils._user_changes import UserSpecError
from ansible_collections.kafkaops.cluster.plugins.module_utils._zookeeper_client import ZooKeeperClientError
from ansible_collections.kafkaops.cluster.plugins.module_utils._zookeeper_words import ZooKeeperWordError

INPUT_ERRORS = [AclSpecError, BrokerConfigSpecError, ElectionInputError, FileEntryError, GroupSpecError,
                OptionValueError, PlanError, PlanInputError, TopicSelectionError, TopicSpecError, UserSpecError]
# Failures of the cluster, a host or a tool once the input was accepted.
OTHER_ERRORS = [CapacityOrderError, KafkaAdminError, QuorumOutputError, ReassignmentTimedOut, RoomTooLate,
                ZooKeeperClientError, ZooKeeperWordError]


@pytest.mark.parametrize("error_class", INPUT_ERRORS, ids=lambda error_class: error_class.__name__)
def test_every_input_error_is_an_input_error_that_names_its_field(error_class):
    error = error_class("topics[3].partitions", "must be a positive integer, not 0")
    assert isinstance(error, InputError)
    assert error.field == "topics[3].partitions"
    assert error.message == "must be a positive integer, not 0"
    assert str(error) == "topics[3].partitions: must be a positive integer, not 0"
    assert failure_details(error) == {"msg": "topics[3].partitions: must be a positive integer, not 0",
                                      "field": "topics[3].partitions"}


@pytest.mark.parametrize("error_class", OTHER_ERRORS, ids=lambda error_class: error_class.__name__)
def test_failures_after_the_input_was_accepted_are_not_input_errors(error_class):
    assert not issubclass(error_class, InputError)


def test_input_error_itself_reads_as_field_colon_message():
    error = InputError("request_timeout", "must be at least 1, not 0")
    assert (error.field, error.message, str(error)) == ("request_timeout", "must be at least 1, not 0",
                                                        "request_timeout: must be at least 1, not 0")
    assert error.args == ("request_timeout: must be at least 1, not 0",)


def test_a_field_of_a_listed_item_is_named_after_the_item():
    assert field_name("topics[3]", "partitions") == "topics[3].partitions"
    assert field_name("acls[0]", "operation") == "acls[0].operation"
    assert field_name("topics[1]", "config.retention.ms") == "topics[1].config.retention.ms"


def test_a_field_of_a_module_that_declares_one_item_is_the_option_itself():
    assert field_name("", "partitions") == "partitions"
    assert field_name(None, "password") == "password"


def test_the_modules_share_the_one_field_name():
    for module in (_acl_changes, _topic_changes, _topics, _user_changes):
        assert module.field_name is field_name


# The two checks whose errors were built from "field: message" text before they became InputErrors.
@pytest.mark.parametrize("check, given, field, message", [
    (check_broker_config_inputs, {"broker": "x", "config": {"a": 1}}, "broker",
     "broker: 'x' is neither 'default' (the cluster-wide default) nor a broker id (an integer >= 0)"),
    (check_broker_config_inputs, {"broker": None, "config": {}}, "config",
     "config: give at least one setting, as a mapping of name to value (null to remove a setting)"),
    (check_broker_config_inputs, {"broker": None, "config": {"a b": 1}}, "config",
     "config: 'a b' is not a setting's name"),
    (check_broker_config_inputs, {"broker": None, "config": {"log.dirs": ["/a"]}}, "config.log.dirs",
     "config.log.dirs: a list is not a setting's value; give text, a number or a boolean (null removes the setting)"),
    (check_file_entries, "x", "files", "files: expected a list of dicts, got 'x'"),
    (check_file_entries, ["x"], "files[0]", "files[0]: expected a dict, got 'x'"),
    (check_file_entries, [{"dest": "/a", "content": "", "template_vars": {}}], "files[0].template_vars",
     "files[0].template_vars: only used with template"),
    (check_file_entries, [{"dest": "/a", "content": "", "sensitive": "maybe"}], "files[0].sensitive",
     "files[0].sensitive: expected a boolean, got 'maybe'"),
], ids=["broker", "no-config", "bad-name", "list-value",
        "files-not-a-list", "file-not-a-dict", "template-vars-without-template", "sensitive-not-a-bool"])
def test_broker_config_and_file_entry_errors_read_as_before(check, given, field, message):
    with pytest.raises(InputError) as refused:
        check(given)
    assert (refused.value.field, str(refused.value)) == (field, message)
