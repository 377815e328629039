"""Django's own form widgets, rendered in Python: the form renderer of every form (FORM_RENDERER).

Django renders each widget through templates (input.html including attrs.html, a select
including one template per option), a few hundred template nodes for a form with two
selects. This renderer builds the HTML of Django's built-in widget templates in Python,
byte for byte as those templates do (escaping every name, value and label the same way),
and hands any other template (an app's own widget, a form template) to Django's renderer.
"""

from __future__ import annotations

from html import escape as html_escape

from django.forms.renderers import DjangoTemplates
from django.utils.formats import localize
from django.utils.timezone import template_localtime

_W = "django/forms/widgets/"
_INPUTS = {
    f"{_W}{name}.html"
    for name in (
        "input",
        "text",
        "number",
        "email",
        "url",
        "password",
        "hidden",
        "date",
        "datetime",
        "time",
        "search",
        "tel",
        "color",
        "file",
        "checkbox",
    )
}
_OPTIONS = {f"{_W}input_option.html", f"{_W}radio_option.html", f"{_W}checkbox_option.html"}
_MULTIPLE = {f"{_W}multiple_input.html", f"{_W}radio.html", f"{_W}checkbox_select.html"}


def _show(value) -> str:
    """``{{ value }}``: localized, escaped unless already safe (``conditional_escape``, with
    ``html.escape`` as Django's ``escape`` uses it, without its lazy-argument check per call)."""
    if not isinstance(value, str):
        value = localize(template_localtime(value))
    if hasattr(value, "__html__"):
        return value.__html__()
    return html_escape(str(value))


def _formatted(value) -> str:
    """``{{ value|stringformat:'s' }}``: always escaped (the filter's result is never safe)."""
    return html_escape(str(value))


def _attrs(attrs: dict) -> str:
    out = []
    for name, value in attrs.items():
        if value is False:
            continue
        out.append(f" {_show(name)}" if value is True else f' {_show(name)}="{_formatted(value)}"')
    return "".join(out)


def _input(widget: dict) -> str:
    value = widget["value"]
    shown = "" if value is None else f' value="{_formatted(value)}"'
    return f'<input type="{_show(widget["type"])}" name="{_show(widget["name"])}"{shown}{_attrs(widget["attrs"])}>\n'


def _input_option(widget: dict) -> str:
    if not widget.get("wrap_label"):
        return _input(widget) + "\n"
    wid = widget["attrs"].get("id")
    label_for = f' for="{_show(wid)}"' if wid else ""
    return f"<label{label_for}>{_input(widget)} {_show(widget['label'])}</label>\n"


class WidgetRenderer(DjangoTemplates):
    """Django's default renderer, with its built-in widgets built in Python."""

    def render(self, template_name, context, request=None):
        widget = context.get("widget") if isinstance(context, dict) else None
        html = None if widget is None else self._html(template_name, widget, context, request)
        if html is None:
            return super().render(template_name, context, request)
        return html.strip()  # as Django's renderer strips what its template gives

    def _html(self, template_name: str, widget: dict, context: dict, request) -> str | None:
        """The template's output, unstripped (as an include gives it); None for a template not built here."""
        # Each of Django's named templates includes its generic one and adds a line break of its own.
        if template_name in _INPUTS:
            return _input(widget) + ("" if template_name == f"{_W}input.html" else "\n")
        if template_name in _OPTIONS:
            return _input_option(widget) + ("" if template_name == f"{_W}input_option.html" else "\n")
        if template_name == f"{_W}select_option.html":
            value, attrs, label = _formatted(widget["value"]), _attrs(widget["attrs"]), _show(widget["label"])
            return f'<option value="{value}"{attrs}>{label}</option>\n'
        if template_name == f"{_W}select.html":
            return self._select(widget, context, request)
        if template_name == f"{_W}textarea.html":
            value = widget["value"]
            text = _show(value) if value else ""
            return f'<textarea name="{_show(widget["name"])}"{_attrs(widget["attrs"])}>\n{text}</textarea>\n'
        if template_name in _MULTIPLE:
            own = "" if template_name == f"{_W}multiple_input.html" else "\n"
            return self._multiple(widget, context, request) + own
        return None

    def _option(self, option: dict, context: dict, request) -> str:
        """An option's template as ``{% include option.template_name with widget=option %}`` gives it."""
        context = {**context, "widget": option}
        html = self._html(option["template_name"], option, context, request)
        return self.get_template(option["template_name"]).render(context, request) if html is None else html

    def _select(self, widget: dict, context: dict, request) -> str:
        out = [f'<select name="{_show(widget["name"])}"{_attrs(widget["attrs"])}>']
        for group_name, group_choices, _index in widget["optgroups"]:
            if group_name:
                out.append(f'\n  <optgroup label="{_show(group_name)}">')
            for option in group_choices:
                out.append("\n  " + self._option(option, context, request))
            if group_name:
                out.append("\n  </optgroup>")
        out.append("\n</select>\n")
        return "".join(out)

    def _multiple(self, widget: dict, context: dict, request) -> str:
        attrs = widget["attrs"]
        wid, css = attrs.get("id"), attrs.get("class")
        id_attr = f' id="{_show(wid)}"' if wid else ""
        class_attr = f' class="{_show(css)}"' if css else ""
        out = [f"<div{id_attr}{class_attr}>"]
        for group, options, _index in widget["optgroups"]:
            if group:
                out.append(f"\n  <div><label>{_show(group)}</label>")
            for option in options:
                out.append("<div>\n    " + self._option(option, context, request) + "</div>")
            if group:
                out.append("\n  </div>")
        out.append("\n</div>\n")
        return "".join(out)
