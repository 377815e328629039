"""What `make run` does: migrate, an admin, demo data once, the dev server; Ctrl-C stops it all."""

import os
import secrets
import subprocess
import sys

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.core.management.base import BaseCommand

from config import store
from config.redis import EmbeddedRedis, redacted


class Command(BaseCommand):
    help = "Bootstrap and serve the dashboard on HOST:PORT (default 127.0.0.1:8000)."

    def handle(self, *args, **options):
        host, port = os.environ.get("HOST", "127.0.0.1"), os.environ.get("PORT", "8000")
        call_command("migrate", interactive=False, verbosity=0)
        password = self.ensure_admin()
        if not store.seed_marker():
            self.stdout.write("Redis holds no demo data: seeding it (manage.py seed --scale demo).")
            call_command("seed", scale="demo")
        self.stdout.write(self.style.SUCCESS(f"\nDashboard: http://{host}:{port}/"))
        self.stdout.write(f"Sign in as: admin / {password}")
        self.stdout.write(f"Redis: {redacted(settings.REDIS_URL)}\n")
        server = subprocess.Popen([sys.executable, "manage.py", "runserver", f"{host}:{port}"], cwd=settings.BASE_DIR)
        try:
            server.wait()
        except KeyboardInterrupt:
            server.terminate()
            server.wait()
        finally:
            if settings.REDIS_EMBEDDED_DIR:
                EmbeddedRedis(settings.REDIS_EMBEDDED_DIR).stop()
                self.stdout.write("Stopped the embedded Redis (its data stays in var/redis).")

    def ensure_admin(self) -> str:
        """Create the superuser `admin` once; say where its password is."""
        users = get_user_model()
        saved = settings.VAR_DIR / "admin_password"
        if users.objects.filter(username="admin").exists():
            if os.environ.get("DJANGO_SUPERUSER_PASSWORD"):
                return "(DJANGO_SUPERUSER_PASSWORD)"
            return saved.read_text().strip() if saved.exists() else "(as printed when it was created)"
        password = os.environ.get("DJANGO_SUPERUSER_PASSWORD")
        if not password:
            password = secrets.token_urlsafe(12)
            saved.write_text(password + "\n")
            saved.chmod(0o600)
            self.stdout.write(self.style.WARNING(f"Created superuser admin with a generated password: {password}"))
            self.stdout.write(f"(kept in {saved}, readable by you only)")
        users.objects.create_superuser("admin", "admin@example.com", password)
        return password
