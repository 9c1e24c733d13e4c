# -*- coding: utf-8 -*-
# Copyright: kafkaops.cluster developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The frame every admin module runs in, so that a module file only declares and wires.

A module gives its own options and a run function; KafkaAdminModule does the rest the same way
for all of them: it builds the AnsibleModule from the connection options and the module's own,
fails when kafka-python is missing, refuses bad input before connecting (out-of-range numbers,
then the module's own input check), connects, runs, always closes the client, and turns any
error into fail_json naming the field.

A run function takes (module, client), or (module, client, inputs) when the module checks its
inputs first. It reads options from module.params, asks module.check_mode and module.diff, and
puts what it reports into module.result. Unit tests give it a fake client of plain data.
"""

from __future__ import absolute_import, division, print_function


import json

from ansible.module_utils.basic import AnsibleModule, missing_required_lib

from ansible_collections.kafkaops.cluster.plugins.module_utils._kafka_admin import (
    HAS_KAFKA,
    KAFKA_IMPORT_ERROR,
    admin_client,
    check_admin_options,
    close_quietly,
    connection_argument_spec,
    failure_details,
)


class KafkaAdminModule:
    """An admin module: its AnsibleModule, its result so far, and run() to carry it out."""

    def __init__(self, argument_spec, limits=None, offline_options=(), unexpected="Kafka request failed",
                 **module_options):
        """argument_spec: the module's own options (the connection options are added).

        limits: {option: NumberLimit} checked before anything else. offline_options: options any of
        which, when set, means the module works without a cluster (no connection, no kafka-python
        needed); having any makes bootstrap_servers optional. unexpected: how a failure that is not one of
        this collection's own errors is introduced. module_options: more AnsibleModule arguments
        (mutually_exclusive, required_one_of); check mode is always supported.
        """
        spec = connection_argument_spec()
        if offline_options:
            spec["bootstrap_servers"]["required"] = False
        spec.update(argument_spec)
        self.ansible_module = AnsibleModule(argument_spec=spec, supports_check_mode=True, **module_options)
        self.params = self.ansible_module.params
        self.limits = limits
        self.offline_options = tuple(offline_options)
        self.unexpected = unexpected
        # What the module returns; what it holds when a run fails is returned beside msg and field.
        self.result = {}

    @property
    def check_mode(self):
        return self.ansible_module.check_mode

    @property
    def diff(self):
        return self.ansible_module._diff  # pylint: disable=protected-access

    @property
    def offline(self):
        return any(self.params[option] is not None for option in self.offline_options)

    def warn(self, message):
        self.ansible_module.warn(message)

    def log(self, message):
        self.ansible_module.log(message)

    def progress_reporter(self, name, describe, progress_file=None):
        """report(reading): log the reading as describe() words it, and append it as a JSON line to progress_file.

        One line per reading, so an action plugin (or an operator's tail -f) can follow the file.
        """
        def report(reading):
            self.log("%s: %s" % (name, describe(reading)))
            if progress_file:
                with open(progress_file, "a") as handle:
                    handle.write(json.dumps(reading) + "\n")

        return report

    def atomic_move(self, source, destination):
        self.ansible_module.atomic_move(source, destination)

    def connect(self):
        """A new admin client to the cluster of the connection options (the caller closes it)."""
        return admin_client(self.params)

    def run(self, run, check_inputs=None, result=None):
        """Check, connect, run(self, client[, inputs]) and exit with module.result, or fail naming the field.

        check_inputs(self): checks the module's own inputs without the network and returns what run
        needs of them. result: what the module returns when nothing was done; a failure returns it
        too, with whatever the run added to it.
        """
        if not self.offline and not HAS_KAFKA:
            self.ansible_module.fail_json(msg=missing_required_lib("kafka-python"), exception=KAFKA_IMPORT_ERROR)
        self.result = dict(result or {})
        client = None
        try:
            check_admin_options(self.params, self.limits)
            inputs = check_inputs(self) if check_inputs is not None else None
            if not self.offline:
                client = self.connect()
            if check_inputs is not None:
                run(self, client, inputs)
            else:
                run(self, client)
        except Exception as error:  # pylint: disable=broad-except
            self.ansible_module.fail_json(**dict(self.result, **failure_details(error, self.unexpected)))
        finally:
            close_quietly(client)
        self.ansible_module.exit_json(**self.result)
