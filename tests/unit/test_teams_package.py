"""The Teams app package script: manifest placeholders filled, icon sizes Teams requires (192 and 32 px)."""

from __future__ import annotations

import json
import struct
import subprocess
import sys
import zipfile

import pymupdf

from tests.conftest import ROOT

APP_ID = "6f1c2a3b-4d5e-4f60-8a7b-9c0d1e2f3a4b"


def test_package_has_the_manifest_with_the_bot_id_and_both_icons(tmp_path):
    out = tmp_path / "lcabot-teams.zip"
    subprocess.run([sys.executable, str(ROOT / "scripts" / "teams_app_package.py"), "--app-id", APP_ID,
                    "--organisation", "ACME LCA", "--website", "https://acme.example/", "-o", str(out)], check=True,
                   capture_output=True)
    package = zipfile.ZipFile(out)
    assert sorted(package.namelist()) == ["color.png", "manifest.json", "outline.png"]
    manifest = json.loads(package.read("manifest.json"))
    assert manifest["id"] == APP_ID and manifest["bots"][0]["botId"] == APP_ID
    assert manifest["bots"][0]["supportsFiles"] is True  # file attachments and FileConsentCard in personal chat
    assert manifest["developer"]["privacyUrl"] == "https://acme.example/privacy"
    sizes = {name: struct.unpack(">II", package.read(name)[16:24]) for name in ("color.png", "outline.png")}
    assert sizes == {"color.png": (192, 192), "outline.png": (32, 32)}
    outline = pymupdf.Pixmap(package.read("outline.png"))
    alpha = outline.samples[outline.n - 1::outline.n]
    assert outline.alpha and sum(a > 200 for a in alpha) > 40  # a visible white ring, not a blank square


def test_organisation_is_stored_as_json_and_its_length_is_checked(tmp_path):
    out = tmp_path / "p.zip"
    subprocess.run([sys.executable, str(ROOT / "scripts" / "teams_app_package.py"), "--app-id", APP_ID,
                    "--organisation", 'Smith "&" Co', "--website", "https://a.example", "-o", str(out)], check=True,
                   capture_output=True)
    assert json.loads(zipfile.ZipFile(out).read("manifest.json"))["developer"]["name"] == 'Smith "&" Co'
    long = subprocess.run([sys.executable, str(ROOT / "scripts" / "teams_app_package.py"), "--app-id", APP_ID,
                           "--organisation", "x" * 33, "--website", "https://a.example", "-o", str(out)],
                          capture_output=True, text=True)
    assert long.returncode != 0 and "Teams allows 32" in long.stderr


def test_a_bad_app_id_is_refused(tmp_path):
    result = subprocess.run([sys.executable, str(ROOT / "scripts" / "teams_app_package.py"), "--app-id", "lcabot",
                             "--organisation", "A", "--website", "https://a.example", "-o", str(tmp_path / "x.zip")],
                            capture_output=True, text=True)
    assert result.returncode != 0 and "badly formed hexadecimal UUID string" in result.stderr
    assert not (tmp_path / "x.zip").exists()
