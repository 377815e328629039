"""The Import / export screen's forms: the upload, and the confirm that carries it."""

from django import forms


class UploadForm(forms.Form):
    file = forms.FileField(
        label="Export file",
        help_text="The app's export zip (as downloaded here), or one of its .jsonl files.",
    )
    replace = forms.BooleanField(
        required=False,
        label="Replace the data this app holds now",
        help_text="Without it, an import is refused when the app already holds data.",
    )


class ConfirmForm(forms.Form):
    upload = forms.CharField(widget=forms.HiddenInput)
    replace = forms.BooleanField(required=False, widget=forms.HiddenInput)
