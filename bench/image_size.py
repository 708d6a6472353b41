"""An estimate of the Lambda container image size (``iac/Dockerfile``): the installed size of every distribution
that ``lcabot[aws]`` pulls in, measured in this venv, plus the project's own code, plus the base image. Prints
figures, asserts nothing. (No Docker engine runs here, so the image itself cannot be built and measured.)

Run: ``.venv/bin/python bench/image_size.py [--base-mb 350]``

``--base-mb`` is the base layer: ``public.ecr.aws/lambda/provided:al2023`` plus dnf's ``python3.11`` (assumed
350 MB uncompressed; check with ``docker image inspect`` where Docker runs). Lambda's limit for an image is 10 GB
uncompressed.
"""

from __future__ import annotations

import argparse
import re
from importlib import metadata
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
_NAME = re.compile(r"^[A-Za-z0-9._-]+")


def requirements(dist: str, extras: tuple[str, ...] = ()) -> set[str]:
    """``dist`` and everything it requires (with the given extras), recursively, as normalised names."""
    seen: set[str] = set()
    todo = [(dist, extras)]
    while todo:
        name, wanted = todo.pop()
        key = name.lower().replace("_", "-")
        if key in seen:
            continue
        try:
            requires = metadata.distribution(name).requires or []
        except metadata.PackageNotFoundError:
            continue
        seen.add(key)
        for req in requires:
            requirement, _, marker = req.partition(";")
            if "extra ==" in marker and not any(f'extra == "{e}"' in marker for e in wanted):
                continue
            if "sys_platform" in marker and "linux" not in marker:
                continue
            base = _NAME.match(requirement.strip())
            sub = re.search(r"\[(.*?)\]", requirement)
            if base:
                todo.append((base.group(0), tuple(sub.group(1).split(",")) if sub else ()))
    return seen


def installed_bytes(name: str) -> int:
    dist = metadata.distribution(name)
    total = 0
    for f in dist.files or []:
        path = Path(dist.locate_file(f))
        if path.is_file():
            total += path.stat().st_size
    return total


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--base-mb", type=float, default=350.0)
    args = parser.parse_args()
    names = requirements("lcabot", ("aws",)) - {"lcabot"}
    sizes = sorted(((installed_bytes(n), n) for n in names), reverse=True)
    code = sum(p.stat().st_size for d in ("lcabot", "lambdas", "bot_handlers")
               for p in (REPO / d).rglob("*") if p.is_file() and "__pycache__" not in p.parts)
    deps = sum(s for s, _ in sizes)
    print(f"{len(sizes)} distributions, {deps / 1e6:.0f} MB installed; largest:")
    for size, name in sizes[:10]:
        print(f"  {name:32} {size / 1e6:8.1f} MB")
    print(f"project code                     {code / 1e6:8.2f} MB")
    print(f"base image (assumed)             {args.base_mb:8.0f} MB")
    print(f"estimated image                  {(deps + code) / 1e6 + args.base_mb:8.0f} MB uncompressed "
          "(the CPU torch wheel from download.pytorch.org is the one installed here)")


if __name__ == "__main__":
    main()
