"""Lo común a los servicios de prueba de `grader servicio` (solo biblioteca
estándar): el servidor HTTP, la validación del cuerpo y la llamada al
procesador del kit. Cada servicio define su `charge(key, order_id, amount)`.

El contrato: docs/src/estudiantes/servicio.md.
"""

import json
import os
import sys
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

PROCESSOR_URL = os.environ.get("PROCESSOR_URL", "http://127.0.0.1:9")
DATA_DIR = os.environ.get("DATA_DIR", ".")


def call_processor(order_id, amount_cents):
    """Cobra de verdad: POST $PROCESSOR_URL/charges. Devuelve el charge_id."""
    body = json.dumps({"order_id": order_id, "amount_cents": amount_cents}).encode()
    req = urllib.request.Request(
        PROCESSOR_URL + "/charges",
        data=body,
        headers={"Content-Type": "application/json"},
        method="POST",
    )
    with urllib.request.urlopen(req, timeout=60) as resp:
        return json.loads(resp.read())["charge_id"]


def charge_now(order_id, amount_cents):
    """Cobra en el procesador y devuelve el cuerpo de la respuesta 201:
    {charge_id, order_id, amount_cents}."""
    charge_id = call_processor(order_id, amount_cents)
    return {"charge_id": charge_id, "order_id": order_id, "amount_cents": amount_cents}


class Answer(Exception):
    """Una respuesta que no es un cobro: (status, mensaje)."""

    def __init__(self, status, message):
        super().__init__(message)
        self.status = status
        self.message = message


def serve(charge):
    """Atiende PORT con `charge(key, order_id, amount_cents)` -> (status, dict)."""

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        # One write per answer, sent at once (without these, Nagle and the
        # client's delayed ACK cost 40 ms per request).
        wbufsize = -1
        disable_nagle_algorithm = True

        def log_message(self, *args):
            pass

        def reply(self, status, payload):
            data = json.dumps(payload).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            try:
                self.wfile.write(data)
            except OSError:
                pass  # el cliente se fue: el cobro (y lo guardado) no cambia

        def do_GET(self):
            if self.path == "/health":
                self.reply(200, {"ok": True})
            else:
                self.reply(404, {"error": "no existe"})

        def do_POST(self):
            if self.path != "/charges":
                self.reply(404, {"error": "no existe"})
                return
            length = int(self.headers.get("Content-Length") or 0)
            try:
                body = json.loads(self.rfile.read(length))
                order_id = body["order_id"]
                amount = body["amount_cents"]
                if not isinstance(order_id, str) or not isinstance(amount, int) or amount <= 0:
                    raise ValueError
            except (ValueError, KeyError, TypeError):
                self.reply(400, {"error": "se esperaba {order_id, amount_cents}"})
                return
            key = self.headers.get("Idempotency-Key")
            try:
                status, payload = charge(key, order_id, amount)
            except Answer as a:
                self.reply(a.status, {"error": a.message})
                return
            self.reply(status, payload)

    server = ThreadingHTTPServer(("127.0.0.1", int(os.environ["PORT"])), Handler)
    server.daemon_threads = True
    print(f"escuchando en el puerto {os.environ['PORT']}", file=sys.stderr)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
