"""The Redis login-system tutorial's records: every successful sign-in is recorded in Redis."""

from django.contrib.auth.signals import user_logged_in
from django.dispatch import receiver
from django.utils import timezone

from config import store
from config.forms import client_address


@receiver(user_logged_in)
def record_signin(sender, request, user, **kwargs):
    store.record_signin(user.get_username(), client_address(request) if request else "", timezone.now())
