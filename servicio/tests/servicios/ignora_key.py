"""Servicio equivocado: ignora la Idempotency-Key (cada POST cobra)."""

from comun import call_processor, serve


def charge(key, order_id, amount):
    charge_id = call_processor(order_id, amount)
    return 201, {"charge_id": charge_id, "order_id": order_id, "amount_cents": amount}


if __name__ == "__main__":
    serve(charge)
