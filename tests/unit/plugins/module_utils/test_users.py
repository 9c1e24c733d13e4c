"""kafka_user's run against a fake cluster that keeps SCRAM credentials."""

import base64
import hashlib
import hmac

import pytest
from ansible_collections.kafkaops.cluster.plugins.module_utils._users import scram_alterations
from ansible_collections.kafkaops.cluster.plugins.modules import kafka_user
from kafka.admin import UserScramCredentialUpsertion

SERVERS = {"bootstrap_servers": ["kafka1:9092"]}
RESULT_KEYS = ("changed", "users", "created", "updated", "deleted")
SECRET = "pw-7f3c9a1e-never-shown"


@pytest.fixture
def cluster(fake_scram_cluster):
    """alice: a SCRAM-SHA-512 credential of 4096 iterations; bob: SCRAM-SHA-256 and SCRAM-SHA-512."""
    return fake_scram_cluster(scram_users={"alice": {"SCRAM-SHA-512": 4096},
                                           "bob": {"SCRAM-SHA-256": 8192, "SCRAM-SHA-512": 4096}})


def outcome(result):
    return dict((key, result[key]) for key in RESULT_KEYS)


def test_a_declaration_the_cluster_matches_changes_nothing(run_module, cluster):
    args = dict(SERVERS, users=[{"name": "alice", "password": SECRET},
                                {"name": "bob", "password": SECRET, "mechanism": "SCRAM-SHA-256"},
                                {"name": "nobody", "state": "absent"}])
    result = run_module(kafka_user.main, args, cluster, diff=True)
    assert not result.get("failed"), result
    assert outcome(result) == dict(changed=False, users=[], created=[], updated=[], deleted=[])
    assert result["diff"] == dict(before={}, after={})
    assert cluster.writes() == [] and len(cluster.requests("describe_user_scram_credentials")) == 1
    assert all(client.closed for client in cluster.clients)


@pytest.mark.parametrize("args, expected, writes, after", [
    (dict(name="carol", password=SECRET),
     dict(users=["carol"], created=["carol"]),
     [[("upsert", "carol", "SCRAM-SHA-512", 4096)]],
     {"carol": {"SCRAM-SHA-512": 4096}}),
    (dict(users=[{"name": "alice", "password": SECRET, "mechanism": "SCRAM-SHA-256", "iterations": 16384},
                 {"name": "dave", "password": SECRET, "iterations": 8192}]),
     dict(users=["alice", "dave"], created=["alice", "dave"]),
     [[("upsert", "alice", "SCRAM-SHA-256", 16384), ("upsert", "dave", "SCRAM-SHA-512", 8192)]],
     {"alice": {"SCRAM-SHA-512": 4096, "SCRAM-SHA-256": 16384}, "dave": {"SCRAM-SHA-512": 8192}}),
    (dict(name="bob", state="absent"),
     dict(users=["bob"], deleted=["bob"]),
     # One user's two alterations go in two requests: a KRaft controller refuses a user named twice.
     [[("delete", "bob", "SCRAM-SHA-256", None)], [("delete", "bob", "SCRAM-SHA-512", None)]],
     {}),
    (dict(users=[{"name": "bob", "state": "absent", "mechanism": "SCRAM-SHA-256"}, {"name": "alice"}], state="absent"),
     dict(users=["bob", "alice"], deleted=["bob", "alice"]),
     [[("delete", "bob", "SCRAM-SHA-256", None), ("delete", "alice", "SCRAM-SHA-512", None)]],
     {"bob": {"SCRAM-SHA-512": 4096}}),
], ids=["create-one", "create-many", "delete-every-mechanism", "delete-one-mechanism"])
def test_check_mode_predicts_the_change_and_a_second_run_changes_nothing(
        run_module, cluster, args, expected, writes, after):
    args = dict(SERVERS, **args)
    predicted = run_module(kafka_user.main, args, cluster, check_mode=True, diff=True)
    assert not predicted.get("failed"), predicted
    assert cluster.writes() == []
    applied = run_module(kafka_user.main, args, cluster, diff=True)
    wanted = dict(dict(changed=True, users=[], created=[], updated=[], deleted=[]), **expected)
    assert outcome(predicted) == wanted and outcome(applied) == wanted
    assert predicted["diff"] == applied["diff"]
    # One request per round: each user's first alterations together, then its second ones.
    assert [arguments["alterations"] for unused, arguments in cluster.writes()] == writes
    untouched = {"alice": {"SCRAM-SHA-512": 4096}, "bob": {"SCRAM-SHA-256": 8192, "SCRAM-SHA-512": 4096}}
    for name in expected["users"]:
        untouched.pop(name, None)
    assert cluster.scram_users == dict(untouched, **after)
    again = run_module(kafka_user.main, args, cluster, check_mode=True)
    assert not again["changed"]
    again = run_module(kafka_user.main, args, cluster)
    assert not again["changed"] and len(cluster.writes()) == len(writes)
    assert all(client.closed for client in cluster.clients)


def test_update_password_always_sets_it_on_every_run(run_module, cluster):
    args = dict(SERVERS, name="alice", password=SECRET, update_password="always")
    for run in range(2):
        predicted = run_module(kafka_user.main, args, cluster, check_mode=True)
        applied = run_module(kafka_user.main, args, cluster)
        assert outcome(predicted) == outcome(applied) == dict(changed=True, users=["alice"], created=[],
                                                              updated=["alice"], deleted=[])
        assert len(cluster.writes()) == run + 1
    # The password is now the one declared, and each run drew a new salt.
    salt, salted = cluster.stored[("alice", "SCRAM-SHA-512")]
    assert salted == hashlib.pbkdf2_hmac("sha512", SECRET.encode(), salt, 4096)


def test_update_password_on_create_leaves_an_existing_password_and_warns_of_other_iterations(run_module, cluster):
    result = run_module(kafka_user.main, dict(SERVERS, name="alice", password=SECRET, iterations=8192), cluster)
    assert not result["changed"] and cluster.writes() == []
    assert len(result["warnings"]) == 1 and "4096 iterations, not the 8192 declared" in result["warnings"][0]


def test_diff_lists_mechanisms_and_iterations_only(run_module, cluster):
    args = dict(SERVERS, update_password="always", users=[
        {"name": "alice", "password": SECRET, "iterations": 8192},
        {"name": "bob", "state": "absent", "mechanism": "SCRAM-SHA-256"},
        {"name": "carol", "password": SECRET, "mechanism": "SCRAM-SHA-256"}])
    result = run_module(kafka_user.main, args, cluster, check_mode=True, diff=True)
    assert result["diff"] == dict(
        before={"alice": {"SCRAM-SHA-512": {"iterations": 4096}},
                "bob": {"SCRAM-SHA-256": {"iterations": 8192}, "SCRAM-SHA-512": {"iterations": 4096}},
                "carol": None},
        after={"alice": {"SCRAM-SHA-512": {"iterations": 8192}},
               "bob": {"SCRAM-SHA-512": {"iterations": 4096}},
               "carol": {"SCRAM-SHA-256": {"iterations": 4096}}})
    assert "diff" not in run_module(kafka_user.main, args, cluster, check_mode=True)


@pytest.mark.parametrize("args, field, words", [
    (dict(name="", password=SECRET), "name", "a user name is required"),
    (dict(users=[{"name": "ok", "password": SECRET}, {"name": "", "password": SECRET}]), "users[1].name", "required"),
    (dict(users=[{"name": "carol", "password": SECRET}, {"name": "carol", "password": SECRET}]), "users[1].name",
     "declared twice"),
    (dict(name="carol"), "password", "a password is required"),
    (dict(users=[{"name": "ok", "password": SECRET}, {"name": "carol"}]), "users[1].password", "password is required"),
    (dict(users=[{"name": "carol", "password": SECRET, "mechanism": "MD5"}]), "users[0].mechanism",
     "must be SCRAM-SHA-512 or SCRAM-SHA-256"),
    (dict(name="carol", password=SECRET, iterations=1000), "iterations", "must be from 4096 to 16384, got 1000"),
    (dict(users=[{"name": "carol", "password": SECRET, "iterations": 20000}]), "users[0].iterations",
     "must be from 4096 to 16384, got 20000"),
], ids=["empty-name", "empty-name-in-list", "duplicate-name", "no-password", "no-password-in-list",
        "unknown-mechanism", "too-few-iterations", "too-many-iterations-in-list"])
def test_bad_input_fails_naming_the_field_before_any_request(run_module, cluster, args, field, words):
    for check_mode in (True, False):
        failed = run_module(kafka_user.main, dict(SERVERS, **args), cluster, check_mode=check_mode)
        assert failed["failed"] and failed["field"] == field and words in failed["msg"], failed
        assert failed["msg"].startswith(field + ":")
        assert outcome(failed) == dict(changed=False, users=[], created=[], updated=[], deleted=[])
        assert SECRET not in repr(failed)
    # Refused before connecting: not even a read was sent.
    assert cluster.calls == [] and cluster.clients == []


def test_ansible_refuses_an_unknown_module_level_mechanism(run_module, cluster):
    failed = run_module(kafka_user.main, dict(SERVERS, name="carol", password=SECRET, mechanism="MD5"), cluster)
    assert failed["failed"] and "mechanism" in failed["msg"] and cluster.calls == []


def test_a_password_appears_nowhere_in_what_the_module_returns(run_module, cluster):
    # exit_json and fail_json are replaced by the test's, so Ansible's own masking of no_log values
    # does not hide a password the module itself put into its result.
    args = dict(SERVERS, update_password="always", users=[
        {"name": "alice", "password": SECRET}, {"name": "carol", "password": SECRET, "iterations": 9999},
        {"name": "bob", "state": "absent"}])
    for check_mode in (True, False):
        for diff in (True, False):
            result = run_module(kafka_user.main, args, cluster, check_mode=check_mode, diff=diff)
            assert not result.get("failed") and SECRET not in repr(result)
    assert SECRET not in repr(cluster.calls)


def test_a_refused_user_is_reported_without_the_password_and_the_others_are_kept(run_module, fake_scram_cluster):
    # The message quotes the password, as an error that echoes its request might.
    cluster = fake_scram_cluster(refuse={"carol": "Invalid credential for %s" % SECRET})
    args = dict(SERVERS, users=[{"name": "alice", "password": SECRET}, {"name": "carol", "password": SECRET}])
    failed = run_module(kafka_user.main, args, cluster)
    assert failed["failed"] and SECRET not in repr(failed)
    assert "user 'carol': Invalid credential for ********" in failed["msg"]
    assert outcome(failed) == dict(changed=True, users=["alice"], created=["alice"], updated=[], deleted=[])
    assert cluster.scram_users == {"alice": {"SCRAM-SHA-512": 4096}}


def test_an_unexpected_error_is_described_without_the_password_or_the_salted_one(run_module, cluster):
    sent = []

    def broken(request, get_errors_fn, raise_errors):
        # As kafka-python's own message would with raise_errors: the request, salted password included.
        sent.append(request)
        raise ValueError("could not send %r for %s" % (request, SECRET))

    connect = cluster.connect

    def connect_with_a_broken_controller():
        client = connect()
        client._send_request_to_controller = broken
        return client

    cluster.connect = connect_with_a_broken_controller
    failed = run_module(kafka_user.main, dict(SERVERS, name="carol", password=SECRET), cluster)
    salted = sent[0].upsertions[0][4]
    assert failed["failed"] and SECRET not in repr(failed) and repr(salted) not in failed["msg"]
    assert failed["msg"].startswith("SCRAM credentials request failed: could not send "
                                    "AlterUserScramCredentialsRequest(")
    assert failed["msg"].endswith(" for ********")
    assert outcome(failed) == dict(changed=False, users=[], created=[], updated=[], deleted=[])


def test_the_salted_password_follows_rfc_7677():
    # RFC 7677's SCRAM-SHA-256 example: the proof the client sends and the signature the server
    # answers with follow from the salted password alone, so they check it.
    salt = base64.b64decode("W22ZaJ0SNY7soEsUEjb6gQ==")
    upsertion = scram_alterations(dict(delete=[], upsert=[dict(
        name="user", mechanism="SCRAM-SHA-256", iterations=4096, password="pencil")]))[0]
    salted = hashlib.pbkdf2_hmac("sha256", b"pencil", salt, 4096)
    assert isinstance(upsertion, UserScramCredentialUpsertion)
    assert upsertion.salted_password == hashlib.pbkdf2_hmac("sha256", b"pencil", upsertion.salt, 4096)
    assert len(upsertion.salt) >= 16 and "pencil" not in repr(upsertion)
    same_salt = UserScramCredentialUpsertion("user", "SCRAM-SHA-256", "pencil", iterations=4096, salt=salt)
    assert same_salt.salted_password == salted
    nonce = "rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0"
    auth_message = ("n=user,r=rOprNGfwEbeRWgbNEkqO,r=%s,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096,c=biws,r=%s"
                    % (nonce, nonce)).encode()
    client_key = hmac.new(salted, b"Client Key", "sha256").digest()
    signature = hmac.new(hashlib.sha256(client_key).digest(), auth_message, "sha256").digest()
    proof = bytes(left ^ right for left, right in zip(client_key, signature, strict=True))
    assert base64.b64encode(proof) == b"dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ="
    server_key = hmac.new(salted, b"Server Key", "sha256").digest()
    assert base64.b64encode(hmac.new(server_key, auth_message, "sha256").digest()) == \
        b"6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4="


def test_sha_512_uses_pbkdf2_with_hmac_sha_512():
    # A published PBKDF2-HMAC-SHA512 vector (password "password", salt "salt", 1 iteration).
    upsertion = UserScramCredentialUpsertion("user", "SCRAM-SHA-512", "password", iterations=1, salt=b"salt")
    assert upsertion.salted_password.hex() == (
        "867f70cf1ade02cff3752599a3a53dc4af34c7a669815ae5d513554e1c8cf252"
        "c02d470a285a0501bad999bfe943c08f050235d7d68b1da55e63f73b60a57fce")
