//! The final project's before and after (lesson 2: "el 'antes' contra el
//! cual medirás tu 'después' en el proyecto final", lesson 8): the fleet a
//! command runs ([`fleet`]), both worlds side by side ([`comparison`]), the
//! same fleet at several loss probabilities ([`sweep`]) and its chart
//! ([`chart`]), and lesson 4's race of two retries at once ([`race`]). The
//! commands `comparar` and `barrido` are thin wrappers. The chart is
//! behind the `herramientas` feature, with `barrido`.

#[cfg(feature = "herramientas")]
pub mod chart;
pub mod comparison;
pub mod fleet;
pub mod race;
pub mod sweep;
