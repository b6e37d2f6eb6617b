#!/usr/bin/env python3
"""Classroom 50: el punto de entrada de la tarea (CLASSROOM/autograders/SLUG/autograder.py).

El runner de Classroom 50 lo corre en el checkout del estudiante (la
plantilla del kit con sus ejercicios) con CLASSROOM, ASSIGNMENT, USERNAME,
SUBMISSION_TAG, COMMIT_URL, RELEASE_URL, REVIEW_URL, MODE,
CLASSROOM50_BUNDLE_DIR y GITHUB_* en el entorno. Corre el grader con
`--format classroom50`, que escribe ./result.json (esquema
classroom50/result/v1) y ./release-body.md (el informe en Markdown, que
Classroom 50 muestra en el Release de la entrega).

Sale SIEMPRE con 0 una vez escrito result.json (Classroom 50 toma una salida
distinta de 0 como una falla de infraestructura): si el grader no escribe un
result.json válido (se rechazó la entrega, murió, se agotó el tiempo),
escribe uno de puntaje 0 que dice por qué.

Todo lo de la tarea (este archivo, el bundle, el repositorio del estudiante)
lo puede leer el estudiante: la nota es retroalimentación, no una nota a
prueba de trampas, y no lleva variantes ocultas ni semilla secreta. La nota
confiable: `gh teacher download` + `curso --variantes N --archivo-semilla F`
(o Gradescope).
"""

import json
import os
import subprocess
import sys
import time

# El trabajo entero de Classroom 50 dura a lo sumo 15 minutos; la primera
# compilación del grader tarda alrededor de un minuto.
LIMITE_SEGUNDOS = 13 * 60
RESULTADO = "result.json"
INFORME = "release-body.md"
IDENTIDAD = ["CLASSROOM", "ASSIGNMENT", "USERNAME", "SUBMISSION_TAG",
             "COMMIT_URL", "RELEASE_URL", "REVIEW_URL"]


def sin_calificar(motivo):
    """Un result.json válido de puntaje 0 que dice `motivo`."""
    env = os.environ
    submission = env.get("SUBMISSION_TAG", "")
    if not submission.startswith("submit/"):
        submission = "submit/" + (submission or "desconocida")
    resultado = {
        "schema": "classroom50/result/v1",
        "classroom": env.get("CLASSROOM") or "desconocido",
        "assignment": env.get("ASSIGNMENT") or "desconocida",
        "assignment_type": env.get("ASSIGNMENT_TYPE") if env.get("ASSIGNMENT_TYPE") in ("individual", "group") else "individual",
        "owner": env.get("USERNAME") or "desconocido",
        "submission": submission,
        "commit": env.get("COMMIT_URL") or "desconocido",
        "release": env.get("RELEASE_URL") or "desconocido",
        "review": env.get("REVIEW_URL") or "desconocido",
        "datetime": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "score": 0,
        "max-score": 100,
        "tests": [{
            "test-name": "calificación",
            "passed": False,
            "score": 0,
            "max-score": 100,
            "output": motivo,
        }],
    }
    with open(RESULTADO, "w", encoding="utf-8") as f:
        json.dump(resultado, f, ensure_ascii=False, indent=2)
        f.write("\n")
    with open(INFORME, "w", encoding="utf-8") as f:
        f.write("# Módulo 4 · Lección 2 — El doble cargo del reintento, medido\n\n" + motivo + "\n")


def valido(ruta):
    try:
        with open(ruta, encoding="utf-8") as f:
            r = json.load(f)
        return r.get("schema") == "classroom50/result/v1" and isinstance(r.get("score"), int)
    except (OSError, ValueError):
        return False


def main():
    for archivo in (RESULTADO, INFORME):
        if os.path.exists(archivo):
            os.remove(archivo)
    faltan = [v for v in IDENTIDAD if not os.environ.get(v)]
    if faltan:
        # El grader las rechazaría (estado 2) después de compilar: se dice
        # ya, con sus nombres, en el result.json que ve el estudiante.
        motivo = ("Faltan variables del runner de Classroom 50: %s. No se calificó; puntaje 0. "
                  "Avisa a tu instructor (la tarea debe correr con el runner de Classroom 50)." % ", ".join(faltan))
        print("autograder.py: " + motivo, file=sys.stderr)
        sin_calificar(motivo)
        return 0
    # El proyecto final (lección 8): con servicio.toml en la raíz del
    # repositorio, la entrega es un servicio HTTP real; `grader servicio` lo
    # arranca con su `comando` y escribe result.json (en la salida estándar)
    # y release-body.md. Estado 2 (nunca arrancó) también trae su
    # result.json: cada verificación en 0, con el porqué.
    proyecto = os.path.isfile("servicio.toml")
    if proyecto:
        orden = ["cargo", "run", "-q", "-p", "grader", "--features", "servicio", "--",
                 "servicio", "--carpeta", ".", "--classroom50"]
    else:
        orden = ["cargo", "run", "-q", "-p", "grader", "--", "--format", "classroom50", "--output", RESULTADO]
    try:
        # El proyecto escribe result.json en la salida estándar.
        with open(RESULTADO if proyecto else os.devnull, "w", encoding="utf-8") as salida:
            corrida = subprocess.run(orden, timeout=LIMITE_SEGUNDOS, stdin=subprocess.DEVNULL,
                                     stdout=salida if proyecto else None)
        estado = corrida.returncode
    except subprocess.TimeoutExpired:
        sin_calificar("El grader no terminó en %d minutos; puntaje 0. Avisa a tu instructor." % (LIMITE_SEGUNDOS // 60))
        return 0
    except OSError as e:
        sin_calificar("No se pudo ejecutar cargo (%s); puntaje 0. Avisa a tu instructor." % e)
        return 0
    print("autograder.py: el grader terminó con estado %d (0 todo pasa, 1 algo falla o no compila)" % estado)
    if (estado in (0, 1) or (proyecto and estado == 2)) and valido(RESULTADO):
        return 0
    sin_calificar("El grader terminó con estado %d sin escribir su informe (2: la entrega o la configuración se rechazaron; mira el registro del trabajo). Puntaje 0." % estado)
    return 0


if __name__ == "__main__":
    sys.exit(main())
