"""Issue 5: real HEC clients from PyPI, and the exact request shapes of the OpenTelemetry
Collector, Vector and Fluent Bit (../shared/SPLUNK.md §1.10), sent to Lode's HTTP Event Collector
over TLS (the generated self-signed certificate, not verified, as these clients allow)."""

import gzip
import json
import logging
import time
import uuid

import requests
import urllib3

from conftest import ACK_TOKEN, BASIC_TOKEN, TOKEN

urllib3.disable_warnings()


def logger(name, handler):
    log = logging.getLogger(name)
    log.propagate = False
    log.setLevel(logging.INFO)
    log.handlers = [handler]
    return log


def test_splunk_handler_immediate_and_batched(lode):
    from splunk_handler import SplunkHandler

    now = SplunkHandler(
        host=lode.hec_host, port=lode.hec_port, token=TOKEN, index="main",
        sourcetype="py_logging", source="compat.py", verify=False, flush_interval=0,
    )
    log = logger("compat.now", now)
    for i in range(5):
        log.info("splunkhandlerimmediate event %d", i)
    # Batched: the handler concatenates its queued JSON objects into one request.
    batched = SplunkHandler(
        host=lode.hec_host, port=lode.hec_port, token=TOKEN, index="main",
        sourcetype="py_logging", verify=False, flush_interval=0.2,
    )
    log = logger("compat.batched", batched)
    for i in range(20):
        log.warning("splunkhandlerbatched event %d", i)
    batched.force_flush()
    assert lode.wait_count("splunkhandlerimmediate", 5) == 5
    assert lode.wait_count("splunkhandlerbatched", 20) == 20
    rows = lode.search("splunkhandlerimmediate | head 1 | table sourcetype source index")
    assert rows[0]["sourcetype"] == "py_logging"
    assert rows[0]["source"] == "compat.py"
    assert rows[0]["index"] == "main"
    batched.close()
    now.close()


def test_splunk_hec_handler_event_fields_and_raw(lode):
    from splunk_hec_handler import SplunkHecHandler

    h = SplunkHecHandler(
        lode.hec_host, TOKEN, port=lode.hec_port, proto="https", ssl_verify=lode.cert,
        sourcetype="pyhec", index="main", hostname="pyhost",
    )
    log = logger("compat.hec", h)
    log.info({"msg": "splunkhechandler dict", "fields": {"team": "core", "attempt": 3}})
    log.info("splunkhechandler plain text")
    assert lode.wait_count("splunkhechandler", 2) == 2
    rows = lode.search("splunkhechandler dict | table host sourcetype team attempt")
    assert rows == [{"host": "pyhost", "sourcetype": "pyhec", "team": "core", "attempt": "3"}]
    # `fields` became index-time fields: found through the term index.
    assert lode.count("team::core") == 1
    raw = SplunkHecHandler(
        lode.hec_host, TOKEN, port=lode.hec_port, proto="https", ssl_verify=False,
        endpoint="raw", sourcetype="pyraw",
    )
    logger("compat.raw", raw).info("splunkhecraw line")
    assert lode.wait_count("splunkhecraw", 1) == 1


def test_opentelemetry_collector_shape(lode):
    """splunkhecexporter: gzip once over 1500 bytes, concatenated objects with `fields`, keep-alive,
    a health probe without a token."""
    r = requests.get(lode.hec + "/services/collector/health", verify=False)
    assert (r.status_code, r.json()["code"]) == (200, 17)
    events = [
        {"time": 1700000000.123 + i, "host": "otel-host", "source": "otel", "sourcetype": "otel",
         "index": "main", "event": f"otelshape log line {i} " + "x" * 50,
         "fields": {"otel.log.severity.text": "INFO", "service.name": "checkout"}}
        for i in range(40)
    ]
    body = "".join(json.dumps(e) for e in events).encode()
    assert len(body) > 1500
    r = requests.post(
        lode.hec + "/services/collector",
        data=gzip.compress(body),
        headers={"Authorization": f"Splunk {TOKEN}", "Content-Type": "application/json",
                 "Content-Encoding": "gzip", "Connection": "keep-alive",
                 "User-Agent": "OpenTelemetry Collector Contrib/0.160.0",
                 "__splunk_app_name": "OpenTelemetry Collector Contrib",
                 "__splunk_app_version": "0.160.0"},
        verify=False,
    )
    assert (r.status_code, r.json()) == (200, {"text": "Success", "code": 0})
    assert lode.count("otelshape") == 40
    rows = lode.search("otelshape line 0 | table _time service.name")
    assert rows[0]["service.name"] == "checkout"
    assert len(rows) == 1 and rows[0]["_time"].startswith("2023-11-14T22:13:20.123")


def test_vector_shape_with_acknowledgement(lode):
    """splunk_hec_logs: a channel on every request, `fields` always present, f64 time,
    `?auto_extract_timestamp=true`, then `/ack` polling with {"acks": [...]}."""
    channel = str(uuid.uuid4())
    headers = {"Authorization": f"Splunk {ACK_TOKEN}", "Content-Type": "application/json",
               "X-Splunk-Request-Channel": channel}
    ids = []
    for batch in range(3):
        body = "".join(json.dumps({"event": f"vectorshape batch {batch} n {i}", "fields": {},
                                   "time": 1700000100.5, "host": "vec", "index": "main",
                                   "source": "vector", "sourcetype": "vector"})
                       for i in range(10))
        r = requests.post(lode.hec + "/services/collector/event?auto_extract_timestamp=true",
                          data=body, headers=headers, verify=False)
        assert r.status_code == 200, r.text
        ids.append(r.json()["ackId"])
    assert ids == [0, 1, 2]
    done = set()
    deadline = time.time() + 60
    while len(done) < 3 and time.time() < deadline:
        r = requests.post(lode.hec + "/services/collector/ack", json={"acks": ids},
                          headers=headers, verify=False)
        assert r.status_code == 200, r.text
        done |= {int(k) for k, v in r.json()["acks"].items() if v}
        time.sleep(0.05)
    assert done == {0, 1, 2}
    assert lode.count("vectorshape") == 30
    # Raw target with metadata in the query string, the channel in the header.
    r = requests.post(lode.hec + "/services/collector/raw?source=vector&sourcetype=vecraw&index=main&host=vec",
                      data="vectorraw one\nvectorraw two\n", headers=headers, verify=False)
    assert r.status_code == 200 and "ackId" in r.json(), r.text
    assert lode.wait_count("vectorraw", 1) >= 1
    # Health as Vector probes it: with the token.
    r = requests.get(lode.hec + "/services/collector/health/1.0", headers=headers, verify=False)
    assert r.json()["code"] == 17


def test_fluent_bit_shape(lode):
    """out_splunk: Basic auth with the token as password, no Content-Type, gzip, record maps as
    `event` objects with a double `time`."""
    records = [{"time": 1700000200.25 + i, "event": {"log": f"fluentbitshape record {i}", "stream": "stdout"},
                "sourcetype": "fluentbit"} for i in range(7)]
    body = gzip.compress("".join(json.dumps(r) for r in records).encode())
    r = requests.post(lode.hec + "/services/collector/event", data=body,
                      headers={"User-Agent": "Fluent-Bit", "Content-Encoding": "gzip", "Content-Type": None},
                      auth=("fluentbit", BASIC_TOKEN), verify=False)
    assert (r.status_code, r.json()["code"]) == (200, 0)
    assert lode.count("fluentbitshape") == 7
    rows = lode.search("fluentbitshape | head 1 | table stream sourcetype")
    assert rows == [{"stream": "stdout", "sourcetype": "fluentbit"}]


def test_errors_seen_by_clients(lode):
    url = lode.hec + "/services/collector/event"
    def post(data, **headers):
        return requests.post(url, data=data, headers=headers, verify=False)
    r = post('{"event":"x"}')
    assert (r.status_code, r.json()) == (401, {"text": "Token is required", "code": 2})
    r = post('{"event":"x"}', Authorization="Splunk nope")
    assert (r.status_code, r.json()["code"]) == (403, 4)
    r = post('{"event":"x"}{"event"', Authorization=f"Splunk {TOKEN}")
    assert (r.status_code, r.json()) == (400, {"text": "Invalid data format", "code": 6, "invalid-event-number": 1})
    r = post('{"event":"x"}', Authorization=f"Splunk {ACK_TOKEN}")
    assert (r.status_code, r.json()["code"]) == (400, 10)
