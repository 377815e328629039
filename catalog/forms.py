"""Django forms for products (base fields plus one type's section), reviews and the list filters."""

from __future__ import annotations

from django import forms
from django.core.validators import RegexValidator, URLValidator

from catalog import store, types
from catalog.documents import MAX_IMAGES, MAX_TAGS, MAX_VIDEOS, TAG_MAX, Product, is_tag, sku_key, tag_slugs
from config.saving import VersionField

SKU = RegexValidator(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,39}\Z", "Letters, digits, dots, dashes and underscores only.")


def is_site_path(text: str) -> bool:
    """A path on this site (the seeded images): the same rule as the ``site_link`` filter that links it."""
    return text.startswith("/") and not text.startswith("//") and not any(c in text for c in "\\\x00\r\n\t ")


class ImageAddressField(forms.URLField):
    """An http(s) address, or a path on this site."""

    def to_python(self, value):
        text = str(value or "").strip()
        return text if is_site_path(text) else super().to_python(value)

    def run_validators(self, value):
        if not is_site_path(value or ""):
            super().run_validators(value)


class URLListField(forms.CharField):
    """One URL per line, at most ``limit`` of them: a bounded embedded list."""

    widget = forms.Textarea(attrs={"rows": 3})

    def __init__(self, *, limit: int, noun: str, **kwargs):
        self.limit, self.noun = limit, noun
        kwargs.setdefault("help_text", f"One URL per line, at most {limit}.")
        super().__init__(required=False, **kwargs)

    def prepare_value(self, value):
        return "\n".join(value) if isinstance(value, list) else value

    def clean(self, value):
        text = super().clean(value)
        urls = [line.strip() for line in text.splitlines() if line.strip()]
        if len(urls) > self.limit:
            raise forms.ValidationError(f"At most {self.limit} {self.noun} (you gave {len(urls)}).", code="bound")
        check = URLValidator(schemes=["http", "https"])
        for url in urls:
            if is_site_path(url):
                continue
            try:
                check(url)
            except forms.ValidationError:
                raise forms.ValidationError(f"Not a web address: {url[:80]}", code="invalid") from None
        return urls


class TagsField(forms.CharField):
    """Comma-separated tags, each made a slug ("UX test" → "ux-test"); one with no letter or digit,
    or longer than a tag may be, is refused."""

    def __init__(self, *, limit: int | None = MAX_TAGS, **kwargs):
        self.limit = limit
        kwargs.setdefault("help_text", "Comma-separated, e.g. wireless, noise cancelling (saved as noise-cancelling).")
        super().__init__(required=False, max_length=1000, **kwargs)

    def prepare_value(self, value):
        return ", ".join(value) if isinstance(value, (list, tuple)) else value

    def clean(self, value):
        pairs = tag_slugs(super().clean(value))
        bad = [raw for raw, slug in pairs if not is_tag(slug)]
        if bad:
            raise forms.ValidationError(
                f"Not a tag: {', '.join(t[:40] for t in bad[:3])}. A tag needs a letter or a digit, and at most "
                f"{TAG_MAX} characters once made lowercase with dashes.",
                code="invalid",
            )
        if self.limit and len(pairs) > self.limit:
            raise forms.ValidationError(f"At most {self.limit} tags (you gave {len(pairs)}).", code="bound")
        return [slug for _, slug in pairs]


class ProductForm(forms.Form):
    """The base fields every product has, plus the section of its one type."""

    type = forms.ChoiceField(choices=[("", "no type"), *types.choices()], widget=forms.HiddenInput, required=False)
    name = forms.CharField(max_length=120)
    brand = forms.CharField(max_length=80, required=False)
    sku = forms.CharField(label="SKU", max_length=40, validators=[SKU], required=False)
    model = forms.CharField(max_length=80, required=False)
    price = forms.DecimalField(max_digits=9, decimal_places=2, min_value=0, required=False)
    image = ImageAddressField(label="Main image URL", required=False, assume_scheme="https")
    description = forms.CharField(widget=forms.Textarea(attrs={"rows": 4}), max_length=5000, required=False)
    manufacturer = forms.CharField(max_length=120, required=False)
    dimensions = forms.CharField(max_length=80, required=False, help_text="e.g. 6 × 4 × 3 cm")
    weight = forms.CharField(max_length=40, required=False, help_text="e.g. 52 g")
    images = URLListField(limit=MAX_IMAGES, noun="images")
    videos = URLListField(limit=MAX_VIDEOS, noun="videos")
    tags = TagsField()
    version = VersionField()  # the product's revision (``rev``) when the form was opened

    BASE = ("name", "brand", "sku", "model", "price", "image")
    DETAILS = ("description", "manufacturer", "dimensions", "weight", "images", "videos", "tags")

    def __init__(self, *args, product_type: types.ProductType | None, product_id: int | None = None, **kwargs):
        super().__init__(*args, **kwargs)
        self.product_type, self.product_id = product_type, product_id
        self.initial["type"] = product_type.slug if product_type else ""  # the chosen type, over a stored one
        for spec in product_type.fields if product_type else ():
            self.fields[spec.name] = spec.form_field()

    @property
    def type_field_names(self) -> tuple[str, ...]:
        return self.product_type.field_names if self.product_type else ()

    @property
    def tag_renames(self) -> list[tuple[str, str]]:
        """(as typed, as saved) for each tag that was made a slug: the form says what it became."""
        return [(raw, slug) for raw, slug in tag_slugs(self.data.get("tags", "")) if raw != slug]

    def base_fields_bound(self):
        return [self[name] for name in self.BASE]

    def detail_fields_bound(self):
        return [self[name] for name in self.DETAILS]

    def type_fields_bound(self):
        return [self[name] for name in self.type_field_names]

    def clean_sku(self):
        """A taken SKU is an error beside the others (the write's script checks again, atomically)."""
        sku = self.cleaned_data["sku"].strip()
        if not sku or (self.product_id and sku_key(sku) == sku_key(self.initial.get("sku") or "")):
            return sku
        owner = store.sku_owner(sku)
        if owner is not None and owner != self.product_id:
            raise forms.ValidationError(f"SKU {sku} is already used by product {owner}.", code="unique")
        return sku

    def to_product(self) -> Product:
        data = self.cleaned_data
        attrs = {name: _text(data.get(name)) for name in self.type_field_names if _text(data.get(name)) != ""}
        return Product(
            type=self.product_type.slug if self.product_type else "",
            name=data["name"].strip(),
            brand=data.get("brand", "").strip(),
            sku=data["sku"],
            model=data.get("model", "").strip(),
            price=data.get("price"),
            image=data.get("image", ""),
            **{name: data[name] for name in self.DETAILS},  # every one cleaned: "" or []
            attrs=attrs,
        )

    @classmethod
    def switched(cls, data, product_type: types.ProductType | None) -> dict:
        """The form's initial values when the user switches the product to ``product_type``: what they sent
        for every field the new type has too; another type's own picture becomes the new type's."""
        kept = (*cls.BASE, *cls.DETAILS, *(product_type.field_names if product_type else ()), "version", "once")
        initial = {name: data.get(name, "") for name in kept if name in data}
        if initial.get("image") in {kind.image for kind in types.TYPES.values()}:
            initial["image"] = product_type.image if product_type else ""
        return initial

    @classmethod
    def initial_for(cls, product: Product) -> dict:
        """The edit form's initial values from a stored product."""
        return {
            "type": product.type,
            **{name: getattr(product, name) for name in (*cls.BASE, *cls.DETAILS)},
            "version": product.rev,
            **product.attrs,
        }


def _text(value) -> str:
    return "" if value is None else str(value).strip()


class ReviewForm(forms.Form):
    author = forms.CharField(max_length=80)
    rating = forms.TypedChoiceField(
        choices=[(n, f"{n} ★") for n in range(5, 0, -1)], coerce=int, widget=forms.RadioSelect, initial=5
    )
    comment = forms.CharField(widget=forms.Textarea(attrs={"rows": 3}), max_length=2000, required=False)


class ProductFilterForm(forms.Form):
    """The list's filters, from the query string. Invalid ones are reported and ignored."""

    q = forms.CharField(label="Search", required=False, max_length=100)
    type = forms.ChoiceField(choices=[("", "any type"), *types.choices()], required=False)
    tags_all = TagsField(label="All of", limit=10, help_text="")
    tags_any = TagsField(label="Any of", limit=10, help_text="")
    tags_none = TagsField(label="None of", limit=10, help_text="")

    def query(self, order: str, offset: int, limit: int) -> store.ProductQuery:
        self.is_valid()
        data = {name: value for name, value in self.cleaned_data.items() if name not in self.errors}
        return store.ProductQuery(
            q=(data.get("q") or "").strip(),
            order=order,
            type=data.get("type") or "",
            tags_all=tuple(data.get("tags_all") or ()),
            tags_any=tuple(data.get("tags_any") or ()),
            tags_none=tuple(data.get("tags_none") or ()),
            offset=offset,
            limit=limit,
            live_counts=True,
        )
