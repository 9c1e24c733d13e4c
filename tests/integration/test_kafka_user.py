"""kafka_user against a live cluster.

Every change is run in the order check mode, real, check mode again, real again: check mode must
predict the real result, and the second pass must report no change (except with
update_password=always, which sets the password and reports a change on every run). Every refused
input must fail naming the field and leave the credentials exactly as they were. No run may show a
password anywhere in Ansible's output.

SCRAM credentials can be managed on a cluster whose listeners are all PLAINTEXT: they are kept in
ZooKeeper (or the KRaft metadata log) whether or not a SASL listener uses them.
"""

import uuid

import pytest

RESULT_KEYS = ("users", "created", "updated", "deleted", "diff")


def _user():
    return "it-%s-user" % uuid.uuid4().hex[:8]


def _password():
    return "pw-%s" % uuid.uuid4().hex


def _run(kafka, passwords, **args):
    """Run kafka_user and check that none of the passwords shows in the raw output."""
    run = kafka("kafka_user", **args)
    for password in passwords:
        assert password not in run.output, "a password appears in the output of kafka_user"
    return run


def _four_passes(kafka, passwords, changes_every_time=False, **args):
    """check, real, check, real; returns the first two results after asserting the pattern."""
    predicted = _run(kafka, passwords, check=True, diff=True, **args)
    assert not predicted.failed, predicted.output
    assert predicted.changed
    applied = _run(kafka, passwords, diff=True, **args)
    assert not applied.failed, applied.output
    assert applied.changed
    for key in RESULT_KEYS:
        assert predicted[key] == applied[key], key
    for check in (True, False):
        again = _run(kafka, passwords, check=check, diff=True, **args)
        assert not again.failed, again.output
        if changes_every_time:
            assert again.changed and again["updated"] == applied["updated"], again.output
        else:
            assert not again.changed, again.output
    return predicted, applied


def test_create_change_the_password_and_delete_in_four_passes(kafka, cluster):
    name, first, second = _user(), _password(), _password()
    passwords = (first, second)
    unused, created = _four_passes(kafka, passwords, name=name, password=first)
    assert created["created"] == [name] and created["users"] == [name]
    assert created["diff"] == {"before": {name: None}, "after": {name: {"SCRAM-SHA-512": {"iterations": 4096}}}}
    assert cluster.scram_users([name]) == {name: {"SCRAM-SHA-512": 4096}}

    # on_create (the default) leaves an existing password as it is.
    kept = _run(kafka, passwords, name=name, password=second)
    assert not kept.failed and not kept.changed, kept.output

    # A credential cannot be read back, so with always every run sets it and says so.
    unused, updated = _four_passes(kafka, passwords, changes_every_time=True, name=name, password=second,
                                   iterations=8192, update_password="always")
    assert updated["updated"] == [name] and updated["created"] == []
    assert updated["diff"]["after"] == {name: {"SCRAM-SHA-512": {"iterations": 8192}}}
    assert cluster.scram_users([name]) == {name: {"SCRAM-SHA-512": 8192}}

    unused, deleted = _four_passes(kafka, passwords, name=name, state="absent")
    assert deleted["deleted"] == [name]
    assert deleted["diff"] == {"before": {name: {"SCRAM-SHA-512": {"iterations": 8192}}}, "after": {name: None}}
    assert cluster.scram_users([name]) == {}


def test_many_users_and_both_mechanisms_in_one_call(kafka, cluster):
    names = [_user() for unused in range(3)]
    password = _password()
    users = [{"name": names[0], "password": password},
             {"name": names[0], "password": password, "mechanism": "SCRAM-SHA-256", "iterations": 16384},
             {"name": names[1], "password": password, "mechanism": "SCRAM-SHA-256"},
             {"name": names[2], "state": "absent"}]
    unused, created = _four_passes(kafka, [password], users=users)
    assert created["created"] == names[:2] and created["deleted"] == []
    assert cluster.scram_users(names) == {names[0]: {"SCRAM-SHA-512": 4096, "SCRAM-SHA-256": 16384},
                                          names[1]: {"SCRAM-SHA-256": 4096}}

    # One mechanism of one user, then every credential of the others.
    unused, one = _four_passes(kafka, [password], users=[{"name": names[0], "mechanism": "SCRAM-SHA-256"}],
                               state="absent")
    assert one["deleted"] == [names[0]] and cluster.scram_users(names)[names[0]] == {"SCRAM-SHA-512": 4096}
    _four_passes(kafka, [password], users=[{"name": name} for name in names], state="absent")
    assert cluster.scram_users(names) == {}


# One user for the module: the tests that use it leave it as it was (they check that they do).
@pytest.fixture(scope="module")
def existing_user(kafka):
    name, password = _user(), _password()
    made = kafka("kafka_user", name=name, password=password)
    assert made.changed, made.output
    yield name
    kafka("kafka_user", name=name, state="absent")


REFUSED = [
    # (module args builder given the existing user, a new user's name and a password, field, words in the message)
    (lambda user, new, password: {"name": "", "password": password}, "name", "a user name is required"),
    (lambda user, new, password: {"users": [{"name": new, "password": password}, {"name": "", "password": password}]},
     "users[1].name", "a user name is required"),
    (lambda user, new, password: {"users": [{"name": new, "password": password}, {"name": new, "password": password}]},
     "users[1].name", "declared twice"),
    (lambda user, new, password: {"users": [{"name": new, "password": password}, {"name": user + "-other"}]},
     "users[1].password", "a password is required"),
    (lambda user, new, password: {"users": [{"name": new, "password": password},
                                            {"name": user, "password": password, "mechanism": "SCRAM-SHA-1"}]},
     "users[1].mechanism", "must be SCRAM-SHA-512 or SCRAM-SHA-256"),
    (lambda user, new, password: {"name": user, "password": password, "iterations": 4095,
                                  "update_password": "always"},
     "iterations", "must be from 4096 to 16384"),
    (lambda user, new, password: {"users": [{"name": new, "password": password},
                                            {"name": user, "password": password, "iterations": 16385}],
                                  "update_password": "always"},
     "users[1].iterations", "must be from 4096 to 16384"),
]


@pytest.mark.parametrize("build, field, words", REFUSED, ids=[
    "empty-name", "empty-name-in-list", "duplicate-name", "missing-password", "unknown-mechanism",
    "too-few-iterations", "too-many-iterations-in-list"])
def test_refused_input_names_the_field_and_changes_nothing(kafka, cluster, existing_user, build, field, words):
    password = _password()
    args = build(existing_user, _user(), password)
    before = cluster.scram_users()
    assert existing_user in before
    for check in (True, False):
        refused = _run(kafka, [password], check=check, **args)
        assert refused.failed, refused.output
        assert refused["field"] == field
        assert refused["msg"].startswith(field + ":") and words in refused["msg"], refused["msg"]
        assert not refused.changed and refused["users"] == []
    assert cluster.scram_users() == before


def test_the_password_is_not_in_the_output_of_a_failed_connection(kafka):
    password = _password()
    refused = _run(kafka, [password], bootstrap_servers=["127.0.0.1:1"], request_timeout=3, name=_user(),
                   password=password)
    assert refused.failed and "127.0.0.1:1" in refused["msg"]
