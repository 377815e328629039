"""Request plumbing: the Redis command trace panel, and the 503 page when Redis is down."""

from __future__ import annotations

import sys

import redis
from django.conf import settings
from django.core.signals import got_request_exception
from django.dispatch import receiver
from django.template.loader import render_to_string
from django_redis.exceptions import ConnectionInterrupted

from config import trace
from config.redis import redacted

PANEL_PLACEHOLDER = b"<!--redis-panel-->"


class TraceMiddleware:
    """Records every Redis command of the request and shows them in the page.

    It sits outermost, so the session load and save are in the trace too, and
    it renders the panel after the response is complete, in place of the
    placeholder in base.html. An htmx partial gets the panel as an
    out-of-band swap, so the panel always describes what was just loaded.
    """

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        with trace.recording() as recorded:
            request.redis_trace = recorded
            response = self.get_response(request)
        if response.streaming or "text/html" not in response.get("Content-Type", ""):
            return response
        is_htmx = request.headers.get("HX-Request") == "true"
        if PANEL_PLACEHOLDER not in response.content and not is_htmx:
            return response
        context = {"trace": recorded, "oob": is_htmx, "path": request.get_full_path()}
        panel = render_to_string("includes/redis_panel.html", context).encode()
        if PANEL_PLACEHOLDER in response.content:
            response.content = response.content.replace(PANEL_PLACEHOLDER, panel, 1)
        else:
            response.content += panel
        if response.has_header("Content-Length"):
            response["Content-Length"] = str(len(response.content))
        return response


def _chain(exc: BaseException | None):
    """The exception and those it was raised from or during; chains can loop."""
    seen = set()
    while exc is not None and id(exc) not in seen:
        seen.add(id(exc))
        yield exc
        exc = exc.__cause__ or exc.__context__


def is_redis_down(exc: BaseException | None) -> bool:
    down = (redis.ConnectionError, redis.TimeoutError, ConnectionInterrupted)
    return any(isinstance(e, down) for e in _chain(exc))


def unavailable(request, exc: BaseException):
    from django.shortcuts import render

    context = {
        "redis_url": redacted(settings.REDIS_URL),
        "error": type(exc).__name__,
        "timed_out": any(isinstance(e, redis.TimeoutError) for e in _chain(exc)),
        "timeout": settings.REDIS_SOCKET_TIMEOUT,
    }
    response = render(request, "503.html", context, status=503)
    response["Retry-After"] = "5"
    return response


class RedisUnavailableMiddleware:
    """Every page answers 503 with a plain explanation while Redis is unreachable.

    Three ways a request can meet a dead Redis, three catches: loading the
    session (forced here in process_view, before the login check needs it),
    the view itself (process_exception), and anything later in the response
    cycle (the got_request_exception signal marks the request, and the
    response is replaced on the way out). Nothing is cached about the failure,
    so the next request after Redis is back is served normally.
    """

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        response = self.get_response(request)
        failure = getattr(request, "_redis_failure", None)
        return unavailable(request, failure) if failure is not None else response

    def process_view(self, request, view_func, view_args, view_kwargs):
        try:
            request.user.is_authenticated  # noqa: B018  (loads the session from Redis)
        except Exception as exc:
            if is_redis_down(exc):
                return unavailable(request, exc)
            raise
        return None

    def process_exception(self, request, exception):
        return unavailable(request, exception) if is_redis_down(exception) else None


@receiver(got_request_exception)
def _mark_redis_failure(sender, request=None, **kwargs):
    exc = sys.exc_info()[1]
    if request is not None and is_redis_down(exc):
        request._redis_failure = exc


class ContentionMiddleware:
    """A write that lost its WATCH race too many times in a row answers 409.

    Each app turns its own refusals into form errors; this catches what
    escapes a view (``config.store.Busy``), so the user
    reads that nothing was written and can try again, never a 500.
    """

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        return self.get_response(request)

    def process_exception(self, request, exception):
        from django.shortcuts import render

        from config.store import Busy

        if isinstance(exception, Busy):
            return render(request, "409.html", status=409)
        return None
