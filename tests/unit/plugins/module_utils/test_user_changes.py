"""The declared SCRAM users, checked, and their difference from the cluster's credentials."""

import pytest
from ansible_collections.kafkaops.cluster.plugins.module_utils._user_changes import (
    UserSpecError,
    normalize_users,
    plan_user_changes,
)

SECRET = "s3cret-pass"


def users(*items):
    return normalize_users([dict(item) for item in items])


@pytest.mark.parametrize("items, field, words", [
    ([{"name": "", "password": SECRET}], "users[0].name", "a user name is required"),
    ([{"name": "ok", "password": SECRET}, {"name": "  ", "password": SECRET}], "users[1].name", "required"),
    ([{"name": "ok", "password": SECRET}, {"password": SECRET}], "users[1].name", "required"),
    ([{"name": "alice", "password": SECRET}, {"name": "alice", "password": SECRET}], "users[1].name",
     "declared twice for the same mechanism (also users[0])"),
    ([{"name": "alice", "state": "absent"}, {"name": "alice", "password": SECRET, "mechanism": "SCRAM-SHA-256"}],
     "users[1].name", "declared twice"),
    ([{"name": "alice"}], "users[0].password", "a password is required for user 'alice'"),
    ([{"name": "alice", "password": ""}], "users[0].password", "a password is required"),
    ([{"name": "alice", "password": SECRET, "mechanism": "SCRAM-SHA-1"}], "users[0].mechanism",
     "must be SCRAM-SHA-512 or SCRAM-SHA-256, not 'SCRAM-SHA-1'"),
    ([{"name": "alice", "password": SECRET, "iterations": 4095}], "users[0].iterations",
     "must be from 4096 to 16384, got 4095"),
    ([{"name": "alice", "password": SECRET, "iterations": 16385}], "users[0].iterations", "got 16385"),
    ([{"name": "alice", "password": SECRET, "iterations": True}], "users[0].iterations", "whole number"),
    ([{"name": "alice", "password": SECRET, "state": "gone"}], "users[0].state", "present or absent"),
    (["alice"], "users[0]", "a mapping"),
], ids=["empty-name", "blank-name", "no-name", "duplicate", "absent-everything-and-present", "no-password",
        "empty-password", "unknown-mechanism", "too-few-iterations", "too-many-iterations", "boolean-iterations",
        "unknown-state", "not-a-mapping"])
def test_a_bad_declaration_is_refused_naming_the_field(items, field, words):
    with pytest.raises(UserSpecError) as refused:
        normalize_users(items)
    assert refused.value.field == field
    assert str(refused.value).startswith(field + ": ") and words in str(refused.value)
    assert SECRET not in str(refused.value)


def test_one_user_is_named_by_the_module_options():
    with pytest.raises(UserSpecError) as refused:
        normalize_users([{"name": "alice", "password": None, "state": "present"}], field_prefix=None)
    assert refused.value.field == "password"


def test_defaults_and_one_user_per_mechanism():
    declared = users({"name": "alice", "password": SECRET}, {"name": "alice", "password": SECRET,
                                                             "mechanism": "SCRAM-SHA-256", "iterations": 8192},
                     {"name": "bob", "state": "absent", "password": SECRET})
    assert [(user["mechanism"], user["iterations"], user["state"]) for user in declared] == [
        ("SCRAM-SHA-512", 4096, "present"), ("SCRAM-SHA-256", 8192, "present"), (None, 4096, "absent")]
    # A user to remove keeps no password: nothing downstream needs it.
    assert declared[2]["password"] is None


def test_on_create_sets_a_password_only_where_there_is_no_credential():
    declared = users({"name": "alice", "password": SECRET}, {"name": "bob", "password": SECRET},
                     {"name": "carol", "password": SECRET, "mechanism": "SCRAM-SHA-256"})
    actual = {"alice": {"SCRAM-SHA-512": 4096}, "carol": {"SCRAM-SHA-512": 8192}}
    changes = plan_user_changes(declared, actual, "on_create")
    assert [(item["name"], item["mechanism"]) for item in changes["upsert"]] == [
        ("bob", "SCRAM-SHA-512"), ("carol", "SCRAM-SHA-256")]
    assert changes["users"] == ["bob", "carol"] and changes["created"] == ["bob", "carol"]
    assert changes["updated"] == [] and changes["deleted"] == [] and changes["delete"] == []
    assert changes["before"] == {"bob": None, "carol": {"SCRAM-SHA-512": {"iterations": 8192}}}
    assert changes["after"] == {"bob": {"SCRAM-SHA-512": {"iterations": 4096}},
                                "carol": {"SCRAM-SHA-256": {"iterations": 4096}, "SCRAM-SHA-512": {"iterations": 8192}}}
    # The actual state given is not changed by planning.
    assert actual == {"alice": {"SCRAM-SHA-512": 4096}, "carol": {"SCRAM-SHA-512": 8192}}


def test_on_create_leaves_a_credential_of_other_iterations_alone_with_a_warning():
    changes = plan_user_changes(users({"name": "alice", "password": SECRET, "iterations": 8192}),
                                {"alice": {"SCRAM-SHA-512": 4096}}, "on_create")
    assert not changes["changed"] and changes["upsert"] == []
    assert len(changes["notes"]) == 1 and changes["notes"][0].startswith("users[0].iterations: user 'alice'")
    assert "update_password=always" in changes["notes"][0] and SECRET not in changes["notes"][0]


def test_always_sets_every_password_and_reports_them_updated():
    changes = plan_user_changes(users({"name": "alice", "password": SECRET, "iterations": 8192},
                                      {"name": "bob", "password": SECRET}),
                                {"alice": {"SCRAM-SHA-512": 4096}}, "always")
    assert changes["changed"] and changes["users"] == ["alice", "bob"]
    assert changes["updated"] == ["alice"] and changes["created"] == ["bob"]
    assert changes["before"]["alice"] == {"SCRAM-SHA-512": {"iterations": 4096}}
    assert changes["after"]["alice"] == {"SCRAM-SHA-512": {"iterations": 8192}}


def test_absent_removes_one_mechanism_or_all_of_them():
    actual = {"alice": {"SCRAM-SHA-512": 4096, "SCRAM-SHA-256": 4096}, "bob": {"SCRAM-SHA-512": 4096}}
    everything = plan_user_changes(users({"name": "alice", "state": "absent"}, {"name": "nobody", "state": "absent"}),
                                   actual)
    assert everything["delete"] == [("alice", "SCRAM-SHA-256"), ("alice", "SCRAM-SHA-512")]
    assert everything["deleted"] == ["alice"] and everything["users"] == ["alice"]
    assert everything["after"] == {"alice": None}
    one = plan_user_changes(users({"name": "alice", "state": "absent", "mechanism": "SCRAM-SHA-256"},
                                  {"name": "bob", "state": "absent", "mechanism": "SCRAM-SHA-256"}), actual)
    assert one["delete"] == [("alice", "SCRAM-SHA-256")] and one["users"] == ["alice"]
    assert one["after"] == {"alice": {"SCRAM-SHA-512": {"iterations": 4096}}}


def test_nothing_to_do_is_no_change():
    changes = plan_user_changes(users({"name": "alice", "password": SECRET}, {"name": "bob", "state": "absent"}),
                                {"alice": {"SCRAM-SHA-512": 4096}})
    assert not changes["changed"] and changes["users"] == [] and changes["before"] == changes["after"] == {}


def test_nothing_for_display_holds_a_password():
    changes = plan_user_changes(users({"name": "alice", "password": SECRET, "iterations": 8192},
                                      {"name": "bob", "password": SECRET}),
                                {"alice": {"SCRAM-SHA-512": 4096}}, "always")
    shown = dict((key, value) for key, value in changes.items() if key != "upsert")
    assert SECRET not in repr(shown)
    assert [item["password"] for item in changes["upsert"]] == [SECRET, SECRET]
