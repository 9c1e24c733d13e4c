# -*- coding: utf-8 -*-
# Copyright: kafkaops.cluster developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Action of kafkaops.cluster.kafka_broker_wait: wait on the controller, read the broker's unit on its host.

The cluster is asked with kafka-python's admin client, built from the same connection options as
the admin modules', so the wait works on TLS and SASL listeners. The broker's host is asked about
its unit (the module service_info) only while the broker is not ready: a ready broker costs no
module run on its host.
"""

from __future__ import absolute_import, division, print_function


from ansible.errors import AnsibleActionFail
from ansible.module_utils.basic import missing_required_lib
from ansible.module_utils.common.text.converters import to_text
from ansible.plugins.action import ActionBase
from ansible_collections.kafkaops.cluster.plugins.module_utils._broker_wait import (
    LIMITS,
    KafkaLogTail,
    broker_wait_argument_spec,
    wait_for_broker,
)
from ansible_collections.kafkaops.cluster.plugins.module_utils._kafka_admin import (
    HAS_KAFKA,
    admin_client,
    bootstrap_list,
    check_admin_options,
    check_connection_params,
    failure_details,
)
from ansible_collections.kafkaops.cluster.plugins.module_utils._service_watch import ReportedUnitReader, UnitWatch

SERVICE_INFO = "kafkaops.cluster.service_info"
# The options of the module that ran on the broker's host and asked a listener there.
REPLACED_OPTIONS = ("host", "port")


def wait_params(params):
    """The options as the wait connects with them: no request may outlast the whole wait."""
    return dict(params, request_timeout=min(params["request_timeout"], params["timeout"]))


class ActionModule(ActionBase):

    TRANSFERS_FILES = False
    _supports_check_mode = True
    _supports_async = False

    def run(self, tmp=None, task_vars=None):
        if task_vars is None:
            task_vars = dict()
        result = super(ActionModule, self).run(tmp, task_vars)
        del tmp  # tmp no longer has any effect

        replaced = sorted(set(self._task.args) & set(REPLACED_OPTIONS))
        if replaced:
            raise AnsibleActionFail("%s: replaced by bootstrap_servers, the broker's client address as the controller "
                                    "reaches it, such as ['kafka-1.example.net:9092'] (the wait runs on the controller "
                                    "since 0.2.0)" % " and ".join(replaced))
        unused, params = self.validate_argument_spec(argument_spec=broker_wait_argument_spec(),
                                                     required_by=dict(log_file="service"))
        if not HAS_KAFKA:
            raise AnsibleActionFail(missing_required_lib("kafka-python", reason="on the controller"))
        try:
            check_admin_options(params, LIMITS)
            check_connection_params(params)
        except Exception as error:  # pylint: disable=broad-except
            result.update(failed=True, **failure_details(error))
            return result

        connection = wait_params(params)
        subject = "broker %d at %s" % (params["broker_id"], ", ".join(bootstrap_list(params)))
        reader = None
        if params["service"] is not None:
            reader = ReportedUnitReader(lambda arguments: self._service_info(arguments, task_vars),
                                        params["service"], params["log_file"])
        watch = UnitWatch(subject, params["service"], reader)
        with KafkaLogTail() as log_tail:
            ready, outcome = wait_for_broker(
                lambda seconds: admin_client(connection, connect_timeout=seconds), watch,
                params["broker_id"], params["in_sync"], params["timeout"], log_tail=log_tail)
        result.update(outcome, changed=False)
        if not ready:
            result["failed"] = True
        return result

    def _service_info(self, arguments, task_vars):
        try:
            return self._execute_module(module_name=SERVICE_INFO, module_args=arguments, task_vars=task_vars)
        except Exception as error:  # pylint: disable=broad-except
            # An unreachable host does not end the wait: the broker may still come up, and its unit
            # is read again at the next poll.
            return dict(failed=True, msg=to_text(error))
