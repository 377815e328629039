"""``{% url %}`` with each URL worked out once per process: a template builtin (settings.TEMPLATES).

Every page names a few URLs in its templates (the breadcrumbs, the add button,
each row's link), and ``reverse()`` walks the URL patterns for each one, a few
tens of microseconds apiece. A URL depends only on its name, its arguments, the
current app, the URLconf and the script prefix, so this tag keeps each result
for the process; the tag parses and behaves exactly as Django's (``as var``
included), it only skips a walk it has done before.

Only arguments that are strings, integers or None are kept (anything else is
reversed each time), the store is bounded (cleared when it reaches ``KEPT``),
and it is emptied whenever a test changes the URLconf.
"""

from __future__ import annotations

from django import template
from django.conf import settings
from django.core.signals import setting_changed
from django.dispatch import receiver
from django.template import defaulttags
from django.urls import NoReverseMatch, get_script_prefix, get_urlconf, reverse
from django.utils.html import conditional_escape

register = template.Library()

KEPT = 20_000  # URLs kept at most (a few MB); a page of 50 rows adds 50 at most
_reversed: dict[tuple, str] = {}
_PLAIN = (str, int, type(None))


def cached_reverse(view_name, args, kwargs, current_app) -> str:
    """``reverse(view_name, args=args, kwargs=kwargs, current_app=current_app)``, kept per process."""
    plain = isinstance(view_name, str) and all(type(a) in _PLAIN for a in (*args, *kwargs.values()))
    if not plain:  # a model instance or a lazy string: its text could change
        return reverse(view_name, args=args, kwargs=kwargs, current_app=current_app)
    key = (
        view_name,
        tuple(args),
        tuple(sorted(kwargs.items())),
        current_app,
        get_urlconf() or settings.ROOT_URLCONF,
        get_script_prefix(),
    )
    url = _reversed.get(key)
    if url is None:
        url = reverse(view_name, args=args, kwargs=kwargs, current_app=current_app)
        if len(_reversed) >= KEPT:
            _reversed.clear()
        _reversed[key] = url
    return url


@receiver(setting_changed)
def _forget(setting, **kwargs):
    if setting == "ROOT_URLCONF":
        _reversed.clear()


class CachedURLNode(defaulttags.URLNode):
    def render(self, context):
        args = [arg.resolve(context) for arg in self.args]
        kwargs = {k: v.resolve(context) for k, v in self.kwargs.items()}
        view_name = self.view_name.resolve(context)
        try:
            current_app = context.request.current_app
        except AttributeError:
            try:
                current_app = context.request.resolver_match.namespace
            except AttributeError:
                current_app = None
        # As Django's: NoReverseMatch unless the URL goes into a variable (``as var``).
        url = ""
        try:
            url = cached_reverse(view_name, args, kwargs, current_app)
        except NoReverseMatch:
            if self.asvar is None:
                raise
        if self.asvar:
            context[self.asvar] = url
            return ""
        return conditional_escape(url) if context.autoescape else url


@register.tag
def url(parser, token):
    """Django's ``{% url %}``, parsed by Django, rendered through ``cached_reverse``."""
    node = defaulttags.url(parser, token)
    node.__class__ = CachedURLNode
    return node
