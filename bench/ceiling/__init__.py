"""The ceiling: the cheapest Django answer gunicorn can serve, measured beside the registry.

A separate settings + urls module, loaded by gunicorn as `bench.ceiling.wsgi:application`
with the registry's own gunicorn.conf.py, so the product carries no bench code.
"""
