from django.urls import path

from school import views

app_name = "school"


def _entity_urls(entity: str, plural: str, detail):
    kw = {"entity": entity}
    return [
        path(f"{plural}/", views.entity_list, kw, name=f"{entity}_list"),
        path(f"{plural}/add/", views.entity_add, kw, name=f"{entity}_add"),
        path(f"{plural}/delete/", views.entity_bulk_delete, kw, name=f"{entity}_bulk_delete"),
        path(f"{plural}/<id:pk>/", detail, kw if detail is views.person_detail else {}, name=f"{entity}_detail"),
        path(f"{plural}/<id:pk>/edit/", views.entity_edit, kw, name=f"{entity}_edit"),
        path(f"{plural}/<id:pk>/delete/", views.entity_delete, kw, name=f"{entity}_delete"),
        path(f"{plural}/<id:pk>/<slug:action>/", views.relation, {"side": entity}, name=f"{entity}_relation"),
    ]


urlpatterns = [
    *_entity_urls("course", "courses", views.course_detail),
    *_entity_urls("instructor", "instructors", views.person_detail),
    *_entity_urls("student", "students", views.person_detail),
    path("find/<slug:picker>/<id:pk>/", views.find, name="find"),
    path("algebra/", views.algebra, name="algebra"),
]
