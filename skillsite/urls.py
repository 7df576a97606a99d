from django.urls import path

from mcpapi import views

urlpatterns = [
    path("healthz", views.healthz, name="healthz"),
]
