"""The Import / export screen's forms: the upload, and the confirm of its checked import."""

from django import forms


class UploadForm(forms.Form):
    file = forms.FileField(
        label="Export file",
        help_text="The app's export zip (as downloaded here), or one of its .jsonl files.",
    )
    replace = forms.BooleanField(
        required=False,
        label="Replace the data this app holds now",
        help_text="Without it (or merge), an import is refused when the app already holds data.",
    )
    merge = forms.BooleanField(
        required=False,
        label="Merge into the data this app holds now",
        help_text="Adds the documents and replaces those of the same id; deletes nothing.",
    )

    def clean(self):
        data = super().clean()
        if data.get("replace") and data.get("merge"):
            self.add_error("merge", "Choose either replace or merge.")
        return data


class ConfirmForm(forms.Form):
    """Nothing but the POST and its CSRF token: the job names the upload and whether it replaces or merges."""
