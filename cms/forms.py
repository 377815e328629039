"""The CMS forms: a post (with the version it was loaded at), a comment, a compare, the list filters."""

from django import forms

from cms.documents import STATUSES
from cms.keys import AUTHOR_RE
from config.saving import VersionField

STATUS_CHOICES = [(s, s.title()) for s in STATUSES]
AUTHOR_HELP = "A username: letters, digits and @ . + - _ only."


class PostForm(forms.Form):
    title = forms.CharField(max_length=200)
    body = forms.CharField(widget=forms.Textarea(attrs={"rows": 14}), max_length=20_000)
    author = forms.RegexField(regex=AUTHOR_RE, max_length=150, help_text=AUTHOR_HELP)
    status = forms.ChoiceField(choices=STATUS_CHOICES)
    comment = forms.CharField(
        label="Revision comment", max_length=200, required=False, help_text="Optional: why you made this change."
    )

    def content(self) -> dict[str, str]:
        return {name: self.cleaned_data[name] for name in ("title", "body", "author", "status")}


class PostEditForm(PostForm):
    """The edit form carries the version it was loaded at, so a save over a newer one is refused."""

    version = VersionField()
    # The title and author the form was loaded with: the trigram sets and the author index the post
    # leaves, so that a save is one script (which checks they are still the stored ones).
    loaded_title = forms.CharField(required=False, strip=False, widget=forms.HiddenInput)
    loaded_author = forms.CharField(required=False, strip=False, widget=forms.HiddenInput)
    # What a refused save sets to the stored post's, beside the user's input (``config.saving``).
    loaded_fields = ("version", "loaded_title", "loaded_author")

    @classmethod
    def initial_for(cls, post) -> dict:
        return {**post.content(), "version": post.version, "loaded_title": post.title, "loaded_author": post.author}


class CommentForm(forms.Form):
    text = forms.CharField(label="Comment", widget=forms.Textarea(attrs={"rows": 3}), max_length=2000)


class CompareForm(forms.Form):
    """Two version numbers; ``b`` left empty means the current version."""

    a = forms.IntegerField(label="Revision", min_value=1)
    b = forms.IntegerField(label="with", min_value=1, required=False)


class PostFilterForm(forms.Form):
    status = forms.ChoiceField(choices=[("", "Any status"), *STATUS_CHOICES], required=False)
    author = forms.RegexField(regex=AUTHOR_RE, max_length=150, required=False, help_text=AUTHOR_HELP)
