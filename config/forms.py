"""The sign-in form behind the failure limit, and the client address it limits."""

import ipaddress
import math

from django import forms
from django.conf import settings
from django.contrib.auth.forms import AuthenticationForm
from django.utils import timezone

from config.store import signins


def _checked(value: str) -> str | None:
    try:
        return str(ipaddress.ip_address(value.strip()))
    except ValueError:
        return None


def client_address(request) -> str:
    """The client's address, checked: it becomes part of a key.

    With ``TRUSTED_PROXY_COUNT = 0`` it is the connection's own (REMOTE_ADDR) and X-Forwarded-For is
    ignored, since any client can send one. Behind N trusted proxies it is the N-th entry from the
    right of X-Forwarded-For: the address the outermost proxy saw. Entries further left were written
    by the client and are never read, so a client cannot pick the address it is limited under.
    """
    proxies = settings.TRUSTED_PROXY_COUNT
    if proxies > 0:
        forwarded = [part for part in request.META.get("HTTP_X_FORWARDED_FOR", "").split(",") if part.strip()]
        if len(forwarded) >= proxies:
            return _checked(forwarded[-proxies]) or "unknown"
    return _checked(request.META.get("REMOTE_ADDR", "")) or "unknown"


def _wait_text(seconds: float) -> str:
    if seconds >= 60:
        minutes = math.ceil(seconds / 60)
        return f"{minutes} minute{'s' if minutes != 1 else ''}"
    seconds = max(1, math.ceil(seconds))
    return f"{seconds} second{'s' if seconds != 1 else ''}"


class SignInForm(AuthenticationForm):
    """Django's sign-in form behind a sliding-window limit on failures; staff only.

    The attempt takes a slot in the window of the username from the client's address and in the
    address's own (a higher limit) before the password is checked; a right password gives it back.
    A stranger's guesses thus lock out the stranger's address alone, and a colleague's typos only
    the colleague. Every failure is recorded; the one that fills a window logs the lock-out.
    """

    error_messages = {
        **AuthenticationForm.error_messages,
        "rate_limited": ("Too many failed sign-ins for this username or from this address. Try again in %(wait)s."),
    }

    def clean(self):
        username = self.cleaned_data.get("username")
        if username is None or not self.cleaned_data.get("password"):
            return self.cleaned_data
        address = client_address(self.request)
        attempt = signins.take_signin_attempt(username, address)
        if not attempt.allowed:
            signins.record_failed_signin(None, username, address, timezone.now())
            raise forms.ValidationError(
                self.error_messages["rate_limited"],
                code="rate_limited",
                params={"wait": _wait_text(attempt.retry_after)},
            )
        try:
            cleaned = super().clean()
        except forms.ValidationError:
            signins.record_failed_signin(attempt, username, address, timezone.now())
            raise
        signins.release_signin_attempt(attempt)
        return cleaned

    def confirm_login_allowed(self, user):
        """Only staff sign in; the wrong-password message tells an attacker nothing about the account."""
        super().confirm_login_allowed(user)
        if not user.is_staff:
            raise self.get_invalid_login_error()


def focus_first_error(form: forms.Form) -> forms.Form:
    """Mark the first field with an error ``autofocus``: a form shown again below other content
    (a review, a comment) brings the browser back to the same place, beside its error."""
    for name in form.errors:
        if name in form.fields:
            form.fields[name].widget.attrs["autofocus"] = True
            break
    return form
