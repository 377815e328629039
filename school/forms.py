"""Django forms for the school's documents and relations."""

import re

from django import forms
from django.core.exceptions import ValidationError
from django.core.validators import validate_email

from config.saving import VersionField
from school.documents import Course, Person

CODE = re.compile(r"^[A-Z0-9][A-Z0-9-]{1,19}\Z")


class DocumentForm(forms.Form):
    """A document's form; its version is the stored document's digest when the form was opened
    (``school.documents.fingerprint``)."""

    version = VersionField(digest=True)


class CourseForm(DocumentForm):
    code = forms.CharField(max_length=20, help_text="Unique, like CS-101: capitals, digits and dashes.")
    title = forms.CharField(max_length=120)
    description = forms.CharField(widget=forms.Textarea, required=False, max_length=2000)
    capacity = forms.IntegerField(min_value=1, max_value=100_000, initial=30)

    def clean_code(self):
        code = self.cleaned_data["code"].strip().upper()
        if not CODE.match(code):
            raise ValidationError("Use 2 to 20 capitals, digits and dashes, starting with a letter or digit.")
        return code

    def document(self, pk: int = 0) -> Course:
        data = self.cleaned_data
        return Course(pk, data["code"], data["title"].strip(), data["description"].strip(), data["capacity"])

    @classmethod
    def initial_for(cls, course: Course) -> dict:
        return {k: getattr(course, k) for k in ("code", "title", "description", "capacity")}


class PersonForm(DocumentForm):
    """Schema 2's fields: a contact address and a list of addresses (the contact among them)."""

    name = forms.CharField(max_length=120)
    contact = forms.EmailField(help_text="The address to write to.")
    emails = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 3}), required=False, help_text="Other addresses, one per line."
    )

    def clean_name(self):
        name = self.cleaned_data["name"].strip()
        if not name:
            raise ValidationError("A name is required.")
        return name

    def clean_emails(self):
        emails = [line.strip() for line in self.cleaned_data["emails"].splitlines() if line.strip()]
        for email in emails:
            try:
                validate_email(email)
            except ValidationError:
                raise ValidationError(f"{email} is not an email address.") from None
        if len(emails) > 10:
            raise ValidationError("At most 10 addresses.")
        return list(dict.fromkeys(emails))

    def document(self, pk: int = 0) -> Person:
        data = self.cleaned_data
        return Person(pk, data["name"], data["contact"], [data["contact"], *data["emails"]])

    @classmethod
    def initial_for(cls, person: Person) -> dict:
        return {"name": person.name, "contact": person.contact, "emails": "\n".join(person.other_emails)}


class PickForm(forms.Form):
    """The id of the other side of a relation, posted from a picker or a row button."""

    other = forms.IntegerField(min_value=1)


ALGEBRA_CHOICES = [
    ("inter", "In all of them (ZINTER)"),
    ("union", "In any of them (ZUNION)"),
    ("diff", "In the first but none of the others (ZDIFF)"),
]


class AlgebraForm(forms.Form):
    """Course codes, resolved through the unique code index, and an operation."""

    codes = forms.CharField(
        max_length=400, help_text="Two or more course codes, separated by commas or spaces; order matters for ZDIFF."
    )
    op = forms.ChoiceField(label="Operation", choices=ALGEBRA_CHOICES, widget=forms.RadioSelect, initial="inter")

    def clean_codes(self):
        codes = list(dict.fromkeys(c.upper() for c in re.split(r"[\s,]+", self.cleaned_data["codes"]) if c))
        bad = [c for c in codes if not CODE.match(c)]
        if bad:
            raise ValidationError(f"Not a course code: {', '.join(bad)}.")
        if len(codes) < 2:
            raise ValidationError("Pick at least two courses.")
        if len(codes) > 10:
            raise ValidationError("Pick at most ten courses.")
        return codes
