#!/usr/bin/env bash
# Gradescope, una sola vez al construir la imagen del autograder (como root,
# desde la carpeta del paquete): instala Rust, descarga las dependencias del
# kit y compila el grader con los stubs, para que cada entrega compile sin
# red y en segundos (run_autograder).
#
# Gradescope descomprime el zip (autograder/gradescope/empaquetar) en
# $AUTOGRADER_DIR/source (por omisión /autograder/source): setup.sh,
# run_autograder, kit/ (la plantilla del estudiante: grader/ con la rúbrica,
# harness/, protocol/, sim/, fixtures/ y scripts/calificar, sin solutions/) y,
# si la definiste, semilla-secreta con variantes. Este script busca el
# paquete ahí, corra desde donde corra.
#
# Variables (opcionales; en Gradescope no hace falta ninguna):
#   AUTOGRADER_DIR    raíz del autograder (por omisión /autograder): el kit
#                     se copia a $AUTOGRADER_DIR/kit y se compila en
#                     $AUTOGRADER_DIR/target.
#   CARGO_TARGET_DIR  otra carpeta de compilación (la misma que reciba
#                     run_autograder).
set -euo pipefail
raiz="${AUTOGRADER_DIR:-/autograder}"
fuente="$raiz/source"
trabajo="$raiz/kit"
if [ ! -f "$fuente/kit/Cargo.toml" ] || [ ! -f "$fuente/run_autograder" ]; then
  echo "setup.sh: no encuentro el paquete en $fuente (falta kit/Cargo.toml o run_autograder); Gradescope descomprime el zip en \$AUTOGRADER_DIR/source, por omisión /autograder/source" >&2
  exit 2
fi

if ! command -v cargo >/dev/null 2>&1 && [ ! -x "$HOME/.cargo/bin/cargo" ]; then
  apt-get update
  apt-get install -y --no-install-recommends ca-certificates curl build-essential
  curl --proto '=https' --tlsv1.2 -sSf https://sh.rustup.rs \
    | sh -s -- -y --profile minimal --default-toolchain stable
fi
# shellcheck disable=SC1091
[ -f "$HOME/.cargo/env" ] && . "$HOME/.cargo/env"

# La semilla, legible solo por root (el usuario que corra el código del
# estudiante no la puede leer).
[ -f "$fuente/semilla-secreta" ] && chmod 600 "$fuente/semilla-secreta"

rm -rf "$trabajo"
mkdir -p "$trabajo"
cp -a "$fuente/kit/." "$trabajo/"
cd "$trabajo"
cargo fetch
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$raiz/target}"
# El juez y el harness de los stubs, con las mismas opciones con que el juez
# lo compila: cada entrega solo recompila exercises/ y el harness.
# Con el feature servicio: el mismo grader califica los ejercicios y el
# proyecto final (`grader servicio`, para una entrega con servicio.toml);
# run_autograder lo corre con las mismas features.
cargo build -p grader --features servicio
cargo build -p harness -p grader --bin harness --no-default-features --features harness/exercises
# El segundo harness (el explorador de horarios del ejercicio 4), también con
# las opciones del juez: la entrega que lo necesita no paga shuttle.
cargo build -p harness --bin harness-explorador --no-default-features --features harness/exercises,harness/explorar
