"""The school's tunable limits, read from Django settings (a deployment or a test may change them)."""

from functools import partial

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


max_instructors_per_course = partial(get, "SCHOOL_MAX_INSTRUCTORS_PER_COURSE")
max_courses_per_instructor = partial(get, "SCHOOL_MAX_COURSES_PER_INSTRUCTOR")
max_courses_per_student = partial(get, "SCHOOL_MAX_COURSES_PER_STUDENT")
hold_seconds = partial(get, "SCHOOL_HOLD_SECONDS")
algebra_ttl = partial(get, "SCHOOL_ALGEBRA_TTL")
