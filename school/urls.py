from django.urls import path

from school import views

app_name = "school"


def _entity(entity: str, detail) -> list:
    """The screens every entity has: list, add, bulk delete, detail, edit, delete, and its relation changes."""
    plural, kwargs = f"{entity}s", {"entity": entity}
    return [
        path(f"{plural}/", views.entity_list, kwargs, name=f"{entity}_list"),
        path(f"{plural}/add/", views.entity_add, kwargs, name=f"{entity}_add"),
        path(f"{plural}/delete/", views.entity_bulk_delete, kwargs, name=f"{entity}_bulk_delete"),
        path(f"{plural}/<id:pk>/", detail, {} if entity == "course" else kwargs, name=f"{entity}_detail"),
        path(f"{plural}/<id:pk>/edit/", views.entity_edit, kwargs, name=f"{entity}_edit"),
        path(f"{plural}/<id:pk>/delete/", views.entity_delete, kwargs, name=f"{entity}_delete"),
        path(f"{plural}/<id:pk>/<slug:action>/", views.relation, {"side": entity}, name=f"{entity}_relation"),
    ]


urlpatterns = [
    *_entity("course", views.course_detail),
    *_entity("instructor", views.person_detail),
    *_entity("student", views.person_detail),
    path("students/enrol/", views.student_bulk_enrol, name="student_bulk_enrol"),
    path("find/<slug:picker>/<id:pk>/", views.find, name="find"),
    path("algebra/", views.algebra, name="algebra"),
]
