app_name = "school"
urlpatterns = []
