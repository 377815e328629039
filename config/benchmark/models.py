"""The e-book's normalized schema as Django models, for the ORM side of the benchmark.

Unmanaged (the tables are created by the same DDL the hand-written SQL side
uses, ``schema`` in each app's ``benchmark.py``) and imported only while the
benchmark runs, so they never reach the project's migrations. They are what a
Django team would write for these tables: foreign keys, composite keys where
the table has one, and ``related_name`` for the reverse lookups.
"""

# ruff: noqa: DJ001, DJ008  (nullable TEXT mirrors the SQL schema; no model here is ever shown)
from __future__ import annotations

from django.db import models


class Base(models.Model):
    class Meta:
        abstract = True
        managed = False
        app_label = "config"


class Product(Base):
    type = models.TextField()
    name = models.TextField()
    brand = models.TextField()
    sku = models.TextField(unique=True)
    model = models.TextField(null=True)
    price_cents = models.IntegerField(null=True)
    created_at = models.FloatField()

    class Meta(Base.Meta):
        db_table = "products"


class ProductDetails(Base):
    product = models.OneToOneField(Product, models.DO_NOTHING, primary_key=True, related_name="details")
    description = models.TextField(null=True)
    manufacturer = models.TextField(null=True)
    dimensions = models.TextField(null=True)
    weight = models.TextField(null=True)
    image = models.TextField(null=True)

    class Meta(Base.Meta):
        db_table = "product_details"


class ProductImage(Base):
    pk = models.CompositePrimaryKey("product_id", "position")
    product = models.ForeignKey(Product, models.DO_NOTHING, related_name="images")
    position = models.IntegerField()
    url = models.TextField()

    class Meta(Base.Meta):
        db_table = "product_images"


class Review(Base):
    product = models.ForeignKey(Product, models.DO_NOTHING, related_name="reviews")
    author = models.TextField()
    rating = models.IntegerField()
    comment = models.TextField()
    published_at = models.FloatField()

    class Meta(Base.Meta):
        db_table = "product_reviews"


_type_models: dict[str, type[models.Model]] = {}


def type_table(slug: str, field_names: tuple[str, ...]) -> type[models.Model]:
    """The table of one product type's own fields (class-table inheritance), built once per type."""
    if slug not in _type_models:
        attrs = {
            "__module__": __name__,
            "product": models.OneToOneField(Product, models.DO_NOTHING, primary_key=True, related_name=f"as_{slug}"),
            "Meta": type("Meta", (Base.Meta,), {"db_table": f"product_{slug}"}),
            **{name: models.TextField(null=True) for name in field_names},
        }
        _type_models[slug] = type(f"Product_{slug}", (Base,), attrs)
    return _type_models[slug]


class Post(Base):
    title = models.TextField()
    body = models.TextField()
    author = models.TextField()
    status = models.TextField()
    last_saved_by = models.TextField()
    created_at = models.FloatField()
    updated_at = models.FloatField()
    version = models.IntegerField()
    comment = models.TextField()

    class Meta(Base.Meta):
        db_table = "posts"


class Comment(Base):
    post = models.ForeignKey(Post, models.DO_NOTHING, related_name="comments")
    author = models.TextField()
    text = models.TextField()
    at = models.FloatField()

    class Meta(Base.Meta):
        db_table = "comments"


class Revision(Base):
    pk = models.CompositePrimaryKey("post_id", "version")
    post = models.ForeignKey(Post, models.DO_NOTHING, related_name="revisions")
    version = models.IntegerField()
    title = models.TextField()
    body = models.TextField()
    author = models.TextField()
    status = models.TextField()
    saved_by = models.TextField()
    saved_at = models.FloatField()
    comment = models.TextField()

    class Meta(Base.Meta):
        db_table = "revisions"


class Course(Base):
    code = models.TextField(unique=True)
    title = models.TextField()
    capacity = models.IntegerField()

    class Meta(Base.Meta):
        db_table = "courses"


class Instructor(Base):
    name = models.TextField()
    email = models.TextField()

    class Meta(Base.Meta):
        db_table = "instructors"


class Student(Base):
    name = models.TextField()
    email = models.TextField()

    class Meta(Base.Meta):
        db_table = "students"


class Teaching(Base):
    pk = models.CompositePrimaryKey("course_id", "instructor_id")
    course = models.ForeignKey(Course, models.DO_NOTHING, related_name="teaching")
    instructor = models.ForeignKey(Instructor, models.DO_NOTHING, related_name="teaching")

    class Meta(Base.Meta):
        db_table = "courses_instructors"


class Enrollment(Base):
    pk = models.CompositePrimaryKey("course_id", "student_id")
    course = models.ForeignKey(Course, models.DO_NOTHING, related_name="enrollments")
    student = models.ForeignKey(Student, models.DO_NOTHING, related_name="enrollments")

    class Meta(Base.Meta):
        db_table = "enrollments"


class Location(Base):
    name = models.TextField(unique=True)

    class Meta(Base.Meta):
        db_table = "locations"


class Employee(Base):
    name = models.TextField()
    title = models.TextField()
    manager = models.ForeignKey("self", models.DO_NOTHING, null=True, related_name="reports")
    location = models.ForeignKey(Location, models.DO_NOTHING, null=True, related_name="staff")
    full_time = models.IntegerField()

    class Meta(Base.Meta):
        db_table = "employees"


class Reading(Base):
    pk = models.CompositePrimaryKey("location_id", "ts")
    location = models.ForeignKey(Location, models.DO_NOTHING, related_name="readings")
    ts = models.BigIntegerField()
    temperature = models.FloatField()

    class Meta(Base.Meta):
        db_table = "temperature_readings"
