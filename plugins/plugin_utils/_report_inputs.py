# -*- coding: utf-8 -*-
# Copyright: kafkaops.cluster developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The inputs of playbooks/report.yml, checked and typed once: the files it reads and writes as absolute paths, each
file to read with the variable that names it, and whether to read the consumer groups.

Paths are made absolute on the controller, where the page is written and the files are read: the file lookup would
look for a relative path beside the playbook. Plain data in, plain data out: the caller passes the function that
makes a path absolute (os.path.realpath, or a stand-in in the tests).
"""

from __future__ import absolute_import, division, print_function


from ansible_collections.kafkaops.cluster.plugins.plugin_utils._role_inputs import convert


def listed_paths(value):
    """A list of paths given as a list, or as comma-separated text (-e verify_reports=a.json,b.json; empty parts
    left out)."""
    if isinstance(value, str):
        return [part for part in value.split(",") if part]
    return list(value or [])


def report_inputs(report_file, plan_file, verify_reports, consumer_groups, absolute):
    """{report_path, plan_path ('' without a plan), verify_paths, files: [{variable, path}] (every file to read,
    the plan first), consumer_groups (a bool)}.

    Raises InputTypeError (plugin_utils/_role_inputs.py) naming consumer_groups when it is not a bool.
    """
    plan_path = absolute(plan_file) if plan_file else ""
    verify_paths = [absolute(path) for path in listed_paths(verify_reports)]
    files = ([{"variable": "plan_file", "path": plan_path}] if plan_path else []) + [
        {"variable": "verify_reports", "path": path} for path in verify_paths]
    return {"report_path": absolute(report_file), "plan_path": plan_path, "verify_paths": verify_paths,
            "files": files, "consumer_groups": convert("consumer_groups", consumer_groups, {"type": "bool"})}
