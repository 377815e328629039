from django.urls import path

from orgchart import views

app_name = "orgchart"
urlpatterns = [
    path("employees/", views.employee_list, name="employee_list"),
    path("employees/add/", views.employee_form, name="employee_add"),
    path("employees/suggest/", views.employee_suggest, name="employee_suggest"),
    path("employees/<id:pk>/", views.employee_detail, name="employee_detail"),
    path("employees/<id:pk>/chain/", views.employee_chain, name="employee_chain"),
    path("employees/<id:pk>/edit/", views.employee_form, name="employee_edit"),
    path("employees/<id:pk>/move/", views.employee_move, name="employee_move"),
    path("employees/<id:pk>/delete/", views.employee_delete, name="employee_delete"),
    path("tree/", views.tree, name="tree"),
    path("tree/<id:pk>/children/", views.tree_children, name="tree_children"),
    path("path/", views.path_finder, name="path"),
    path("locations/", views.location_list, name="location_list"),
    path("locations/add/", views.location_form, name="location_add"),
    path("locations/<id:pk>/", views.location_detail, name="location_detail"),
    path("locations/<id:pk>/edit/", views.location_form, name="location_edit"),
    path("locations/<id:pk>/delete/", views.location_delete, name="location_delete"),
]
