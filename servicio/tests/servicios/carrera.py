"""Servicio equivocado: busca la key, cobra y después guarda (SQLite en
DATA_DIR, pero sin reclamo atómico): dos reintentos a la vez cobran los dos."""

import json
import os
import sqlite3

from comun import DATA_DIR, Answer, charge_now, serve


def connect():
    conn = sqlite3.connect(os.path.join(DATA_DIR, "pagos.db"), timeout=30, isolation_level=None)
    conn.execute("PRAGMA journal_mode=WAL")
    return conn


with connect() as c:
    c.execute(
        "CREATE TABLE IF NOT EXISTS idem (key TEXT PRIMARY KEY, order_id TEXT,"
        " amount_cents INTEGER, respuesta TEXT)"
    )


def charge(key, order_id, amount):
    if key is None:
        return 201, charge_now(order_id, amount)
    conn = connect()
    try:
        row = conn.execute(
            "SELECT order_id, amount_cents, respuesta FROM idem WHERE key = ?", (key,)
        ).fetchone()
        if row is not None:
            if (row[0], row[1]) != (order_id, amount):
                raise Answer(422, "otra solicitud con esta key")
            return 200, json.loads(row[2])
        result = charge_now(order_id, amount)  # la ventana
        conn.execute(
            "INSERT OR REPLACE INTO idem VALUES (?, ?, ?, ?)",
            (key, order_id, amount, json.dumps(result)),
        )
        return 201, result
    finally:
        conn.close()


if __name__ == "__main__":
    serve(charge)
