from django import template

register = template.Library()


@register.filter
def time_left(seconds: int) -> str:
    """9:58 for a hold's remaining seconds."""
    seconds = max(0, int(seconds))
    return f"{seconds // 60}:{seconds % 60:02d}"


@register.inclusion_tag("school/assets.html")
def school_assets(holds: bool = False) -> dict:
    """The school's stylesheet, and with ``holds`` the script counting the holds down."""
    return {"holds": holds}
