"""The logs never carry a share or invitation link's token (config/logfilters.py):
the development server's access log wrote every address whole."""

from __future__ import annotations

import io
import logging

from config.logfilters import HideSecrets, hide_secrets


def test_every_line_through_the_sites_handler_hides_the_links_tokens() -> None:
    (handler,) = [h for h in logging.getLogger().handlers
                  if any(isinstance(f, HideSecrets) for f in h.filters)]
    assert isinstance(handler, logging.StreamHandler)
    written = io.StringIO()
    before = handler.setStream(written)
    try:
        # as daphne's runserver writes its access log
        logging.getLogger("django.channels.server").warning(
            "HTTP %(method)s %(path)s %(status)s", {
                "method": "GET", "status": 404,
                "path": "/replays/games/g/?perspective=seat-0&token=s3cr3t&step=2"})
        logging.getLogger("django.channels.server").warning(
            "WebSocket CONNECT %(path)s", {"path": "/ws/tables/t/?INVITE=inv1t3"})
    finally:
        handler.setStream(before)
    lines = written.getvalue()
    assert "s3cr3t" not in lines and "inv1t3" not in lines
    assert "?perspective=seat-0&token=[hidden]&step=2 404" in lines
    assert "/ws/tables/t/?INVITE=[hidden]" in lines


def test_only_the_secret_parameters_values_are_hidden() -> None:
    assert hide_secrets("GET /x/?tokens=1&a_token=2&token=3;invite=4#f") == (
        "GET /x/?tokens=1&a_token=2&token=[hidden];invite=[hidden]#f")
    assert hide_secrets("no query here: token=5") == "no query here: token=5"
    record = logging.LogRecord("x", logging.INFO, __file__, 1, "%s and %d%%",
                               ("/t/?token=abc", 5), None)
    assert HideSecrets().filter(record) and record.getMessage() == "/t/?token=[hidden] and 5%"
