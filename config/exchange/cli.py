"""What ``export_data`` and ``import_data`` share: ``DIR`` and ``--only`` read the same way."""

from __future__ import annotations

from pathlib import Path

from django.core.management.base import CommandError

from config.exchange import runner


def add_arguments(parser, verb: str) -> None:
    parser.add_argument("directory", nargs="?")
    parser.add_argument("--only", nargs="+", metavar="APP", help=f"{verb} only these apps")


def folder_and_apps(directory: str | None, only: list[str] | None, what: str) -> tuple[Path, list[str] | None]:
    """The folder and the apps chosen (None: every app); ``what`` names the format in a refusal."""
    if directory is None and only and len(only) > 1:
        directory = only.pop()  # "--only catalog cms DIR": argparse gave DIR to --only
    if directory is None:
        raise CommandError("give the directory: DIR")
    known = runner.exchanges()
    unknown = sorted(set(only or ()) - set(known))
    if unknown:
        raise CommandError(f"no {what} format for {', '.join(unknown)}; known: {', '.join(known)}")
    return Path(directory), only
