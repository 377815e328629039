"""The forms of an HTML page as a browser would submit them (the scenarios fill them in)."""

from __future__ import annotations

from dataclasses import dataclass, field
from html.parser import HTMLParser


@dataclass
class Form:
    """A form as the browser would submit it: its action, method and default values."""

    action: str
    method: str
    fields: dict[str, str] = field(default_factory=dict)
    text_fields: list[str] = field(default_factory=list)  # free-text inputs and textareas
    choices: dict[str, list[str]] = field(default_factory=dict)  # select name -> option values


class _FormParser(HTMLParser):
    TEXT_TYPES = {"text", "search", "email", "url", "tel", "password", "number", ""}

    def __init__(self, page_path: str):
        super().__init__(convert_charrefs=True)
        self.page_path = page_path
        self.forms: list[Form] = []
        self._form: Form | None = None
        self._textarea: str | None = None
        self._select: str | None = None

    def handle_starttag(self, tag, attrs):
        a = {k: v or "" for k, v in attrs}
        if tag == "form":
            self._form = Form(a.get("action") or self.page_path, (a.get("method") or "get").lower())
            self.forms.append(self._form)
        elif tag == "option" and self._form is not None and self._select:
            value = a.get("value", "")
            self._form.choices[self._select].append(value)
            if "selected" in a or not self._form.fields[self._select]:
                self._form.fields[self._select] = value
        elif self._form is None or "name" not in a:
            return
        elif tag == "input":
            kind = a.get("type", "").lower()
            if kind in {"submit", "button", "image", "reset", "file"}:
                return
            if kind in {"checkbox", "radio"} and "checked" not in a:
                return
            self._form.fields[a["name"]] = a.get("value", "on" if kind in {"checkbox", "radio"} else "")
            if kind in self.TEXT_TYPES and kind != "number":
                self._form.text_fields.append(a["name"])
        elif tag == "textarea":
            self._textarea = a["name"]
            self._form.fields[a["name"]] = ""
            self._form.text_fields.append(a["name"])
        elif tag == "select":
            self._select = a["name"]
            self._form.choices[a["name"]] = []
            self._form.fields.setdefault(a["name"], "")

    def handle_data(self, data):
        if self._form is not None and self._textarea:
            self._form.fields[self._textarea] += data

    def handle_endtag(self, tag):
        if tag == "form":
            self._form = None
        elif tag == "textarea":
            self._textarea = None
        elif tag == "select":
            self._select = None


def forms(html: str, page_path: str = "") -> list[Form]:
    """Every form of a page, with the values a browser would send unchanged."""
    parser = _FormParser(page_path)
    parser.feed(html)
    return parser.forms


def post_forms(html: str, page_path: str = "") -> list[Form]:
    return [f for f in forms(html, page_path) if f.method == "post"]
