"""Plantilla del proyecto final (lección 8): el servicio `payments` de
Mercado, en Python con solo la biblioteca estándar.

Así como está, cobra cada POST /charges (el mundo SIN idempotencia de la
lección 2): `grader servicio` te mostrará los $48,139 de sobrecobro. Tu
trabajo es el «después»: completa los TODO para que un reintento con la
misma Idempotency-Key no vuelva a cobrar, ni siquiera con dos reintentos a
la vez, con dos instancias del servicio o tras un reinicio.

El contrato completo: docs/src/estudiantes/servicio.md. Pruébalo con

    cargo run -p grader --features servicio -- servicio --carpeta plantilla-servicio

El kit te da en el entorno:
  PORT           el puerto donde escuchar (en 127.0.0.1)
  DATA_DIR       una carpeta vacía y solo tuya: tu base de datos va aquí
  PROCESSOR_URL  el procesador de tarjetas: POST $PROCESSOR_URL/charges
"""

import json
import os
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

PORT = int(os.environ["PORT"])
DATA_DIR = os.environ["DATA_DIR"]
PROCESSOR_URL = os.environ["PROCESSOR_URL"]


def call_processor(order_id, amount_cents):
    """Cobra de verdad (cada llamada cobra: el procesador no deduplica).
    Devuelve el charge_id."""
    body = json.dumps({"order_id": order_id, "amount_cents": amount_cents}).encode()
    req = urllib.request.Request(
        PROCESSOR_URL + "/charges",
        data=body,
        headers={"Content-Type": "application/json"},
        method="POST",
    )
    with urllib.request.urlopen(req, timeout=60) as resp:
        return json.loads(resp.read())["charge_id"]


def charge(key, order_id, amount_cents):
    """Devuelve (estado HTTP, cuerpo). `key` es la Idempotency-Key o None."""
    # TODO (lección 4): si `key` no es None:
    #   1. Reclama la key de forma ATÓMICA antes de cobrar, en una base de
    #      datos dentro de DATA_DIR (sqlite3: INSERT OR IGNORE / ON CONFLICT
    #      DO NOTHING, con PRAGMA journal_mode=WAL y busy_timeout), guardando
    #      también order_id y amount_cents.
    #   2. Si ya estaba: otro cuerpo -> 422; todavía en curso -> 409;
    #      terminada -> 200 con el resultado guardado, SIN llamar al procesador.
    #   3. Si la reclamaste tú: cobra, guarda el resultado y responde 201.
    charge_id = call_processor(order_id, amount_cents)
    return 201, {"charge_id": charge_id, "order_id": order_id, "amount_cents": amount_cents}


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    wbufsize = -1  # una sola escritura por respuesta
    disable_nagle_algorithm = True

    def reply(self, status, payload):
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        try:
            self.wfile.write(data)
        except OSError:
            pass  # el cliente se fue; el cobro ya ocurrió

    def do_GET(self):
        if self.path == "/health":
            self.reply(200, {"ok": True})
        else:
            self.reply(404, {"error": "no existe"})

    def do_POST(self):
        if self.path != "/charges":
            self.reply(404, {"error": "no existe"})
            return
        try:
            body = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)))
            order_id, amount = body["order_id"], body["amount_cents"]
            if not isinstance(order_id, str) or not isinstance(amount, int) or amount <= 0:
                raise ValueError
        except (ValueError, KeyError, TypeError):
            self.reply(400, {"error": "se esperaba {\"order_id\": \"ord_0001\", \"amount_cents\": 50000}"})
            return
        status, payload = charge(self.headers.get("Idempotency-Key"), order_id, amount)
        self.reply(status, payload)


if __name__ == "__main__":
    server = ThreadingHTTPServer(("127.0.0.1", PORT), Handler)
    server.daemon_threads = True
    server.serve_forever()
