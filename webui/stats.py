"""The statistics dashboards under ``/stats``."""

from __future__ import annotations

from flask import Blueprint

bp = Blueprint("stats", __name__, url_prefix="/stats")
