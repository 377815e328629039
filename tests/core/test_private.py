"""What `var/` holds (the database, the secret key, the admin's password, the embedded Redis's
append-only file, staged uploads) is readable by its owner only, and `make run` prints the
admin's password once, when it creates the user."""

import os
import secrets
import shutil
import stat
import subprocess
import sys
import tempfile
from io import StringIO
from pathlib import Path
from unittest import mock

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import override_settings, tag

from config.management.commands.serve import Command
from tests.base import RedisTestCase, temporary_folder


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


class AdminPasswordTest(RedisTestCase):
    sign_in = False

    def test_the_generated_password_is_printed_once_when_the_user_is_created(self):
        folder = temporary_folder(self)
        environ = {k: v for k, v in os.environ.items() if k != "DJANGO_SUPERUSER_PASSWORD"}
        with override_settings(VAR_DIR=folder), mock.patch.dict(os.environ, environ, clear=True):
            first = Command(stdout=StringIO())
            password = first.ensure_admin()
            self.assertIn(password, first.stdout.getvalue())
            self.assertTrue(get_user_model().objects.get(username="admin").check_password(password))
            self.assertEqual((folder / "admin_password").read_text().strip(), password)
            self.assertEqual(mode(folder / "admin_password"), 0o600)

            again = Command(stdout=StringIO())
            self.assertIsNone(again.ensure_admin())
            self.assertNotIn(password, again.stdout.getvalue() + again.where_the_password_is())
            self.assertIn(str(folder / "admin_password"), again.where_the_password_is())

    def test_a_given_password_is_never_printed(self):
        given = secrets.token_urlsafe(16)
        with mock.patch.dict(os.environ, {"DJANGO_SUPERUSER_PASSWORD": given}):
            command = Command(stdout=StringIO())
            self.assertIsNone(command.ensure_admin())
            self.assertNotIn(given, command.stdout.getvalue() + command.where_the_password_is())
        self.assertTrue(get_user_model().objects.get(username="admin").check_password(given))


class StagedUploadTest(RedisTestCase):
    sign_in = False

    def test_a_staged_upload_is_its_owners_alone(self):
        folder = temporary_folder(self)
        self.client.force_login(self.make_staff("root", is_superuser=True))
        with override_settings(VAR_DIR=folder):
            upload = SimpleUploadedFile("locations.jsonl", b'{"id": 1, "name": "Austin"}\n')
            response = self.client.post("/exchange/orgchart/preview/", {"file": upload})
        self.assertEqual(response.status_code, 303)  # on to the job that checks it
        (staged,) = (folder / "exchange").iterdir()
        self.assertEqual(mode(staged), 0o700)
        self.assertEqual(mode(staged / "locations.jsonl"), 0o600)


@tag("slow")
class VarFolderTest(RedisTestCase):
    """A real process (`manage.py check`, which starts and stops the embedded Redis) over a fresh
    `var/` and over one an older version left readable by everyone."""

    sign_in = False

    def run_check(self, var: Path) -> None:
        env = {k: v for k, v in os.environ.items() if k not in {"REDIS_URL", "REDIS_TEST_URL", "DATABASE_URL"}}
        env.update(VAR_DIR=str(var), SECRET_KEY="")
        done = subprocess.run(
            [sys.executable, "manage.py", "check"], cwd=settings.BASE_DIR, env=env, capture_output=True, timeout=120
        )
        self.assertEqual(done.returncode, 0, done.stderr)

    def assert_private(self, var: Path) -> None:
        self.assertEqual(mode(var), 0o700)
        for name in ("secret_key", "db.sqlite3"):
            self.assertEqual(mode(var / name), 0o600, name)
        redis_files = [p for p in (var / "redis").rglob("*") if p.is_file()]
        self.assertTrue(any("appendonly" in p.name or p.suffix == ".aof" for p in redis_files), redis_files)
        for path in [var / "redis", *(p for p in (var / "redis").rglob("*") if p.is_dir())]:
            self.assertEqual(mode(path), 0o700, path)
        for path in redis_files:
            self.assertEqual(mode(path) & 0o077, 0, path)

    def test_var_and_what_it_holds_are_readable_by_their_owner_only(self):
        scratch = Path(tempfile.mkdtemp(prefix="rdash-var-"))
        self.addCleanup(shutil.rmtree, scratch, True)
        fresh = scratch / "fresh"
        self.run_check(fresh)
        self.assert_private(fresh)

        # What an older version left: everything readable by every local user.
        for path in [fresh, *fresh.rglob("*")]:
            if not path.is_socket():
                path.chmod(0o755 if path.is_dir() else 0o644)
        self.run_check(fresh)
        self.assert_private(fresh)
