"""Servicio equivocado: el store vive en memoria (un dict con un lock del
proceso). Pasa los reintentos dentro de un proceso; pierde todo en un
reinicio y no lo comparte con una segunda instancia."""

import threading

from comun import Answer, charge_now, serve

lock = threading.Lock()
store = {}


def charge(key, order_id, amount):
    if key is None:
        return 201, charge_now(order_id, amount)
    with lock:
        if key in store:
            body, result = store[key]
            if body != (order_id, amount):
                raise Answer(422, "otra solicitud con esta key")
            if result is None:
                raise Answer(409, "en curso")
            return 200, result
        store[key] = ((order_id, amount), None)
    result = charge_now(order_id, amount)
    with lock:
        store[key] = ((order_id, amount), result)
    return 201, result


if __name__ == "__main__":
    serve(charge)
