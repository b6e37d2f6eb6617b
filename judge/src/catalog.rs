//! The exercises of the kit: the one list everything else follows.
//!
//! [`ENTRIES`] names each exercise once (id, title, file, function, lesson,
//! the pool its points count in), read from each exercise's folder
//! ([`crate::ejercicios`]); [`Exercise`] is a position in it. The report and its progress
//! line, `vigilar`, `--ejercicio`, the rubric's validation, the variants,
//! every format, `curso`'s columns, the source policy's file owners, the
//! student template and the README's table of exercises are read from here
//! (tests keep the README and the template equal to it).
//!
//! It lives in the judge, not in `protocol`: what an exercise is called,
//! what it is worth and how it is reported are the judge's business
//! (`protocol` carries only jobs and raw observations, and the harness never
//! needs an exercise's name). The judge links neither `exercises`,
//! `solutions` nor `harness`; this table is plain data.
//!
//! Adding an exercise: see [`crate::ejercicios`].

use std::fmt;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

pub use crate::ejercicios::{Entry, Pool};

/// The catalog entries of [`crate::ejercicios`]' folders.
macro_rules! entries {
    ($($id:ident),+) => {
        [$(crate::ejercicios::$id::ENTRY),+]
    };
}

/// Every exercise, in the order students work through them: exercise `n`
/// is `ENTRIES[n - 1]` (made from [`crate::ejercicios::kit_exercises!`]).
pub const ENTRIES: [Entry; COUNT] = crate::ejercicios::kit_exercises!(entries);

/// How many exercises the kit has.
pub const COUNT: usize = {
    macro_rules! count {
        ($($id:ident),+) => {
            [$(stringify!($id)),+].len()
        };
    }
    crate::ejercicios::kit_exercises!(count)
};

/// One exercise of [`ENTRIES`], by position.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Exercise(u8);

#[allow(non_upper_case_globals)]
impl Exercise {
    /// Exercise 1: the idempotent `charge`.
    pub const Cobro: Exercise = Exercise::named(crate::ejercicios::cobro::ENTRY.id);
    /// Exercise 2: the key-per-operation client.
    pub const Cliente: Exercise = Exercise::named(crate::ejercicios::cliente::ENTRY.id);
    /// Exercise 3: the reconciliation metric.
    pub const Reconciliacion: Exercise =
        Exercise::named(crate::ejercicios::reconciliacion::ENTRY.id);
    /// Exercise 4 (bonus, lesson 4): the atomic store of a server shared by
    /// concurrent requests.
    pub const Store: Exercise = Exercise::named(crate::ejercicios::atomico::ENTRY.id);

    /// Lessons 2 to 4's four exercises, named: the tests of a mechanism
    /// (an order of checks, a screen, a report's formats) run on these, so
    /// that another exercise leaves them as they are.
    pub const LESSONS: [Exercise; 4] = [
        Exercise::Cobro,
        Exercise::Cliente,
        Exercise::Reconciliacion,
        Exercise::Store,
    ];

    /// The exercise whose id is `id`, at compile time.
    ///
    /// # Panics
    /// At compile time, when no exercise has that id.
    const fn named(id: &str) -> Exercise {
        let mut i = 0;
        while i < COUNT {
            if same(ENTRIES[i].id.as_bytes(), id.as_bytes()) {
                return Exercise(i as u8);
            }
            i += 1;
        }
        panic!("no exercise has that id")
    }

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

/// Whether `a` and `b` are the same bytes (at compile time).
const fn same(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
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
/// README and the book's `docs/src/estudiantes/empezar.md` equal to it).
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
        assert_eq!(ids.len(), COUNT);
    }

    #[test]
    fn the_named_exercises_are_their_entries() {
        assert_eq!(Exercise::Cobro.id(), "cobro");
        assert_eq!(Exercise::Cliente.number(), 2);
        assert_eq!(Exercise::Reconciliacion.function(), "reconcile");
        assert_eq!(Exercise::ALL.len(), COUNT);
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
        let json = serde_json::to_string(&[Exercise::Cobro, Exercise::Store]).unwrap();
        assert_eq!(json, r#"["cobro","atomico"]"#);
        let all = serde_json::to_string(&Exercise::ALL).unwrap();
        let back: Vec<Exercise> = serde_json::from_str(&all).unwrap();
        assert_eq!(back, Exercise::ALL);
        let e = serde_json::from_str::<Exercise>(r#""pago""#).unwrap_err();
        assert_eq!(
            e.to_string(),
            format!(
                "ejercicio desconocido «pago»; se permiten: {}",
                ids().join(", ")
            )
        );
    }

    #[test]
    fn lists_read_as_spanish() {
        assert_eq!(
            listed(&["cobro", "cliente", "reconciliacion", "atomico"], "o"),
            "cobro, cliente, reconciliacion o atomico"
        );
        assert_eq!(listed(&["cobro", "atomico"], "y"), "cobro y atomico");
        assert_eq!(listed(&["cobro"], "y"), "cobro");
        assert_eq!(listed(&[], "y"), "");
        assert_eq!(in_words(4), "cuatro");
        assert_eq!(in_words(10), "diez");
        assert_eq!(in_words(11), "11");
        assert_eq!(count_in_words(), in_words(COUNT));
    }

    /// The README's table and the book's (the students' first page, which
    /// the template ships too).
    #[test]
    fn the_readme_table_is_the_catalog() {
        for page in ["README.md", "docs/src/estudiantes/empezar.md"] {
            let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("..")
                .join(page);
            let text = std::fs::read_to_string(&path)
                .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            assert!(
                text.contains(&readme_table()),
                "{page}'s table of exercises must read:\n{}",
                readme_table()
            );
        }
    }
}
