"""The registry of product types: the e-book's polymorphic pattern.

Every product shares the base fields (name, brand, sku, ...) and carries the fields of at most one type beside
them in the same hash (a product imported from a source that names no type has none). A type declares its
fields once here; the form section, the validation, the detail page and the importer all read them from this
registry, and a product hash never holds a field of another type (``store`` drops the old type's fields on a
change).

Type fields are optional: a real product's source often lacks some (the e-book's sample console has no GPU),
and an empty field is honest where an invented value is not. ``TypeField.read`` takes a value in a source's
own words ("8 hours", "SSD", "In-ear", "yes") to the form the field stores.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation

from django import forms

SLUG = re.compile(r"^[a-z][a-z_]{0,30}\Z")
# Spellings of each unit a source may write after a number ("8 hours", "8h", "27 in").
UNITS = {
    "hours": {"h", "hr", "hrs", "hour", "hours"},
    "inches": {"in", "inch", "inches", '"', "''"},
    "Hz": {"hz"},
    "W": {"w", "watt", "watts"},
    "mAh": {"mah"},
    "GB": {"gb", "gigabytes"},
}
NUMBER_WITH_UNIT = re.compile(r"^\s*([+-]?\d+(?:\.\d+)?)\s*(.*?)\s*\Z")
YES = {"yes", "y", "true", "t", "1", "on"}
NO = {"no", "n", "false", "f", "0", "off"}


def _loose(text: str) -> str:
    """A choice as compared: case, spaces, dashes and underscores ignored."""
    return re.sub(r"[\s_-]+", "", text.casefold())


@dataclass(frozen=True)
class TypeField:
    name: str  # snake_case: the hash field and the form field
    label: str
    kind: str = "text"  # text, int, decimal, choice, bool ("yes"/"no")
    choices: tuple[str, ...] = ()
    min_value: float | None = None
    max_value: float | None = None
    unit: str = ""
    required: bool = False

    def form_field(self) -> forms.Field:
        help_text = self.unit and f"in {self.unit}"
        common = {"label": self.label, "required": self.required, "help_text": help_text}
        if self.kind == "int":
            return forms.IntegerField(min_value=self.min_value, max_value=self.max_value, **common)
        if self.kind == "decimal":
            return forms.DecimalField(
                min_value=self.min_value, max_value=self.max_value, max_digits=7, decimal_places=2, **common
            )
        if self.kind == "choice":
            choices = [("", "—"), *((c, c) for c in self.choices)]
            return forms.ChoiceField(choices=choices, **common)
        if self.kind == "bool":
            return forms.ChoiceField(choices=[("", "—"), ("yes", "yes"), ("no", "no")], **common)
        return forms.CharField(max_length=80, **common)

    def read(self, value) -> str:
        """A source's value as this field stores it ("8 hours", "27in", "SSD", "In-ear", "Yes", true), or
        ValueError saying why it can't be read. The form's own rules (bounds) still apply after."""
        if value is None or value == "":
            return ""
        if isinstance(value, (dict, list)):
            raise ValueError(f"expected a single value, not a {type(value).__name__}")
        if self.kind == "bool":
            word = str(value).strip().casefold()
            if word in YES:
                return "yes"
            if word in NO:
                return "no"
            raise ValueError(f"{value!r} is not yes or no")
        if isinstance(value, bool):
            raise ValueError(f"{value!r} is not a {self.kind}")
        text = str(value).strip()
        if self.kind in ("int", "decimal"):
            return self._number(text)
        if self.kind == "choice":
            found = NUMBER_WITH_UNIT.match(text)
            if self.unit and found and found.group(2).casefold() in UNITS.get(self.unit, set()):
                text = found.group(1)  # "256 GB" for a choice of sizes in GB
            for choice in self.choices:
                if _loose(choice) == _loose(text):
                    return choice
            raise ValueError(f"{text!r} is not one of {', '.join(self.choices)}")
        return text

    def _number(self, text: str) -> str:
        found = NUMBER_WITH_UNIT.match(text)
        unit = found and found.group(2).casefold().rstrip(".")
        if not found or (unit and unit not in UNITS.get(self.unit, set())):
            wanted = f" in {self.unit}" if self.unit else ""
            raise ValueError(f"{text!r} is not a number{wanted}")
        try:
            number = Decimal(found.group(1))
        except InvalidOperation:
            raise ValueError(f"{text!r} is not a number") from None
        if self.kind == "int":
            if number != number.to_integral_value():
                raise ValueError(f"{text!r} is not a whole number")
            return str(int(number))
        return str(number.normalize() if number == number.to_integral_value() else number)


@dataclass(frozen=True)
class ProductType:
    slug: str
    label: str
    description: str
    fields: tuple[TypeField, ...] = field(default=())

    @property
    def field_names(self) -> tuple[str, ...]:
        return tuple(f.name for f in self.fields)

    @property
    def image(self) -> str:
        """The type's own picture, served by the dashboard: a product's main image until it has one."""
        return f"/static/img/products/{self.slug}.svg"


TYPES: dict[str, ProductType] = {
    t.slug: t
    for t in (
        ProductType(
            "earbuds",
            "earbuds",
            "Wireless or wired in-ear audio.",
            (
                TypeField("battery_life", "Battery life", "int", min_value=1, max_value=200, unit="hours"),
                TypeField("connection_type", "Connection type", "choice", ("bluetooth", "wired", "usb-c", "2.4 ghz")),
                TypeField("fit", "Fit", "choice", ("in-ear", "semi-in-ear", "ear-hook", "bone conduction")),
            ),
        ),
        ProductType(
            "game_console",
            "game console",
            "Home and handheld consoles.",
            (
                TypeField("storage_type", "Storage type", "choice", ("ssd", "hdd", "flash", "cartridge")),
                TypeField("usb_ports", "USB ports", "int", min_value=0, max_value=12),
                TypeField("hdmi_ports", "HDMI ports", "int", min_value=0, max_value=4),
                TypeField("gpu", "GPU"),
            ),
        ),
        ProductType(
            "monitor",
            "monitor",
            "Desktop displays.",
            (
                TypeField("screen_size", "Screen size", "decimal", min_value=10, max_value=100, unit="inches"),
                TypeField("resolution", "Resolution", "choice", ("1920x1080", "2560x1440", "3440x1440", "3840x2160")),
                TypeField("refresh_rate", "Refresh rate", "int", min_value=24, max_value=540, unit="Hz"),
                TypeField("panel_type", "Panel type", "choice", ("ips", "va", "tn", "oled")),
            ),
        ),
        ProductType(
            "phone",
            "phone",
            "Smartphones.",
            (
                TypeField("os", "Operating system", "choice", ("android", "ios")),
                TypeField("storage_gb", "Storage", "choice", ("64", "128", "256", "512", "1024"), unit="GB"),
                TypeField("battery_mah", "Battery", "int", min_value=500, max_value=10000, unit="mAh"),
                TypeField("screen_size", "Screen size", "decimal", min_value=3, max_value=9, unit="inches"),
                TypeField("wireless_charging", "Wireless charging", "bool"),
            ),
        ),
        ProductType(
            "appliance",
            "appliance",
            "Kitchen and household appliances.",
            (
                TypeField("power_watts", "Power", "int", min_value=1, max_value=10000, unit="W"),
                TypeField("energy_class", "Energy class", "choice", tuple("ABCDEFG")),
                TypeField("capacity", "Capacity"),
            ),
        ),
    )
}

# Every field any type can own: what a type change may have to drop.
ALL_TYPE_FIELDS: frozenset[str] = frozenset(name for t in TYPES.values() for name in t.field_names)


def get(slug: str) -> ProductType | None:
    """The type for a slug or a spelling of it ("game console", "game-console", "Game_Console")."""
    if not isinstance(slug, str):
        return None
    exact = TYPES.get(slug)  # a stored slug, as every row of a list page holds: no normalizing
    if exact is not None:
        return exact
    normal = re.sub(r"[\s-]+", "_", slug.strip().lower())
    return TYPES.get(normal) if SLUG.match(normal) else None


def choices() -> list[tuple[str, str]]:
    return [(t.slug, t.label) for t in TYPES.values()]
