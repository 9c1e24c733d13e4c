#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: kafkaops.cluster developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function


DOCUMENTATION = r"""
---
module: config_files
short_description: Write several folders and files, given or rendered from templates, in one module run
version_added: "0.1.0"
description:
  - Makes sure each folder in O(directories) exists and each file in O(files) holds exactly the
    given content, with the given owner, group and mode, and reports which paths changed.
  - One module run for all of a role's folders and files, instead of one task per file, because on
    a host reached through a slow connection each module run costs far more than the work it does.
  - A file's content is given as text (O(files[].content)) or rendered from a template
    (O(files[].template)). Templates are rendered on the controller by the action plugin of the
    same name, with the task's variables, before the one module run on the host.
  - Files are replaced atomically (written next to the destination, then renamed).
  - Needs only the Python standard library on the host it runs on.
author:
  - kafkaops.cluster developers (@kafkaops)
options:
  directories:
    description:
      - Folders to create when missing, before any file is written. Missing parent folders are
        created too, owned by root with mode C(0755).
    type: list
    elements: dict
    default: []
    suboptions:
      path:
        description: Absolute path of the folder.
        type: path
        required: true
      owner:
        description: User that owns the folder (name or number). Unset, the owner is left alone.
        type: str
      group:
        description: Group of the folder (name or number). Unset, the group is left alone.
        type: str
      mode:
        description: Permissions as an octal number, such as C('0750'). Unset, they are left alone.
        type: raw
  files:
    description: Files to write, after the folders.
    type: list
    elements: dict
    default: []
    suboptions:
      dest:
        description: Absolute path of the file. Its folder must exist or be listed in O(directories).
        type: path
        required: true
      content:
        description:
          - The whole content of the file, as text (written as UTF-8).
          - Give exactly one of O(files[].content) and O(files[].template).
        type: str
      template:
        description:
          - A Jinja2 template rendered on the controller into the file's content, found where
            M(ansible.builtin.template) finds its O(ansible.builtin.template#module:src) (the
            C(templates) folder of the role, then next to the playbook), and rendered as the
            P(ansible.builtin.template#lookup) lookup renders it.
          - The template sees the task's variables and O(files[].template_vars).
        type: str
        version_added: "0.2.0"
      template_vars:
        description:
          - Variables for this file's template only, on top of the task's variables; for example the
            broker instance a broker's C(server.properties) is rendered for.
          - Only with O(files[].template).
        type: dict
        version_added: "0.2.0"
      sensitive:
        description:
          - The content is secret, such as a password or a key, and is never shown, neither in the
            diff (which then only says the content changed) nor in the task's result or the host's log.
          - Like C(no_log), but for this file only, so that the other files of the task still show
            their diffs.
        type: bool
        default: false
        version_added: "0.2.0"
      owner:
        description: User that owns the file (name or number). Unset, root for a new file.
        type: str
      group:
        description: Group of the file (name or number). Unset, root for a new file.
        type: str
      mode:
        description: Permissions as an octal number, such as C('0640'). Unset, C(0644) for a new file.
        type: raw
attributes:
  check_mode:
    description: Reports what would change and changes nothing.
    support: full
  diff_mode:
    description:
      - Returns the content before and after of each changed file, and the changed owner, group or
        mode. The content of a file marked O(files[].sensitive) is not shown.
    support: full
  action:
    description: An action plugin renders the templates on the controller, then runs the module once.
    support: full
notes:
  - Symbolic modes (C(u=rw,g=r)) are not supported; give octal numbers.
"""

EXAMPLES = r"""
- name: Write the broker's folders and configuration in one go
  kafkaops.cluster.config_files:
    directories:
      - {path: /etc/kafka/broker-1, owner: root, group: kafka, mode: "0755"}
      - {path: /var/lib/kafka/broker-1, owner: kafka, group: kafka, mode: "0750"}
    files:
      - dest: /etc/kafka/broker-1/server.properties
        template: server.properties.j2
        # The template reads instance.broker_id, instance.port, ...
        template_vars:
          instance: {broker_id: 1, port: 9092}
        owner: root
        group: kafka
        mode: "0640"
      - dest: /etc/kafka/broker-1/jaas.conf
        template: jaas.conf.j2
        # Holds a password: its diff shows that it changed, not what.
        sensitive: true
        owner: root
        group: kafka
        mode: "0640"
      - dest: /etc/systemd/system/kafka-broker-1.service
        template: kafka-broker.service.j2
        template_vars:
          instance: {broker_id: 1, port: 9092}
        mode: "0644"
  register: broker_files

- name: Write a ZooKeeper node's id, given as text, and its zoo.cfg
  kafkaops.cluster.config_files:
    files:
      - {dest: /var/lib/zookeeper/myid, content: "1\n", owner: zookeeper, group: zookeeper, mode: "0640"}
      - {dest: /etc/zookeeper/zoo.cfg, template: zoo.cfg.j2, owner: root, group: zookeeper, mode: "0640"}

- name: Restart only when a file of the broker changed
  ansible.builtin.debug:
    msg: "changed: {{ broker_files.changed_paths }}"
  when: broker_files.changed
"""

RETURN = r"""
changed_paths:
  description: Folders and files whose content, owner, group or mode changed (or would change in check mode).
  returned: always
  type: list
  elements: str
  sample: [/etc/kafka/broker-1/server.properties]
created_paths:
  description: The subset of RV(changed_paths) that did not exist before.
  returned: always
  type: list
  elements: str
  sample: [/etc/kafka/broker-1]
"""

import grp
import os
import pwd
import stat
import tempfile

from ansible.module_utils.basic import AnsibleModule
from ansible.module_utils.common.text.converters import to_bytes, to_native, to_text

NEW_FILE_MODE = 0o644
NEW_PARENT_MODE = 0o755
# What the diff of a file marked sensitive shows instead of its content.
HIDDEN_CONTENT = "(sensitive content not shown)\n"
CHANGED_HIDDEN_CONTENT = "(sensitive content not shown, changed)\n"


class ConfigFilesError(Exception):
    """A problem with one entry; the message names the entry's field."""


def _user_id(name, field):
    if name is None:
        return None
    if name.isdigit():
        return int(name)
    try:
        return pwd.getpwnam(name).pw_uid
    except KeyError:
        raise ConfigFilesError("%s: no user named '%s' on this host" % (field, name)) from None


def _group_id(name, field):
    if name is None:
        return None
    if name.isdigit():
        return int(name)
    try:
        return grp.getgrnam(name).gr_gid
    except KeyError:
        raise ConfigFilesError("%s: no group named '%s' on this host" % (field, name)) from None


def _mode(value, field):
    if value is None:
        return None
    if isinstance(value, int) and not isinstance(value, bool):
        # An unquoted 0640 in YAML arrives as the int 416 (read as octal): an int is the bits themselves.
        number = value
    else:
        try:
            number = int(str(value), 8)
        except ValueError:
            raise ConfigFilesError("%s: expected an octal mode such as '0640', got %r" % (field, value)) from None
    if not 0 <= number <= 0o7777:
        raise ConfigFilesError("%s: expected an octal mode within 0000-7777, got %r" % (field, value))
    return number


def _attributes(entry, field):
    return (_user_id(entry.get("owner"), field + ".owner"),
            _group_id(entry.get("group"), field + ".group"),
            _mode(entry.get("mode"), field + ".mode"))


def _attribute_changes(current, wanted):
    """(name, before, after) for each attribute that differs; current is an os.stat_result."""
    uid, gid, mode = wanted
    changes = []
    if uid is not None and current.st_uid != uid:
        changes.append(("owner", current.st_uid, uid))
    if gid is not None and current.st_gid != gid:
        changes.append(("group", current.st_gid, gid))
    if mode is not None and stat.S_IMODE(current.st_mode) != mode:
        changes.append(("mode", "%04o" % stat.S_IMODE(current.st_mode), "%04o" % mode))
    return changes


def _apply_attributes(path, wanted):
    uid, gid, mode = wanted
    if uid is not None or gid is not None:
        os.chown(path, -1 if uid is None else uid, -1 if gid is None else gid)
    if mode is not None:
        os.chmod(path, mode)


def _attribute_text(changes, which):
    return "".join("%s: %s\n" % (name, before if which == 0 else after) for name, before, after in changes)


def ensure_directory(path, wanted, check_mode):
    """Return (created, attribute changes)."""
    if os.path.isdir(path):
        changes = _attribute_changes(os.stat(path), wanted)
        if changes and not check_mode:
            _apply_attributes(path, wanted)
        return False, changes
    if os.path.lexists(path):
        raise ConfigFilesError("exists and is not a folder")
    if not check_mode:
        parent = os.path.dirname(path)
        if parent and not os.path.isdir(parent):
            os.makedirs(parent, NEW_PARENT_MODE)
        os.mkdir(path, NEW_PARENT_MODE)
        _apply_attributes(path, wanted)
    return True, []


def ensure_file(dest, content, wanted, check_mode):
    """Return (created, the content before or None, attribute changes)."""
    if os.path.lexists(dest) and not os.path.isfile(dest):
        raise ConfigFilesError("exists and is not a regular file")
    existing = None
    if os.path.isfile(dest):
        with open(dest, "rb") as handle:
            existing = handle.read()
        if existing == content:
            changes = _attribute_changes(os.stat(dest), wanted)
            if changes and not check_mode:
                _apply_attributes(dest, wanted)
            return False, existing, changes
        changes = _attribute_changes(os.stat(dest), wanted)
    else:
        changes = []
    if check_mode:
        return existing is None, existing, changes
    folder = os.path.dirname(dest)
    if not os.path.isdir(folder):
        raise ConfigFilesError("folder %s does not exist (list it under directories)" % folder)
    uid, gid, mode = wanted
    if existing is not None:
        current = os.stat(dest)
        uid = current.st_uid if uid is None else uid
        gid = current.st_gid if gid is None else gid
        mode = stat.S_IMODE(current.st_mode) if mode is None else mode
    descriptor, temporary = tempfile.mkstemp(dir=folder, prefix="." + os.path.basename(dest) + ".")
    try:
        with os.fdopen(descriptor, "wb") as handle:
            handle.write(content)
            handle.flush()
            os.fsync(handle.fileno())
        _apply_attributes(temporary, (0 if uid is None else uid, 0 if gid is None else gid,
                                      NEW_FILE_MODE if mode is None else mode))
        os.rename(temporary, dest)
    except BaseException:
        if os.path.lexists(temporary):
            os.unlink(temporary)
        raise
    return existing is None, existing, changes


def _content_diff(existing, content, sensitive):
    """The before and after text of a file's diff; a sensitive file's only say whether it changed."""
    if sensitive:
        if existing is None:
            return "", HIDDEN_CONTENT
        if existing == content:
            return "", ""
        return HIDDEN_CONTENT, CHANGED_HIDDEN_CONTENT
    before = "" if existing is None else to_text(existing, errors="surrogate_or_replace")
    return before, to_text(content, errors="surrogate_or_replace")


def run(module, hide=lambda text: None):
    """Write what module.params ask for; hide(text) is given each secret the result must not show."""
    check_mode = module.check_mode
    changed_paths = []
    created_paths = []
    diffs = []
    # Every owner, group and mode is resolved first, so that a bad one in the last entry is refused
    # before the first entry changes anything.
    directory_attributes = [_attributes(entry, "directories[%d]" % index)
                            for index, entry in enumerate(module.params["directories"])]
    file_attributes = [_attributes(entry, "files[%d]" % index) for index, entry in enumerate(module.params["files"])]
    for index, entry in enumerate(module.params["directories"]):
        field = "directories[%d]" % index
        path = entry["path"]
        wanted = directory_attributes[index]
        try:
            created, changes = ensure_directory(path, wanted, check_mode)
        except ConfigFilesError as error:
            raise ConfigFilesError("%s.path: %s %s" % (field, path, error)) from None
        except OSError as error:
            raise ConfigFilesError("%s.path: cannot set up %s: %s" % (field, path, to_native(error))) from None
        if created or changes:
            changed_paths.append(path)
            if created:
                created_paths.append(path)
            diffs.append({"before_header": path, "after_header": path,
                          "before": "state: absent\n" if created else _attribute_text(changes, 0),
                          "after": "state: directory\n" if created else _attribute_text(changes, 1)})
    for index, entry in enumerate(module.params["files"]):
        field = "files[%d]" % index
        dest = entry["dest"]
        content = to_bytes(entry["content"], errors="surrogate_or_strict")
        wanted = file_attributes[index]
        try:
            created, existing, changes = ensure_file(dest, content, wanted, check_mode)
        except ConfigFilesError as error:
            raise ConfigFilesError("%s.dest: %s %s" % (field, dest, error)) from None
        except OSError as error:
            raise ConfigFilesError("%s.dest: cannot write %s: %s" % (field, dest, to_native(error))) from None
        if entry["sensitive"] and existing:
            # The content the file held before is as secret as the new one.
            hide(to_text(existing, errors="surrogate_or_replace"))
        if created or existing != content or changes:
            changed_paths.append(dest)
            if created:
                created_paths.append(dest)
            before, after = _content_diff(existing, content, entry["sensitive"])
            diffs.append({"before_header": dest, "after_header": dest,
                          "before": _attribute_text(changes, 0) + before,
                          "after": _attribute_text(changes, 1) + after})
    result = {"changed": bool(changed_paths), "changed_paths": changed_paths, "created_paths": created_paths}
    if module._diff:
        result["diff"] = diffs
    return result


def _hide(module, text):
    # Blank text is not worth hiding, and hiding it would mask every string in the result.
    if text.strip():
        module.no_log_values.add(text)


def main():
    attributes = dict(owner=dict(type="str"), group=dict(type="str"), mode=dict(type="raw"))
    module = AnsibleModule(
        argument_spec=dict(
            directories=dict(type="list", elements="dict", default=[],
                             options=dict(path=dict(type="path", required=True), **attributes)),
            files=dict(type="list", elements="dict", default=[],
                       options=dict(dest=dict(type="path", required=True), content=dict(type="str"),
                                    template=dict(type="str"), template_vars=dict(type="dict"),
                                    sensitive=dict(type="bool", default=False), **attributes),
                       mutually_exclusive=[("content", "template")], required_one_of=[("content", "template")],
                       required_by={"template_vars": "template"}),
        ),
        supports_check_mode=True,
    )
    # From here on every result, the invocation's echo of the arguments included, leaves them out.
    for entry in module.params["files"]:
        if entry["sensitive"] and entry["content"] is not None:
            _hide(module, entry["content"])
    for field, entries, key in (("directories", module.params["directories"], "path"),
                                ("files", module.params["files"], "dest")):
        for index, entry in enumerate(entries):
            if not os.path.isabs(entry[key]):
                module.fail_json(msg="%s[%d].%s: expected an absolute path, got '%s'" % (field, index, key, entry[key]))
    for index, entry in enumerate(module.params["files"]):
        if entry["template"] is not None:
            module.fail_json(msg="files[%d].template: templates are rendered on the controller by the action plugin "
                                 "kafkaops.cluster.config_files; this module got one unrendered" % index)
    try:
        module.exit_json(**run(module, hide=lambda text: _hide(module, text)))
    except ConfigFilesError as error:
        module.fail_json(msg=str(error))


if __name__ == "__main__":
    main()
