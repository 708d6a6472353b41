"""Secrets come from Secrets Manager (moto) and never appear in error messages."""

from __future__ import annotations

import json

import boto3
import pytest
from moto import mock_aws

from lcabot import wiring
from lcabot.adapters.aws import secret_field
from lcabot.config import Settings
from lcabot.errors import ConfigurationError


@pytest.fixture
def secrets(monkeypatch):
    for name, value in {"AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "testing",
                        "AWS_DEFAULT_REGION": "us-east-1"}.items():
        monkeypatch.setenv(name, value)
    monkeypatch.delenv("AWS_ENDPOINT_URL", raising=False)
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    with mock_aws():
        yield boto3.client("secretsmanager")


def test_the_anthropic_key_comes_from_the_secret(secrets, monkeypatch):
    arn = secrets.create_secret(Name="anthropic", SecretString=json.dumps({"api_key": "sk-ant-test-123"}))["ARN"]
    monkeypatch.setenv("LCABOT_ANTHROPIC_SECRET_ARN", arn)
    deps = wiring.build(Settings.from_env())
    assert deps.settings.anthropic_api_key is None  # read only where a part needs it
    assert deps.model_settings.anthropic_api_key == "sk-ant-test-123"
    assert "sk-ant-test-123" not in repr(deps.model_settings)


def test_the_template_placeholder_empty_key_means_offline(secrets, monkeypatch):
    arn = secrets.create_secret(Name="anthropic", SecretString=json.dumps({"api_key": ""}))["ARN"]
    monkeypatch.setenv("LCABOT_ANTHROPIC_SECRET_ARN", arn)
    assert wiring.build(Settings.from_env()).model_settings.anthropic_api_key is None


def test_unreadable_or_incomplete_secrets_name_the_field_never_the_value(secrets):
    arn = secrets.create_secret(Name="slack", SecretString=json.dumps({"bot_token": "xoxb-secret-value"}))["ARN"]
    with pytest.raises(ConfigurationError, match="'signing_secret' is missing") as err:
        secret_field(arn, "signing_secret")
    assert "xoxb-secret-value" not in str(err.value)
    broken = secrets.create_secret(Name="broken", SecretString="xoxb-not-json")["ARN"]
    with pytest.raises(ConfigurationError, match="JSONDecodeError") as err:
        secret_field(broken, "bot_token")
    assert "xoxb-not-json" not in str(err.value)
    with pytest.raises(ConfigurationError, match="ResourceNotFound|ClientError"):
        secret_field("arn:aws:secretsmanager:us-east-1:123456789012:secret:missing-AbCdEf", "api_key")


def test_secrets_never_reach_the_logs_at_debug(secrets, caplog):
    """With ``LogLevel=DEBUG`` the Lambda runtime sets the root logger to DEBUG, where botocore logs every response
    body: reading the Slack secret must still log neither the bot token nor the signing secret."""
    import logging

    values = {"bot_token": "xoxb-1111-never-logged", "signing_secret": "5f2c0ffee-never-logged"}
    arn = secrets.create_secret(Name="slack-debug", SecretString=json.dumps(values))["ARN"]
    root = logging.getLogger()
    previous = root.level
    root.setLevel(logging.DEBUG)
    try:
        with caplog.at_level(logging.DEBUG):
            assert secret_field(arn, "bot_token") == values["bot_token"]
            assert secret_field(arn, "signing_secret") == values["signing_secret"]
            logging.getLogger("lcabot.slack").debug("probe")
    finally:
        root.setLevel(previous)
        for name in ("botocore", "boto3", "s3transfer", "urllib3", "msal", "msrest"):
            logging.getLogger(name).setLevel(logging.NOTSET)
    for value in values.values():
        assert value not in caplog.text
    assert [r.getMessage() for r in caplog.records] == ["probe"]  # our own DEBUG lines still reach the log
