"""La referencia, salvo que el proceso termina (estado 3) en la primera
request con Idempotency-Key: la flota «antes» (sin key) termina y la
«después» no, así que no hay tabla del antes y el después.
"""

import os

import referencia
from comun import serve


def charge(key, order_id, amount):
    if key is not None:
        print("me caigo con la primera key", flush=True)
        os._exit(3)
    return referencia.charge(key, order_id, amount)


if __name__ == "__main__":
    serve(charge)
