"""Template helpers that tie the Redis panel of every page to the key browser."""

from django import template
from django.urls import reverse

from config.keybrowser import behind, display

register = template.Library()


@register.simple_tag
def behind_url(trace, path=""):
    """The key browser on exactly the keys and commands of ``trace``."""
    return f"{reverse('keybrowser:behind')}?t={behind.token(trace, path or '')}"


@register.filter
def hidden_key(name) -> bool:
    """Django's session and cache keys: the panel masks them, the browser refuses them."""
    return bool(name) and display.is_hidden(name)


@register.filter
def key_href(key) -> str:
    """The key browser's page for ``key``, its name percent-encoded byte for byte."""
    return display.key_url(key)


@register.simple_tag
def hidden_text() -> str:
    return behind.HIDDEN
