from django.urls import path

from school import views

app_name = "school"

# The three entities share their list, form and delete views, told apart by ``entity``; relation
# changes (assign, enrol, hold ...) share one view, told apart by ``side`` and the action in the path.
COURSE, INSTRUCTOR, STUDENT = {"entity": "course"}, {"entity": "instructor"}, {"entity": "student"}

urlpatterns = [
    path("courses/", views.entity_list, COURSE, name="course_list"),
    path("courses/add/", views.entity_add, COURSE, name="course_add"),
    path("courses/delete/", views.entity_bulk_delete, COURSE, name="course_bulk_delete"),
    path("courses/<id:pk>/", views.course_detail, name="course_detail"),
    path("courses/<id:pk>/edit/", views.entity_edit, COURSE, name="course_edit"),
    path("courses/<id:pk>/delete/", views.entity_delete, COURSE, name="course_delete"),
    path("courses/<id:pk>/<slug:action>/", views.relation, {"side": "course"}, name="course_relation"),
    path("instructors/", views.entity_list, INSTRUCTOR, name="instructor_list"),
    path("instructors/add/", views.entity_add, INSTRUCTOR, name="instructor_add"),
    path("instructors/delete/", views.entity_bulk_delete, INSTRUCTOR, name="instructor_bulk_delete"),
    path("instructors/<id:pk>/", views.person_detail, INSTRUCTOR, name="instructor_detail"),
    path("instructors/<id:pk>/edit/", views.entity_edit, INSTRUCTOR, name="instructor_edit"),
    path("instructors/<id:pk>/delete/", views.entity_delete, INSTRUCTOR, name="instructor_delete"),
    path("instructors/<id:pk>/<slug:action>/", views.relation, {"side": "instructor"}, name="instructor_relation"),
    path("students/", views.entity_list, STUDENT, name="student_list"),
    path("students/add/", views.entity_add, STUDENT, name="student_add"),
    path("students/delete/", views.entity_bulk_delete, STUDENT, name="student_bulk_delete"),
    path("students/enrol/", views.student_bulk_enrol, name="student_bulk_enrol"),
    path("students/<id:pk>/", views.person_detail, STUDENT, name="student_detail"),
    path("students/<id:pk>/edit/", views.entity_edit, STUDENT, name="student_edit"),
    path("students/<id:pk>/delete/", views.entity_delete, STUDENT, name="student_delete"),
    path("students/<id:pk>/<slug:action>/", views.relation, {"side": "student"}, name="student_relation"),
    path("find/<slug:picker>/<id:pk>/", views.find, name="find"),
    path("algebra/", views.algebra, name="algebra"),
]
