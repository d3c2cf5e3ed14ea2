"""The games list and the replay pages."""

from __future__ import annotations

from flask import Blueprint

bp = Blueprint("games", __name__)
