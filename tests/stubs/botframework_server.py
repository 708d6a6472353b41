"""A local stand-in for the Microsoft services a Teams bot talks to: one threaded HTTP server on 127.0.0.1 that speaks
the wire protocols of

* the Bot Framework channel's signing-key publication (OpenID metadata and a JWKS with ``endorsements``), and mints
  the RS256 tokens the channel puts in ``Authorization`` when it POSTs an activity to the bot;
* the AAD (Entra ID) client-credentials flow the bot uses to get a token for the Bot Connector (tenant OpenID
  discovery and ``/oauth2/v2.0/token``, checking client id, secret and scope);
* the Bot Connector REST API at the conversation's ``serviceUrl`` (send, reply, update, delete an activity), which
  only accepts a Bearer token issued by the AAD side above;
* a OneDrive upload session (the ``uploadUrl`` in a FileConsentCard's accept) and pre-authenticated download URLs
  (an attachment's ``downloadUrl``).

How the real libraries reach it (details in the module's tests, tests/unit/test_botframework_stub.py):

* ``msal`` only accepts an ``https://`` authority, and for a host it does not know it first asks
  ``https://login.microsoftonline.com/common/discovery/instance`` (``MicrosoftAppCredentials`` gives no way to turn
  that off). So the stub also acts as an HTTPS proxy for exactly ``login.microsoftonline.com`` and
  ``login.botframework.com``: it answers ``CONNECT`` and serves TLS with a certificate from its own test CA.
  Setting the variables of :meth:`BotFrameworkStub.proxy_env` (``HTTPS_PROXY`` and ``REQUESTS_CA_BUNDLE``) makes an
  unmodified ``MicrosoftAppCredentials(app_id, password)`` and an unmodified channel-token validator (its default
  metadata URL ``https://login.botframework.com/v1/.well-known/openidconfiguration``) talk to the stub.
* Without the proxy, the validator can instead be pointed at :attr:`BotFrameworkStub.openid_metadata_url` (plain
  http is fine for it) through ``ChannelValidation.open_id_metadata_endpoint``.

The RSA and TLS keys are made once per process (key generation is the slow part) and shared by every stub, the way
Microsoft's keys outlive any one conversation: a JWKS or an access token cached by the libraries stays valid from one
stub to the next. :meth:`BotFrameworkStub.start` and :meth:`~BotFrameworkStub.stop` still drop the stub's metadata URLs
from botframework's process-wide ``JwtTokenExtractor.metadataCache``, which otherwise keeps keys for a day and answers
an unknown ``kid`` with ``IndexError`` instead of refetching.
"""

from __future__ import annotations

import atexit
import base64
import hashlib
import json
import mimetypes
import re
import shutil
import socket
import ssl
import tempfile
import threading
import time
import uuid
from collections import deque
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, quote, unquote, urlsplit

import certifi
import jwt
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, rsa
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID
from jwt.algorithms import RSAAlgorithm

DEFAULT_APP_ID = "00000000-0000-0000-0000-00000000a11d"
DEFAULT_APP_PASSWORD = "test-password"
CHANNEL_ISSUER = "https://api.botframework.com"  # iss of channel → bot tokens
CONNECTOR_SCOPE = "https://api.botframework.com"  # aud of bot → connector tokens (requested as "<scope>/.default")
LOGIN_HOST = "login.microsoftonline.com"  # AAD, reached through the stub's proxy
METADATA_HOST = "login.botframework.com"  # the channel's OpenID metadata, reached through the stub's proxy
TUNNEL_HOSTS = (LOGIN_HOST, METADATA_HOST)
BOTFRAMEWORK_TENANT = "botframework.com"
BOTFRAMEWORK_TENANT_ID = "d6d49420-f39b-4df7-a1dc-d59a935871db"  # the tenant behind "botframework.com"
AAD_ISSUER = f"https://sts.windows.net/{BOTFRAMEWORK_TENANT_ID}/"  # v1 access tokens, as issued for this scope
METADATA_PATH = "/v1/.well-known/openidconfiguration"
KEYS_PATH = "/v1/.well-known/keys"
SERVICE_PREFIX = "/teams/"
DEFAULT_ENDORSEMENTS = ("msteams", "emulator", "webchat", "directline", "skype", "email", "sms")
MAX_ACTIVITY_BYTES = 28 * 1024  # Teams refuses larger messages ("about 28 KB", in UTF-16) with 413
UPLOAD_FRAGMENT_MULTIPLE = 320 * 1024  # every upload fragment but the last must be a multiple of 320 KiB
MAX_UPLOAD_FRAGMENT = 60 * 1024 * 1024
AREAS = ("connector", "token", "upload", "download")

_CONNECTOR_PATH = re.compile(r"^/teams/v3/conversations/([^/]+)/activities(?:/([^/]+))?/?$")
_AAD_DISCOVERY_PATH = re.compile(r"^/([^/]+)/v2\.0/\.well-known/openid-configuration$")
_AAD_TOKEN_PATH = re.compile(r"^/([^/]+)/oauth2/v2\.0/token$")
_CONTENT_RANGE = re.compile(r"^bytes (\d+)-(\d+)/(\d+)$")


# ---------------------------------------------------------------------------------------------------------- keys


def _b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def _name(common_name: str) -> x509.Name:
    return x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, common_name)])


def _cert(subject: str, public_key: Any, issuer: str, issuer_key: Any, *, ca: bool, dns: tuple[str, ...] = ()
          ) -> x509.Certificate:
    now = datetime.now(UTC)
    builder = (
        x509.CertificateBuilder().subject_name(_name(subject)).issuer_name(_name(issuer)).public_key(public_key)
        .serial_number(x509.random_serial_number()).not_valid_before(now - timedelta(days=1))
        .not_valid_after(now + timedelta(days=30))
        .add_extension(x509.BasicConstraints(ca=ca, path_length=None), critical=True)
        .add_extension(x509.SubjectKeyIdentifier.from_public_key(public_key), critical=False)
        .add_extension(x509.AuthorityKeyIdentifier.from_issuer_public_key(issuer_key.public_key()), critical=False)
    )
    if ca:
        builder = builder.add_extension(
            x509.KeyUsage(digital_signature=True, key_cert_sign=True, crl_sign=True, content_commitment=False,
                          key_encipherment=False, data_encipherment=False, key_agreement=False, encipher_only=False,
                          decipher_only=False), critical=True)
    if dns:
        builder = builder.add_extension(x509.SubjectAlternativeName([x509.DNSName(d) for d in dns]), critical=False)
        builder = builder.add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
    return builder.sign(issuer_key, hashes.SHA256())


@dataclass(frozen=True)
class _SigningKey:
    private: rsa.RSAPrivateKey
    kid: str
    jwk: dict[str, Any]  # public part, without endorsements


def _signing_key(label: str) -> _SigningKey:
    private = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    cert = _cert(label, private.public_key(), label, private, ca=False)
    der = cert.public_bytes(serialization.Encoding.DER)
    kid = _b64url(hashlib.sha1(der).digest())  # like Microsoft's keys: kid == x5t, the certificate's thumbprint
    jwk = {**RSAAlgorithm.to_jwk(private.public_key(), as_dict=True), "use": "sig", "kid": kid, "x5t": kid,
           "x5c": [base64.b64encode(der).decode()]}
    return _SigningKey(private, kid, jwk)


@dataclass(frozen=True)
class _Material:
    channel: _SigningKey  # published in the JWKS; signs channel → bot tokens
    rogue: _SigningKey  # never published
    aad: _SigningKey  # signs the access tokens of the token side
    tls: ssl.SSLContext  # server side of the proxy's tunnels
    ca_bundle: str  # certifi's roots plus the stub CA, for REQUESTS_CA_BUNDLE


_MATERIAL: _Material | None = None
_MATERIAL_LOCK = threading.Lock()


def _material() -> _Material:
    global _MATERIAL
    with _MATERIAL_LOCK:
        if _MATERIAL is None:
            ca_key = ec.generate_private_key(ec.SECP256R1())
            ca = _cert("lcabot test CA (BotFrameworkStub)", ca_key.public_key(), "lcabot test CA (BotFrameworkStub)",
                       ca_key, ca=True)
            leaf_key = ec.generate_private_key(ec.SECP256R1())
            leaf = _cert(LOGIN_HOST, leaf_key.public_key(), "lcabot test CA (BotFrameworkStub)", ca_key, ca=False,
                         dns=TUNNEL_HOSTS)
            folder = Path(tempfile.mkdtemp(prefix="botframework-stub-"))
            atexit.register(shutil.rmtree, folder, True)
            pem = serialization.Encoding.PEM
            (folder / "leaf.pem").write_bytes(leaf.public_bytes(pem) + ca.public_bytes(pem))
            (folder / "leaf.key").write_bytes(leaf_key.private_bytes(
                pem, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()))
            bundle = folder / "ca-bundle.pem"
            bundle.write_bytes(Path(certifi.where()).read_bytes() + b"\n" + ca.public_bytes(pem))
            context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            context.load_cert_chain(folder / "leaf.pem", folder / "leaf.key")
            _MATERIAL = _Material(_signing_key("channel"), _signing_key("rogue"), _signing_key("aad"), context,
                                  str(bundle))
        return _MATERIAL


# ------------------------------------------------------------------------------------------------------ records


@dataclass(frozen=True)
class Received:
    host: str | None  # the tunnelled host (login.microsoftonline.com, login.botframework.com) or None for plain http
    method: str
    path: str  # as sent, still URL-encoded, query included
    headers: dict[str, str]  # lower-cased names
    body: bytes


@dataclass(frozen=True)
class Reply:
    status: int
    body: bytes = b""
    content_type: str = "application/json; charset=utf-8"
    headers: dict[str, str] = field(default_factory=dict)


def _json(status: int, body: Any, headers: dict[str, str] | None = None) -> Reply:
    return Reply(status, json.dumps(body).encode(), headers=headers or {})


def _api_error(status: int, code: str, message: str, headers: dict[str, str] | None = None) -> Reply:
    """Bot Connector and Graph both answer errors as ``{"error": {"code", "message"}}``."""
    return _json(status, {"error": {"code": code, "message": message}}, headers)


def _aad_error(status: int, error: str, description: str, code: int) -> Reply:
    return _json(status, {"error": error, "error_description": f"AADSTS{code}: {description}", "error_codes": [code],
                          "timestamp": datetime.now(UTC).strftime("%Y-%m-%d %H:%M:%SZ"),
                          "trace_id": str(uuid.uuid4()), "correlation_id": str(uuid.uuid4())})


_FAULT_CODES = {400: "BadArgument", 401: "Unauthorized", 403: "Forbidden", 404: "NotFound", 412: "PreconditionFailed",
                413: "MessageSizeTooBig", 429: "Throttled", 500: "InternalServerError", 502: "BadGateway",
                503: "ServiceUnavailable", 504: "GatewayTimeout"}


@dataclass
class _UploadSession:
    name: str
    item_id: str
    received: bytearray = field(default_factory=bytearray)
    total: int | None = None
    done: bool = False


# --------------------------------------------------------------------------------------------------------- stub


class BotFrameworkStub:
    """Start with ``with BotFrameworkStub() as stub:`` (or :meth:`start` / :meth:`stop`).

    Channel side: :meth:`mint_channel_token` / :meth:`channel_auth_header` make what the channel sends;
    :attr:`openid_metadata_url` is the plain-http metadata URL. AAD and the real metadata host: apply
    :meth:`proxy_env`. Connector: use :attr:`service_url` as the activity's ``serviceUrl``; what the bot posted is in
    :attr:`activities`. Files: :meth:`upload_url` / :meth:`upload_info` and :attr:`uploads`;
    :meth:`register_download`. Faults: :meth:`fail_next`. Every request is in :attr:`requests`.
    """

    def __init__(self, app_id: str = DEFAULT_APP_ID, app_password: str = DEFAULT_APP_PASSWORD, *,
                 endorsements: tuple[str, ...] = DEFAULT_ENDORSEMENTS, max_activity_bytes: int = MAX_ACTIVITY_BYTES,
                 token_lifetime_s: int = 3599) -> None:
        self.app_id = app_id
        self.app_password = app_password
        self.endorsements = list(endorsements)
        self.max_activity_bytes = max_activity_bytes
        self.token_lifetime_s = token_lifetime_s
        self.requests: list[Received] = []
        self.activities: list[dict[str, Any]] = []
        self.uploads: list[dict[str, Any]] = []
        self.issued_tokens: list[str] = []
        self._keys = _material()
        self._lock = threading.Lock()
        self._faults: dict[str, deque[int]] = {area: deque() for area in AREAS}
        self._sessions: dict[str, _UploadSession] = {}
        self._files: dict[str, tuple[bytes, str]] = {}  # id → (data, name): finished uploads and registered downloads
        self._posted: dict[str, str] = {}  # activity id the connector returned → its conversation id
        self._next_id = int(time.time() * 1000)
        self._sockets: set[socket.socket] = set()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, args=(0.05,), name="botframework-stub",
                                        daemon=True)
        self._running = False

    # ------------------------------------------------------------------------------------------- lifecycle

    def start(self) -> BotFrameworkStub:
        self.forget_cached_keys()
        self._thread.start()
        self._running = True
        return self

    def stop(self) -> None:
        if not self._running:
            return
        self._running = False
        self._server.shutdown()
        with self._lock:
            open_sockets = list(self._sockets)
        for sock in open_sockets:  # keep-alive connections and proxy tunnels would otherwise outlive the stub
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
        self._server.server_close()
        self._thread.join(timeout=5)
        self.forget_cached_keys()

    def __enter__(self) -> BotFrameworkStub:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # -------------------------------------------------------------------------------------------------- URLs

    @property
    def url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}"

    @property
    def service_url(self) -> str:
        """The Bot Connector base URL, like Teams' ``https://smba.trafficmanager.net/amer/`` (trailing slash)."""
        return self.url + SERVICE_PREFIX

    @property
    def openid_metadata_url(self) -> str:
        """Plain-http channel metadata, for ``ChannelValidation.open_id_metadata_endpoint``."""
        return self.url + METADATA_PATH

    @property
    def jwks_url(self) -> str:
        return self.url + KEYS_PATH

    @property
    def ca_bundle(self) -> str:
        """A PEM file with certifi's roots plus the CA that signed the proxy's certificate."""
        return self._keys.ca_bundle

    def proxy_env(self) -> dict[str, str]:
        """Environment variables that route ``requests`` (and so msal and botframework's key fetch) for
        login.microsoftonline.com and login.botframework.com through this stub, trusting its CA. Other https hosts
        fail at CONNECT (502), as they would without internet; plain-http URLs are not proxied."""
        return {"HTTPS_PROXY": self.url, "https_proxy": self.url, "REQUESTS_CA_BUNDLE": self.ca_bundle,
                "NO_PROXY": "127.0.0.1,localhost", "no_proxy": "127.0.0.1,localhost"}

    # ---------------------------------------------------------------------------------------- channel side

    @property
    def signing_kid(self) -> str:
        return self._keys.channel.kid

    @property
    def rogue_key(self) -> rsa.RSAPrivateKey:
        """An RSA key that is not in the JWKS (pass as ``signing_key=`` to forge a signature under a known kid)."""
        return self._keys.rogue.private

    @property
    def rogue_kid(self) -> str:
        return self._keys.rogue.kid

    def jwks(self) -> dict[str, Any]:
        return {"keys": [{**self._keys.channel.jwk, "endorsements": list(self.endorsements)}]}

    def mint_channel_token(self, service_url: str, *, audience: str | None = None, issuer: str = CHANNEL_ISSUER,
                           expires_in: int = 3600, not_before_offset: int = 0, kid: str | None = None,
                           signing_key: rsa.RSAPrivateKey | None = None, extra_claims: dict[str, Any] | None = None
                           ) -> str:
        """A token like the one the Bot Framework channel sends with an activity: RS256, header ``kid``, claims
        ``serviceurl``, ``nbf``, ``exp``, ``iss`` and ``aud`` (the app id) and nothing else (no ``ver``/``appid``,
        so the SDK does not take it for a skill or emulator token)."""
        now = int(time.time())
        claims = {"serviceurl": service_url, "nbf": now + not_before_offset, "exp": now + expires_in, "iss": issuer,
                  "aud": self.app_id if audience is None else audience, **(extra_claims or {})}
        key_id = kid if kid is not None else self.signing_kid
        return jwt.encode(claims, signing_key or self._keys.channel.private, algorithm="RS256",
                          headers={"kid": key_id, "x5t": key_id, "typ": "JWT"})

    def mint_rogue_token(self, service_url: str, **kwargs: Any) -> str:
        """:meth:`mint_channel_token` signed by a key the JWKS does not list (its own kid unless ``kid=`` is given)."""
        kwargs.setdefault("kid", self.rogue_kid)
        return self.mint_channel_token(service_url, signing_key=self.rogue_key, **kwargs)

    def channel_auth_header(self, service_url: str, **kwargs: Any) -> str:
        return "Bearer " + self.mint_channel_token(service_url, **kwargs)

    def forget_cached_keys(self) -> None:
        """Drop this stub's metadata URLs (and Microsoft's, which the proxy serves) from botframework-connector's
        process-wide key cache, so the next validation fetches the JWKS again."""
        try:
            from botframework.connector.auth import AuthenticationConstants
            from botframework.connector.auth.jwt_token_extractor import JwtTokenExtractor
        except ImportError:
            return
        for url in (self.openid_metadata_url, AuthenticationConstants.TO_BOT_FROM_CHANNEL_OPENID_METADATA_URL):
            JwtTokenExtractor.metadataCache.pop(url, None)

    # ------------------------------------------------------------------------------------------ token side

    def issue_access_token(self, app_id: str | None = None, *, expires_in: int | None = None) -> str:
        """What ``/oauth2/v2.0/token`` hands out: an AAD v1 access token for the Bot Connector scope."""
        now = int(time.time())
        app = app_id or self.app_id
        claims = {"aud": CONNECTOR_SCOPE, "iss": AAD_ISSUER, "iat": now, "nbf": now - 300,
                  "exp": now + (self.token_lifetime_s if expires_in is None else expires_in), "appid": app,
                  "appidacr": "1", "idp": AAD_ISSUER, "tid": BOTFRAMEWORK_TENANT_ID, "ver": "1.0",
                  "uti": _b64url(uuid.uuid4().bytes), "oid": str(uuid.uuid5(uuid.NAMESPACE_URL, app)),
                  "sub": str(uuid.uuid5(uuid.NAMESPACE_URL, app))}
        token = jwt.encode(claims, self._keys.aad.private, algorithm="RS256", headers={"kid": self._keys.aad.kid})
        with self._lock:
            self.issued_tokens.append(token)
        return token

    # ----------------------------------------------------------------------------------------------- files

    def upload_url(self, name: str) -> str:
        return self.upload_info(name)["uploadUrl"]

    def upload_info(self, name: str) -> dict[str, str]:
        """A fresh upload session, as Teams' ``FileUploadInfo`` in a ``fileConsent/invoke`` accept."""
        session_id, item_id = uuid.uuid4().hex, "01" + uuid.uuid4().hex.upper()[:32]
        with self._lock:
            self._sessions[session_id] = _UploadSession(name, item_id)
        return {"name": name, "uploadUrl": f"{self.url}/upload/{session_id}",
                "contentUrl": f"{self.url}/files/{item_id}/{quote(name)}", "uniqueId": item_id,
                "fileType": Path(name).suffix.lstrip(".")}

    def register_download(self, data: bytes, name: str) -> str:
        """A pre-authenticated URL (like an attachment's ``downloadUrl``) whose GET returns ``data``."""
        token = uuid.uuid4().hex
        with self._lock:
            self._files[token] = (bytes(data), name)
        return f"{self.url}/download/{token}/{quote(name)}"

    # ---------------------------------------------------------------------------------------------- faults

    def fail_next(self, status: int, times: int = 1, *, on: str = "connector") -> None:
        """Answer the next ``times`` well-formed, authorized requests of one area with ``status`` (an error body in
        that service's shape; 429 and 503 carry ``Retry-After: 1``). ``on``: connector | token | upload | download.
        msal throttles a token request that got 429/5xx for 5 s (per app instance)."""
        if on not in AREAS:
            raise ValueError(f"on must be one of {AREAS}")
        with self._lock:
            self._faults[on].extend([status] * times)

    def _fault(self, area: str) -> int | None:
        with self._lock:
            return self._faults[area].popleft() if self._faults[area] else None

    @staticmethod
    def _retry_after(status: int) -> dict[str, str]:
        return {"Retry-After": "1"} if status in (429, 503) else {}

    # --------------------------------------------------------------------------------------------- routing

    def _respond(self, host: str | None, method: str, target: str, headers: dict[str, str], raw: bytes) -> Reply:
        with self._lock:
            self.requests.append(Received(host, method, target, headers, raw))
        path = urlsplit(target).path
        if host == LOGIN_HOST:
            return self._aad(method, path, headers, raw)
        if host == METADATA_HOST:
            return self._channel_metadata(method, path, f"https://{METADATA_HOST}")
        if path in (METADATA_PATH, KEYS_PATH):
            return self._channel_metadata(method, path, self.url)
        if path.startswith(SERVICE_PREFIX):
            return self._connector(method, path, headers, raw)
        if path.startswith("/upload/"):
            return self._upload(method, path, headers, raw)
        if path.startswith(("/download/", "/files/")):
            return self._download(method, path)
        return _api_error(404, "NotFound", f"stub: no route for {method} {path}")

    def _channel_metadata(self, method: str, path: str, base: str) -> Reply:
        if method != "GET":
            return _api_error(405, "MethodNotAllowed", f"stub: {method} {path}")
        if path == METADATA_PATH:
            return _json(200, {"issuer": CHANNEL_ISSUER, "authorization_endpoint": "https://invalid.botframework.com",
                               "jwks_uri": base + KEYS_PATH, "id_token_signing_alg_values_supported": ["RS256"],
                               "token_endpoint_auth_methods_supported": ["private_key_jwt"]})
        if path == KEYS_PATH:
            return _json(200, self.jwks())
        return _api_error(404, "NotFound", f"stub: no route for {path}")

    def _aad(self, method: str, path: str, headers: dict[str, str], raw: bytes) -> Reply:
        tenants = (BOTFRAMEWORK_TENANT, BOTFRAMEWORK_TENANT_ID)
        if method == "GET" and (match := _AAD_DISCOVERY_PATH.match(path)):
            if match.group(1) not in tenants:
                return _aad_error(400, "invalid_tenant", f"Tenant '{match.group(1)}' not found (stub).", 90002)
            base = f"https://{LOGIN_HOST}/{BOTFRAMEWORK_TENANT_ID}"
            return _json(200, {
                "token_endpoint": f"{base}/oauth2/v2.0/token",
                "authorization_endpoint": f"{base}/oauth2/v2.0/authorize",
                "device_authorization_endpoint": f"{base}/oauth2/v2.0/devicecode",
                "jwks_uri": f"{base}/discovery/v2.0/keys", "issuer": f"{base}/v2.0", "tenant_region_scope": "WW",
                "token_endpoint_auth_methods_supported": ["client_secret_post", "private_key_jwt",
                                                          "client_secret_basic"],
                "response_types_supported": ["code", "id_token", "code id_token", "id_token token"],
                "scopes_supported": ["openid", "profile", "email", "offline_access"],
                "id_token_signing_alg_values_supported": ["RS256"], "subject_types_supported": ["pairwise"]})
        if method == "GET" and path == "/common/discovery/instance":  # msal asks this after a failed token request
            aliases = [LOGIN_HOST, "login.windows.net", "login.microsoft.com", "sts.windows.net"]
            return _json(200, {"tenant_discovery_endpoint": f"https://{LOGIN_HOST}/common/v2.0/.well-known/"
                               "openid-configuration", "api-version": "1.1", "metadata": [
                                   {"preferred_network": LOGIN_HOST, "preferred_cache": "login.windows.net",
                                    "aliases": aliases}]})
        if (match := _AAD_TOKEN_PATH.match(path)) is None:
            return _aad_error(404, "invalid_request", f"No such endpoint {method} {path} (stub).", 900561)
        if method != "POST":
            return _aad_error(400, "invalid_request", "The token endpoint only accepts POST (stub).", 900561)
        if match.group(1) not in tenants:
            return _aad_error(400, "invalid_tenant", f"Tenant '{match.group(1)}' not found (stub).", 90002)
        if not headers.get("content-type", "").startswith("application/x-www-form-urlencoded"):
            return _aad_error(400, "invalid_request", "The body must be form-encoded (stub).", 900144)
        form = dict(parse_qsl(raw.decode("utf-8", "replace"), keep_blank_values=True))
        if form.get("grant_type") != "client_credentials":
            return _aad_error(400, "unsupported_grant_type", "Only client_credentials is served (stub).", 70003)
        if form.get("client_id") != self.app_id:
            return _aad_error(400, "unauthorized_client", f"Application '{form.get('client_id')}' is unknown in "
                              f"tenant '{match.group(1)}' (stub).", 700016)
        if form.get("client_secret") != self.app_password:
            return _aad_error(401, "invalid_client", "The client secret is wrong (stub).", 7000215)
        if form.get("scope") != CONNECTOR_SCOPE + "/.default":
            return _aad_error(400, "invalid_scope", f"Scope '{form.get('scope')}' is not valid here; the stub "
                              f"issues tokens for '{CONNECTOR_SCOPE}/.default' only.", 70011)
        if status := self._fault("token"):
            reply = _aad_error(status, "temporarily_unavailable", "Injected fault (stub).", 90033)
            return Reply(reply.status, reply.body, headers=self._retry_after(status))
        return _json(200, {"token_type": "Bearer", "expires_in": self.token_lifetime_s,
                           "ext_expires_in": self.token_lifetime_s, "access_token": self.issue_access_token()})

    def _authorized(self, headers: dict[str, str]) -> str | None:
        """Why the Authorization header is not a live connector token of this app (None when it is)."""
        scheme, _, token = headers.get("authorization", "").partition(" ")
        if scheme != "Bearer" or not token:
            return "a Bearer token is required"
        try:
            claims = jwt.decode(token, self._keys.aad.private.public_key(), algorithms=["RS256"],
                                audience=CONNECTOR_SCOPE, issuer=AAD_ISSUER)
        except jwt.PyJWTError as exc:
            return f"the token was not issued by the stub's token endpoint or is no longer valid ({exc})"
        if claims.get("appid") != self.app_id:
            return f"the token belongs to app {claims.get('appid')!r}, not {self.app_id!r}"
        return None

    def _connector(self, method: str, path: str, headers: dict[str, str], raw: bytes) -> Reply:
        match = _CONNECTOR_PATH.match(path)
        if match is None:
            return _api_error(404, "NotFound", f"stub: no Bot Connector route for {method} {path}")
        conversation_id = unquote(match.group(1))
        activity_id = unquote(match.group(2)) if match.group(2) else None
        ops = {("POST", False): "send", ("POST", True): "reply", ("PUT", True): "update", ("DELETE", True): "delete"}
        op = ops.get((method, activity_id is not None))
        if op is None:
            return _api_error(405, "MethodNotAllowed", f"stub: {method} is not allowed on {path}")
        if problem := self._authorized(headers):
            return _api_error(401, "Unauthorized", f"stub: {problem}")
        body: Any = None
        if op != "delete":
            if not headers.get("content-type", "").startswith("application/json"):
                return _api_error(415, "BadArgument", "stub: the activity must be sent as application/json")
            try:
                body = json.loads(raw or b"null")
            except ValueError:
                return _api_error(400, "BadArgument", "stub: the body is not valid JSON")
            if not isinstance(body, dict) or not body.get("type"):
                return _api_error(400, "BadArgument", "stub: the body must be an activity with a type")
            size = len(raw.decode("utf-8", "replace").encode("utf-16-le"))  # Teams counts UTF-16
            if size > self.max_activity_bytes:
                return _api_error(413, "MessageSizeTooBig", f"stub: the activity is {size} UTF-16 bytes; Teams "
                                  f"takes about {self.max_activity_bytes}")
        if op in ("update", "delete"):
            with self._lock:
                owner = self._posted.get(activity_id or "")
            if owner != conversation_id:
                return _api_error(404, "NotFound", f"stub: the bot posted no activity {activity_id!r} in "
                                  f"conversation {conversation_id!r}")
        if status := self._fault("connector"):
            return _api_error(status, _FAULT_CODES.get(status, "ServiceError"), "stub: injected fault",
                              self._retry_after(status))
        with self._lock:
            if op in ("send", "reply"):
                self._next_id += 1
                new_id = str(self._next_id)
                self._posted[new_id] = conversation_id
            else:
                new_id = activity_id or ""
            self.activities.append({"op": op, "method": method, "conversation_id": conversation_id,
                                    "activity_id": activity_id, "reply_to_id": activity_id if op == "reply" else None,
                                    "id": new_id, "body": body})
        return Reply(200, b"") if op == "delete" else _json(200 if op == "update" else 201, {"id": new_id})

    def _upload(self, method: str, path: str, headers: dict[str, str], raw: bytes) -> Reply:
        session_id = path.removeprefix("/upload/").strip("/")
        with self._lock:
            session = self._sessions.get(session_id)
        if session is None or session.done:
            return _api_error(404, "itemNotFound", "The upload session does not exist or has completed.")
        if method == "DELETE":
            with self._lock:
                session.done = True
            return Reply(204)
        if method != "PUT":
            return _api_error(405, "invalidRequest", f"{method} is not supported on an upload session.")
        if "authorization" in headers:  # the URL is pre-authenticated; Graph refuses an Authorization header on it
            return _api_error(401, "unauthenticated", "Do not send an Authorization header to an uploadUrl.")
        content_range = _CONTENT_RANGE.match(headers.get("content-range", "").strip())
        if content_range is None:
            return _api_error(400, "invalidRequest", "A Content-Range header 'bytes first-last/total' is required.")
        first, last, total = (int(g) for g in content_range.groups())
        length = last - first + 1
        if headers.get("content-length") is None or int(headers["content-length"]) != length or len(raw) != length:
            return _api_error(400, "invalidRequest", "Content-Length must equal the size of the Content-Range.")
        if length > MAX_UPLOAD_FRAGMENT:
            return _api_error(413, "requestTooLarge", "A fragment may not exceed 60 MiB.")
        if last >= total or (session.total is not None and total != session.total):
            return _api_error(400, "invalidRequest", "The total size is inconsistent.")
        if first != len(session.received):
            return _api_error(416, "invalidRange", f"Expected a fragment starting at {len(session.received)}.")
        final = last + 1 == total
        if not final and length % UPLOAD_FRAGMENT_MULTIPLE:
            return _api_error(400, "invalidRequest", "Fragments other than the last must be multiples of 320 KiB.")
        if status := self._fault("upload"):
            return _api_error(status, _FAULT_CODES.get(status, "serviceError"), "Injected fault (stub).",
                              self._retry_after(status))
        with self._lock:
            session.total = total
            session.received.extend(raw)
            if not final:
                expires = (datetime.now(UTC) + timedelta(days=1)).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
                return _json(202, {"expirationDateTime": expires, "nextExpectedRanges": [f"{last + 1}-"]})
            session.done = True
            data = bytes(session.received)
            self._files[session.item_id] = (data, session.name)
            now = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
            item = {"id": session.item_id, "name": session.name, "size": len(data),
                    "webUrl": f"{self.url}/files/{session.item_id}/{quote(session.name)}",
                    "createdDateTime": now, "lastModifiedDateTime": now,
                    "file": {"mimeType": mimetypes.guess_type(session.name)[0] or "application/octet-stream",
                             "hashes": {"sha256Hash": hashlib.sha256(data).hexdigest().upper()}}}
            self.uploads.append({"name": session.name, "data": data, "item": item, "session": session_id})
        return _json(201, item)

    def _download(self, method: str, path: str) -> Reply:
        if method not in ("GET", "HEAD"):
            return _api_error(405, "invalidRequest", f"{method} is not supported here.")
        parts = path.split("/")
        with self._lock:
            found = self._files.get(parts[2]) if len(parts) > 2 else None
        if found is None:
            return _api_error(404, "itemNotFound", "The item does not exist.")
        if status := self._fault("download"):
            return _api_error(status, _FAULT_CODES.get(status, "serviceError"), "Injected fault (stub).",
                              self._retry_after(status))
        data, name = found
        return Reply(200, data, mimetypes.guess_type(name)[0] or "application/octet-stream",
                     {"Content-Disposition": f"attachment; filename*=UTF-8''{quote(name)}"})

    # --------------------------------------------------------------------------------------------- handler

    def _handler(self) -> type[BaseHTTPRequestHandler]:  # noqa: C901
        stub = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            timeout = 10  # idle keep-alive connections end on their own
            tunnel_host: str | None = None  # set on the handler class that serves a CONNECT tunnel

            def setup(self) -> None:
                super().setup()
                with stub._lock:
                    stub._sockets.add(self.connection)

            def finish(self) -> None:
                with stub._lock:
                    stub._sockets.discard(self.connection)
                try:
                    super().finish()
                except OSError:
                    pass

            def _body(self) -> bytes:
                if "chunked" in self.headers.get("transfer-encoding", "").lower():
                    chunks = []
                    while (size := int(self.rfile.readline().split(b";")[0].strip() or b"0", 16)) > 0:
                        chunks.append(self.rfile.read(size))
                        self.rfile.readline()
                    while self.rfile.readline() not in (b"\r\n", b"\n", b""):
                        pass
                    return b"".join(chunks)
                return self.rfile.read(int(self.headers.get("content-length") or 0))

            def _serve(self) -> None:
                raw = self._body()
                headers = {k.lower(): v for k, v in self.headers.items()}
                reply = stub._respond(self.tunnel_host, self.command, self.path, headers, raw)
                try:
                    self.send_response(reply.status)
                    if reply.status != 204:
                        self.send_header("Content-Type", reply.content_type)
                        self.send_header("Content-Length", str(len(reply.body)))
                    self.send_header("x-ms-request-id", str(uuid.uuid4()))
                    for name, value in reply.headers.items():
                        self.send_header(name, value)
                    self.end_headers()
                    if self.command != "HEAD" and reply.status != 204:
                        self.wfile.write(reply.body)
                except (BrokenPipeError, ConnectionResetError):
                    self.close_connection = True

            do_GET = do_POST = do_PUT = do_DELETE = do_PATCH = do_HEAD = _serve  # noqa: N815 (http.server's naming)

            def do_CONNECT(self) -> None:  # noqa: N802 (http.server's naming)
                host, _, port = self.path.rpartition(":")
                headers = {k.lower(): v for k, v in self.headers.items()}
                with stub._lock:
                    stub.requests.append(Received(None, "CONNECT", self.path, headers, b""))
                if self.tunnel_host is not None or port != "443" or host.lower() not in TUNNEL_HOSTS:
                    self.send_response(502)
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return
                self.send_response(200, "Connection established")
                self.end_headers()
                self.close_connection = True
                try:
                    tls = stub._keys.tls.wrap_socket(self.connection, server_side=True)
                except (ssl.SSLError, OSError):
                    return
                tunnel = type("TunnelHandler", (Handler,), {"tunnel_host": host.lower()})
                try:
                    tunnel(tls, self.client_address, self.server)
                except OSError:
                    pass
                finally:
                    tls.close()

            def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 (base-class signature)
                pass

        return Handler
