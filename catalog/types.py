"""The registry of product types: the e-book's polymorphic pattern.

Every product shares the base fields (name, brand, sku, ...) and carries the
fields of exactly one type beside them in the same hash. A type declares its
fields once here; the form section, the validation, the detail page and the
importer all read them from this registry, and a product hash never holds a
field of another type (``store`` drops the old type's fields on a change).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from django import forms

SLUG = re.compile(r"^[a-z][a-z_]{0,30}\Z")


@dataclass(frozen=True)
class TypeField:
    name: str  # snake_case: the hash field and the form field
    label: str
    kind: str = "text"  # text, int, decimal, choice
    choices: tuple[str, ...] = ()
    min_value: float | None = None
    max_value: float | None = None
    unit: str = ""
    required: bool = True

    @property
    def camel(self) -> str:
        """The camelCase spelling the e-book's Redis OM schema uses (``batteryLife``)."""
        head, *rest = self.name.split("_")
        return head + "".join(part.title() for part in rest)

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
        return forms.CharField(max_length=80, **common)


@dataclass(frozen=True)
class ProductType:
    slug: str
    label: str
    description: str
    fields: tuple[TypeField, ...] = field(default=())

    @property
    def field_names(self) -> tuple[str, ...]:
        return tuple(f.name for f in self.fields)


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
            ),
        ),
        ProductType(
            "appliance",
            "appliance",
            "Kitchen and household appliances.",
            (
                TypeField("power_watts", "Power", "int", min_value=1, max_value=10000, unit="W"),
                TypeField("energy_class", "Energy class", "choice", tuple("ABCDEFG")),
                TypeField("capacity", "Capacity", required=False),
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
    normal = re.sub(r"[\s-]+", "_", slug.strip().lower())
    return TYPES.get(normal) if SLUG.match(normal) else None


def choices() -> list[tuple[str, str]]:
    return [(t.slug, t.label) for t in TYPES.values()]
