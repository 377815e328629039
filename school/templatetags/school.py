from functools import lru_cache
from html import escape

from django import template
from django.conf import settings
from django.templatetags.static import static
from django.utils.safestring import SafeString, mark_safe

register = template.Library()


@register.filter
def time_left(seconds: int) -> str:
    """9:58 for a hold's remaining seconds."""
    seconds = max(0, int(seconds))
    return f"{seconds // 60}:{seconds % 60:02d}"


@register.simple_tag
def school_assets(holds: bool = False) -> SafeString:
    """The school's stylesheet, and with ``holds`` the script counting the holds down: the hashed
    names looked up in the static files' manifest once per process, not on every page."""
    return _assets(bool(holds), settings.STATIC_URL)


@lru_cache(maxsize=8)
def _assets(holds: bool, static_url: str) -> SafeString:
    tags = f'<link rel="stylesheet" href="{escape(static("school/school.css"))}">'
    if holds:
        tags += f'<script src="{escape(static("school/holds.js"))}" defer></script>'
    return mark_safe(tags)  # our own file names, escaped
