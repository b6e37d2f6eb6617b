//! The harness's in-process tests, one test binary (issue 28: each file was
//! its own binary linking the judge): wrong and hostile solutions made from
//! the reference and graded by the judge's checks in this process, the
//! report formats, hidden variants, hints and sim's public API. Apart, with
//! a `main` or a feature of their own: `misbehaving.rs` and
//! `mutantes_store_carreras.rs`.
//!
//! One module: `cargo test -p harness --test suite mutantes_cobro::`.

mod support;
// The report-format checks of the judge's own tests.
#[path = "../../grader/tests/informes/mod.rs"]
mod informes;

mod api_publica;
mod formatos;
mod hostil;
mod mutantes_cliente;
mod mutantes_cobro;
mod mutantes_reconciliacion;
mod mutantes_store;
mod pistas;
mod puntos_ciegos;
mod variantes;
