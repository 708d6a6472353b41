"""Build the Teams app package (``manifest.json`` + the two icons, zipped) for upload in Teams → Apps → Manage your
apps → Upload an app, from ``iac/teams/manifest.json``.

Run: ``.venv/bin/python scripts/teams_app_package.py --app-id <Microsoft App ID> --organisation "ACME" \
--website https://acme.example -o lcabot-teams.zip``
"""

from __future__ import annotations

import argparse
import io
import json
import re
import uuid
import zipfile
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

MANIFEST = Path(__file__).resolve().parents[1] / "iac" / "teams" / "manifest.json"


DEVELOPER_NAME_LIMIT = 32  # Teams app manifest schema v1.17: developer.name maxLength


def color_icon() -> bytes:
    """192×192 px: "LCA" in white on the accent colour (Teams' colour icon)."""
    fig = plt.figure(figsize=(1, 1), dpi=192)
    fig.patch.set_facecolor("#2F5D3A")
    fig.text(0.5, 0.5, "LCA", color="white", ha="center", va="center", fontsize=20, fontweight="bold")
    return _png(fig, 192, transparent=False)


def outline_icon() -> bytes:
    """32×32 px: a white ring on transparent (Teams' outline icon: white and transparent only)."""
    fig = plt.figure(figsize=(1, 1), dpi=32)
    ax = fig.add_axes((0, 0, 1, 1))
    ax.set_axis_off()
    ax.add_patch(plt.Circle((0.5, 0.5), 0.38, fill=False, color="white", linewidth=3))
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1)
    return _png(fig, 32, transparent=True)


def _png(fig, size_px: int, *, transparent: bool) -> bytes:
    out = io.BytesIO()
    fig.savefig(out, format="png", dpi=size_px, transparent=transparent)
    plt.close(fig)
    return out.getvalue()


def manifest(app_id: str, organisation: str, website: str) -> str:
    """``iac/teams/manifest.json`` with the app id, organisation and website filled in (as JSON values, so any
    characters are safe).

    Raises:
        SystemExit: the organisation is longer than Teams allows, or a placeholder is left.
    """
    if len(organisation) > DEVELOPER_NAME_LIMIT:
        raise SystemExit(f"--organisation has {len(organisation)} characters; Teams allows {DEVELOPER_NAME_LIMIT}")
    site = website.rstrip("/")
    data = json.loads(MANIFEST.read_text(encoding="utf-8"))
    data["id"] = app_id
    data["bots"][0]["botId"] = app_id
    data["developer"] = {"name": organisation, "websiteUrl": site, "privacyUrl": f"{site}/privacy",
                         "termsOfUseUrl": f"{site}/terms"}
    text = json.dumps(data, indent=2, ensure_ascii=False)
    if re.search(r"\{\{[A-Z_]+\}\}", text):
        raise SystemExit("a placeholder in iac/teams/manifest.json was not filled")
    return text


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--app-id", required=True, help="the Azure Bot's Microsoft App ID (a GUID)")
    parser.add_argument("--organisation", required=True)
    parser.add_argument("--website", required=True, help="https URL shown as developer website")
    parser.add_argument("-o", "--output", type=Path, default=Path("lcabot-teams.zip"))
    args = parser.parse_args()
    uuid.UUID(args.app_id)  # raises ValueError for anything that is not a GUID
    if not args.website.startswith("https://"):
        raise SystemExit("--website must be an https URL (Teams refuses others)")
    with zipfile.ZipFile(args.output, "w", zipfile.ZIP_DEFLATED) as package:
        package.writestr("manifest.json", manifest(args.app_id, args.organisation, args.website))
        package.writestr("color.png", color_icon())
        package.writestr("outline.png", outline_icon())
    print(f"wrote {args.output}")


if __name__ == "__main__":
    main()
