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


def icon(size_px: int, background: str, foreground: str) -> bytes:
    """A square PNG of ``size_px`` pixels with "LCA" on it (Teams wants 192×192 colour and 32×32 outline)."""
    fig = plt.figure(figsize=(1, 1), dpi=size_px)
    fig.patch.set_alpha(0.0 if background == "none" else 1.0)
    if background != "none":
        fig.patch.set_facecolor(background)
    fig.text(0.5, 0.5, "LCA", color=foreground, ha="center", va="center", fontsize=max(4, size_px // 9),
             fontweight="bold")
    out = io.BytesIO()
    fig.savefig(out, format="png", dpi=size_px, transparent=background == "none")
    plt.close(fig)
    return out.getvalue()


def manifest(app_id: str, organisation: str, website: str) -> str:
    text = MANIFEST.read_text(encoding="utf-8")
    for name, value in (("APP_ID", app_id), ("ORGANISATION", organisation), ("WEBSITE_URL", website.rstrip("/"))):
        text = text.replace("{{" + name + "}}", value)
    if re.search(r"\{\{[A-Z_]+\}\}", text):
        raise SystemExit("a placeholder in iac/teams/manifest.json was not filled")
    json.loads(text)
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
        package.writestr("color.png", icon(192, "#2F5D3A", "white"))
        package.writestr("outline.png", icon(32, "none", "white"))
    print(f"wrote {args.output}")


if __name__ == "__main__":
    main()
