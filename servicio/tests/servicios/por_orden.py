"""La referencia, salvo que deduplica por order_id: con cualquier key, la key
que guarda es la orden. Pasa la flota (una key por orden) y falla donde otra
key para la misma orden debe ser otro cargo (reintento-mismo-cargo).
"""

import referencia
from comun import serve


def charge(key, order_id, amount):
    if key is not None:
        key = "orden:" + order_id
    return referencia.charge(key, order_id, amount)


if __name__ == "__main__":
    serve(charge)
