"""El de referencia, con un manejador de SIGTERM que tarda medio segundo en
terminar y después deja una marca en la carpeta del primer argumento: la
prueba de que el kit le da su tiempo de gracia aunque `sh -c` (el líder de
su grupo) muera en cuanto recibe SIGTERM."""

import os
import signal
import sys
import time

import comun
import referencia


def al_terminar(signum, frame):
    time.sleep(0.5)
    with open(os.path.join(sys.argv[1], "apagado-%d" % os.getpid()), "w") as f:
        f.write("ok")
    os._exit(0)


signal.signal(signal.SIGTERM, al_terminar)

if __name__ == "__main__":
    comun.serve(referencia.charge)
