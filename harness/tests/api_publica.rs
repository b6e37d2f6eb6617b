//! The exercise is the student's (issue 11): `sim`'s public API, the one the
//! student template ships, offers no function that passes exercise 2. The
//! only client in it is lesson 3's wrong one (a key per attempt), kept as the
//! contrast; lesson 2's correct loop lives, private, in the harness.

use crate::kit;
use crate::support;

use judge::verdict::Exercise;
use sim::clients::charge_with_key_per_attempt;

kit!(KeyPerAttemptFromSim {
    client: charge_with_key_per_attempt
});

/// Every public function of `sim` that returns a `ChargeOutcome`, read from
/// its sources: `(file, name)`.
fn clients_in_sim() -> Vec<(String, String)> {
    let src = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../sim/src");
    let mut files = Vec::new();
    let mut dirs = vec![src.clone()];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).unwrap().flatten() {
            let path = entry.path();
            if path.is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                files.push(path);
            }
        }
    }
    let mut found = Vec::new();
    for path in files {
        let file = path
            .strip_prefix(&src)
            .unwrap()
            .to_string_lossy()
            .into_owned();
        let text = std::fs::read_to_string(&path).unwrap();
        for (i, line) in text.lines().enumerate() {
            let Some(rest) = line.trim_start().strip_prefix("pub fn ") else {
                continue;
            };
            // The signature runs until the body's `{`.
            let signature: String = text
                .lines()
                .skip(i)
                .take_while(|l| !l.trim_end().ends_with('{'))
                .chain(text.lines().skip(i).find(|l| l.trim_end().ends_with('{')))
                .collect();
            if signature.contains("ChargeOutcome") {
                let name = rest.split(['<', '(']).next().unwrap_or(rest).to_string();
                found.push((file.clone(), name));
            }
        }
    }
    found.sort();
    found
}

#[test]
fn sims_only_client_is_lesson_threes_wrong_one() {
    assert_eq!(
        clients_in_sim(),
        [(
            "clients.rs".to_string(),
            "charge_with_key_per_attempt".to_string()
        )]
    );
}

#[test]
fn sims_client_does_not_pass_exercise_two() {
    let graded = support::grade_in_process::<KeyPerAttemptFromSim>(support::catalog());
    let failing: Vec<&str> = graded
        .of(Exercise::Cliente)
        .filter(|(_, v)| !v.passed())
        .map(|(c, _)| c.id.as_str())
        .collect();
    assert!(
        failing.contains(&"cliente/misma-key-en-cada-reintento"),
        "{failing:?}"
    );
    assert!(failing.contains(&"cliente/modelo"), "{failing:?}");
    let (passed, total) = (
        graded
            .of(Exercise::Cliente)
            .filter(|(_, v)| v.passed())
            .count(),
        graded.of(Exercise::Cliente).count(),
    );
    assert!(passed < total, "{passed}/{total}");
}
