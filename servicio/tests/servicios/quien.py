"""Dice quién lo corre y termina con estado 3 (la prueba del sandbox de
servicio): su uid, HOME, DATA_DIR y su dueño, si puede escribir en la
carpeta del comando, CARGO_TARGET_DIR y PATH."""

import os

data_dir = os.environ["DATA_DIR"]
print(
    "uid=%d home=%s data_dir=%s dueño=%d escribe_aqui=%s cargo_target=%s path=%s"
    % (
        os.getuid(),
        os.environ.get("HOME", ""),
        data_dir,
        os.stat(data_dir).st_uid,
        os.access(".", os.W_OK),
        os.environ.get("CARGO_TARGET_DIR", ""),
        os.environ.get("PATH", ""),
    ),
    flush=True,
)
raise SystemExit(3)
