# -*- coding: utf-8 -*-
# Copyright: kafkaops.cluster developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The module kafka_user's run: read the SCRAM credentials, then set and delete what differs.

Two requests at most, whatever the number of users: one DescribeUserScramCredentials and one
AlterUserScramCredentials. The difference itself is computed without the network
(_user_changes.py).

Passwords reach the cluster only as SCRAM credentials: kafka-python's UserScramCredentialUpsertion
draws a random salt and derives the salted password from the plain one (PBKDF2 with HMAC of the
mechanism's hash, RFC 5802 and 7677, as Kafka's ScramFormatter does), so the request holds no
password. A salted password is as good as the password for logging in, though, so failure
messages are scrubbed of both, in case an error ever quotes what it was given.
"""

from __future__ import absolute_import, division, print_function


try:
    from kafka import errors as kafka_errors
    from kafka.admin import UserScramCredentialDeletion, UserScramCredentialUpsertion
    from kafka.protocol.admin import AlterUserScramCredentialsRequest
except ImportError:
    kafka_errors = UserScramCredentialDeletion = UserScramCredentialUpsertion = None
    AlterUserScramCredentialsRequest = None

from ansible_collections.kafkaops.cluster.plugins.module_utils._kafka_admin import (
    KafkaAdminError,
    describe_error,
    error_name,
)
from ansible_collections.kafkaops.cluster.plugins.module_utils._user_changes import (
    declared_users,
    normalize_users,
    plan_user_changes,
)

HIDDEN = "********"


def mechanism_name(mechanism):
    """SCRAM-SHA-512 for kafka-python's ScramMechanism.SCRAM_SHA_512: the name Kafka's tools and this module use."""
    return mechanism.name.replace("_", "-")


def read_scram_users(client, names):
    """{name: {mechanism: iterations}} of the named users that have SCRAM credentials.

    All users are described, not only the named ones: for a named user without credentials the
    broker answers with an error that kafka-python passes on as text only, which could not be told
    apart from a real failure without matching its wording.
    """
    wanted = set(names)
    users = {}
    for name, described in sorted(client.describe_user_scram_credentials().items()):
        if name not in wanted:
            continue
        if described.get("error"):
            raise KafkaAdminError("describing the SCRAM credentials of user %r failed: %s" % (name, described["error"]))
        credentials = dict((mechanism_name(info["mechanism"]), info["iterations"])
                           for info in described.get("credential_infos") or [])
        if credentials:
            users[name] = credentials
    return users


def scram_alterations(changes):
    """kafka-python's alterations for a plan: deletions first, then the credentials to set."""
    alterations = [UserScramCredentialDeletion(name, mechanism) for name, mechanism in changes["delete"]]
    alterations.extend(UserScramCredentialUpsertion(item["name"], item["mechanism"], item["password"],
                                                    iterations=item["iterations"])
                       for item in changes["upsert"])
    return alterations


def alteration_rounds(alterations):
    """The alterations split into requests that each alter a user at most once, in their order.

    A KRaft controller refuses a request that names one user twice ("A user credential cannot be
    altered twice in the same request"), which setting both SCRAM mechanisms of a user, or replacing
    one with the other, does; a ZooKeeper-mode controller takes it. The n-th round holds each user's
    n-th alteration, so a plan for many users with one mechanism each is still one request.
    """
    rounds = []
    seen = {}
    for alteration in alterations:
        index = seen.get(alteration.user, 0)
        seen[alteration.user] = index + 1
        if index == len(rounds):
            rounds.append([])
        rounds[index].append(alteration)
    return rounds


def _result_errors(response):
    return [kafka_errors.for_code(result.error_code) for result in response.results]


def alter_credentials(client, alterations):
    """Send alterations in one AlterUserScramCredentials to the controller; {user: why} for those refused.

    kafka-python's alter_user_scram_credentials sends the request to any broker, and a
    ZooKeeper-mode broker that is not the controller refuses it (NOT_CONTROLLER): on a cluster of
    several brokers it would fail at random. So the request is built as kafka-python builds it and
    sent the way kafka-python sends CreateTopics, to the controller, asking again once which broker
    that is when it has moved. KRaft brokers forward it to the controller themselves. Errors are not
    raised by kafka-python (raise_errors False): its message would quote the request, salted
    passwords included. Kafka applies each user's alterations on their own: some users may change
    while others fail.
    """
    request = AlterUserScramCredentialsRequest(
        deletions=[(item.user, int(item.mechanism)) for item in alterations
                   if isinstance(item, UserScramCredentialDeletion)],
        upsertions=[(item.user, int(item.mechanism), item.iterations, item.salt, item.salted_password)
                    for item in alterations if isinstance(item, UserScramCredentialUpsertion)])
    response = client._manager.run(  # pylint: disable=protected-access
        client._send_request_to_controller, request, _result_errors, False)  # pylint: disable=protected-access
    return dict((result.user, result.error_message or error_name(result.error_code))
                for result in response.results if result.error_code)


def hidden_values(alterations):
    """The salted passwords of alterations as an error message would quote them: they let a client log in."""
    return [repr(item.salted_password) for item in alterations if isinstance(item, UserScramCredentialUpsertion)]


def without_secrets(text, secrets):
    """text with every secret replaced, longest first so that none shows in part."""
    for secret in sorted(secrets, key=len, reverse=True):
        text = text.replace(secret, HIDDEN)
    return text


# ---- the module's run ------------------------------------------------------------------------


def unchanged_user_result():
    """What kafka_user returns when nothing changes (a failure returns it too)."""
    return dict(changed=False, users=[], created=[], deleted=[], updated=[])


def check_user_inputs(module):
    """The declared users, normalised and checked before connecting (UserSpecError names the field)."""
    items, field = declared_users(module.params)
    return normalize_users(items, None if field == "name" else field)


def _report(module, changes, refused=()):
    """Put the plan into module.result, leaving out the users the cluster refused."""
    def kept(names):
        return [name for name in names if name not in refused]

    users = kept(changes["users"])
    module.result.update(changed=bool(users), users=users, created=kept(changes["created"]),
                         updated=kept(changes["updated"]), deleted=kept(changes["deleted"]))
    if module.diff:
        module.result["diff"] = dict(before=dict((name, changes["before"][name]) for name in users),
                                     after=dict((name, changes["after"][name]) for name in users))


def run_user(module, client, desired):
    """kafka_user: read the credentials, compute the difference, alter them unless in check mode."""
    hidden = set(user["password"] for user in desired if user["password"])
    try:
        actual = read_scram_users(client, [user["name"] for user in desired])
        changes = plan_user_changes(desired, actual, module.params["update_password"])
        for note in changes["notes"]:
            module.warn(note)
        refused = {}
        if changes["changed"] and not module.check_mode:
            alterations = scram_alterations(changes)
            hidden.update(hidden_values(alterations))
            for alterations_round in alteration_rounds(alterations):
                # A user refused once is not altered further: its later alterations assumed the earlier.
                pending = [item for item in alterations_round if item.user not in refused]
                if pending:
                    refused.update(alter_credentials(client, pending))
        _report(module, changes, refused)
        if refused:
            raise KafkaAdminError("the cluster refused the SCRAM credentials of %s" % "; ".join(
                "user %r: %s" % (name, message) for name, message in sorted(refused.items())))
    except Exception as error:  # pylint: disable=broad-except
        # Whatever failed, the message is rebuilt from text with the secrets taken out, and the
        # original exception is not chained: its arguments could hold what was sent.
        own = isinstance(error, KafkaAdminError)
        message = str(error) if own else "SCRAM credentials request failed: %s" % describe_error(error)
        raise KafkaAdminError(without_secrets(message, hidden), getattr(error, "field", None)) from None
