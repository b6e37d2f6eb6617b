#!/usr/bin/env bash
# Gradescope, una sola vez al construir la imagen del autograder: instala Rust,
# descarga las dependencias del kit y compila el grader con los stubs, para
# que cada entrega compile sin red y en segundos (run_autograder).
#
# El zip (autograder/gradescope/empaquetar) trae: setup.sh, run_autograder,
# kit/ (la plantilla del estudiante: grader/ con la rúbrica y compile-report,
# sim/, fixtures/ y scripts/calificar, sin solutions/) y, si la definiste,
# semilla-secreta.
set -euo pipefail
aqui="$(cd "$(dirname "$0")" && pwd)"
trabajo="${KIT_TRABAJO:-/autograder/kit}"

if ! command -v cargo >/dev/null 2>&1 && [ ! -x "$HOME/.cargo/bin/cargo" ]; then
  apt-get update
  apt-get install -y --no-install-recommends ca-certificates curl build-essential
  curl --proto '=https' --tlsv1.2 -sSf https://sh.rustup.rs \
    | sh -s -- -y --profile minimal --default-toolchain stable
fi
# shellcheck disable=SC1091
[ -f "$HOME/.cargo/env" ] && . "$HOME/.cargo/env"

rm -rf "$trabajo"
mkdir -p "$trabajo"
cp -a "$aqui/kit/." "$trabajo/"
cd "$trabajo"
cargo fetch
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-/autograder/target}"
cargo build -p grader -p compile-report
