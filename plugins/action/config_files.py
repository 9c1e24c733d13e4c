# -*- coding: utf-8 -*-
# Copyright: kafkaops.cluster developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Action of kafkaops.cluster.config_files: render the templates on the controller, then run the module once.

Rendering here rather than in a set_fact loop of template lookups keeps the role's task a plain list
of files, and still costs one module run on the host for every folder and file of a role.
"""

from __future__ import absolute_import, division, print_function


from collections.abc import Mapping

from ansible.errors import AnsibleActionFail, AnsibleError
from ansible.module_utils.common.text.converters import to_text
from ansible.module_utils.parsing.convert_bool import boolean
from ansible.plugins.action import ActionBase

from ansible_collections.kafkaops.cluster.plugins.module_utils._input_errors import InputError

MODULE_NAME = "kafkaops.cluster.config_files"
FILE_KEYS = ("dest", "content", "template", "template_vars", "sensitive", "owner", "group", "mode")


class FileEntryError(InputError):
    """A file entry the action cannot use; field names it, such as files[2].template."""


def check_file_entries(files):
    """Return the file entries, each with sensitive as a bool, or raise FileEntryError naming the field.

    Checks only what the action itself needs (where the content comes from); the module checks the rest.
    """
    if files is None:
        return []
    if not isinstance(files, list):
        raise FileEntryError("files", "expected a list of dicts, got %r" % (files,))
    entries = []
    for index, entry in enumerate(files):
        field = "files[%d]" % index
        if not isinstance(entry, Mapping):
            raise FileEntryError(field, "expected a dict, got %r" % (entry,))
        unknown = sorted(set(entry) - set(FILE_KEYS))
        if unknown:
            raise FileEntryError(field, "unknown keys %s (known: %s)" % (", ".join(unknown), ", ".join(FILE_KEYS)))
        has_content = entry.get("content") is not None
        has_template = entry.get("template") is not None
        if has_content == has_template:
            raise FileEntryError(field, "give exactly one of content and template (dest %s)" % (entry.get("dest"),))
        if has_template and not isinstance(entry["template"], str):
            raise FileEntryError(field + ".template", "expected the name of a template, got %r" % (entry["template"],))
        template_vars = entry.get("template_vars")
        if template_vars is not None:
            if not has_template:
                raise FileEntryError(field + ".template_vars", "only used with template")
            if not isinstance(template_vars, Mapping):
                raise FileEntryError(field + ".template_vars", "expected a dict, got %r" % (template_vars,))
        try:
            sensitive = boolean(entry.get("sensitive", False), strict=True)
        except TypeError:
            raise FileEntryError(field + ".sensitive",
                                 "expected a boolean, got %r" % (entry.get("sensitive"),)) from None
        entries.append(dict(entry, sensitive=sensitive))
    return entries


def module_file_entries(entries, render):
    """The entries as the module takes them: render(index, entry) gives the content of each template entry."""
    rendered = []
    for index, entry in enumerate(entries):
        module_entry = {key: value for key, value in entry.items() if key not in ("template", "template_vars")}
        if entry.get("template") is not None:
            module_entry["content"] = render(index, entry)
        rendered.append(module_entry)
    return rendered


def has_sensitive_entry(module_args):
    return any(entry.get("sensitive") for entry in module_args.get("files") or [])


class ActionModule(ActionBase):

    TRANSFERS_FILES = False
    _supports_check_mode = True
    _supports_async = False

    def run(self, tmp=None, task_vars=None):
        if task_vars is None:
            task_vars = dict()
        result = super(ActionModule, self).run(tmp, task_vars)
        del tmp  # tmp no longer has any effect

        try:
            entries = check_file_entries(self._task.args.get("files"))
        except FileEntryError as error:
            raise AnsibleActionFail(to_text(error)) from None
        module_args = dict(self._task.args)
        module_args["files"] = module_file_entries(
            entries, lambda index, entry: self._render(index, entry, task_vars))
        result.update(self._execute_module(module_name=MODULE_NAME, module_args=module_args, task_vars=task_vars))
        return result

    def _render(self, index, entry, task_vars):
        field = "files[%d].template" % index
        # Found as the template action finds its src (the role's templates folder, then the playbook's),
        # so a missing template is named here rather than by the lookup's generic error.
        try:
            self._find_needle("templates", entry["template"])
        except AnsibleError as error:
            raise AnsibleActionFail("%s: %s" % (field, to_text(error))) from None
        # The builtin template lookup renders it, so that the files are byte for byte what the roles
        # rendered with it before (ansible_managed, template_* variables, trailing newlines).
        lookup = self._shared_loader_obj.lookup_loader.get(
            "ansible.builtin.template", loader=self._loader, templar=self._templar)
        try:
            return lookup.run([entry["template"]], variables=task_vars,
                              template_vars=dict(entry.get("template_vars") or {}))[0]
        except AnsibleError as error:
            raise AnsibleActionFail("%s: cannot render %s: %s" % (field, entry["template"], to_text(error))) from None

    def _update_module_args(self, module_name, module_args, task_vars, *args, **kwargs):
        super(ActionModule, self)._update_module_args(module_name, module_args, task_vars, *args, **kwargs)
        if has_sensitive_entry(module_args):
            # A module logs its arguments to the host's syslog unless told not to; a secret would land there.
            module_args["_ansible_no_log"] = True
