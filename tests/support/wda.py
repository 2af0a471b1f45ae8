"""Raw WebDriverAgent requests for the simulator tests: routes and bodies the facebook-wda client
cannot send (or would retry), straight over HTTP."""

from __future__ import annotations

import http.client
import json
from typing import Any

from trailblaze_sim.server.wda import WdaSimServer


def raw_wda(server: WdaSimServer, method: str, path: str, body: Any = None) -> tuple[int, dict[str, Any]]:
    """`(HTTP status, decoded JSON body)` of one request to `server`."""
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=5)
    try:
        data = json.dumps(body) if body is not None else None
        conn.request(method, path, data, {"Content-Type": "application/json"} if data else {})
        resp = conn.getresponse()
        return resp.status, json.loads(resp.read())
    finally:
        conn.close()


def get_with_host(port: int, path: str, host: str | None) -> tuple[int, bytes]:
    """`(HTTP status, body)` of a GET to any simulator HTTP server on `port`, sent with the `Host`
    header given (None: none at all), as a DNS-rebound web page or a hand-made client would."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
    try:
        conn.putrequest("GET", path, skip_host=True)
        if host is not None:
            conn.putheader("Host", host)
        conn.endheaders()
        answer = conn.getresponse()
        return answer.status, answer.read()
    finally:
        conn.close()
