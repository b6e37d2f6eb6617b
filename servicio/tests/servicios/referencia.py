"""Servicio de pagos de referencia en Python (biblioteca estándar): el store
de idempotencia en SQLite dentro de DATA_DIR, la key reclamada de forma
atómica ANTES de llamar al procesador (INSERT OR IGNORE), WAL y
busy_timeout para que dos instancias compartan el archivo.

    PORT=8000 DATA_DIR=/tmp/d PROCESSOR_URL=http://127.0.0.1:9000 python3 referencia.py
"""

import json
import os
import sqlite3

from comun import DATA_DIR, Answer, charge_now, serve


def connect():
    conn = sqlite3.connect(
        os.path.join(DATA_DIR, "pagos.db"), timeout=30, isolation_level=None
    )
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("PRAGMA busy_timeout=30000")
    # WAL: a commit survives a killed process without an fsync per commit.
    conn.execute("PRAGMA synchronous=NORMAL")
    return conn


# Abierta toda la vida del proceso: al cerrarse la última conexión a una
# base WAL, SQLite la vuelca y borra el WAL (un fsync por request si cada
# request cerrara la única).
_keeper = connect()
with _keeper as c:
    c.execute(
        "CREATE TABLE IF NOT EXISTS idempotencia ("
        " key TEXT PRIMARY KEY, order_id TEXT NOT NULL, amount_cents INTEGER NOT NULL,"
        " estado TEXT NOT NULL, respuesta TEXT)"
    )


def charge(key, order_id, amount):
    if key is None:
        return 201, charge_now(order_id, amount)
    conn = connect()
    try:
        claimed = conn.execute(
            "INSERT OR IGNORE INTO idempotencia (key, order_id, amount_cents, estado)"
            " VALUES (?, ?, ?, 'en_curso')",
            (key, order_id, amount),
        ).rowcount
        if not claimed:
            row = conn.execute(
                "SELECT order_id, amount_cents, estado, respuesta FROM idempotencia WHERE key = ?",
                (key,),
            ).fetchone()
            if (row[0], row[1]) != (order_id, amount):
                raise Answer(422, "esta key ya se usó con otra solicitud")
            if row[2] == "en_curso":
                raise Answer(409, "esta key está en curso; reintenta más tarde")
            return 200, json.loads(row[3])
        try:
            result = charge_now(order_id, amount)
        except Exception:
            conn.execute("DELETE FROM idempotencia WHERE key = ?", (key,))
            raise Answer(502, "el procesador no respondió")
        conn.execute(
            "UPDATE idempotencia SET estado = 'hecho', respuesta = ? WHERE key = ?",
            (json.dumps(result), key),
        )
        return 201, result
    finally:
        conn.close()


if __name__ == "__main__":
    serve(charge)
