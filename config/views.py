"""The dashboard's own screens: home, health check, sign-in (the key browser is ``config.keybrowser``)."""

from django.contrib.auth.decorators import login_not_required
from django.contrib.auth.views import LoginView
from django.http import JsonResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET

from config import store
from config.forms import SignInForm
from config.keyspace import keyspace
from config.middleware import is_redis_down


def dashboard(request):
    return render(
        request,
        "dashboard/home.html",
        {"activity": store.activity(), "patterns": keyspace.by_app()},
    )


@login_not_required
@require_GET
def healthz(request):
    try:
        status = {"redis": "up", **store.health()}
    except Exception as exc:
        if not is_redis_down(exc):
            raise
        return JsonResponse({"redis": "down", "error": type(exc).__name__}, status=503)
    return JsonResponse(status)


class SignInView(LoginView):
    """Django's LoginView with the rate-limited form. The GET pings Redis, so
    that while Redis is down the page says so instead of offering a form that
    cannot work."""

    form_class = SignInForm
    redirect_authenticated_user = True

    def get(self, request, *args, **kwargs):
        store.ping()
        return super().get(request, *args, **kwargs)
