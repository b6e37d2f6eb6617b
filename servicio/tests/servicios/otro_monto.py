"""Servicio equivocado: como la referencia, pero una key reusada con otro
monto devuelve el resultado guardado (o cobra) en vez de 422."""

import json

import referencia
from comun import Answer, charge_now, serve


def charge(key, order_id, amount):
    if key is None:
        return referencia.charge(key, order_id, amount)
    conn = referencia.connect()
    try:
        claimed = conn.execute(
            "INSERT OR IGNORE INTO idempotencia (key, order_id, amount_cents, estado)"
            " VALUES (?, ?, ?, 'en_curso')",
            (key, order_id, amount),
        ).rowcount
        if not claimed:
            row = conn.execute(
                "SELECT estado, respuesta FROM idempotencia WHERE key = ?", (key,)
            ).fetchone()
            if row[0] == "en_curso":
                raise Answer(409, "en curso")
            return 200, json.loads(row[1])  # sin mirar el cuerpo
        result = charge_now(order_id, amount)
        conn.execute(
            "UPDATE idempotencia SET estado = 'hecho', respuesta = ? WHERE key = ?",
            (json.dumps(result), key),
        )
        return 201, result
    finally:
        conn.close()


if __name__ == "__main__":
    serve(charge)
