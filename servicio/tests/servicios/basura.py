"""Servicio roto para las pruebas de robustez: /health responde 200, pero
POST /charges responde según el primer argumento:
  html    una página HTML con 200
  grande  un cuerpo de 2 MiB
  cortada cierra la conexión sin responder
  lenta   tarda 30 s en responder
  siempre409  responde 409 a todo, sin cobrar nunca
  huerfanos  deja dos procesos fuera de su grupo (una sesión propia, y un
          hijo de un shell que ya terminó) y responde sus pids en JSON
  saltarin  deja un proceso fuera de su grupo que cada 2 ms crea un hijo
          y termina (un «saltarín»: nunca es el mismo pid)
y con un cuerpo válido (cobra cada vez, como ignora_key.py), en otro
encuadre de HTTP/1.1 que el kit debe leer:
  chunked  Transfer-Encoding: chunked, en trozos de 7 bytes
  cierre   sin Content-Length: el cuerpo termina al cerrar la conexión
"""

import json
import os
import sys
import time

from comun import call_processor
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

MODE = sys.argv[1]

ORPHANS = []
if MODE == "huerfanos":
    import subprocess

    # Los segundos (un número raro, para encontrarlos): de HUERFANOS_SEG.
    seconds = int(os.environ.get("HUERFANOS_SEG", "987654"))
    ORPHANS.append(subprocess.Popen(["sleep", str(seconds)], start_new_session=True).pid)
    shell = subprocess.run(
        ["sh", "-c", "sleep %d >/dev/null 2>&1 & echo $!" % (seconds + 1)],
        capture_output=True,
        text=True,
        start_new_session=True,
    )
    ORPHANS.append(int(shell.stdout.strip()))
if MODE == "saltarin":
    if os.fork() == 0:
        os.setsid()
        while True:
            time.sleep(0.002)
            if os.fork() > 0:
                os._exit(0)


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def send(self, status, data, kind):
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self):
        self.send(200, b"ok", "text/plain")

    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)))
        if MODE in ("chunked", "cierre"):
            charge_id = call_processor(body["order_id"], body["amount_cents"])
            data = json.dumps(dict(body, charge_id=charge_id)).encode()
            self.send_response(201)
            self.send_header("Content-Type", "application/json")
            if MODE == "chunked":
                self.send_header("Transfer-Encoding", "chunked")
                self.end_headers()
                for i in range(0, len(data), 7):
                    piece = data[i : i + 7]
                    self.wfile.write(b"%x\r\n%s\r\n" % (len(piece), piece))
                self.wfile.write(b"0\r\n\r\n")
            else:
                self.send_header("Connection", "close")
                self.end_headers()
                self.wfile.write(data)
                self.close_connection = True
            return
        if MODE == "siempre409":
            self.send(409, b'{"error": "en curso"}', "application/json")
        elif MODE == "huerfanos":
            self.send(200, json.dumps({"pids": ORPHANS}).encode(), "application/json")
        elif MODE == "lenta":
            time.sleep(30)
            self.send(200, b"{}", "application/json")
        elif MODE == "html":
            self.send(200, b"<html><body><h1>Internal error</h1></body></html>", "text/html")
        elif MODE == "grande":
            self.send(200, b"x" * (2 * 1024 * 1024), "application/json")
        else:
            self.close_connection = True
            self.connection.shutdown(2)


ThreadingHTTPServer(("127.0.0.1", int(os.environ["PORT"])), Handler).serve_forever()
