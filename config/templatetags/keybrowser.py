"""The Redis panel of every page, tied to the key browser."""

from django import template
from django.utils.safestring import SafeString

from config.keybrowser import panel, render

register = template.Library()


@register.simple_tag
def redis_panel(trace, path="", oob=False):
    """The panel, built in Python (see ``keybrowser.panel``): its cost does not grow with the commands."""
    return panel.panel_html(trace, path or "", bool(oob))


@register.filter
def keyname(name) -> SafeString:
    """A key name (``display.Shown``) as a span that wraps after each ``:``, flagged when escaped or cut."""
    return render.keyname(name)


@register.filter
def cell(value) -> SafeString:
    """One value of a key (``display.Cell``): text or pretty JSON, its flags and its links."""
    return render.cell(value)


@register.filter
def key_rows(rows) -> SafeString:
    """The rows of a key table (``display.KeyRow``), built in Python (see ``keybrowser.render``)."""
    return render.key_rows(rows)
