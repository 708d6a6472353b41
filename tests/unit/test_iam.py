"""Least privilege, tested: every IAM grant of ``template.yaml`` is on an allow-list written here, and the code's own
calls stay within it.

- Each function runs as its own ``AWS::IAM::Role`` (``Role:``, no SAM ``Policies:``, so SAM attaches no managed
  policy); the grants of every role, and of the search domain's access policy per principal, equal :data:`ALLOWED`
  and :data:`DOMAIN_ALLOWED` as (action, resource, condition) triples. A new grant fails until it is added here.
- No action wildcard, no ``es:ESHttp*``, no write method for the answer role, no Scan or batch call but the one
  the document status store makes, and the search domain's master user is never a function's role.
- The code runs against moto (the stack of ``template.yaml``) and the OpenSearch stub, each part as the role of the
  function that runs it: the ingest, answer and report handlers on SQS batches (powertools idempotency included;
  the hash embedder instead of the model, a chat platform that delivers nowhere), Teams turns and report files, and
  the Slack and Teams webhooks' calls on the conversation state and the job queues. Every AWS call and OpenSearch
  request must be granted to that role, and every data grant used by some call (but :data:`NOT_EXERCISED`, each
  with its reason).
"""

from __future__ import annotations

import re
import uuid
from collections import defaultdict
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any
from urllib.parse import quote_plus

import boto3
import botocore.client
import pytest
from botocore.exceptions import ClientError
from moto import mock_aws

from bot_handlers.teams.bot import TeamsBot
from bot_handlers.teams.client import REPORTS_PREFIX, TeamsClient
from lambdas.answer import app as answer_app
from lambdas.ingest import app as ingest_app
from lambdas.report import app as report_app
from lambdas.report import jobs as report_jobs
from lcabot import wiring
from lcabot.adapters.opensearch import OpenSearchIndex
from lcabot.config import Settings
from lcabot.dev.loop import LambdaContext
from lcabot.dev.stack import StackResources, create_stack, load_template, references
from lcabot.graph.build import MERGED_KEY
from lcabot.graph.fragments import FRAGMENT_PREFIX
from lcabot.ingest.library import LIBRARY_PREFIX
from lcabot.jobs import AnswerJob, ConversationRef, FileRef, IndexJob, ReportJob
from tests.events import s3_notification, sqs_event
from tests.fakes import HashEmbedder
from tests.fixtures import hostile
from tests.stubs.opensearch_server import OpenSearchStub

ROOT = Path(__file__).resolve().parents[2]
TEMPLATE = ROOT / "template.yaml"

FUNCTION_ROLES = {
    "IngestFunction": "IngestFunctionRole",
    "AnswerFunction": "AnswerFunctionRole",
    "ReportFunction": "ReportFunctionRole",
    "SlackFunction": "SlackFunctionRole",
    "TeamsFunction": "TeamsFunctionRole",
}
ADMIN_ROLE = "SearchAdminRole"
DOMAIN = "arn:${AWS::Partition}:es:${AWS::Region}:${AWS::AccountId}:domain/${AWS::StackName}-search"
INDEX = DOMAIN + "/lcabot-chunks"  # LCABOT_OPENSEARCH_INDEX of the ingest and answer functions
SECRETS = {"${AnthropicSecret}", "${SlackSecret}", "${TeamsSecret}"}

Grant = tuple[str, str, str]  # (action, resource, condition: "" or "<operator> <key>=<value>[|<value>…]")


def grant(actions: str, *resources: str, condition: str = "") -> set[Grant]:
    return {(action, resource, condition) for action in actions.split() for resource in resources}


def own_logs(log_group: str) -> set[Grant]:
    return grant("logs:CreateLogStream logs:PutLogEvents", f"${{{log_group}.Arn}}")


def consume(queue: str) -> set[Grant]:  # what the SQS event source does with the function's role
    return grant("sqs:ReceiveMessage sqs:DeleteMessage sqs:GetQueueAttributes", f"${{{queue}.Arn}}")


IDEMPOTENCY = grant("dynamodb:GetItem dynamodb:PutItem dynamodb:UpdateItem dynamodb:DeleteItem",
                    "${IdempotencyTable.Arn}")  # powertools DynamoDBPersistenceLayer
SEARCH_ADMIN = grant("es:ESHttpGet es:ESHttpHead es:ESHttpPost es:ESHttpPut es:ESHttpDelete es:ESHttpPatch",
                     DOMAIN + "/*")
INGEST_SEARCH = (grant("es:ESHttpHead es:ESHttpPut", INDEX)  # exists, create on the first write
                 | grant("es:ESHttpGet", INDEX + "/_mapping")
                 | grant("es:ESHttpPost", *(f"{INDEX}/{path}" for path in
                                            ("_search", "_bulk", "_refresh", "_delete_by_query"))))
ANSWER_SEARCH = (grant("es:ESHttpHead", INDEX)
                 | grant("es:ESHttpGet", INDEX + "/_mapping")
                 | grant("es:ESHttpPost", INDEX + "/_search", INDEX + "/_msearch"))

ALLOWED: dict[str, set[Grant]] = {
    "IngestFunctionRole": (
        own_logs("IngestLogGroup") | consume("IngestQueue") | IDEMPOTENCY | INGEST_SEARCH
        | grant("s3:GetObject", "${LibraryBucket.Arn}/library/*")
        | grant("s3:ListBucket", "${LibraryBucket.Arn}", condition="StringLike s3:prefix=library/*")
        | grant("s3:GetObject s3:PutObject s3:DeleteObject", "${ArtifactsBucket.Arn}/graph/fragments/*")
        | grant("s3:PutObject", "${ArtifactsBucket.Arn}/graph/lca_graph.json")
        | grant("s3:ListBucket", "${ArtifactsBucket.Arn}", condition="StringLike s3:prefix=graph/fragments/*")
        | grant("dynamodb:GetItem dynamodb:PutItem dynamodb:Scan", "${DocumentStatusTable.Arn}")
        | grant("secretsmanager:GetSecretValue", *SECRETS)
    ),
    "AnswerFunctionRole": (
        own_logs("AnswerLogGroup") | consume("AnswerQueue") | IDEMPOTENCY | ANSWER_SEARCH
        | grant("s3:GetObject", "${ArtifactsBucket.Arn}/graph/lca_graph.json")
        | grant("s3:ListBucket", "${ArtifactsBucket.Arn}", condition="StringEquals s3:prefix=graph/lca_graph.json")
        | grant("dynamodb:GetItem dynamodb:PutItem dynamodb:Query", "${ConversationsTable.Arn}")
        | grant("secretsmanager:GetSecretValue", *SECRETS)
    ),
    "ReportFunctionRole": (
        own_logs("ReportLogGroup") | consume("ReportQueue") | IDEMPOTENCY
        | grant("s3:GetObject", "${ReportsBucket.Arn}/uploads/*")
        | grant("s3:ListBucket", "${ReportsBucket.Arn}", condition="StringLike s3:prefix=uploads/*")
        | grant("s3:PutObject s3:GetObject", "${ReportsBucket.Arn}/teams/*")
        | grant("s3:PutObject", "${LibraryBucket.Arn}/library/*")
        | grant("secretsmanager:GetSecretValue", *SECRETS)
    ),
    "SlackFunctionRole": (
        own_logs("SlackLogGroup")
        | grant("sqs:SendMessage", "${AnswerQueue.Arn}", "${ReportQueue.Arn}")
        | grant("dynamodb:GetItem dynamodb:PutItem dynamodb:UpdateItem dynamodb:DeleteItem",
                "${ConversationsTable.Arn}")
        | grant("secretsmanager:GetSecretValue", "${SlackSecret}")
    ),
    "TeamsFunctionRole": (
        own_logs("TeamsLogGroup")
        | grant("sqs:SendMessage", "${AnswerQueue.Arn}", "${ReportQueue.Arn}")
        | grant("dynamodb:GetItem dynamodb:PutItem dynamodb:UpdateItem dynamodb:DeleteItem",
                "${ConversationsTable.Arn}")
        | grant("s3:GetObject", "${ReportsBucket.Arn}/teams/*")
        | grant("secretsmanager:GetSecretValue", "${TeamsSecret}")
    ),
    ADMIN_ROLE: SEARCH_ADMIN,
}
# the search domain's access policy, per principal: the same es grants as each role's own policy
DOMAIN_ALLOWED: dict[str, set[Grant]] = {
    "${IngestFunctionRole.Arn}": INGEST_SEARCH,
    "${AnswerFunctionRole.Arn}": ANSWER_SEARCH,
    "${SearchAdminRole.Arn}": SEARCH_ADMIN,
    "${OpenSearchMasterRoleArn}": SEARCH_ADMIN,  # the parameter, when set, replaces SearchAdminRole
}
# data grants the scenarios below do not reach, and why they stay
NOT_EXERCISED: dict[str, set[Grant]] = {
    # powertools reads an idempotency record only when the failed conditional put does not return it
    role: grant("dynamodb:GetItem", "${IdempotencyTable.Arn}")
    for role in ("IngestFunctionRole", "AnswerFunctionRole", "ReportFunctionRole")
}
DATA_SERVICES = ("s3:", "dynamodb:", "es:", "sqs:SendMessage")


# ---------------------------------------------------------------- reading the template


def text(value: Any) -> str:
    """A template value as text: ``!Ref X`` is ``${X}``, ``!GetAtt X.Arn`` is ``${X.Arn}``, ``!Sub`` its string."""
    if isinstance(value, str):
        return value
    if isinstance(value, dict) and len(value) == 1:
        (key, argument), = value.items()
        if key == "Ref":
            return f"${{{argument}}}"
        if key == "Fn::GetAtt":
            return f"${{{'.'.join(argument) if isinstance(argument, list) else argument}}}"
        if key == "Fn::Sub" and isinstance(argument, str):
            return argument
    raise AssertionError(f"no grant may depend on {value!r} (only Ref, GetAtt and a plain Sub are read here)")


def alternatives(value: Any) -> set[str]:
    """Both branches of an ``!If``, else the value as :func:`text`."""
    if isinstance(value, dict) and "Fn::If" in value:
        return set().union(*(alternatives(branch) for branch in value["Fn::If"][1:]))
    return {text(item) for item in (value if isinstance(value, list) else [value])}


def as_list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else [value]


def condition_text(condition: dict[str, Any] | None) -> str:
    parts = []
    for operator, tests in sorted((condition or {}).items()):
        for key, values in sorted(tests.items()):
            parts.append(f"{operator} {key}={'|'.join(as_list(values))}")
    return " & ".join(parts)


def grants_of(statements: list[dict[str, Any]]) -> set[Grant]:
    found = set()
    for statement in statements:
        assert statement["Effect"] == "Allow", statement
        assert not {"NotAction", "NotResource", "NotPrincipal"} & set(statement), statement
        condition = condition_text(statement.get("Condition"))
        found |= {(action, text(resource), condition) for action in as_list(statement["Action"])
                  for resource in as_list(statement["Resource"])}
    return found


@pytest.fixture(scope="module")
def template() -> dict[str, Any]:
    return load_template(TEMPLATE)


def roles(template: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {name: r for name, r in template["Resources"].items() if r["Type"] == "AWS::IAM::Role"}


def role_grants(role: dict[str, Any]) -> set[Grant]:
    return set().union(*(grants_of(as_list(policy["PolicyDocument"]["Statement"]))
                         for policy in role["Properties"].get("Policies", [])))


def domain_grants(template: dict[str, Any]) -> dict[str, set[Grant]]:
    found: dict[str, set[Grant]] = defaultdict(set)
    for statement in template["Resources"]["SearchDomain"]["Properties"]["AccessPolicies"]["Statement"]:
        assert set(statement["Principal"]) == {"AWS"}, statement
        for principal in alternatives(statement["Principal"]["AWS"]):
            found[principal] |= grants_of([{k: v for k, v in statement.items() if k != "Principal"}])
    return dict(found)


# ---------------------------------------------------------------- the allow-list


def test_every_function_runs_as_its_own_role_with_no_sam_policies(template: dict[str, Any]) -> None:
    functions = {n: r for n, r in template["Resources"].items() if r["Type"] == "AWS::Serverless::Function"}
    assert set(functions) == set(FUNCTION_ROLES)
    assert "Role" not in template["Globals"]["Function"] and "Policies" not in template["Globals"]["Function"]
    for name, function in functions.items():
        props = function["Properties"]
        assert props["Role"] == {"Fn::GetAtt": [FUNCTION_ROLES[name], "Arn"]}, name
        # with Policies (or without Role) SAM makes the role and adds AWSLambdaBasicExecutionRole and, for an SQS
        # event, AWSLambdaSQSQueueExecutionRole: receive and delete on every queue of the account
        assert "Policies" not in props and "PermissionsBoundary" not in props, name
    assert set(roles(template)) == set(FUNCTION_ROLES.values()) | {ADMIN_ROLE}
    grant_types = {"AWS::IAM::Policy", "AWS::IAM::ManagedPolicy", "AWS::IAM::User", "AWS::IAM::Group",
                   "AWS::IAM::InstanceProfile", "AWS::Serverless::Connector"}
    assert not [n for n, r in template["Resources"].items() if r["Type"] in grant_types]
    for name, role in roles(template).items():
        assert set(role["Properties"]) <= {"Description", "AssumeRolePolicyDocument", "Policies"}, name
        (trust,) = role["Properties"]["AssumeRolePolicyDocument"]["Statement"]
        assert (trust["Effect"], trust["Action"]) == ("Allow", "sts:AssumeRole") and "Condition" not in trust
        if name == ADMIN_ROLE:  # the account's administrators: whoever IAM lets assume it; no function
            assert trust["Principal"] == {"AWS": {"Fn::Sub": "arn:${AWS::Partition}:iam::${AWS::AccountId}:root"}}
        else:
            assert trust["Principal"] == {"Service": "lambda.amazonaws.com"}, name


@pytest.mark.parametrize("role", sorted(ALLOWED))
def test_each_role_grants_exactly_its_allow_list(template: dict[str, Any], role: str) -> None:
    found = role_grants(roles(template)[role])
    assert not found - ALLOWED[role], f"{role} grants more than its allow-list: {sorted(found - ALLOWED[role])}"
    assert not ALLOWED[role] - found, f"{role} lacks {sorted(ALLOWED[role] - found)}"


def test_search_domain_grants_each_principal_what_its_role_grants(template: dict[str, Any]) -> None:
    found = domain_grants(template)
    assert found == DOMAIN_ALLOWED
    for role in ("IngestFunctionRole", "AnswerFunctionRole", ADMIN_ROLE):
        es = {g for g in role_grants(roles(template)[role]) if g[0].startswith("es:")}
        assert found[f"${{{role}.Arn}}"] == es, role


def all_grants(template: dict[str, Any]) -> dict[str, set[Grant]]:
    return {**{name: role_grants(role) for name, role in roles(template).items()},
            **{f"SearchDomain for {p}": g for p, g in domain_grants(template).items()}}


def test_no_wildcard_action_and_no_resource_star(template: dict[str, Any]) -> None:
    for holder, grants in all_grants(template).items():
        for action, resource, _ in grants:
            assert "*" not in action and "?" not in action, (holder, action)  # es:ESHttp*, s3:*, dynamodb:* …
            assert resource != "*" and not resource.startswith("arn:*"), (holder, resource)


def test_the_answer_role_only_reads_the_index(template: dict[str, Any]) -> None:
    for grants in (role_grants(roles(template)["AnswerFunctionRole"]),
                   domain_grants(template)["${AnswerFunctionRole.Arn}"]):
        es = {(a, r) for a, r, _ in grants if a.startswith("es:")}
        assert {a for a, _ in es} == {"es:ESHttpHead", "es:ESHttpGet", "es:ESHttpPost"}
        assert {r for a, r in es if a == "es:ESHttpPost"} == {INDEX + "/_search", INDEX + "/_msearch"}
        assert not {a for a, _ in es} & {"es:ESHttpPut", "es:ESHttpDelete", "es:ESHttpPatch"}


def test_the_search_master_user_is_never_a_function_role(template: dict[str, Any]) -> None:
    security = template["Resources"]["SearchDomain"]["Properties"]["AdvancedSecurityOptions"]
    master = security["MasterUserOptions"]["MasterUserARN"]
    assert alternatives(master) == {"${OpenSearchMasterRoleArn}", "${SearchAdminRole.Arn}"}
    assert not references(master) & set(FUNCTION_ROLES.values())
    assert template["Resources"][ADMIN_ROLE]["Condition"] == "CreateSearchAdminRole"
    assert template["Conditions"]["CreateSearchAdminRole"] == {"Fn::Equals": [{"Ref": "OpenSearchMasterRoleArn"}, ""]}
    functions = {n: r for n, r in template["Resources"].items() if r["Type"] == "AWS::Serverless::Function"}
    assert not any(ADMIN_ROLE in references(f) for f in functions.values())


def test_no_scan_or_batch_call_but_the_status_stores_scan(template: dict[str, Any]) -> None:
    """``DynamoStatusStore.with_doc_id`` scans the status table (ingest, when a removed PDF's bytes live on under
    another key); no other table is ever scanned or written in batches."""
    heavy = {(holder, action, resource) for holder, grants in all_grants(template).items()
             for action, resource, _ in grants
             if action in ("dynamodb:Scan", "dynamodb:BatchWriteItem", "dynamodb:BatchGetItem",
                           "dynamodb:PartiQLSelect", "dynamodb:DescribeTable")}
    assert heavy == {("IngestFunctionRole", "dynamodb:Scan", "${DocumentStatusTable.Arn}")}


def test_functions_read_the_secrets_they_name_and_log_and_consume_their_own(template: dict[str, Any]) -> None:
    for name, role in FUNCTION_ROLES.items():
        props = template["Resources"][name]["Properties"]
        grants = role_grants(roles(template)[role])
        variables = props["Environment"]["Variables"]
        named = {text(v) for k, v in variables.items() if re.fullmatch(r"LCABOT_\w+_SECRET_ARN", k)}
        assert {r for a, r, _ in grants if a == "secretsmanager:GetSecretValue"} == named, name
        log_group = props["LoggingConfig"]["LogGroup"]["Ref"]
        assert {r for a, r, _ in grants if a.startswith("logs:")} == {f"${{{log_group}.Arn}}"}, name
        consumed = {text(e["Properties"]["Queue"]) for e in props["Events"].values() if e["Type"] == "SQS"}
        assert {r for a, r, _ in grants if a == "sqs:ReceiveMessage"} == consumed, name


def test_the_s3_grants_name_the_keys_the_code_uses() -> None:
    assert ("s3:GetObject", f"${{LibraryBucket.Arn}}/{LIBRARY_PREFIX}*", "") in ALLOWED["IngestFunctionRole"]
    assert ("s3:PutObject", f"${{ArtifactsBucket.Arn}}/{FRAGMENT_PREFIX}*", "") in ALLOWED["IngestFunctionRole"]
    assert ("s3:PutObject", f"${{ArtifactsBucket.Arn}}/{MERGED_KEY}", "") in ALLOWED["IngestFunctionRole"]
    assert ("s3:GetObject", f"${{ArtifactsBucket.Arn}}/{MERGED_KEY}", "") in ALLOWED["AnswerFunctionRole"]
    assert ("s3:PutObject", f"${{ReportsBucket.Arn}}/{REPORTS_PREFIX}*", "") in ALLOWED["ReportFunctionRole"]
    assert ("s3:GetObject", f"${{ReportsBucket.Arn}}/{REPORTS_PREFIX}*", "") in ALLOWED["TeamsFunctionRole"]


# ---------------------------------------------------------------- the code's calls, role by role


def iam_match(pattern: str, value: str) -> bool:
    """IAM's ``*`` (any characters, ``/`` too) and ``?`` (one character)."""
    return re.fullmatch(re.escape(pattern).replace(r"\*", ".*").replace(r"\?", "."), value) is not None


def granted(grants: set[Grant], action: str, resource: str, prefix: str | None) -> set[Grant]:
    """The grants that allow the call; ``prefix`` is the request's ``s3:prefix`` (None: the key is absent)."""
    def condition_holds(condition: str) -> bool:
        if not condition:
            return True
        operator, _, test = condition.partition(" ")
        key, _, values = test.partition("=")
        assert key == "s3:prefix" and operator in ("StringLike", "StringEquals"), condition
        if prefix is None:
            return False
        return any(iam_match(v, prefix) if operator == "StringLike" else v == prefix for v in values.split("|"))

    return {g for g in grants if g[0] == action and iam_match(g[1], resource) and condition_holds(g[2])}


Call = tuple[str, str, str | None]  # (action, resource as in the template, s3:prefix)


@dataclass
class Recorder:
    """Every AWS call made while a role is set, as the IAM action and template resource it needs."""

    stack: StackResources
    role: str | None = None
    calls: dict[str, list[Call]] = field(default_factory=lambda: defaultdict(list))
    unmapped: list[str] = field(default_factory=list)

    def arn(self, name: str) -> str:
        """``${<logical id>.Arn}`` of a created bucket, table (by name) or queue (by URL)."""
        named = {physical: logical for created in (self.stack.buckets, self.stack.tables, self.stack.queues)
                 for logical, physical in created.items()}
        return f"${{{named[name]}.Arn}}"

    def add(self, action: str, resource: str, prefix: str | None = None) -> None:
        if self.role is not None:
            self.calls[self.role].append((action, resource, prefix))

    def record(self, service: str, operation: str, params: dict[str, Any], error: ClientError | None) -> None:
        if self.role is None:
            return
        objects = {"GetObject": "s3:GetObject", "HeadObject": "s3:GetObject", "PutObject": "s3:PutObject",
                   "DeleteObject": "s3:DeleteObject"}
        if service == "s3" and operation in objects:
            bucket = self.arn(params["Bucket"])
            self.add(objects[operation], f"{bucket}/{params['Key']}")
            if error is not None and error.response["Error"]["Code"] in ("404", "NoSuchKey"):
                # S3 answers 404 (not 403) only to a caller that may list the key as prefix
                self.add("s3:ListBucket", bucket, params["Key"])
        elif service == "s3" and operation in ("ListObjectsV2", "ListObjects"):
            self.add("s3:ListBucket", self.arn(params["Bucket"]), params.get("Prefix"))
        elif service == "dynamodb" and operation == "TransactWriteItems":
            kinds = {"Put": "PutItem", "Update": "UpdateItem", "Delete": "DeleteItem",
                     "ConditionCheck": "ConditionCheckItem"}  # IAM authorizes each item as its own action
            for item in params["TransactItems"]:
                (kind, request), = item.items()
                self.add(f"dynamodb:{kinds[kind]}", self.arn(request["TableName"]))
        elif service == "dynamodb" and "TableName" in params:
            self.add(f"dynamodb:{operation}", self.arn(params["TableName"]))
        elif service == "sqs" and operation == "SendMessage":
            self.add("sqs:SendMessage", self.arn(params["QueueUrl"]))
        else:
            self.unmapped.append(f"{self.role}: {service} {operation}")

    @contextmanager
    def acting_as(self, role: str | None) -> Iterator[None]:
        """Calls made inside are ``role``'s (``None``: the test's own set-up, not recorded)."""
        outer, self.role = self.role, role
        try:
            yield
        finally:
            self.role = outer


@dataclass
class Scenario:
    calls: dict[str, list[Call]]  # per role: AWS calls and OpenSearch requests
    unmapped: list[str]


@pytest.fixture(scope="module")
def scenario(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Scenario]:
    """Ingest, answers, chat state, job queues, report and index jobs and the idempotency layer, run once on moto
    and the OpenSearch stub, each part as the role of the function that runs it."""
    tmp = tmp_path_factory.mktemp("iam")
    patch = pytest.MonkeyPatch()
    for name, value in {"AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "testing",
                        "AWS_DEFAULT_REGION": "us-east-1", "LCABOT_HOME": str(tmp / "home")}.items():
        patch.setenv(name, value)
    for name in ("AWS_PROFILE", "AWS_ENDPOINT_URL", "AWS_SESSION_TOKEN", "LCABOT_OPENSEARCH_URL",
                 "LCABOT_ANTHROPIC_SECRET_ARN", "ANTHROPIC_API_KEY", "LCABOT_RETRIEVAL_MODE"):
        patch.delenv(name, raising=False)
    try:
        with mock_aws(), OpenSearchStub() as opensearch:
            stack = create_stack(TEMPLATE)
            for name, value in stack.env().items():
                patch.setenv(name, value)
            recorder = Recorder(stack)
            make_api_call = botocore.client.BaseClient._make_api_call

            def recording(client: Any, operation: str, params: dict[str, Any]) -> Any:
                service = client.meta.service_model.service_name
                try:
                    result = make_api_call(client, operation, params)
                except ClientError as err:
                    recorder.record(service, operation, params, err)
                    raise
                recorder.record(service, operation, params, None)
                return result

            patch.setattr(botocore.client.BaseClient, "_make_api_call", recording)

            @contextmanager
            def acting_as(role: str) -> Iterator[None]:
                first = len(opensearch.requests)
                with recorder.acting_as(role):
                    yield
                recorder.calls[role] += [(f"es:ESHttp{r.method.title()}", DOMAIN + r.path, None)
                                         for r in opensearch.requests[first:]]

            run_the_code(acting_as, recorder, stack.env(), tmp, opensearch.url, patch)
            yield Scenario(dict(recorder.calls), recorder.unmapped)
    finally:
        patch.undo()


def s3_event(bucket: str, key: str, etag: str | None = None) -> str:
    """The notification S3 sends the ingest queue: created with an ETag, else removed."""
    return s3_notification(quote_plus(key), name="ObjectCreated:Put" if etag else "ObjectRemoved:Delete",
                           bucket=bucket, etag=etag, sequencer=uuid.uuid4().hex.upper(), size=0)


class FakePlatform:
    """The chat platform of a job: a download returns ``data`` (or raises ``fails``); what is posted is kept."""

    def __init__(self, data: bytes, fails: Exception | None = None) -> None:
        self.data = data
        self.fails = fails
        self.posted: list[Any] = []

    def download(self, file: Any, limit_bytes: int) -> bytes:
        if self.fails is not None:
            raise self.fails
        return self.data

    def history(self, job: Any) -> tuple:
        return job.history

    def post_answer(self, job: Any, answer: Any) -> None:
        if self.fails is not None:
            raise self.fails
        self.posted.append(answer)

    def post_notice(self, conversation: Any, text: str) -> None:
        self.posted.append(text)

    post_progress = post_notice


def run_the_code(acting_as: Any, recorder: Recorder, env: dict[str, str], tmp: Path, opensearch_url: str,
                 patch: pytest.MonkeyPatch) -> None:
    """The worker handlers as Lambda runs them (SQS batches, powertools idempotency), with the hash embedder and
    a chat platform that delivers nowhere; the webhook handlers' calls on the conversation state and job queues."""
    s3 = boto3.client("s3")
    library_bucket, artifacts, reports = (env[f"LCABOT_{b}_BUCKET"] for b in ("LIBRARY", "ARTIFACTS", "REPORTS"))
    settings = Settings.from_env()
    assert (settings.home, settings.retrieval_mode, settings.library_bucket) == (tmp / "home", "rag+graph",
                                                                                 library_bucket)
    embedder = HashEmbedder()
    pdf = hostile.plain(tmp, pages=3).read_bytes()
    slack = ConversationRef(platform="slack", channel="C1", thread_ts="1.0", team="T1")
    question = "Where are the cradle-to-gate emissions of the reference product reported?"
    platform = FakePlatform(pdf)

    def deps() -> wiring.Deps:  # one function's, from its environment; the hash embedder, a platform of our own
        index = OpenSearchIndex(opensearch_url, embedder.dimension, index_name="lcabot-chunks", backoff_s=0.0)
        return wiring.build(settings, {"slack": lambda _: platform, "teams": lambda _: platform}, embedder=embedder,
                            index=index)

    answer_deps, ingest_deps, report_deps = deps(), deps(), deps()

    def answer(*bodies: str) -> list[dict[str, str]]:
        return answer_app.handle(sqs_event(*bodies), LambdaContext("AnswerFunction", 120.0),
                                 answer_deps)["batchItemFailures"]

    def ingest(*bodies: str) -> list[dict[str, str]]:
        return ingest_app.handle(sqs_event(*bodies), LambdaContext("IngestFunction"), ingest_deps)["batchItemFailures"]

    def put(bucket: str, key: str) -> str:
        with recorder.acting_as(None):
            return s3.put_object(Bucket=bucket, Key=key, Body=pdf)["ETag"].strip('"')

    def job(n: int, **fields: Any) -> str:  # an answer job in the Slack thread, the channel's mode by default
        return AnswerJob(f"T1:C1:{n}", slack, "U1", question, **{"retrieval_mode": None, **fields}).to_json()

    with acting_as("AnswerFunctionRole"):  # before the first ingest: no index, no graph
        assert answer(job(1)) == []

    with acting_as("IngestFunctionRole"):
        study, copy = "library/academic/study.pdf", "library/copy of study.pdf"  # the same bytes twice
        created = s3_event(library_bucket, study, put(library_bucket, study))
        assert ingest(created) == []
        assert ingest(created) == []  # a duplicate delivery: the stored outcome
        assert ingest(s3_event(library_bucket, copy, put(library_bucket, copy))) == []
        with recorder.acting_as(None):
            s3.delete_object(Bucket=library_bucket, Key=study)
        assert ingest(s3_event(library_bucket, study)) == []  # and the copy is indexed in its place
        failing = wiring.build(settings, library=Failing())
        event = sqs_event(s3_event(library_bucket, copy, put(library_bucket, copy)))
        assert len(ingest_app.handle(event, LambdaContext("IngestFunction"), failing)["batchItemFailures"]) == 1

    with acting_as("AnswerFunctionRole"):  # the graph exists now; Teams turns
        assert answer(job(1)) == []  # a duplicate delivery
        assert answer(job(2, retrieval_mode="rag+graph")) == []
        platform.fails = RuntimeError("the platform is down")
        assert len(answer(job(3))) == 1
        platform.fails = None
        turns = TeamsClient(None, state=answer_deps.conversations)  # type: ignore[arg-type]
        turns.state.add_turn("teams", "19:c@thread.tacv2", question, "In section 4.")
        assert turns.history(AnswerJob("t:1", ConversationRef("teams", "19:c@thread.tacv2"), "U1", question))

    for chat in ("slack", "teams"):  # what the webhook handlers call on a message, a vote and /lca-mode
        with acting_as(f"{chat.title()}FunctionRole"):
            chat_deps = deps()
            state, queues = chat_deps.conversations, chat_deps.queues
            thread = ("T1", "C1", "1.0") if chat == "slack" else None
            state.settle(state.claim(chat, f"{chat}:1", thread=thread, limit=("T1", "C1", "U1")))
            state.release(state.claim(chat, f"{chat}:2"))
            if chat == "slack":  # a follow-up in the bot's thread
                assert state.claim(chat, f"{chat}:3", thread=thread, follow_up=True).claimed
            state.set_retrieval_mode(chat, "T1", "C1", "rag", "U1")
            assert state.retrieval_mode(chat, "T1", "C1", "rag+graph") == "rag"
            state.record_feedback(chat, "T1", "C1", "1.0", "U1", "up", question, "In section 4.")
            queues.send(AnswerJob(f"{chat}:1", slack, "U1", question))
            queues.send(ReportJob(f"{chat}:4", slack, "U1", FileRef("study.pdf", url="https://x/study.pdf")))

    with acting_as("ReportFunctionRole"):
        put(reports, "uploads/study.pdf")
        assert report_jobs.fetch(ReportJob("r:1", slack, "U1", FileRef("study.pdf", reports, "uploads/study.pdf")),
                                report_deps)
        gone = ReportJob("r:2", slack, "U1", FileRef("gone.pdf", reports, "uploads/gone.pdf"))
        shared = IndexJob("r:3", slack, "U1", FileRef("shared.pdf", url="https://x/shared.pdf"), "public")
        again = IndexJob("r:4", slack, "U1", FileRef("shared.pdf", url="https://x/shared.pdf"), "public")
        report = partial(report_app.handle, context=LambdaContext("ReportFunction"), deps=report_deps)
        assert report(sqs_event(gone.to_json(), shared.to_json(), again.to_json()))["batchItemFailures"] == []
        platform.fails = RuntimeError("the platform is down")
        failed = IndexJob("r:5", slack, "U1", FileRef("other.pdf", url="https://x/other.pdf"), "public")
        assert len(report(sqs_event(failed.to_json()))["batchItemFailures"]) == 1
        platform.fails = None
        report_file = tmp / "report.docx"
        report_file.write_bytes(b"report")
        files = TeamsClient(None, s3=boto3.client("s3"))  # type: ignore[arg-type]  # TeamsClient.post_files
        key = files._store(reports, report_file)
        assert files._presign(reports, key)
        recorder.add("s3:GetObject", f"{recorder.arn(reports)}/{key}")  # the link's GET is signed by this role

    with acting_as("TeamsFunctionRole"):  # an accepted FileConsentCard: the webhook reads the stored report
        teams_deps = deps()
        assert TeamsBot(teams_deps.conversations, teams_deps.queues, reports=teams_deps.bucket(reports),
                        reports_bucket=reports)._reports().get(key) == b"report"
    assert any("was not found" in str(p) for p in platform.posted)


class Failing:
    """A library whose every change fails (the record goes back to the queue)."""

    def apply(self, change: Any, max_pages: int | None = None) -> Any:
        raise RuntimeError("the function failed")


def test_the_scenario_makes_only_calls_it_can_name(scenario: Scenario) -> None:
    assert not scenario.unmapped
    assert set(scenario.calls) == set(FUNCTION_ROLES.values())


@pytest.mark.parametrize("role", sorted(FUNCTION_ROLES.values()))
def test_every_call_of_the_code_is_granted_to_its_role(template: dict[str, Any], scenario: Scenario,
                                                       role: str) -> None:
    grants = role_grants(roles(template)[role])
    refused = sorted({call for call in scenario.calls[role] if not granted(grants, *call)})
    assert not refused, f"{role} is not granted what its code does: {refused}"
    search = [call for call in scenario.calls[role] if call[0].startswith("es:")]
    if search:  # the domain's access policy admits the same requests
        principal = domain_grants(template)[f"${{{role}.Arn}}"]
        assert not [call for call in search if not granted(principal, *call)]


@pytest.mark.parametrize("role", sorted(FUNCTION_ROLES.values()))
def test_every_data_grant_is_used_by_the_code(template: dict[str, Any], scenario: Scenario, role: str) -> None:
    grants = {g for g in role_grants(roles(template)[role]) if g[0].startswith(DATA_SERVICES)}
    used = set().union(*(granted(grants, *call) for call in scenario.calls[role]))
    unused = grants - used - NOT_EXERCISED.get(role, set())
    assert not unused, f"{role} is granted what its code never does: {sorted(unused)}"


def test_the_recorder_refuses_what_the_allow_list_does_not_grant() -> None:
    ingest = ALLOWED["IngestFunctionRole"]
    assert granted(ingest, "s3:GetObject", "${LibraryBucket.Arn}/library/a.pdf", None)
    assert not granted(ingest, "s3:GetObject", "${LibraryBucket.Arn}/other/a.pdf", None)
    assert granted(ingest, "s3:ListBucket", "${LibraryBucket.Arn}", "library/a.pdf")
    assert not granted(ingest, "s3:ListBucket", "${LibraryBucket.Arn}", None)  # a listing of the whole bucket
    assert not granted(ingest, "es:ESHttpDelete", INDEX, None)
    answer = ALLOWED["AnswerFunctionRole"]
    assert granted(answer, "s3:ListBucket", "${ArtifactsBucket.Arn}", "graph/lca_graph.json")
    assert not granted(answer, "s3:ListBucket", "${ArtifactsBucket.Arn}", "graph/fragments/")
    assert not granted(answer, "es:ESHttpPost", INDEX + "/_bulk", None)
