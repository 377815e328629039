"""Request plumbing: request-body limits, security headers, roles, the Redis command trace
panel, and the 503 page whenever Redis fails."""

from __future__ import annotations

import sys

import redis
from django.conf import settings
from django.contrib.auth import logout
from django.contrib.auth.models import AnonymousUser
from django.contrib.auth.views import redirect_to_login
from django.core.signals import got_request_exception
from django.dispatch import receiver
from django.http import HttpResponse, JsonResponse
from django.middleware.csrf import CsrfViewMiddleware
from django.shortcuts import render
from django.utils.cache import add_never_cache_headers
from django.utils.deprecation import MiddlewareMixin
from django_redis.exceptions import ConnectionInterrupted

from config import roles, saving, trace
from config.keybrowser import panel as redis_panel
from config.redis import redacted

PANEL_PLACEHOLDER = b"<!--redis-panel-->"
SAFE_METHODS = {"GET", "HEAD", "OPTIONS", "TRACE"}


def _refusal(status: int, message: str) -> HttpResponse:
    """A plain refusal before the body is read: no session, no template, no Redis."""
    return HttpResponse(message + "\n", status=status, content_type="text/plain; charset=utf-8")


class RequestBodyLimitMiddleware(MiddlewareMixin):
    """Refuses a body too large (413), of no stated length (411) or of a malformed length (400) from
    its headers alone: Django spools a multipart body to disk as soon as ``request.POST`` is read (the
    CSRF check does), and caps neither a file's size nor the body's. A chunked body states no length
    and Django would read it as empty, so it is refused rather than half understood.
    """

    def process_request(self, request):
        meta = request.META
        if meta.get("HTTP_TRANSFER_ENCODING"):
            return _refusal(411, "A request body must state its length (Content-Length); chunked bodies are refused.")
        length = meta.get("CONTENT_LENGTH") or "0"
        if not (length.isascii() and length.isdigit()):
            return _refusal(400, "The Content-Length header is not a number.")
        if int(length) > settings.REQUEST_BODY_LIMIT:
            limit = settings.REQUEST_BODY_LIMIT // (1024 * 1024)
            return _refusal(413, f"The request body is larger than the {limit} MB the dashboard accepts.")
        return None


class AnonymousWriteMiddleware(MiddlewareMixin):
    """A visitor who is not signed in may post the small sign-in form and nothing else: every other
    write answers (the sign-in redirect) before its body is read. It comes before
    ``CsrfViewMiddleware``, whose check reads ``request.POST`` and so spools an upload to disk, even
    one sent with a self-chosen ``csrftoken`` cookie.
    """

    def __init__(self, get_response):
        super().__init__(get_response)
        self.csrf = CsrfViewMiddleware(get_response)

    def process_view(self, request, view_func, view_args, view_kwargs):
        if request.method in SAFE_METHODS or _signed_in(request):
            return None
        if getattr(view_func, "login_required", True):
            # A form's post that met an expired session is kept for the page sign-in returns to
            # (``config.saving``): only a small one, judged from its headers before its body is read,
            # without files, and only once its CSRF token holds, so no other site fills a form.
            if saving.stashable(request) and self.csrf.process_view(request, view_func, view_args, view_kwargs) is None:
                saving.stash_post(request)
            return redirect_to_login(request.get_full_path())  # what LoginRequiredMiddleware would say
        if int(request.META.get("CONTENT_LENGTH") or 0) > settings.ANONYMOUS_BODY_LIMIT:
            return _refusal(413, "A sign-in form is never that large.")
        return None


class SecurityHeadersMiddleware(MiddlewareMixin):
    """The Content-Security-Policy (Django 5.2 has no setting for it) on every response, and
    ``Cache-Control: no-store`` on every page the app renders (WhiteNoise answers static files
    before this): a signed-in page must never be kept by a shared cache or the browser's history.
    """

    def process_response(self, request, response):
        response.headers.setdefault("Content-Security-Policy", settings.CONTENT_SECURITY_POLICY)
        add_never_cache_headers(response)
        return response


def section_of(match) -> str:
    """The first segment of the matched route: ``catalog``, ``keys``, ``admin``, or "" for the dashboard."""
    route = getattr(match, "route", "") or ""
    return route.lstrip("^").split("/", 1)[0] if "/" in route else ""


def forbidden(request, message: str = ""):
    return render(request, "403.html", {"reason": message}, status=403)


class PermissionMiddleware(MiddlewareMixin):
    """Roles (``config.roles``) enforced in one place, before any view runs, so a refused request
    writes nothing and no app view carries its own check: a user no longer staff is signed out; the
    key browser needs ``config.browse_keys``; a write (any method but the safe ones, as for CSRF)
    under an app's URL space, or a page that exists only to write (``roles.is_write_page``), needs
    that app's write permission. Django's admin checks its own model permissions.
    """

    def process_view(self, request, view_func, view_args, view_kwargs):
        if not getattr(view_func, "login_required", True):
            return None  # the public views (sign-in, /healthz) need no role
        user = request.user
        if not user.is_authenticated:
            return None
        if not user.is_staff or not user.is_active:
            logout(request)
            return redirect_to_login(request.get_full_path())
        section = section_of(request.resolver_match)
        if section == "keys" and not user.has_perm(roles.BROWSE_KEYS):
            return forbidden(
                request, "The key browser shows every record and the sign-in addresses: it is for administrators."
            )
        needed = roles.WRITE_PERMISSIONS.get(section)
        writes = request.method not in SAFE_METHODS or roles.is_write_page(request.resolver_match.url_name)
        if needed and writes and not user.has_perm(needed):
            name = roles.APP_NAMES.get(section, section)
            return forbidden(request, f"Your role can read the {name} but not change it. Nothing was written.")
        return None


class TraceMiddleware:
    """Records every Redis command of the request and shows them in the page. Outermost, so the
    session's load and save are traced too; the panel replaces base.html's placeholder once the
    response is complete, and comes as an out-of-band swap with an htmx partial.
    """

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        with trace.recording() as recorded:
            request.redis_trace = recorded
            response = self.get_response(request)
        if response.streaming or "text/html" not in response.get("Content-Type", ""):
            return response
        if getattr(response, "redis_panel", True) is False:  # the panel's own command list
            return response
        is_htmx = request.headers.get("HX-Request") == "true"
        if PANEL_PLACEHOLDER not in response.content and not is_htmx:
            return response
        # The panel names keys and links to the key browser: the same permission.
        panel = (
            redis_panel.panel_html(recorded, request.get_full_path(), is_htmx).encode()
            if _may_see_keys(request)
            else b""
        )
        if PANEL_PLACEHOLDER in response.content:
            response.content = response.content.replace(PANEL_PLACEHOLDER, panel, 1)
        else:
            response.content += panel
        if response.has_header("Content-Length"):
            response["Content-Length"] = str(len(response.content))
        return response


def _may_see_keys(request) -> bool:
    try:
        return request.user.is_authenticated and request.user.has_perm(roles.BROWSE_KEYS)
    except Exception:  # the session could not be read: Redis is failing, the 503 page follows
        return False


def _chain(exc: BaseException | None):
    """The exception and those it was raised from or during; chains can loop."""
    seen = set()
    while exc is not None and id(exc) not in seen:
        seen.add(id(exc))
        yield exc
        exc = exc.__cause__ or exc.__context__


def is_redis_down(exc: BaseException | None) -> bool:
    """Whether Redis failed the request (unreachable, timed out, any error reply): a 503, never a 500."""
    failed = (redis.RedisError, ConnectionInterrupted)
    return any(isinstance(e, failed) for e in _chain(exc))


# The first word of an error reply, and what the 503 page says of it.
_REPLIES = {
    "BUSY": "Redis is busy running a long script and answers nothing else until it ends",
    "LOADING": "Redis is loading its data into memory after a restart",
    "READONLY": "Redis is a read-only replica: it refuses writes",
    "OOM": "Redis is out of memory (its maxmemory limit) and refuses writes",
    "MASTERDOWN": "Redis is a replica that lost its link to its primary",
    "NOAUTH": "Redis refused the dashboard's credentials",
    "WRONGPASS": "Redis refused the dashboard's credentials",
}


# redis-py's classes for the replies it recognises (their message drops the first word).
_CLASSES = (
    (redis.exceptions.ReadOnlyError, "READONLY"),
    (redis.exceptions.OutOfMemoryError, "OOM"),
    (redis.exceptions.MasterDownError, "MASTERDOWN"),
    (redis.exceptions.BusyLoadingError, "LOADING"),
    (redis.exceptions.AuthenticationError, "NOAUTH"),
)


def failure_of(exc: BaseException) -> dict:
    """What went wrong, in words safe for anyone to read (no address, no password)."""
    chain = list(_chain(exc))
    if any(isinstance(e, redis.TimeoutError) for e in chain):
        return {"title": "Redis is unreachable", "kind": "timeout", "timed_out": True}
    for e in chain:
        word = next((word for cls, word in _CLASSES if isinstance(e, cls)), None)
        if word is None and isinstance(e, redis.ResponseError):
            word = str(e).split(" ", 1)[0].upper()
        if word in _REPLIES:
            return {"title": "Redis is unavailable", "kind": word, "detail": _REPLIES[word]}
    if any(isinstance(e, redis.ConnectionError) for e in chain):
        return {"title": "Redis is unreachable", "kind": "connection"}
    return {"title": "Redis is unavailable", "kind": "error", "detail": "Redis answered with an error"}


def _signed_in(request) -> bool:
    """Whether the session says so; anonymous when the session (in Redis) cannot be read."""
    try:
        return bool(request.user.is_authenticated)
    except Exception:
        request.user = AnonymousUser()
        return False


def unavailable(request, exc: BaseException):
    signed_in = _signed_in(request)
    context = {
        **failure_of(exc),
        "error": type(exc).__name__,
        "timeout": settings.REDIS_SOCKET_TIMEOUT,
        "after_write": request.method not in SAFE_METHODS,
        # The address (never its password) only for a signed-in member of staff.
        "redis_url": redacted(settings.REDIS_URL) if signed_in else "",
        "check_path": request.path if request.method not in SAFE_METHODS else "",
    }
    response = render(request, "503.html", context, status=503)
    response["Retry-After"] = "5"
    return response


class RedisUnavailableMiddleware(MiddlewareMixin):
    """Every page answers 503 with a plain explanation while Redis is unreachable. Three catches:
    loading the session (forced in process_view), the view itself (process_exception), and anything
    later (the got_request_exception signal marks the request; its response is replaced on the way
    out). Nothing is cached about the failure, so the first request after Redis is back is served.
    """

    def process_response(self, request, response):
        failure = getattr(request, "_redis_failure", None)
        return unavailable(request, failure) if failure is not None else response

    def process_view(self, request, view_func, view_args, view_kwargs):
        try:
            request.user.is_authenticated  # noqa: B018  (loads the session from Redis)
        except Exception as exc:
            if not is_redis_down(exc):
                raise
            if getattr(view_func, "reports_redis_down", False):  # /healthz answers in JSON
                return JsonResponse({"redis": "down"}, status=503)
            return unavailable(request, exc)
        return None

    def process_exception(self, request, exception):
        return unavailable(request, exception) if is_redis_down(exception) else None


@receiver(got_request_exception)
def _mark_redis_failure(sender, request=None, **kwargs):
    exc = sys.exc_info()[1]
    if request is not None and is_redis_down(exc):
        request._redis_failure = exc


class ContentionMiddleware(MiddlewareMixin):
    """A write that lost its WATCH race too many times in a row (``Busy``, escaping a view) answers
    409: nothing was written, try again; never a 500."""

    def process_exception(self, request, exception):
        from config.store import Busy

        if isinstance(exception, Busy):
            return render(request, "409.html", status=409)
        return None
