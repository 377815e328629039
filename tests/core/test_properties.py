"""Stateful property tests of the core writes: sign-in records and the failed sign-in limit.

Hypothesis drives random sequences of sign-ins, failed attempts, successes and
the passing of time through ``config.store``; after every step the core
invariants hold and a plain in-memory model agrees with what Redis holds.
"""

from datetime import UTC, datetime

from django.conf import settings
from django.test import SimpleTestCase, override_settings
from hypothesis import settings as hypothesis_settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, rule, run_state_machine_as_test

from config import keys
from config.invariants import violations
from config.redis import client
from config.store import signins
from tests.base import RedisMixin, flush_test_redis

USERS = st.sampled_from(["ann", "bob", "Chen", "x:* [y]"])  # the last is no key-safe name: it becomes a digest
ADDRESSES = st.sampled_from(["10.0.0.1", "10.0.0.2", "::1"])
BOUNDED = hypothesis_settings(max_examples=15, stateful_step_count=25, deadline=None)


class SignIns(RuleBasedStateMachine):
    def __init__(self):
        super().__init__()
        flush_test_redis()
        self.now = 1_800_000_000.0
        self.recent: list[tuple[str, str]] = []  # newest first
        self.counts: dict[str, int] = {}
        self.failures: dict[str, list[float]] = {}  # window key -> failure times

    @rule(user=USERS, address=ADDRESSES)
    def sign_in(self, user, address):
        signins.record_signin(user, address, datetime.fromtimestamp(self.now, UTC))
        self.recent = [(user, address), *self.recent][: settings.SIGNINS_KEPT]
        self.counts[user] = self.counts.get(user, 0) + 1

    @rule(user=USERS, address=ADDRESSES, right_password=st.booleans())
    def attempt(self, user, address, right_password):
        windows = [keys.failed_signins_user(user, address), keys.failed_signins_address(address)]
        limits = dict(zip(windows, (settings.SIGNIN_FAILURE_LIMIT, settings.SIGNIN_ADDRESS_FAILURE_LIMIT), strict=True))
        window = settings.SIGNIN_FAILURE_WINDOW
        for key in windows:
            self.failures[key] = [t for t in self.failures.get(key, []) if t > self.now - window]
        allowed = all(len(self.failures[key]) < limits[key] for key in windows)
        attempt = signins.take_signin_attempt(user, address, now=self.now)
        assert attempt.allowed == allowed, (attempt, self.failures)
        if not allowed:
            oldest = min(min(self.failures[k]) for k in windows if len(self.failures[k]) >= limits[k])
            assert abs(attempt.retry_after - (oldest + window - self.now)) < 0.002
            return
        for key in windows:
            self.failures[key].append(self.now)
        if right_password:
            signins.release_signin_attempt(attempt)
            self.failures[windows[0]] = []
            self.failures[windows[1]].remove(self.now)

    @rule(seconds=st.sampled_from([0.001, 1, 60, 299, 301]))
    def time_passes(self, seconds):
        self.now += seconds

    @invariant()
    def the_core_invariants_hold(self):
        assert violations(["core"]) == []

    @invariant()
    def redis_agrees_with_the_model(self):
        recent, counts, length = signins.signin_records()
        assert [(s.username, s.address) for s in recent] == self.recent
        assert length == len(self.recent)
        for user, count in self.counts.items():
            assert client().zscore(keys.signins_count(), user) == count
        window_ms = settings.SIGNIN_FAILURE_WINDOW * 1000
        for key, times in self.failures.items():
            live = [t for t in times if t > self.now - settings.SIGNIN_FAILURE_WINDOW]
            held = client().zcount(key, f"({int(self.now * 1000) - window_ms}", "+inf")
            assert held == len(live), (key, held, live)


class CorePropertiesTest(RedisMixin, SimpleTestCase):
    @override_settings(SIGNINS_KEPT=4, SIGNIN_FAILURE_LIMIT=3, SIGNIN_ADDRESS_FAILURE_LIMIT=5)
    def test_sign_ins_and_the_failure_limit_follow_the_model(self):
        run_state_machine_as_test(SignIns, settings=BOUNDED)
