//! The exercises of the kit: the one list everything else follows.
//!
//! [`ENTRIES`] names each exercise once (id, title, file, function, lesson,
//! the pool its points count in, whether its checks need a second harness
//! build); [`Exercise`] is a position in it. The report and its progress
//! line, `vigilar`, `--ejercicio`, the rubric's validation, the variants,
//! every format, `curso`'s columns, the source policy's file owners, the
//! student template and the README's table of exercises are read from here
//! (tests keep the README and the template equal to it).
//!
//! It lives in the judge, not in `protocol`: what an exercise is called,
//! what it is worth and how it is reported are the judge's business
//! (`protocol` carries only jobs and raw observations, and the harness never
//! needs an exercise's name), and only the judge's own modules are listed
//! next to it ([`crate::checks::module`]). The judge links neither
//! `exercises`, `solutions` nor `harness`; this table is plain data.
//!
//! Adding an exercise: one [`Entry`] here, its checks module under
//! `grader/src/checks/` (registered in [`crate::checks::module`]), its
//! checks in `grader/rubrica.toml`, its row in the README's table.

use std::fmt;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// The pool an exercise's points count in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pool {
    /// The kit's 100 points (`Puntaje: 42/100 puntos`).
    Course,
    /// Points outside the 100, shown apart (`Puntaje: 100/100 puntos ·
    /// bonus 0/20`): a student who skips the exercise still gets 100.
    Bonus,
}

/// One exercise, as every part of the judge names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Entry {
    /// The name used on the command line, in check ids, rubric keys and
    /// `curso`'s columns (`cobro`): lowercase ASCII letters only.
    pub id: &'static str,
    /// The Spanish title reports show
    /// (`El cobro idempotente (servidor de payments)`).
    pub title: &'static str,
    /// The title in the README's table, when it says more than `title`
    /// (the lesson the exercise comes from).
    pub readme_title: &'static str,
    /// The student's file, relative to the repository root.
    pub file: &'static str,
    /// The function the student fills in (`PaymentsServer::charge`).
    pub function: &'static str,
    /// The lesson of Module 4 the exercise comes from (2; the client's is
    /// lesson 3's cure, measured in lesson 2).
    pub lesson: u32,
    /// Where its points count.
    pub pool: Pool,
    /// Whether its checks need the harness's second build (the schedule
    /// explorer's), which the judge makes only when this exercise is graded.
    pub explorer_build: bool,
}

/// Every exercise, in the order students work through them: exercise `n`
/// is `ENTRIES[n - 1]`.
pub const ENTRIES: [Entry; 4] = [
    Entry {
        id: "cobro",
        title: "El cobro idempotente (servidor de payments)",
        readme_title: "El cobro idempotente (servidor de `payments`)",
        file: "exercises/src/payments_server.rs",
        function: "PaymentsServer::charge",
        lesson: 2,
        pool: Pool::Course,
        explorer_build: false,
    },
    Entry {
        id: "cliente",
        title: "Una idempotency key por operación (cliente de orders)",
        readme_title: "Una idempotency key por operación (cliente de `orders`, lección 3)",
        file: "exercises/src/client.rs",
        function: "charge_order",
        lesson: 3,
        pool: Pool::Course,
        explorer_build: false,
    },
    Entry {
        id: "reconciliacion",
        title: "La reconciliación: intención contra ledger",
        readme_title: "La reconciliación: intención contra ledger",
        file: "exercises/src/reconciliation.rs",
        function: "reconcile",
        lesson: 2,
        pool: Pool::Course,
        explorer_build: false,
    },
    Entry {
        id: "atomico",
        title: "El store atómico (lección 4, bonus)",
        readme_title: "El store atómico (servidor compartido, lección 4)",
        file: "exercises/src/atomic_server.rs",
        function: "AtomicPaymentsServer::charge",
        lesson: 4,
        pool: Pool::Bonus,
        explorer_build: true,
    },
];

/// How many exercises the kit has.
pub const COUNT: usize = ENTRIES.len();

/// One exercise of [`ENTRIES`], by position.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Exercise(u8);

#[allow(non_upper_case_globals)]
impl Exercise {
    /// Exercise 1: the idempotent `charge`.
    pub const Cobro: Exercise = Exercise(0);
    /// Exercise 2: the key-per-operation client.
    pub const Cliente: Exercise = Exercise(1);
    /// Exercise 3: the reconciliation metric.
    pub const Reconciliacion: Exercise = Exercise(2);
    /// Exercise 4 (bonus, lesson 4): the atomic store of a server shared by
    /// concurrent requests.
    pub const Store: Exercise = Exercise(3);

    /// Every exercise, in the order students work through them.
    pub const ALL: [Exercise; COUNT] = {
        let mut all = [Exercise(0); COUNT];
        let mut i = 0;
        while i < COUNT {
            all[i] = Exercise(i as u8);
            i += 1;
        }
        all
    };

    /// Its catalog entry.
    pub fn entry(self) -> &'static Entry {
        &ENTRIES[usize::from(self.0)]
    }

    /// Its position in [`ENTRIES`], from 0 (for tables indexed like it).
    pub fn index(self) -> usize {
        usize::from(self.0)
    }

    /// The name used on the command line and in check ids (`cobro`).
    pub fn id(self) -> &'static str {
        self.entry().id
    }

    /// 1, 2, 3, …: its place in the order students work through them.
    pub fn number(self) -> u32 {
        u32::from(self.0) + 1
    }

    /// The Spanish title shown in reports.
    pub fn title(self) -> &'static str {
        self.entry().title
    }

    /// The student's file, relative to the repository root.
    pub fn file(self) -> &'static str {
        self.entry().file
    }

    /// The function the student fills in.
    pub fn function(self) -> &'static str {
        self.entry().function
    }

    /// Whether its points are outside the kit's 100.
    pub fn bonus(self) -> bool {
        self.entry().pool == Pool::Bonus
    }

    /// Whether its checks need the harness's second build (the schedule
    /// explorer's, [`Entry::explorer_build`]).
    pub fn explorer_build(self) -> bool {
        self.entry().explorer_build
    }

    /// Whether grading `exercises` needs the harness's second build: only
    /// when one of them asks for it, so that a run without such an
    /// exercise never pays for it.
    pub fn any_needs_explorer(exercises: &[Exercise]) -> bool {
        exercises.iter().any(|e| e.explorer_build())
    }

    /// The exercise whose id is `id`, if any.
    pub fn from_id(id: &str) -> Option<Exercise> {
        Exercise::ALL.into_iter().find(|e| e.id() == id)
    }

    /// The exercise a source file belongs to (`…/client.rs` → Cliente).
    pub fn from_file(file: &str) -> Option<Exercise> {
        let path = file.split(':').next()?;
        let base = path.rsplit(['/', '\\']).next()?;
        Exercise::ALL.into_iter().find(|e| e.file().ends_with(base))
    }
}

/// The id (`cobro`).
impl fmt::Debug for Exercise {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.id())
    }
}

/// As its id (`"cobro"`).
impl Serialize for Exercise {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.id())
    }
}

/// From its id; an unknown id is an error naming the known ones.
impl<'de> Deserialize<'de> for Exercise {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Exercise, D::Error> {
        let id = String::deserialize(d)?;
        Exercise::from_id(&id).ok_or_else(|| {
            serde::de::Error::custom(format!(
                "ejercicio desconocido «{id}»; se permiten: {}",
                ids().join(", ")
            ))
        })
    }
}

/// Every id, in order (`["cobro", "cliente", "reconciliacion"]`).
pub fn ids() -> Vec<&'static str> {
    ENTRIES.iter().map(|e| e.id).collect()
}

/// `a, b o c`: the ids as a Spanish list with `conjunction` (`"o"`, `"y"`).
pub fn listed(items: &[&str], conjunction: &str) -> String {
    match items {
        [] => String::new(),
        [one] => (*one).to_string(),
        [init @ .., last] => format!("{} {conjunction} {last}", init.join(", ")),
    }
}

/// `tres`: how many exercises the kit has, in Spanish words (for "los tres
/// ejercicios"); digits past ten.
pub fn count_in_words() -> String {
    in_words(COUNT)
}

/// How many exercises count in the course's 100 points, in Spanish words
/// (`tres`: "los tres ejercicios pasan", the bonus apart).
pub fn course_count_in_words() -> String {
    in_words(ENTRIES.iter().filter(|e| e.pool == Pool::Course).count())
}

fn in_words(n: usize) -> String {
    const WORDS: [&str; 11] = [
        "cero", "uno", "dos", "tres", "cuatro", "cinco", "seis", "siete", "ocho", "nueve", "diez",
    ];
    WORDS
        .get(n)
        .map_or_else(|| n.to_string(), |w| (*w).to_string())
}

/// The README's table of exercises, as it must read (a test keeps the
/// README equal to it).
pub fn readme_table() -> String {
    let mut out = String::from(
        "| # | Ejercicio | Archivo | Función |\n|---|-----------|---------|---------|\n",
    );
    for e in Exercise::ALL {
        let bonus = if e.bonus() { " · bonus" } else { "" };
        out.push_str(&format!(
            "| {}{bonus} | {} | `{}` | `{}` |\n",
            e.number(),
            e.entry().readme_title,
            e.file(),
            e.function()
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_plain_unique_lowercase_names() {
        let ids = ids();
        for (i, id) in ids.iter().enumerate() {
            assert!(
                !id.is_empty() && id.chars().all(|c| c.is_ascii_lowercase()),
                "{id}"
            );
            assert!(!ids[..i].contains(id), "{id} twice");
            assert_eq!(Exercise::from_id(id), Some(Exercise::ALL[i]));
        }
        assert_eq!(ids, ["cobro", "cliente", "reconciliacion", "atomico"]);
    }

    #[test]
    fn the_named_exercises_are_their_entries() {
        assert_eq!(Exercise::Cobro.id(), "cobro");
        assert_eq!(Exercise::Cliente.number(), 2);
        assert_eq!(Exercise::Reconciliacion.function(), "reconcile");
        assert_eq!(Exercise::ALL.len(), COUNT);
    }

    #[test]
    fn only_the_bonus_exercise_needs_the_second_build() {
        assert!(Exercise::any_needs_explorer(&Exercise::ALL));
        assert!(Exercise::any_needs_explorer(&[Exercise::Store]));
        assert!(!Exercise::any_needs_explorer(&[
            Exercise::Cobro,
            Exercise::Cliente,
            Exercise::Reconciliacion
        ]));
        assert!(!Exercise::any_needs_explorer(&[]));
        let bonus: Vec<Exercise> = Exercise::ALL.into_iter().filter(|e| e.bonus()).collect();
        assert_eq!(bonus, [Exercise::Store]);
    }

    #[test]
    fn files_are_unique_and_map_back() {
        for e in Exercise::ALL {
            assert_eq!(Exercise::from_file(e.file()), Some(e));
            assert_eq!(
                Exercise::from_file(&format!("{}:12", e.file())),
                Some(e),
                "{e:?}"
            );
        }
        assert_eq!(Exercise::from_file("exercises/src/lib.rs"), None);
    }

    #[test]
    fn an_exercise_serializes_as_its_id() {
        let json = serde_json::to_string(&Exercise::ALL).unwrap();
        assert_eq!(json, r#"["cobro","cliente","reconciliacion","atomico"]"#);
        let back: Vec<Exercise> = serde_json::from_str(&json).unwrap();
        assert_eq!(back, Exercise::ALL);
        let e = serde_json::from_str::<Exercise>(r#""pago""#).unwrap_err();
        assert!(
            e.to_string().starts_with(
                "ejercicio desconocido «pago»; se permiten: cobro, cliente, reconciliacion"
            ),
            "{e}"
        );
    }

    #[test]
    fn lists_read_as_spanish() {
        assert_eq!(
            listed(&ids(), "o"),
            "cobro, cliente, reconciliacion o atomico"
        );
        assert_eq!(listed(&["cobro"], "y"), "cobro");
        assert_eq!(count_in_words(), "cuatro");
        assert_eq!(course_count_in_words(), "tres");
    }

    #[test]
    fn the_readme_table_is_the_catalog() {
        let readme =
            std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../README.md")).unwrap();
        assert!(
            readme.contains(&readme_table()),
            "README.md's table of exercises must read:\n{}",
            readme_table()
        );
    }
}
