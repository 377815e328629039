import ipaddress
import math

from django import forms
from django.contrib.auth.forms import AuthenticationForm

from config import store


def client_address(request) -> str:
    """REMOTE_ADDR, checked: it becomes part of a key."""
    try:
        return str(ipaddress.ip_address(request.META.get("REMOTE_ADDR", "")))
    except ValueError:
        return "unknown"


def _wait_text(seconds: float) -> str:
    if seconds >= 60:
        minutes = math.ceil(seconds / 60)
        return f"{minutes} minute{'s' if minutes != 1 else ''}"
    seconds = max(1, math.ceil(seconds))
    return f"{seconds} second{'s' if seconds != 1 else ''}"


class SignInForm(AuthenticationForm):
    """Django's sign-in form behind a sliding-window limit on failures.

    The attempt takes a slot in the windows of the username and of the client
    address before the password is checked; a right password gives it back.
    """

    error_messages = {
        **AuthenticationForm.error_messages,
        "rate_limited": ("Too many failed sign-ins for this username or from this address. Try again in %(wait)s."),
    }

    def clean(self):
        username = self.cleaned_data.get("username")
        if username is None or not self.cleaned_data.get("password"):
            return self.cleaned_data
        attempt = store.take_signin_attempt(username, client_address(self.request))
        if not attempt.allowed:
            raise forms.ValidationError(
                self.error_messages["rate_limited"],
                code="rate_limited",
                params={"wait": _wait_text(attempt.retry_after)},
            )
        cleaned = super().clean()
        store.release_signin_attempt(attempt)
        return cleaned
