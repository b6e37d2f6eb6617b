#!/usr/bin/env python3
"""El modelo de objetos de la lección 2, tal cual, como referencia de velocidad.

PaymentsServer (ledger = lista, store = dict) y client_charge, copiados de la
lección; la flota se genera con random.Random(S) (montos randint(10, 500)) y
las pérdidas con random.Random(S + 1), como los 42 y 43 de la lección. Corre
los dos mundos (sin y con idempotencia) con las mismas semillas e imprime sus
cifras, para compararlas con `cargo run -p grader -- comparar --json`.

Uso: python3 scripts/bench/leccion2.py [--ordenes N] [--p-perdida P]
     [--max-intentos M] [--semilla S]
"""

import argparse
import collections
import json
import random
import time


class PaymentsServer:
    def __init__(self, idempotent):
        self.idempotent = idempotent
        self.ledger = []          # cargos ejecutados: (key, amount, charge_id)
        self.store = {}           # idempotency_key -> resultado guardado

    def charge(self, idempotency_key, order_id, amount):
        if self.idempotent and idempotency_key in self.store:
            return self.store[idempotency_key]        # replay
        charge_id = f"ch_{len(self.ledger) + 1:04d}"
        self.ledger.append((idempotency_key, amount, charge_id))
        result = {"charge_id": charge_id, "amount": amount, "status": "captured"}
        if self.idempotent:
            self.store[idempotency_key] = result
        return result

    def total_charged(self):
        return sum(amount for (_key, amount, _cid) in self.ledger)


def client_charge(server, rng, order_id, amount, idempotency_key,
                  p_response_lost, max_attempts):
    attempts = 0
    while attempts < max_attempts:
        attempts += 1
        result = server.charge(idempotency_key, order_id, amount)
        if rng.random() >= p_response_lost:
            return attempts, result
    return attempts, None


def run_world(amounts, idempotent, p, max_attempts, seed):
    """One world. The key is per operation (f"ord_{i}"), as in lesson 2's
    fleet: the world without idempotency ignores it anyway."""
    server = PaymentsServer(idempotent)
    rng = random.Random(seed + 1)
    attempts = 0
    unconfirmed = 0
    for i, amount in enumerate(amounts, start=1):
        key = f"ord_{i}"
        n, result = client_charge(server, rng, i, amount, key, p, max_attempts)
        attempts += n
        if result is None:
            unconfirmed += 1
    charges_per_order = collections.Counter(key for (key, _a, _c) in server.ledger)
    intended = sum(amounts)
    charged = server.total_charged()
    return {
        "intentos": attempts,
        "cargos_en_el_ledger": len(server.ledger),
        "ordenes_cobradas_2_o_mas_veces": sum(1 for c in charges_per_order.values() if c >= 2),
        "ordenes_sin_confirmar": unconfirmed,
        "total_cobrado": charged,
        "sobrecobro": charged - intended,
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ordenes", type=int, default=1000)
    parser.add_argument("--p-perdida", type=float, default=0.15)
    parser.add_argument("--max-intentos", type=int, default=4)
    parser.add_argument("--semilla", type=int, default=42)
    args = parser.parse_args()
    start = time.perf_counter()
    rng = random.Random(args.semilla)
    amounts = [rng.randint(10, 500) for _ in range(args.ordenes)]
    before = run_world(amounts, False, args.p_perdida, args.max_intentos, args.semilla)
    after = run_world(amounts, True, args.p_perdida, args.max_intentos, args.semilla)
    elapsed = time.perf_counter() - start
    print(json.dumps({
        "ordenes": args.ordenes,
        "intencion": sum(amounts),
        "antes": before,
        "despues": after,
        "segundos": round(elapsed, 3),
    }, ensure_ascii=False))


if __name__ == "__main__":
    main()
