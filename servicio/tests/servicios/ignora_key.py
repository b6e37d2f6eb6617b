"""Servicio equivocado: ignora la Idempotency-Key (cada POST cobra)."""

from comun import charge_now, serve


def charge(key, order_id, amount):
    return 201, charge_now(order_id, amount)


if __name__ == "__main__":
    serve(charge)
