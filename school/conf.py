"""The school's tunable limits, read from Django settings (a deployment or a test may change them)."""

from django.conf import settings

DEFAULTS = {
    "SCHOOL_MAX_INSTRUCTORS_PER_COURSE": 5,
    "SCHOOL_MAX_COURSES_PER_INSTRUCTOR": 10,
    "SCHOOL_MAX_COURSES_PER_STUDENT": 8,
    "SCHOOL_HOLD_SECONDS": 600,
    "SCHOOL_ALGEBRA_TTL": 60,
}


def get(name: str) -> int:
    return getattr(settings, name, DEFAULTS[name])


def max_instructors_per_course() -> int:
    return get("SCHOOL_MAX_INSTRUCTORS_PER_COURSE")


def max_courses_per_instructor() -> int:
    return get("SCHOOL_MAX_COURSES_PER_INSTRUCTOR")


def max_courses_per_student() -> int:
    return get("SCHOOL_MAX_COURSES_PER_STUDENT")


def hold_seconds() -> int:
    return get("SCHOOL_HOLD_SECONDS")


def algebra_ttl() -> int:
    return get("SCHOOL_ALGEBRA_TTL")
