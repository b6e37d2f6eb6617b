"""Servicio equivocado: el de referencia, pero su base vive en la carpeta
que se le da (`python3 fuera_de_data_dir.py /ruta`), fuera de DATA_DIR. La
primera corrida pasa todo; la siguiente encuentra las keys de la anterior y
responde charge_ids que el procesador de esa corrida nunca dio."""

import os
import sys

import comun

comun.DATA_DIR = sys.argv[1]
# Archivos que cualquier usuario puede escribir: como root, el kit corre cada
# corrida como un usuario sin privilegios, no siempre el mismo. SQLite crea
# la base con 0644 (no con lo que deja la umask) y el WAL con los permisos
# de la base: se crea antes, con 0666.
os.umask(0)
os.close(os.open(os.path.join(comun.DATA_DIR, "pagos.db"), os.O_CREAT | os.O_RDWR, 0o666))

import referencia  # noqa: E402  (lee comun.DATA_DIR al importarse)

if __name__ == "__main__":
    comun.serve(referencia.charge)
