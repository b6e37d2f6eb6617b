//! Hidden seeded variants: fleets the student has never seen, drawn from a
//! seed the instructor keeps secret, so that a solution tuned to the lesson's
//! fleet (1,184 intentos, $48,139) passes none of them.
//!
//! `--variantes N --semilla S` (or `--variantes N` with the seed in the
//! environment variable [`SECRET_SEED_ENV`], or in a file given with
//! `--archivo-semilla RUTA`, which the grader deletes as soon as it has read
//! it, in `cli::take_seed`) draws N variant seeds from a
//! ChaCha8 stream seeded with S. Each variant is then determined by its own
//! 32-bit seed alone: its size, amount range, loss probability, attempt limit
//! and the seeds of its amounts, losses and keys are drawn from a ChaCha8
//! stream seeded with it, within the bounds below (small enough that grading
//! stays quick in a debug build). Its expected figures come from the oracle,
//! like every fixture's; the whole-scenario checks grade it.
//!
//! A failure names the variant's parameters and prints
//! `cargo run -p grader -- --ejercicio E --variante SEMILLA`, which grades
//! that one variant again without revealing S. Child processes rebuild the
//! same variants from the same arguments and environment.

use sim::{Stream, StreamKind};

use crate::fixture::Scenario;

use crate::verdict::Exercise;

pub use crate::values::{
    MAX_VARIANTS, SECRET_SEED_ENV, parse_count, parse_seed, parse_variant_seed,
};
/// Orders of a variant: from 50 to 1,500.
pub const ORDERS: (u64, u64) = (50, 1_500);
/// Smallest amount of a variant, whole dollars: from 1 to 300.
pub const AMOUNT_MIN: (u64, u64) = (1, 300);
/// Width of a variant's amount range above its minimum: 0 to 4,000 dollars.
pub const AMOUNT_SPAN: (u64, u64) = (0, 4_000);
/// Loss probability of a variant, in hundredths: 0.01 to 0.60.
pub const P_HUNDREDTHS: (u64, u64) = (1, 60);
/// `max_attempts` of a variant: 1 to 6.
pub const MAX_ATTEMPTS: (u64, u64) = (1, 6);
/// The prefix of a variant's scenario name (`variante-2718281828`).
pub const NAME_PREFIX: &str = "variante-";

/// One hidden variant: a fleet fully determined by `seed`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Variant {
    /// The variant's own seed (what `--variante` takes).
    pub seed: u32,
    /// Number of orders.
    pub orders: u64,
    /// Smallest amount, whole dollars.
    pub amount_min: i64,
    /// Largest amount, whole dollars (included).
    pub amount_max: i64,
    /// Loss probability, in hundredths (27 → p = 0.27).
    pub p_hundredths: u32,
    /// Most attempts per order.
    pub max_attempts: u32,
    /// Seed of the amounts (the losses use `fleet_seed + 1`).
    pub fleet_seed: u64,
    /// Seed of the idempotency keys handed to clients.
    pub key_seed: u64,
}

impl Variant {
    /// The variant of seed `seed`: every parameter drawn, in order, from a
    /// ChaCha8 stream seeded with it.
    pub fn from_seed(seed: u32) -> Variant {
        let mut s = Stream::new(StreamKind::Chacha, u64::from(seed));
        let orders = s.randint(ORDERS.0, ORDERS.1);
        let amount_min = s.randint(AMOUNT_MIN.0, AMOUNT_MIN.1);
        let amount_max = amount_min + s.randint(AMOUNT_SPAN.0, AMOUNT_SPAN.1);
        let p_hundredths = s.randint(P_HUNDREDTHS.0, P_HUNDREDTHS.1) as u32;
        let max_attempts = s.randint(MAX_ATTEMPTS.0, MAX_ATTEMPTS.1) as u32;
        let fleet_seed = u64::from(s.next_u32()) << 32 | u64::from(s.next_u32());
        let key_seed = u64::from(s.next_u32()) << 32 | u64::from(s.next_u32());
        Variant {
            seed,
            orders,
            amount_min: amount_min as i64,
            amount_max: amount_max as i64,
            p_hundredths,
            max_attempts,
            fleet_seed,
            key_seed,
        }
    }

    /// The scenario name, `variante-SEMILLA`.
    pub fn name(&self) -> String {
        format!("{NAME_PREFIX}{}", self.seed)
    }

    /// The loss probability.
    pub fn p_response_lost(&self) -> f64 {
        f64::from(self.p_hundredths) / 100.0
    }

    /// The fleet as a scenario (ChaCha8 stream, lesson 3's key-per-attempt
    /// contrast included so the server's scenario check runs it too).
    pub fn scenario(&self) -> Scenario {
        let mut s = Scenario::fleet(
            &self.name(),
            self.orders,
            (self.amount_min, self.amount_max),
            self.p_response_lost(),
            self.max_attempts,
            self.fleet_seed,
            StreamKind::Chacha,
        );
        s.title = format!(
            "VARIANTE OCULTA {}  ·  {} ordenes, p={}, hasta {} intentos (ChaCha)",
            self.seed,
            self.orders,
            self.p_response_lost(),
            self.max_attempts
        );
        s.fleet.key_seed = self.key_seed;
        s.show_key_per_attempt = true;
        s
    }

    /// Its parameters in one Spanish line.
    pub fn describe(&self) -> String {
        format!(
            "variante oculta {}: N={} órdenes, montos de ${} a ${} por orden, p(respuesta perdida)={}, max_attempts={}, stream chacha",
            self.seed,
            sim::money::group_thousands(self.orders),
            sim::money::group_thousands(self.amount_min as u64),
            sim::money::group_thousands(self.amount_max as u64),
            self.p_response_lost(),
            self.max_attempts
        )
    }

    /// The command that grades this variant again for `exercise`;
    /// `extra` are further grader arguments (`--solutions`, `--timeout 9`).
    pub fn reproduce(&self, exercise: Exercise, extra: &[String]) -> String {
        let mut cmd = String::from("cargo run -p grader --");
        for arg in extra {
            cmd.push(' ');
            cmd.push_str(arg);
        }
        cmd.push_str(&format!(
            " --ejercicio {} --variante {}",
            exercise.id(),
            self.seed
        ));
        cmd
    }
}

/// `n` variants drawn from `master`: their seeds are the first distinct
/// 32-bit outputs of a ChaCha8 stream seeded with `master`.
pub fn generate(master: u64, n: u32) -> Vec<Variant> {
    let mut s = Stream::new(StreamKind::Chacha, master);
    let mut seeds: Vec<u32> = Vec::with_capacity(n as usize);
    while seeds.len() < n as usize {
        let seed = s.next_u32();
        if !seeds.contains(&seed) {
            seeds.push(seed);
        }
    }
    seeds.into_iter().map(Variant::from_seed).collect()
}

/// The variants one run grades, and where their seed came from.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Plan {
    /// The variants, in order: those of `--variantes`, then each `--variante`.
    pub variants: Vec<Variant>,
    /// Whether the master seed is the instructor's secret one
    /// ([`SECRET_SEED_ENV`] or `--archivo-semilla`).
    pub secret: bool,
}

impl Plan {
    /// The plan of `--variantes count`, `--semilla seed`, each `--variante`
    /// in `singles`, and the secret seed variable's value `env`.
    ///
    /// # Errors
    /// A Spanish message (for exit status 2) when `--variantes` has no seed,
    /// `--semilla` comes without `--variantes`, or the secret seed is not an
    /// integer.
    pub fn from_parts(
        count: Option<u32>,
        seed: Option<u64>,
        singles: &[u32],
        env: Option<String>,
    ) -> Result<Plan, String> {
        let mut plan = Plan::default();
        if let Some((master, secret)) = crate::values::master_seed(count, seed, env)? {
            plan.variants = generate(master, count.unwrap_or(0));
            plan.secret = secret;
        }
        for &seed in singles {
            if !plan.variants.iter().any(|v| v.seed == seed) {
                plan.variants.push(Variant::from_seed(seed));
            }
        }
        Ok(plan)
    }

    /// The variants' scenarios, in order.
    pub fn scenarios(&self) -> Vec<Scenario> {
        self.variants.iter().map(Variant::scenario).collect()
    }

    /// The variant whose scenario is called `name`, if any.
    pub fn find(&self, name: &str) -> Option<&Variant> {
        self.variants.iter().find(|v| v.name() == name)
    }

    /// Whether the plan has no variant.
    pub fn is_empty(&self) -> bool {
        self.variants.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_variant_is_fixed_by_its_seed_and_within_bounds() {
        for v in generate(2024, 40) {
            assert_eq!(Variant::from_seed(v.seed), v);
            assert!((ORDERS.0..=ORDERS.1).contains(&v.orders));
            assert!(v.amount_min >= 1 && v.amount_min <= v.amount_max);
            assert!(v.amount_max <= 4_300);
            assert!((1..=60).contains(&v.p_hundredths));
            assert!((1..=6).contains(&v.max_attempts));
            let s = v.scenario();
            assert_eq!(s.fleet.order_count(), v.orders);
            assert_eq!(s.fleet.p_response_lost(), Some(v.p_response_lost()));
            assert_eq!(s.fleet.stream, StreamKind::Chacha);
        }
    }

    #[test]
    fn the_same_master_seed_gives_the_same_variants_and_another_differs() {
        let a = generate(7, 5);
        assert_eq!(a, generate(7, 5));
        assert_eq!(a.len(), 5);
        assert_ne!(a, generate(8, 5));
        // The first variants of a longer run are the same variants.
        assert_eq!(generate(7, 8)[..5], a[..]);
    }

    #[test]
    fn the_plan_reads_the_secret_seed_and_rejects_what_it_cannot_use() {
        let env = Some("7".to_string());
        let p = Plan::from_parts(Some(3), None, &[], env.clone()).unwrap();
        assert!(p.secret);
        assert_eq!(p.variants, generate(7, 3));
        // The flag wins over the environment.
        let q = Plan::from_parts(Some(3), Some(9), &[], env).unwrap();
        assert!(!q.secret);
        assert_eq!(q.variants, generate(9, 3));
        assert!(
            Plan::from_parts(Some(3), None, &[], None)
                .unwrap_err()
                .contains("KIT_SEMILLA_SECRETA")
        );
        let bad = Plan::from_parts(Some(3), None, &[], Some("secreto".into())).unwrap_err();
        assert!(bad.contains("debe ser un entero") && !bad.contains("secreto"));
        assert!(Plan::from_parts(None, Some(3), &[], None).is_err());
        // Without --variantes, the variable does nothing.
        assert!(
            Plan::from_parts(None, None, &[], Some("7".into()))
                .unwrap()
                .is_empty()
        );
        let single = Plan::from_parts(None, None, &[123], None).unwrap();
        assert_eq!(single.variants, vec![Variant::from_seed(123)]);
        assert!(single.find("variante-123").is_some());
    }

    #[test]
    fn the_reproduction_command_names_exercise_and_variant_seed() {
        let v = Variant::from_seed(55);
        assert_eq!(
            v.reproduce(Exercise::Cliente, &["--solutions".to_string()]),
            "cargo run -p grader -- --solutions --ejercicio cliente --variante 55"
        );
    }
}
