"""Template helpers that tie the Redis panel of every page to the key browser."""

from django import template
from django.urls import reverse

from config.keybrowser import behind, display

register = template.Library()


@register.simple_tag
def behind_url(trace, path=""):
    """The key browser on exactly the keys and commands of ``trace``."""
    return f"{reverse('keys_behind')}?t={behind.token(trace, path or '')}"


@register.filter
def command_parts(command):
    """(text, key browser URL or "") for each argument the panel shows of ``command``.

    An argument that is a key links to it, also when the panel cut it short;
    Django's session and cache keys are masked, never linked.
    """
    parts = []
    for arg in command.args:
        key = next(
            (k for k in command.keys if k == arg or (arg.endswith("…") and k.startswith(arg[:-1]))),
            None,
        )
        if key is not None and display.is_hidden(key):
            parts.append((behind.HIDDEN, ""))
        elif key is not None:
            parts.append((arg, display.key_url(key)))
        else:
            parts.append((behind.HIDDEN if display.is_hidden(arg) else arg, ""))
    return parts
