"""The dashboard's own screens: home, health check, sign-in, error pages (the key browser is ``config.keybrowser``)."""

from django.conf import settings
from django.contrib.auth.decorators import login_not_required
from django.contrib.auth.views import LoginView
from django.http import HttpResponseServerError, JsonResponse
from django.shortcuts import render, resolve_url
from django.views.decorators.csrf import requires_csrf_token
from django.views.decorators.http import require_GET

from config import roles, store
from config.forms import SignInForm
from config.keyspace import keyspace
from config.middleware import _signed_in, is_redis_down


def dashboard(request):
    """The latest activity, read at each request, and the registered key patterns, which change only
    with the code: their section is a template fragment kept per registry (``patterns_version``)."""
    see_failures = request.user.has_perm(roles.SEE_FAILED_SIGNINS)
    return render(
        request,
        "dashboard/home.html",
        {
            "activity": store.activity(failed=10 if see_failures else 0),
            "see_failures": see_failures,
            "patterns": keyspace.by_app,  # called by the template only when the fragment is not kept
            "patterns_version": hash(tuple(keyspace.patterns)),
        },
    )


@login_not_required
@require_GET
def healthz(request):
    """Status alone for anyone (a probe); Redis's version, memory and key count for staff. A Redis
    that may evict keys is unhealthy (503, naming its policy): it loses data without an error."""
    try:
        if _signed_in(request) and request.user.is_staff:
            status = {"redis": "up", **store.health()}
            policy = status["maxmemory_policy"]
        else:
            policy = store.maxmemory_policy(max_age=0)  # one round trip, which answers for reachability too
            status = {"redis": "up"}
    except Exception as exc:
        if not is_redis_down(exc):
            raise
        return JsonResponse({"redis": "down"}, status=503)
    if policy and policy != store.SAFE_POLICY:
        status.update(maxmemory_policy=policy, problem=eviction_problem(policy))
        return JsonResponse(status, status=503)
    return JsonResponse(status)


def eviction_problem(policy: str) -> str:
    return f"Redis's maxmemory-policy is {policy}: it may evict keys and lose data. Set it to noeviction."


healthz.reports_redis_down = True


class SignInView(LoginView):
    """Django's LoginView with the rate-limited form. The GET pings Redis, so that while Redis is
    down the page says so instead of offering a form that cannot work."""

    form_class = SignInForm
    redirect_authenticated_user = True

    def get(self, request, *args, **kwargs):
        store.ping()
        return super().get(request, *args, **kwargs)

    def get_success_url(self):
        """``next`` pointing back at the sign-in page (or nowhere) leads to the dashboard, not a loop."""
        url = super().get_success_url()
        if url.split("?", 1)[0] == self.request.path:
            return resolve_url(settings.LOGIN_REDIRECT_URL)
        return url


# --- error pages: the app's own, inside its layout -------------------------------


def _error(request, status: int, template: str, context: dict | None = None):
    _signed_in(request)  # an unreadable session renders as anonymous, never a second error
    return render(request, template, context or {}, status=status)


@requires_csrf_token
def bad_request(request, exception=None):
    return _error(request, 400, "400.html")


@requires_csrf_token
def permission_denied(request, exception=None):
    return _error(request, 403, "403.html")


@requires_csrf_token
def page_not_found(request, exception=None):
    return _error(request, 404, "404.html")


@requires_csrf_token
def server_error(request):
    try:
        return _error(request, 500, "500.html")
    except Exception:  # the layout itself failed: a page with nothing to fail
        return HttpResponseServerError("<!doctype html><title>Server error</title><h1>Server error</h1>")


def csrf_failure(request, reason=""):
    message = "The form was out of date or came from another site, so it was refused. Nothing was written."
    return _error(request, 403, "403.html", {"reason": message})
