"""The statistics JSON API under ``/api/stats``, in the service's envelope."""

from __future__ import annotations

from flask import Blueprint

bp = Blueprint("api_stats", __name__, url_prefix="/api/stats")
