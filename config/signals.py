"""The Redis login-system tutorial's records: every successful sign-in is recorded in Redis."""

from django.contrib import messages
from django.contrib.auth.signals import user_logged_in, user_logged_out
from django.dispatch import receiver
from django.utils import timezone

from config.forms import client_address
from config.store import signins


@receiver(user_logged_in)
def record_signin(sender, request, user, **kwargs):
    signins.record_signin(user.get_username(), client_address(request) if request else "", timezone.now())


@receiver(user_logged_out)
def say_signed_out(sender, request, user, **kwargs):
    """The sign-in page the sign-out leads to says so (messages ride in a cookie, which
    outlives the session the sign-out flushes)."""
    if request is not None:
        messages.info(request, f"{user.get_username()} signed out." if user else "Signed out.", fail_silently=True)
