"""template.yaml keeps its promises: cfn-lint clean, ingest only from library/*.pdf, dead-letter queues, batch item
failures, one image, a locked-down search domain, least privilege, no secrets; and devstack builds the same stack in
moto, in-process and through a moto server, where a PDF's S3 event reaches the ingest queue URL-encoded."""

from __future__ import annotations

import json
import re
import urllib.request
from pathlib import Path
from typing import Any
from urllib.parse import unquote_plus

import boto3
import pytest
from cfnlint.api import lint_file
from moto import mock_aws
from moto.server import ThreadedMotoServer

from lcabot.dev import stack as devstack
from lcabot.dev.stack import DevstackError, create_stack, load_template

ROOT = Path(__file__).resolve().parents[2]
TEMPLATE = ROOT / "template.yaml"
DOCKERFILE = ROOT / "iac" / "Dockerfile"

WORKERS = {
    "IngestFunction": "lambdas.ingest.app.handler",
    "AnswerFunction": "lambdas.answer.app.handler",
    "ReportFunction": "lambdas.report.app.handler",
}
BOT_HANDLERS = {
    "SlackFunction": "bot_handlers.slack.app.handler",
    "TeamsFunction": "bot_handlers.teams.app.handler",
}
QUEUES = {"IngestQueue": "IngestDeadLetterQueue", "AnswerQueue": "AnswerDeadLetterQueue",
          "ReportQueue": "ReportDeadLetterQueue"}
TABLE_KEYS = {
    "IdempotencyTable": ([("id", "HASH")], "expiration"),
    "DocumentStatusTable": ([("source_key", "HASH")], None),
    "ConversationsTable": ([("pk", "HASH"), ("sk", "RANGE")], "expires_at"),
}
DATA_SERVICES = ("s3", "dynamodb", "sqs", "es", "secretsmanager")
PDF_KEY = "library/academic/coal gasification.pdf"
PDF_KEY_IN_EVENT = "library%2Facademic%2Fcoal+gasification.pdf"  # moto: quote_plus, so "/" is encoded too


@pytest.fixture(scope="module")
def template() -> dict[str, Any]:
    return load_template(TEMPLATE)


@pytest.fixture()
def aws_credentials(monkeypatch: pytest.MonkeyPatch) -> None:
    for name, value in {"AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "testing",
                        "AWS_SECURITY_TOKEN": "testing", "AWS_SESSION_TOKEN": "testing",
                        "AWS_DEFAULT_REGION": "us-east-1"}.items():
        monkeypatch.setenv(name, value)
    for name in ("AWS_PROFILE", "AWS_ENDPOINT_URL"):
        monkeypatch.delenv(name, raising=False)


def resources_of(template: dict[str, Any], type_: str) -> dict[str, dict[str, Any]]:
    return {name: r for name, r in template["Resources"].items() if r["Type"] == type_}


def functions(template: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return resources_of(template, "AWS::Serverless::Function")


def sqs_events(function: dict[str, Any]) -> list[dict[str, Any]]:
    return [e["Properties"] for e in function["Properties"].get("Events", {}).values() if e["Type"] == "SQS"]


# ---------------------------------------------------------------- lint


def test_cfn_lint_reports_no_error_or_warning() -> None:
    matches = lint_file(TEMPLATE)
    serious = [m for m in matches if m.rule.id[0] in "EW"]
    assert not serious, "\n".join(f"{m.rule.id} {m.message} (line {m.linenumber})" for m in serious)


def test_cfn_lint_catches_a_broken_template(tmp_path: Path) -> None:
    broken = tmp_path / "template.yaml"
    broken.write_text(TEMPLATE.read_text().replace("SSEAlgorithm: AES256", "SSEAlgorithm: AES257", 1))
    assert any(m.rule.id.startswith("E") for m in lint_file(broken))


# ---------------------------------------------------------------- ingest trigger


def test_ingest_is_notified_only_for_library_pdfs(template: dict[str, Any]) -> None:
    buckets = resources_of(template, "AWS::S3::Bucket")
    notifying = {name for name, b in buckets.items() if "NotificationConfiguration" in b["Properties"]}
    assert notifying == {"LibraryBucket"}
    entries = buckets["LibraryBucket"]["Properties"]["NotificationConfiguration"]["QueueConfigurations"]
    filters = set()
    for entry in entries:
        assert entry["Queue"] == {"Fn::GetAtt": ["IngestQueue", "Arn"]}
        rules = {r["Name"]: r["Value"] for r in entry["Filter"]["S3Key"]["Rules"]}
        filters.add((entry["Event"], rules["prefix"], rules["suffix"]))
        assert set(rules) == {"prefix", "suffix"}
    assert filters == {(event, "library/", suffix) for event in ("s3:ObjectCreated:*", "s3:ObjectRemoved:*")
                       for suffix in (".pdf", ".PDF")}  # suffix rules are case-sensitive


def test_queue_policy_admits_only_the_library_bucket_without_a_cycle(template: dict[str, Any]) -> None:
    library = template["Resources"]["LibraryBucket"]
    policy = template["Resources"]["IngestQueuePolicy"]["Properties"]
    assert library["DependsOn"] == "IngestQueuePolicy"
    assert "LibraryBucket" not in devstack.references(policy)
    (statement,) = policy["PolicyDocument"]["Statement"]
    assert statement["Principal"] == {"Service": "s3.amazonaws.com"} and statement["Action"] == "sqs:SendMessage"
    source_arn = statement["Condition"]["ArnEquals"]["aws:SourceArn"]["Fn::Sub"]
    assert source_arn == "arn:${AWS::Partition}:s3:::" + library["Properties"]["BucketName"]["Fn::Sub"]
    assert statement["Condition"]["StringEquals"]["aws:SourceAccount"] == {"Ref": "AWS::AccountId"}


def test_buckets_are_private_encrypted_and_reports_expire(template: dict[str, Any]) -> None:
    buckets = resources_of(template, "AWS::S3::Bucket")
    assert set(buckets) == {"LibraryBucket", "ArtifactsBucket", "ReportsBucket"}
    for bucket in buckets.values():
        props = bucket["Properties"]
        assert all(props["PublicAccessBlockConfiguration"].values())
        (rule,) = props["BucketEncryption"]["ServerSideEncryptionConfiguration"]
        assert rule["ServerSideEncryptionByDefault"]["SSEAlgorithm"] in ("AES256", "aws:kms")
    assert buckets["LibraryBucket"]["Properties"]["VersioningConfiguration"] == {"Status": "Enabled"}
    rules = buckets["ReportsBucket"]["Properties"]["LifecycleConfiguration"]["Rules"]
    assert any(r["Status"] == "Enabled" and "ExpirationInDays" in r for r in rules)


# ---------------------------------------------------------------- queues and event sources


def test_every_consumed_queue_has_a_dead_letter_queue_and_enough_visibility(template: dict[str, Any]) -> None:
    queues = resources_of(template, "AWS::SQS::Queue")
    params = template["Parameters"]
    consumed = {}
    for function in functions(template).values():
        for event in sqs_events(function):
            consumed[event["Queue"]["Fn::GetAtt"][0]] = function["Properties"]["Timeout"]["Ref"]
    assert set(consumed) == set(QUEUES)
    for queue, timeout_param in consumed.items():
        props = queues[queue]["Properties"]
        redrive = props["RedrivePolicy"]
        assert redrive["deadLetterTargetArn"] == {"Fn::GetAtt": [QUEUES[queue], "Arn"]}
        assert redrive["maxReceiveCount"] == {"Ref": "MaxReceiveCount"}
        assert "RedrivePolicy" not in queues[QUEUES[queue]]["Properties"]
        assert props["VisibilityTimeout"] >= 6 * params[timeout_param]["MaxValue"] >= 6 * params[timeout_param][
            "Default"]
    assert params["MaxReceiveCount"]["Default"] == 3
    for queue in queues.values():
        assert queue["Properties"]["SqsManagedSseEnabled"] is True


def test_every_sqs_event_source_reports_batch_item_failures(template: dict[str, Any]) -> None:
    sizes = {}
    for name, function in functions(template).items():
        for event in sqs_events(function):
            assert event["FunctionResponseTypes"] == ["ReportBatchItemFailures"], name
            sizes[name] = event["BatchSize"]
    assert 1 <= sizes.pop("IngestFunction") <= 2
    assert sizes == {"AnswerFunction": 5, "ReportFunction": 1}
    (ingest,) = sqs_events(functions(template)["IngestFunction"])
    assert ingest["ScalingConfig"]["MaximumConcurrency"] == {"Ref": "IngestMaxConcurrency"}


def test_every_dead_letter_queue_and_function_alarms_to_the_topic(template: dict[str, Any]) -> None:
    alarms = resources_of(template, "AWS::CloudWatch::Alarm").values()
    watched = {}
    for alarm in alarms:
        props = alarm["Properties"]
        assert props["AlarmActions"] == [{"Ref": "AlarmTopic"}]
        assert (props["Threshold"], props["ComparisonOperator"]) == (0, "GreaterThanThreshold")
        (dimension,) = props["Dimensions"]
        target = devstack.references(dimension["Value"]).pop()
        watched[target] = props["MetricName"]
    dead_letter_queues = QUEUES.values()
    assert {q: watched[q] for q in dead_letter_queues} == dict.fromkeys(dead_letter_queues,
                                                                       "ApproximateNumberOfMessagesVisible")
    assert {f: watched[f] for f in functions(template)} == dict.fromkeys(functions(template), "Errors")
    subscription = template["Resources"]["AlarmEmailSubscription"]
    assert subscription["Condition"] == "HasAlarmEmail"


# ---------------------------------------------------------------- functions and image


def test_all_functions_run_the_one_image_with_their_handler(template: dict[str, Any]) -> None:
    found = functions(template)
    assert set(found) == set(WORKERS) | set(BOT_HANDLERS)
    (metadata,) = {json.dumps(f["Metadata"], sort_keys=True) for f in found.values()}  # identical: one build
    metadata = json.loads(metadata)
    assert (metadata["Dockerfile"], metadata["DockerContext"]) == ("iac/Dockerfile", ".")
    assert (ROOT / metadata["Dockerfile"]).is_file()
    for name, handler in {**WORKERS, **BOT_HANDLERS}.items():
        props = found[name]["Properties"]
        assert props["PackageType"] == "Image"
        assert props["ImageConfig"]["Command"] == [handler]
    routes = {name: [(e["Type"], e["Properties"]["Method"], e["Properties"]["Path"])
                     for e in found[name]["Properties"]["Events"].values()] for name in BOT_HANDLERS}
    assert routes == {"SlackFunction": [("HttpApi", "POST", "/slack/events")],
                      "TeamsFunction": [("HttpApi", "POST", "/api/messages")]}


def test_hf_hub_offline_in_image_and_functions(template: dict[str, Any]) -> None:
    dockerfile = DOCKERFILE.read_text()
    env_block = dockerfile[dockerfile.index("\nENV "):].split("\n\n")[0]
    assert re.search(r"\bHF_HUB_OFFLINE=1\b", env_block) and re.search(r"\bTRANSFORMERS_OFFLINE=1\b", env_block)
    assert "torch==2.13.0 --index-url https://download.pytorch.org/whl/cpu" in dockerfile
    assert "pip install '.[aws]'" in dockerfile
    assert dockerfile.rstrip().endswith('CMD ["lambdas.answer.app.handler"]')
    assert template["Globals"]["Function"]["Environment"]["Variables"]["HF_HUB_OFFLINE"] == "1"
    for function in functions(template).values():
        assert function["Properties"].get("Environment", {}).get("Variables", {}).get("HF_HUB_OFFLINE", "1") == "1"


def test_search_domain_is_locked_down(template: dict[str, Any]) -> None:
    props = template["Resources"]["SearchDomain"]["Properties"]
    security = props["AdvancedSecurityOptions"]
    assert security["Enabled"] is True and security["InternalUserDatabaseEnabled"] is False
    # who may reach it, and the master user: tests/unit/test_iam.py
    assert props["EncryptionAtRestOptions"]["Enabled"] is True
    assert props["NodeToNodeEncryptionOptions"]["Enabled"] is True
    assert props["DomainEndpointOptions"]["EnforceHTTPS"] is True
    assert "TLS-1-2" in props["DomainEndpointOptions"]["TLSSecurityPolicy"]
    assert props["EBSOptions"]["VolumeType"] == "gp3"
    principals = devstack.references([s["Principal"] for s in props["AccessPolicies"]["Statement"]])
    assert principals == {"IngestFunctionRole", "AnswerFunctionRole", "SearchAdminRole", "OpenSearchMasterRoleArn"}


def policy_statements(node: Any, path: str = "") -> list[tuple[str, dict[str, Any]]]:
    """Every IAM statement anywhere in ``node`` (inline policies, queue/bucket/domain policies), with its path."""
    found = []
    if isinstance(node, dict):
        if "Statement" in node:
            statements = node["Statement"]
            found += [(path, s) for s in (statements if isinstance(statements, list) else [statements])]
        for key, value in node.items():
            found += policy_statements(value, f"{path}/{key}")
    elif isinstance(node, list):
        for index, value in enumerate(node):
            found += policy_statements(value, f"{path}/{index}")
    return found


def wildcard_data_access(statement: dict[str, Any]) -> bool:
    """An Allow statement granting s3/dynamodb/sqs/es/secretsmanager actions on every resource."""
    if statement.get("Effect") != "Allow":
        return False
    if "NotAction" in statement or "NotResource" in statement:
        return True
    actions = statement["Action"] if isinstance(statement["Action"], list) else [statement["Action"]]
    resource = statement.get("Resource", [])  # a role's trust policy names no resource
    resources = resource if isinstance(resource, list) else [resource]
    data = any(a == "*" or a.split(":", 1)[0] in DATA_SERVICES for a in actions if isinstance(a, str))
    return data and any(r == "*" for r in resources)


def test_no_policy_grants_data_access_on_every_resource(template: dict[str, Any]) -> None:
    statements = policy_statements(template["Resources"])
    assert len(statements) > 10
    offending = [path for path, statement in statements if wildcard_data_access(statement)]
    assert not offending, offending
    assert wildcard_data_access({"Effect": "Allow", "Action": ["s3:GetObject"], "Resource": "*"})
    for name, function in functions(template).items():  # each its own role; the grants: tests/unit/test_iam.py
        assert "Policies" not in function["Properties"] and "Role" in function["Properties"], name


def test_no_plaintext_secret_values(template: dict[str, Any]) -> None:
    secrets = resources_of(template, "AWS::SecretsManager::Secret")
    assert set(secrets) == {"SlackSecret", "TeamsSecret", "AnthropicSecret"}
    not_secret = {"", "00000000-0000-0000-0000-000000000000"}
    for name, secret in secrets.items():
        props = secret["Properties"]
        if "SecretString" in props:
            assert set(json.loads(props["SecretString"]).values()) <= not_secret, name
        else:
            generated = props["GenerateSecretString"]
            assert set(json.loads(generated["SecretStringTemplate"]).values()) <= not_secret, name
    text = TEMPLATE.read_text()
    assert not re.search(r"xox[abpr]-[0-9A-Za-z-]{10,}|sk-ant-[0-9A-Za-z_-]{10,}|AKIA[0-9A-Z]{16}", text)
    for function in functions(template).values():
        for var, value in function["Properties"].get("Environment", {}).get("Variables", {}).items():
            if re.search(r"SECRET|TOKEN|PASSWORD|API_KEY", var):
                assert isinstance(value, dict) and var.endswith("_ARN"), var


# ---------------------------------------------------------------- template loading


def test_load_template_reads_every_short_form_tag(tmp_path: Path) -> None:
    path = tmp_path / "t.yaml"
    path.write_text(
        "Resources:\n"
        "  A:\n"
        "    Properties:\n"
        "      Ref: !Ref X\n"
        "      Att: !GetAtt Q.Arn\n"
        "      AttList: !GetAtt [Q, Arn]\n"
        "      Sub: !Sub ${AWS::Region}-x\n"
        "      If: !If [C, !Equals [a, b], !Not [!Condition D]]\n"
        "      Many: [!Select [0, !Split [',', 'a,b']], !Join ['-', [a, b]], !FindInMap [M, k, v],\n"
        "             !And [!Or [a, b]], !ImportValue e, !Base64 s, !Cidr [c, 1, 2], !GetAZs '']\n"
    )
    props = load_template(path)["Resources"]["A"]["Properties"]
    assert props["Ref"] == {"Ref": "X"}
    assert props["Att"] == props["AttList"] == {"Fn::GetAtt": ["Q", "Arn"]}
    assert props["Sub"] == {"Fn::Sub": "${AWS::Region}-x"}
    assert props["If"] == {"Fn::If": ["C", {"Fn::Equals": ["a", "b"]}, {"Fn::Not": [{"Condition": "D"}]}]}
    assert [next(iter(item)) for item in props["Many"]] == [
        "Fn::Select", "Fn::Join", "Fn::FindInMap", "Fn::And", "Fn::ImportValue", "Fn::Base64", "Fn::Cidr",
        "Fn::GetAZs"]


# ---------------------------------------------------------------- devstack in moto


def receive_all(sqs: Any, url: str) -> list[dict[str, Any]]:
    messages = []
    while batch := sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=10, WaitTimeSeconds=0).get("Messages"):
        for message in batch:
            sqs.delete_message(QueueUrl=url, ReceiptHandle=message["ReceiptHandle"])
        messages += [json.loads(m["Body"]) for m in batch]
    return messages


def assert_stack_created(stack: devstack.StackResources, s3: Any, sqs: Any, dynamodb: Any,
                         versioning: str | None = None) -> None:
    assert set(stack.buckets) == {"LibraryBucket", "ArtifactsBucket", "ReportsBucket"}
    names = {b["Name"] for b in s3.list_buckets()["Buckets"]}
    assert set(stack.buckets.values()) <= names
    assert stack.buckets["LibraryBucket"] == f"{stack.stack_name}-library-123456789012-us-east-1"
    assert s3.get_bucket_versioning(Bucket=stack.buckets["LibraryBucket"]).get("Status") == versioning
    assert set(stack.queues) == set(QUEUES) | set(QUEUES.values())
    for queue, dead_letter in QUEUES.items():
        attributes = sqs.get_queue_attributes(QueueUrl=stack.queues[queue], AttributeNames=["All"])["Attributes"]
        assert json.loads(attributes["RedrivePolicy"]) == {"deadLetterTargetArn": stack.queue_arns[dead_letter],
                                                          "maxReceiveCount": 3}
        assert int(attributes["VisibilityTimeout"]) >= 900
    assert set(stack.tables) == set(TABLE_KEYS)
    for table, (keys, ttl_attribute) in TABLE_KEYS.items():
        name = stack.tables[table]
        schema = dynamodb.describe_table(TableName=name)["Table"]["KeySchema"]
        assert [(k["AttributeName"], k["KeyType"]) for k in schema] == keys
        ttl = dynamodb.describe_time_to_live(TableName=name)["TimeToLiveDescription"]
        assert ttl.get("AttributeName") == ttl_attribute


def assert_only_library_pdfs_reach_ingest(stack: devstack.StackResources, s3: Any, sqs: Any) -> None:
    library, ingest = stack.buckets["LibraryBucket"], stack.queues["IngestQueue"]
    (test_event,) = receive_all(sqs, ingest)  # S3 (and moto) announce a new notification configuration
    assert test_event["Event"] == "s3:TestEvent" and test_event["Bucket"] == library and "Records" not in test_event

    s3.put_object(Bucket=library, Key=PDF_KEY, Body=b"%PDF-1.7")
    (created,) = receive_all(sqs, ingest)
    (record,) = created["Records"]
    assert record["eventName"] == "ObjectCreated:Put" and record["s3"]["bucket"]["name"] == library
    assert record["s3"]["object"]["key"] == PDF_KEY_IN_EVENT
    assert unquote_plus(record["s3"]["object"]["key"]) == PDF_KEY

    s3.put_object(Bucket=library, Key="graph/fragments/x.pdf", Body=b"{}")
    s3.put_object(Bucket=library, Key="library/academic/notes.txt", Body=b"x")
    for other in ("ArtifactsBucket", "ReportsBucket"):
        s3.put_object(Bucket=stack.buckets[other], Key="library/academic/copy.pdf", Body=b"x")
    assert receive_all(sqs, ingest) == []

    s3.put_object(Bucket=library, Key="library/academic/UPPER.PDF", Body=b"%PDF-1.7")
    (upper,) = receive_all(sqs, ingest)
    assert upper["Records"][0]["s3"]["object"]["key"] == "library%2Facademic%2FUPPER.PDF"

    s3.delete_object(Bucket=library, Key=PDF_KEY)
    (removed,) = receive_all(sqs, ingest)
    assert [r["eventName"] for r in removed["Records"]] == ["ObjectRemoved:Delete"]


def test_create_stack_in_process(aws_credentials: None) -> None:
    with mock_aws():
        stack = create_stack(TEMPLATE)
        s3, sqs, dynamodb = (boto3.client(s, region_name="us-east-1") for s in ("s3", "sqs", "dynamodb"))
        assert_stack_created(stack, s3, sqs, dynamodb)
        policy = json.loads(sqs.get_queue_attributes(QueueUrl=stack.queues["IngestQueue"],
                                                     AttributeNames=["Policy"])["Attributes"]["Policy"])
        source_arn = policy["Statement"][0]["Condition"]["ArnEquals"]["aws:SourceArn"]
        assert source_arn == f"arn:aws:s3:::{stack.buckets['LibraryBucket']}"
        assert_only_library_pdfs_reach_ingest(stack, s3, sqs)
        assert create_stack(TEMPLATE).queues == stack.queues  # a second run reuses what exists


def test_moto_sends_no_event_for_a_delete_marker_so_versioning_is_opt_in(aws_credentials: None) -> None:
    """moto 5.2.5: deleting from a versioned bucket creates a delete marker but sends no ObjectRemoved event (S3
    sends s3:ObjectRemoved:DeleteMarkerCreated). When this fails, moto has caught up: make versioning the default."""
    with mock_aws():
        stack = create_stack(TEMPLATE, bucket_versioning=True)
        s3, sqs, dynamodb = (boto3.client(s, region_name="us-east-1") for s in ("s3", "sqs", "dynamodb"))
        assert_stack_created(stack, s3, sqs, dynamodb, versioning="Enabled")
        library, ingest = stack.buckets["LibraryBucket"], stack.queues["IngestQueue"]
        receive_all(sqs, ingest)
        s3.put_object(Bucket=library, Key=PDF_KEY, Body=b"%PDF-1.7")
        assert len(receive_all(sqs, ingest)) == 1
        assert s3.delete_object(Bucket=library, Key=PDF_KEY)["DeleteMarker"] is True
        assert receive_all(sqs, ingest) == []


def test_env_names_the_created_resources(aws_credentials: None) -> None:
    with mock_aws():
        stack = create_stack(TEMPLATE, stack_name="envcheck", parameters={"MaxReceiveCount": "5"})
    assert stack.env() == {
        "LCABOT_LIBRARY_BUCKET": stack.buckets["LibraryBucket"],
        "LCABOT_ARTIFACTS_BUCKET": stack.buckets["ArtifactsBucket"],
        "LCABOT_REPORTS_BUCKET": stack.buckets["ReportsBucket"],
        "LCABOT_STATUS_TABLE": stack.tables["DocumentStatusTable"],
        "LCABOT_IDEMPOTENCY_TABLE": stack.tables["IdempotencyTable"],
        "LCABOT_CONVERSATIONS_TABLE": stack.tables["ConversationsTable"],
        "LCABOT_ANSWER_QUEUE_URL": stack.queues["AnswerQueue"],
        "LCABOT_REPORT_QUEUE_URL": stack.queues["ReportQueue"],
        "LCABOT_MAX_RECEIVE_COUNT": "5",
    }
    assert set(stack.env("TeamsFunction")) == {"LCABOT_ANSWER_QUEUE_URL", "LCABOT_REPORT_QUEUE_URL",
                                               "LCABOT_CONVERSATIONS_TABLE", "LCABOT_IDEMPOTENCY_TABLE",
                                               "LCABOT_REPORTS_BUCKET"}
    assert stack.env("ReportFunction")["LCABOT_LIBRARY_BUCKET"] == stack.buckets["LibraryBucket"]
    assert "LCABOT_OPENSEARCH_URL" not in stack.env("IngestFunction")  # no search domain in the dev stack
    with pytest.raises(DevstackError):
        stack.env("NoSuchFunction")


@pytest.mark.parametrize("resource, message", [
    ("Type: AWS::S3::Bucket\n    Properties:\n      CorsConfiguration: {CorsRules: []}", "CorsConfiguration"),
    ("Type: AWS::S3::Bucket\n    Properties:\n      BucketName: !Ref NoSuchParameter", "Ref NoSuchParameter"),
    ("Type: AWS::SQS::Queue\n    Properties:\n      RedrivePolicy:\n"
     "        deadLetterTargetArn: !GetAtt Topic.Arn\n        maxReceiveCount: 3", "GetAtt Topic.Arn"),
])
def test_create_stack_fails_loudly_on_what_it_cannot_translate(aws_credentials: None, tmp_path: Path,
                                                               resource: str, message: str) -> None:
    path = tmp_path / "template.yaml"
    path.write_text(f"Resources:\n  Topic:\n    Type: AWS::SNS::Topic\n  Thing:\n    {resource}\n")
    with mock_aws(), pytest.raises(DevstackError, match=message):
        create_stack(path)


@pytest.fixture()
def moto_server() -> Any:
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    host, port = server.get_host_and_port()
    url = f"http://{host}:{port}"
    try:
        yield url
    finally:
        urllib.request.urlopen(urllib.request.Request(f"{url}/moto-api/reset", method="POST"), timeout=10).close()
        server.stop()


def test_create_stack_through_a_moto_server(aws_credentials: None, moto_server: str) -> None:
    stack = create_stack(TEMPLATE, endpoint_url=moto_server, stack_name="served")
    assert stack.aws_env() == {"AWS_DEFAULT_REGION": "us-east-1", "AWS_ENDPOINT_URL": moto_server}
    s3, sqs, dynamodb = (boto3.client(s, region_name="us-east-1", endpoint_url=moto_server)
                         for s in ("s3", "sqs", "dynamodb"))
    assert_stack_created(stack, s3, sqs, dynamodb)
    assert_only_library_pdfs_reach_ingest(stack, s3, sqs)
