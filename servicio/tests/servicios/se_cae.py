"""La referencia, salvo que el proceso termina (estado 7) en vez de responder
422: la única verificación que lo pide (otra-solicitud-422) lo ve morir; las
demás, con una instancia nueva, pasan.
"""

import os

import referencia
from comun import Answer, serve


def charge(key, order_id, amount):
    try:
        return referencia.charge(key, order_id, amount)
    except Answer as a:
        if a.status == 422:
            print("me caigo en vez de responder 422", flush=True)
            os._exit(7)
        raise


if __name__ == "__main__":
    serve(charge)
