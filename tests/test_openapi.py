"""The API's contract: ``GET /api/openapi.json`` is the document kept in docs/, and the
whole HTTP surface, fuzzed from it with schemathesis against a real server (waitress, as
in production), answers no 5xx, every error in the documented envelope, every answer as
its schema says, with the security headers.

The budget is fixed (a fixed seed: hypothesis derandomizes, as everywhere in the suite);
``RECORDER_API_FUZZ_EXAMPLES`` raises it for the long run of docs/testing.md.
"""

from __future__ import annotations

import gzip
import json
import os
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import schemathesis
from conftest import ROOT, Servers, make_game
from hypothesis import HealthCheck, settings
from schemathesis import GenerationMode
from schemathesis.checks import (
    content_type_conformance,
    negative_data_rejection,
    not_a_server_error,
    response_headers_conformance,
    response_schema_conformance,
    status_code_conformance,
)
from schemathesis.config import CheckConfig
from test_bounded import http

from recorder import storage
from recorder.ingest import import_upload
from recorder.tokens import create_token
from webui import openapi

EXAMPLES = int(os.environ.get("RECORDER_API_FUZZ_EXAMPLES", "25"))
"""Examples per operation and mode: 25 in CI (about two minutes for the 24 operations)."""


def test_the_served_document_is_the_one_in_docs(tmp_path: Path, start_server: Any) -> None:
    """docs/openapi.json is the service's own contract, written by the code that serves it:
    ``python -m webui.openapi > docs/openapi.json`` after a change to the API."""
    kept = (ROOT / "docs" / "openapi.json").read_text()
    assert kept == openapi.text(), "run: python -m webui.openapi > docs/openapi.json"
    url = start_server(tmp_path / "r.db")
    status, headers, body = http(url + "/api/openapi.json")
    assert status == 200 and headers["Content-Type"] == "application/json"
    assert body.decode() == kept


def test_the_document_names_every_address_the_app_routes(tmp_path: Path) -> None:
    import re

    from webui import create_app

    app = create_app({"TESTING": True, "DATABASE": str(tmp_path / "r.db")})
    documented = {(p, m.upper()) for p, item in openapi.document()["paths"].items()
                  for m in item}
    routed = set()
    for rule in app.url_map.iter_rules():
        if rule.endpoint in {"static", "stats.plotly_js"}:
            continue  # files of the pages
        address = re.sub(r"<(?:[a-z]+:)?([a-z_]+)>", r"{\1}", rule.rule)
        routed |= {(address, m) for m in rule.methods or () if m not in {"HEAD", "OPTIONS"}}
    assert routed == documented


def test_every_error_status_of_the_api_is_in_the_document() -> None:
    from webui.api import ERROR_STATUSES

    document = openapi.document()
    answered = {int(status) for item in document["paths"].values() for operation in
                item.values() for status in operation["responses"]}
    # 405 is the answer to a method an address does not take: said once, for all
    assert set(ERROR_STATUSES) - answered == {405}
    assert "405 (http/method-not-allowed" in document["info"]["description"]


# ---------------------------------------------------------------------------------------
# The fuzz.


@pytest.fixture(scope="module")
def service(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    """One server for the fuzz: a store with a few games, and an upload token (given to
    the operations that need one). Rate limits are off: every request comes from here."""
    folder = tmp_path_factory.mktemp("fuzz")
    db_path = folder / "fuzz.db"
    db = storage.connect(db_path)
    _, token = create_token(db, "fuzz", frontend="test-frontend")
    docs = [make_game(i) for i in range(4)]
    import_upload(db, "".join(json.dumps(d) + "\n" for d in docs).encode())
    db.close()
    servers = Servers(folder)
    url = servers(db_path, env={"RECORDER_RATELIMIT_ENABLED": "0"})
    seen: Counter[tuple[str, int]] = Counter()
    try:
        yield {"url": url, "token": token, "seen": seen, "players": [
            p["id"] for d in docs for p in d["players"]]}
    finally:
        servers.stop()
        statuses = Counter(status for (_, status) in seen.elements())
        print(f"\nAPI fuzz: {sum(seen.values())} requests, "
              f"statuses {dict(sorted(statuses.items()))}")
        assert not [s for s in statuses if s >= 500], statuses


# The bodies the API takes besides JSON: JSON Lines as text, gzip as the bytes it holds
schemathesis.serializer.alias("application/x-ndjson", "text/plain")


@schemathesis.serializer("application/gzip")
def _gzip(_: Any, value: Any) -> bytes:
    data = value if isinstance(value, bytes) else str(value).encode()
    return gzip.compress(data)


schema = schemathesis.openapi.from_dict(openapi.document())
if os.environ.get("RECORDER_API_FUZZ_ONLY"):  # "GET /api/games": one operation, to look closer
    _method, _, _path = os.environ["RECORDER_API_FUZZ_ONLY"].partition(" ")
    schema = schema.include(method=_method, path=_path)
schema.config.generation.update(modes=[GenerationMode.POSITIVE, GenerationMode.NEGATIVE],
                                max_examples=EXAMPLES)
# what breaks the schema is refused: 400 for what the request says, 404 for an address that
# names nothing, 413 for too much of it, 415 for an encoding
schema.config.checks.negative_data_rejection = CheckConfig(
    expected_statuses=[400, 401, 403, 404, 405, 413, 415, 429])

CHECKS = [not_a_server_error, status_code_conformance, content_type_conformance,
          response_schema_conformance, response_headers_conformance, negative_data_rejection]


@schema.parametrize()
@settings(max_examples=EXAMPLES, deadline=None,
          suppress_health_check=list(HealthCheck))
def test_the_whole_http_surface(case: Any, service: dict[str, Any]) -> None:
    headers = {}
    if case.operation.method.upper() == "POST" and case.operation.path == "/api/games":
        headers["Authorization"] = f"Bearer {service['token']}"
    response = case.call(base_url=service["url"], headers=headers, timeout=60)
    service["seen"][(case.operation.label, response.status_code)] += 1
    case.validate_response(response, checks=CHECKS)
    assert response.status_code < 500, response.text[:500]
    for name in ("content-security-policy", "x-content-type-options", "referrer-policy"):
        assert response.headers.get(name), (case.operation.label, name)
    if case.operation.path.startswith("/api/") and response.status_code >= 400:
        body = response.json()
        assert body["ok"] is False and body["status"] == response.status_code
        assert body["error"]["code"] and body["error"]["message"]
