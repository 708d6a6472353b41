"""The template's buckets, queues and tables, created in an AWS endpoint (moto) from ``template.yaml`` itself.

Used by the tests (moto in-process: ``endpoint_url=None`` under ``moto.mock_aws()``) and by ``lcabot dev`` (a moto
server: ``endpoint_url="http://127.0.0.1:5000"``). Everything comes from the template, so the local stack and the
deployed one cannot drift: names, redrive policies, visibility timeouts, key schemas, TTLs, the queue policy and the
library bucket's S3 -> SQS notification (bucket versioning only on request: see :func:`create_stack`). Resources
of other types (functions, the search domain, secrets, alarms, the HTTP API) are not modelled and are skipped; a
property of a modelled resource that cannot be translated or resolved raises :class:`DevstackError`.

Imported lazily by `lcabot dev` and by tests: it needs boto3 and PyYAML, never torch.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import boto3
import yaml
from botocore.config import Config
from botocore.exceptions import ClientError

from lcabot.errors import LcabotError

MOTO_ACCOUNT_ID = "123456789012"
BUCKET, QUEUE, QUEUE_POLICY = "AWS::S3::Bucket", "AWS::SQS::Queue", "AWS::SQS::QueuePolicy"
TABLE = "AWS::DynamoDB::Table"
MODELLED_TYPES = (BUCKET, QUEUE, QUEUE_POLICY, TABLE)
FUNCTION_TYPES = ("AWS::Serverless::Function", "AWS::Lambda::Function")
ENV_PREFIX = "LCABOT_"
_SHORT_TAGS = ("Ref", "Condition", "GetAtt", "Sub", "If", "Equals", "Not", "And", "Or", "Select", "Join", "Split",
               "FindInMap", "ImportValue", "Base64", "Cidr", "GetAZs", "Transform", "Length", "ToJsonString")
_SUB_VARIABLE = re.compile(r"\$\{([^}!][^}]*)\}")


class DevstackError(LcabotError):
    """The template cannot be turned into local resources (unresolvable or untranslatable property)."""


# ---------------------------------------------------------------- template loading


class _CfnLoader(yaml.SafeLoader):
    """SafeLoader that reads CloudFormation short-form tags (``!Ref X`` -> ``{"Ref": "X"}``)."""


def _construct_tag(loader: _CfnLoader, suffix: str, node: yaml.Node) -> dict[str, Any]:
    if suffix not in _SHORT_TAGS:
        raise yaml.constructor.ConstructorError(None, None, f"unknown CloudFormation tag !{suffix}", node.start_mark)
    value: Any
    if isinstance(node, yaml.ScalarNode):
        value = loader.construct_scalar(node)
    elif isinstance(node, yaml.SequenceNode):
        value = loader.construct_sequence(node, deep=True)
    else:
        value = loader.construct_mapping(node, deep=True)  # type: ignore[arg-type]
    if suffix in ("Ref", "Condition"):
        return {suffix: value}
    if suffix == "GetAtt" and isinstance(value, str):
        value = value.split(".", 1)
    return {f"Fn::{suffix}": value}


_CfnLoader.add_multi_constructor("!", _construct_tag)


def load_template(path: str | Path) -> dict[str, Any]:
    """Parse a CloudFormation/SAM YAML template; short-form tags become their long-form dicts."""
    with open(path, encoding="utf-8") as handle:
        template = yaml.load(handle, Loader=_CfnLoader)  # a SafeLoader subclass
    if not isinstance(template, dict) or not isinstance(template.get("Resources"), dict):
        raise DevstackError(f"{path}: not a CloudFormation template (no Resources)")
    return template


# ---------------------------------------------------------------- intrinsic functions

_NO_VALUE = object()
Call = tuple[str, dict[str, Any]]  # (boto3 client method, keyword arguments)


class Resolver:
    """Resolves the intrinsics used in resource properties against parameters and already-created resources.

    ``attributes[logical_id]`` holds ``"Ref"`` and the ``!GetAtt`` attributes of each created resource.
    """

    def __init__(self, template: Mapping[str, Any], *, stack_name: str, region: str, account_id: str,
                 parameters: Mapping[str, str] | None = None) -> None:
        self.template = template
        self.attributes: dict[str, dict[str, str]] = {}
        self.pseudo = {"AWS::StackName": stack_name, "AWS::Region": region, "AWS::AccountId": account_id,
                       "AWS::Partition": "aws", "AWS::URLSuffix": "amazonaws.com",
                       "AWS::StackId": f"arn:aws:cloudformation:{region}:{account_id}:stack/{stack_name}/devstack"}
        self.parameters = {name: str(spec["Default"]) for name, spec in template.get("Parameters", {}).items()
                           if "Default" in spec}
        self.parameters.update({name: str(value) for name, value in (parameters or {}).items()})
        self._functions: dict[str, Callable[[Any], Any]] = {
            "Ref": self._ref, "Fn::GetAtt": self._get_att, "Fn::Sub": self._sub, "Fn::Join": self._join,
            "Fn::Select": self._select, "Fn::If": self._if,
        }

    def resolve(self, value: Any) -> Any:
        """``value`` with every supported intrinsic replaced; ``AWS::NoValue`` entries are dropped."""
        if isinstance(value, list):
            return [item for item in map(self.resolve, value) if item is not _NO_VALUE]
        if not isinstance(value, dict):
            return value
        if len(value) == 1:
            (key, argument), = value.items()
            if key in self._functions:
                return self._functions[key](argument)
            if key.startswith("Fn::"):
                raise DevstackError(f"{key} is not supported here")
        resolved = {key: self.resolve(item) for key, item in value.items()}
        return {key: item for key, item in resolved.items() if item is not _NO_VALUE}

    def condition(self, name: str) -> bool:
        try:
            return self._truth(self.template["Conditions"][name])
        except KeyError:
            raise DevstackError(f"unknown condition {name}") from None

    def _truth(self, expression: Any) -> bool:
        (key, argument), = expression.items()
        if key == "Condition":
            return self.condition(argument)
        if key == "Fn::Equals":
            left, right = (self.resolve(item) for item in argument)
            return str(left) == str(right)
        if key == "Fn::Not":
            return not self._truth(argument[0])
        if key == "Fn::And":
            return all(self._truth(item) for item in argument)
        if key == "Fn::Or":
            return any(self._truth(item) for item in argument)
        raise DevstackError(f"{key} is not supported in conditions")

    def _ref(self, name: str) -> Any:
        if name == "AWS::NoValue":
            return _NO_VALUE
        for table in (self.pseudo, self.parameters):
            if name in table:
                return table[name]
        if name in self.attributes:
            return self.attributes[name]["Ref"]
        raise DevstackError(f"cannot resolve Ref {name}: not a parameter with a value or a created resource")

    def _get_att(self, argument: list[str] | str) -> str:
        logical_id, attribute = argument.split(".", 1) if isinstance(argument, str) else argument
        try:
            return self.attributes[logical_id][attribute]
        except KeyError:
            raise DevstackError(f"cannot resolve GetAtt {logical_id}.{attribute}") from None

    def _sub(self, argument: str | list[Any]) -> str:
        text, variables = (argument, {}) if isinstance(argument, str) else (argument[0], self.resolve(argument[1]))

        def replace(match: re.Match[str]) -> str:
            name = match.group(1)
            if name in variables:
                return str(variables[name])
            return str(self._get_att(name) if "." in name and not name.startswith("AWS::") else self._ref(name))

        return _SUB_VARIABLE.sub(replace, text).replace("${!", "${")

    def _join(self, argument: list[Any]) -> str:
        delimiter, items = argument
        return str(delimiter).join(str(item) for item in self.resolve(items))

    def _select(self, argument: list[Any]) -> Any:
        index, items = self.resolve(argument)
        return items[int(index)]

    def _if(self, argument: list[Any]) -> Any:
        name, when_true, when_false = argument
        return self.resolve(when_true if self.condition(name) else when_false)


def references(value: Any) -> set[str]:
    """Logical ids (and parameter names) that ``value`` refers to through Ref, GetAtt or Sub."""
    found: set[str] = set()
    if isinstance(value, list):
        for item in value:
            found |= references(item)
    elif isinstance(value, dict):
        for key, argument in value.items():
            if key == "Ref" and isinstance(argument, str):
                found.add(argument)
            elif key == "Fn::GetAtt":
                found.add(argument.split(".", 1)[0] if isinstance(argument, str) else argument[0])
            elif key == "Fn::Sub":
                text = argument if isinstance(argument, str) else argument[0]
                local = set() if isinstance(argument, str) else set(argument[1])
                found |= {name.split(".", 1)[0] for name in _SUB_VARIABLE.findall(text)} - local
                found |= set() if isinstance(argument, str) else references(argument[1])
            else:
                found |= references(argument)
    return {name for name in found if not name.startswith("AWS::")}


# ---------------------------------------------------------------- the stack


@dataclass
class StackResources:
    """Physical names of the created resources, keyed by logical id, and the environment the functions get."""

    stack_name: str
    region: str
    endpoint_url: str | None = None
    buckets: dict[str, str] = field(default_factory=dict)
    queues: dict[str, str] = field(default_factory=dict)
    queue_arns: dict[str, str] = field(default_factory=dict)
    tables: dict[str, str] = field(default_factory=dict)
    function_env: dict[str, dict[str, str]] = field(default_factory=dict)

    def env(self, function: str | None = None) -> dict[str, str]:
        """``LCABOT_*`` variables one function (logical id) would get, or all functions' together.

        Only variables whose template value resolves against this stack are included: bucket and table names,
        queue URLs and parameter values such as ``LCABOT_MAX_RECEIVE_COUNT``. Literals meant for the Lambda file
        system (``LCABOT_HOME=/tmp/lcabot``) and references to resources this module does not create (search domain,
        secrets) are left out.
        """
        if function is not None:
            if function not in self.function_env:
                raise DevstackError(f"no function {function} in the template")
            return dict(self.function_env[function])
        merged: dict[str, str] = {}
        for variables in self.function_env.values():
            merged.update(variables)
        return dict(sorted(merged.items()))

    def aws_env(self) -> dict[str, str]:
        """``AWS_ENDPOINT_URL`` (read by boto3 >= 1.28 for every client) and the region, for local processes."""
        variables = {"AWS_DEFAULT_REGION": self.region}
        if self.endpoint_url:
            variables["AWS_ENDPOINT_URL"] = self.endpoint_url
        return variables


def create_stack(template_path: str | Path, *, endpoint_url: str | None = None, stack_name: str = "lcabot",
                 region: str = "us-east-1", session: boto3.session.Session | None = None,
                 parameters: Mapping[str, str] | None = None, account_id: str = MOTO_ACCOUNT_ID,
                 bucket_versioning: bool = False) -> StackResources:
    """Create the template's buckets, queues (dead-letter queues first), tables, queue policies and bucket
    notifications; return their names. Re-running against the same endpoint reuses what exists.

    Args:
        template_path: the SAM template (``template.yaml``).
        endpoint_url: a moto server (``http://127.0.0.1:5000``); ``None`` uses boto3's ambient configuration, which
            is moto's in-process mock under ``moto.mock_aws()``.
        stack_name, region, account_id: values of the pseudo parameters (``AWS::AccountId`` defaults to moto's).
        session: a boto3 session to build clients from; a new one by default.
        parameters: template parameter values overriding the defaults.
        bucket_versioning: apply the template's ``VersioningConfiguration``. Off by default because moto (5.2.5)
            sends no ``s3:ObjectRemoved:DeleteMarkerCreated`` event when an object of a versioned bucket is deleted
            (S3 does), so deletions from the library would never reach the ingest queue. The application never
            reads object versions; everything else is created as the template says.

    Raises:
        DevstackError: a property of a bucket, queue or table cannot be resolved or translated.
    """
    template = load_template(template_path)
    resolver = Resolver(template, stack_name=stack_name, region=region, account_id=account_id, parameters=parameters)
    clients = _Clients(session or boto3.session.Session(region_name=region), region, endpoint_url, bucket_versioning)
    stack = StackResources(stack_name=stack_name, region=region, endpoint_url=endpoint_url)
    resources = template["Resources"]
    for logical_id in _creation_order(resources):
        resource = resources[logical_id]
        if "Condition" in resource and not resolver.condition(resource["Condition"]):
            continue
        try:
            properties = resolver.resolve(resource.get("Properties", {}))
        except DevstackError as err:
            raise DevstackError(f"{logical_id}: {err}") from None
        _CREATORS[resource["Type"]](clients, logical_id, properties, resolver, stack)
    stack.function_env = _function_env(template, resolver)
    return stack


def _creation_order(resources: Mapping[str, Any]) -> list[str]:
    """Modelled resources ordered so that each comes after the modelled resources it refers to or depends on."""
    modelled = {name for name, resource in resources.items() if resource.get("Type") in MODELLED_TYPES}
    order: list[str] = []
    visiting: set[str] = set()

    def visit(name: str) -> None:
        if name in order:
            return
        if name in visiting:
            raise DevstackError(f"circular dependency through {name}")
        visiting.add(name)
        resource = resources[name]
        depends_on = resource.get("DependsOn", [])
        needed = references(resource.get("Properties", {})) | set([depends_on] if isinstance(depends_on, str)
                                                                   else depends_on)
        for other in sorted(needed & modelled):
            visit(other)
        visiting.discard(name)
        order.append(name)

    for name in sorted(modelled):
        visit(name)
    return order


def _function_env(template: Mapping[str, Any], resolver: Resolver) -> dict[str, dict[str, str]]:
    """Per function, the ``LCABOT_*`` variables backed by what was created: a created resource, or a parameter that
    shapes one (``MaxReceiveCount`` in the redrive policies). Literals and other parameters (model ids) are left to
    the local configuration."""
    created = set(resolver.attributes)
    backed = created | (set().union(*(references(template["Resources"][name].get("Properties", {}))
                                      for name in created)) & set(resolver.parameters))
    shared = template.get("Globals", {}).get("Function", {}).get("Environment", {}).get("Variables", {})
    environments: dict[str, dict[str, str]] = {}
    for logical_id, resource in template["Resources"].items():
        if resource.get("Type") not in FUNCTION_TYPES:
            continue
        own = resource.get("Properties", {}).get("Environment", {}).get("Variables", {})
        environments[logical_id] = {
            name: str(resolver.resolve(value)) for name, value in sorted({**shared, **own}.items())
            if name.startswith(ENV_PREFIX) and (needed := references(value)) and needed <= backed}
    return environments


# ---------------------------------------------------------------- creating resources


class _Clients:
    def __init__(self, session: boto3.session.Session, region: str, endpoint_url: str | None,
                 bucket_versioning: bool) -> None:
        options: dict[str, Any] = {"region_name": region, "endpoint_url": endpoint_url}
        if endpoint_url and session.get_credentials() is None:  # a moto server accepts any credentials
            options.update(aws_access_key_id="testing", aws_secret_access_key="testing")
        self.region = region
        self.bucket_versioning = bucket_versioning
        self.s3 = session.client("s3", config=Config(s3={"addressing_style": "path"}), **options)
        self.sqs = session.client("sqs", **options)
        self.dynamodb = session.client("dynamodb", **options)


def _create_queue(clients: _Clients, logical_id: str, properties: dict[str, Any], resolver: Resolver,
                  stack: StackResources) -> None:
    name = properties.get("QueueName") or f"{stack.stack_name}-{logical_id}"
    attributes = queue_attributes(logical_id, properties)
    if attributes.get("FifoQueue") == "true" and not name.endswith(".fifo"):
        name += ".fifo"
    try:
        url = clients.sqs.create_queue(QueueName=name, Attributes=attributes)["QueueUrl"]
    except ClientError as err:
        if "QueueAlreadyExists" not in err.response["Error"]["Code"]:
            raise
        url = clients.sqs.get_queue_url(QueueName=name)["QueueUrl"]
        attributes.pop("FifoQueue", None)
        clients.sqs.set_queue_attributes(QueueUrl=url, Attributes=attributes)
    arn = clients.sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]
    resolver.attributes[logical_id] = {"Ref": url, "QueueUrl": url, "Arn": arn, "QueueName": name}
    stack.queues[logical_id] = url
    stack.queue_arns[logical_id] = arn


def _create_queue_policy(clients: _Clients, logical_id: str, properties: dict[str, Any], resolver: Resolver,
                         stack: StackResources) -> None:
    policy = json.dumps(properties["PolicyDocument"])
    for url in properties["Queues"]:
        clients.sqs.set_queue_attributes(QueueUrl=url, Attributes={"Policy": policy})


def _create_table(clients: _Clients, logical_id: str, properties: dict[str, Any], resolver: Resolver,
                  stack: StackResources) -> None:
    name = properties.get("TableName") or f"{stack.stack_name}-{logical_id}"
    create, updates = table_calls(logical_id, name, properties)
    try:
        clients.dynamodb.create_table(**create)
    except ClientError as err:
        if err.response["Error"]["Code"] != "ResourceInUseException":
            raise
        updates = []  # already there from an earlier run: leave it as it is
    clients.dynamodb.get_waiter("table_exists").wait(TableName=name, WaiterConfig={"Delay": 1, "MaxAttempts": 60})
    for operation, arguments in updates:
        getattr(clients.dynamodb, operation)(**arguments)
    arn = clients.dynamodb.describe_table(TableName=name)["Table"]["TableArn"]
    resolver.attributes[logical_id] = {"Ref": name, "Arn": arn}
    stack.tables[logical_id] = name


def _create_bucket(clients: _Clients, logical_id: str, properties: dict[str, Any], resolver: Resolver,
                   stack: StackResources) -> None:
    name = properties.get("BucketName") or f"{stack.stack_name}-{logical_id}".lower()
    location = {} if clients.region == "us-east-1" else {
        "CreateBucketConfiguration": {"LocationConstraint": clients.region}}
    try:
        clients.s3.create_bucket(Bucket=name, **location)
    except ClientError as err:
        if err.response["Error"]["Code"] != "BucketAlreadyOwnedByYou":
            raise
    for operation, arguments in bucket_calls(logical_id, properties):
        if operation == "put_bucket_versioning" and not clients.bucket_versioning:
            continue
        getattr(clients.s3, operation)(Bucket=name, **arguments)
    resolver.attributes[logical_id] = {"Ref": name, "Arn": f"arn:aws:s3:::{name}",
                                       "DomainName": f"{name}.s3.amazonaws.com",
                                       "RegionalDomainName": f"{name}.s3.{clients.region}.amazonaws.com"}
    stack.buckets[logical_id] = name


# ---------------------------------------------------------------- CloudFormation properties -> API calls

_QUEUE_ATTRIBUTES = {"DelaySeconds", "MaximumMessageSize", "MessageRetentionPeriod", "ReceiveMessageWaitTimeSeconds",
                     "VisibilityTimeout", "KmsMasterKeyId", "KmsDataKeyReusePeriodSeconds", "SqsManagedSseEnabled",
                     "FifoQueue", "ContentBasedDeduplication", "DeduplicationScope", "FifoThroughputLimit",
                     "RedrivePolicy", "RedriveAllowPolicy"}


def queue_attributes(logical_id: str, properties: Mapping[str, Any]) -> dict[str, str]:
    """``CreateQueue`` attributes (all strings; policies as JSON) from an ``AWS::SQS::Queue``'s properties."""
    _reject_unknown(logical_id, properties, _QUEUE_ATTRIBUTES | {"QueueName", "Tags"})
    attributes: dict[str, str] = {}
    for name in sorted(_QUEUE_ATTRIBUTES & properties.keys()):
        value = properties[name]
        if name == "RedrivePolicy":
            value = {**value, "maxReceiveCount": int(value["maxReceiveCount"])}
        if isinstance(value, bool):
            attributes[name] = "true" if value else "false"
        elif isinstance(value, dict):
            attributes[name] = json.dumps(value)
        else:
            attributes[name] = str(value)
    return attributes


_TABLE_CREATE = {"KeySchema", "AttributeDefinitions", "BillingMode", "ProvisionedThroughput", "GlobalSecondaryIndexes",
                 "LocalSecondaryIndexes", "DeletionProtectionEnabled", "TableClass"}


def table_calls(logical_id: str, name: str, properties: Mapping[str, Any]) -> tuple[dict[str, Any], list[Call]]:
    """``CreateTable`` arguments and follow-up calls (TTL, point-in-time recovery) of an ``AWS::DynamoDB::Table``."""
    _reject_unknown(logical_id, properties, _TABLE_CREATE | {"TableName", "Tags", "SSESpecification",
                                                             "StreamSpecification", "TimeToLiveSpecification",
                                                             "PointInTimeRecoverySpecification"})
    create: dict[str, Any] = {"TableName": name, **{key: properties[key] for key in _TABLE_CREATE & properties.keys()}}
    if "SSESpecification" in properties:
        sse = properties["SSESpecification"]
        create["SSESpecification"] = {"Enabled": _flag(sse.get("SSEEnabled", False)),
                                      **{key: sse[key] for key in ("SSEType", "KMSMasterKeyId") if key in sse}}
    if "StreamSpecification" in properties:
        create["StreamSpecification"] = {"StreamEnabled": True, **properties["StreamSpecification"]}
    updates: list[Call] = []
    if "TimeToLiveSpecification" in properties:
        ttl = properties["TimeToLiveSpecification"]
        updates.append(("update_time_to_live", {"TableName": name, "TimeToLiveSpecification": {
            "AttributeName": ttl["AttributeName"], "Enabled": _flag(ttl.get("Enabled", True))}}))
    pitr = properties.get("PointInTimeRecoverySpecification", {})
    if _flag(pitr.get("PointInTimeRecoveryEnabled", False)):
        updates.append(("update_continuous_backups", {"TableName": name, "PointInTimeRecoverySpecification": {
            "PointInTimeRecoveryEnabled": True}}))
    return create, updates


_LIFECYCLE_RULE = {"Id", "Status", "Prefix", "ExpirationInDays", "ExpiredObjectDeleteMarker",
                   "NoncurrentVersionExpiration", "NoncurrentVersionExpirationInDays", "AbortIncompleteMultipartUpload"}


def bucket_calls(logical_id: str, properties: Mapping[str, Any]) -> list[Call]:
    """S3 calls (after ``CreateBucket``) that give a bucket the ``AWS::S3::Bucket`` properties, in order."""
    _reject_unknown(logical_id, properties, {"BucketName", "Tags", "VersioningConfiguration", "BucketEncryption",
                                             "PublicAccessBlockConfiguration", "OwnershipControls",
                                             "LifecycleConfiguration", "NotificationConfiguration"})
    calls: list[Call] = []
    if "VersioningConfiguration" in properties:
        calls.append(("put_bucket_versioning", {"VersioningConfiguration": properties["VersioningConfiguration"]}))
    if "BucketEncryption" in properties:
        rules = [{("ApplyServerSideEncryptionByDefault" if key == "ServerSideEncryptionByDefault" else key): value
                  for key, value in rule.items()}
                 for rule in properties["BucketEncryption"]["ServerSideEncryptionConfiguration"]]
        calls.append(("put_bucket_encryption", {"ServerSideEncryptionConfiguration": {"Rules": rules}}))
    if "PublicAccessBlockConfiguration" in properties:
        calls.append(("put_public_access_block",
                      {"PublicAccessBlockConfiguration": properties["PublicAccessBlockConfiguration"]}))
    if "OwnershipControls" in properties:
        calls.append(("put_bucket_ownership_controls", {"OwnershipControls": properties["OwnershipControls"]}))
    if "LifecycleConfiguration" in properties:
        rules = [_lifecycle_rule(logical_id, rule) for rule in properties["LifecycleConfiguration"]["Rules"]]
        calls.append(("put_bucket_lifecycle_configuration", {"LifecycleConfiguration": {"Rules": rules}}))
    if "NotificationConfiguration" in properties:
        notification = _notification(logical_id, properties["NotificationConfiguration"])
        calls.append(("put_bucket_notification_configuration", {"NotificationConfiguration": notification}))
    return calls


def _lifecycle_rule(logical_id: str, rule: Mapping[str, Any]) -> dict[str, Any]:
    _reject_unknown(f"{logical_id} lifecycle rule", rule, _LIFECYCLE_RULE)
    translated: dict[str, Any] = {"Status": rule["Status"], "Filter": {"Prefix": rule.get("Prefix", "")}}
    if "Id" in rule:
        translated["ID"] = rule["Id"]
    if "ExpirationInDays" in rule:
        translated["Expiration"] = {"Days": int(rule["ExpirationInDays"])}
    elif "ExpiredObjectDeleteMarker" in rule:
        translated["Expiration"] = {"ExpiredObjectDeleteMarker": _flag(rule["ExpiredObjectDeleteMarker"])}
    noncurrent = rule.get("NoncurrentVersionExpiration") or (
        {"NoncurrentDays": rule["NoncurrentVersionExpirationInDays"]} if "NoncurrentVersionExpirationInDays" in rule
        else None)
    if noncurrent:
        translated["NoncurrentVersionExpiration"] = {key: int(value) for key, value in noncurrent.items()}
    if "AbortIncompleteMultipartUpload" in rule:
        days = int(rule["AbortIncompleteMultipartUpload"]["DaysAfterInitiation"])
        translated["AbortIncompleteMultipartUpload"] = {"DaysAfterInitiation": days}
    return translated


def _notification(logical_id: str, configuration: Mapping[str, Any]) -> dict[str, Any]:
    """S3's notification document from CloudFormation's (one ``Event`` per entry; ``S3Key.Rules`` filters)."""
    _reject_unknown(f"{logical_id} NotificationConfiguration", configuration,
                    {"QueueConfigurations", "EventBridgeConfiguration"})
    translated: dict[str, Any] = {"QueueConfigurations": []}
    for index, entry in enumerate(configuration.get("QueueConfigurations", [])):
        _reject_unknown(f"{logical_id} QueueConfiguration", entry, {"Event", "Queue", "Filter"})
        queue: dict[str, Any] = {"Id": f"{logical_id}-{index}", "QueueArn": entry["Queue"], "Events": [entry["Event"]]}
        rules = entry.get("Filter", {}).get("S3Key", {}).get("Rules", [])
        if rules:
            queue["Filter"] = {"Key": {"FilterRules": [{"Name": rule["Name"], "Value": rule["Value"]}
                                                       for rule in rules]}}
        translated["QueueConfigurations"].append(queue)
    if _flag(configuration.get("EventBridgeConfiguration", {}).get("EventBridgeEnabled", False)):
        translated["EventBridgeConfiguration"] = {}
    return translated


def _reject_unknown(where: str, properties: Mapping[str, Any], known: set[str]) -> None:
    unknown = sorted(set(properties) - known)
    if unknown:
        raise DevstackError(f"{where}: devstack does not translate {', '.join(unknown)}; extend lcabot/dev/stack.py")


def _flag(value: Any) -> bool:
    """CloudFormation booleans may be strings after parameter substitution."""
    return value if isinstance(value, bool) else str(value).lower() == "true"


_CREATORS: dict[str, Callable[[_Clients, str, dict[str, Any], Resolver, StackResources], None]] = {
    QUEUE: _create_queue, QUEUE_POLICY: _create_queue_policy, TABLE: _create_table, BUCKET: _create_bucket,
}
