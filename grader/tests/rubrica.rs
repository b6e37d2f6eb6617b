//! The kit's rubric (`grader/rubrica.toml`) against the kit's catalog, and
//! the GitHub Classroom workflow's points against the rubric.

use std::collections::BTreeSet;
use std::path::Path;

use judge::checks::Catalog;
use judge::fixture::Scenario;
use judge::rubric::{Points, Rubric};
use judge::verdict::Exercise;

fn repo() -> &'static Path {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/.."))
}

fn default_catalog() -> Catalog {
    Catalog::new(Scenario::load_dir(&repo().join("fixtures")).unwrap(), &[])
}

#[test]
fn the_kits_rubric_lists_exactly_the_default_catalog_and_sums_to_100() {
    let rubric = Rubric::kit().unwrap();
    let catalog: BTreeSet<String> = default_catalog()
        .checks
        .iter()
        .map(|c| c.id.clone())
        .collect();
    let listed: BTreeSet<String> = rubric.listed.keys().cloned().collect();
    let missing: Vec<_> = catalog.difference(&listed).collect();
    let extra: Vec<_> = listed.difference(&catalog).collect();
    assert!(
        missing.is_empty(),
        "checks without points in grader/rubrica.toml: {missing:?}"
    );
    assert!(
        extra.is_empty(),
        "ids in grader/rubrica.toml that are not checks: {extra:?}"
    );
    // 100 outside the bonus; the bonus (the catalog's bonus exercises)
    // apart, exercise 4's 20 of it.
    let total = |bonus: bool| -> Points {
        rubric
            .listed
            .iter()
            .filter(|(id, _)| rubric.is_bonus(judge::rubric::exercise_of(id).unwrap()) == bonus)
            .map(|(_, e)| e.points)
            .sum()
    };
    assert_eq!(total(false), Points::whole(100));
    assert_eq!(total(true).as_f64(), crate::informes::bonus_points());
    assert_eq!(rubric.listed_total("atomico"), Points::whole(20));
    let bonus: Vec<&str> = Exercise::ALL
        .iter()
        .filter(|e| e.bonus())
        .map(|e| e.id())
        .collect();
    assert_eq!(rubric.bonus, bonus);
    for exercise in Exercise::ALL {
        assert!(
            rubric.listed_total(exercise.id()) > Points::ZERO,
            "{exercise:?}"
        );
        // A course exercise's hidden variants share 10 points; a bonus's
        // fewer (exercise 4's 5), never none.
        let pool = rubric.variant_pool(exercise.id());
        if exercise.bonus() {
            assert!(
                pool > Points::ZERO && pool < Points::whole(10),
                "{exercise:?}"
            );
        } else {
            assert_eq!(pool, Points::whole(10), "{exercise:?}");
        }
    }
    assert_eq!(rubric.variant_pool("atomico"), Points::whole(5));
}

#[test]
fn every_check_is_worth_something() {
    let rubric = Rubric::kit().unwrap();
    for (id, entry) in &rubric.listed {
        assert!(entry.points > Points::ZERO, "{id} is worth 0 points");
    }
}

/// The `max-score:` of each `--ejercicio` step of the Classroom workflow.
fn classroom_scores() -> Vec<(String, u32)> {
    let text = std::fs::read_to_string(repo().join(LEGACY_CLASSROOM)).unwrap();
    let mut out = Vec::new();
    let mut exercise = None;
    for line in text.lines().map(str::trim) {
        if let Some(rest) = line.strip_prefix("command: scripts/calificar --ejercicio ") {
            exercise = Some(rest.trim().to_string());
        }
        if let Some(score) = line.strip_prefix("max-score: ") {
            out.push((exercise.take().unwrap(), score.trim().parse().unwrap()));
        }
    }
    out
}

/// The retired GitHub Classroom's workflow, kept as a legacy example (the
/// student template does not ship it).
const LEGACY_CLASSROOM: &str = "autograder/github-classroom-legado/classroom.yml";

#[test]
fn the_classroom_workflow_gives_each_exercise_its_rubric_points() {
    if !repo().join(LEGACY_CLASSROOM).is_file() {
        return; // The student template.
    }
    let rubric = Rubric::kit().unwrap();
    let scores = classroom_scores();
    // The legacy workflow grades the course's exercises (the 100 points).
    let course: Vec<&str> = Exercise::ALL
        .into_iter()
        .filter(|e| !e.bonus())
        .map(|e| e.id())
        .collect();
    assert_eq!(
        scores.iter().map(|(e, _)| e.as_str()).collect::<Vec<_>>(),
        course
    );
    for (exercise, score) in scores {
        assert_eq!(
            Points::whole(score),
            rubric.listed_total(&exercise),
            "max-score of {exercise} in {LEGACY_CLASSROOM}"
        );
    }
    let text = std::fs::read_to_string(repo().join(LEGACY_CLASSROOM)).unwrap();
    for action in [
        "classroom-resources/autograding-command-grader@v1",
        "classroom-resources/autograding-grading-reporter@v1",
    ] {
        assert!(text.contains(action), "{action}");
    }
    assert!(text.contains(&format!("runners: {}", course.join(","))));
}

/// The kit's own CI workflow is instructor-only: the student template drops
/// it (with `solutions/`).
#[test]
fn the_kit_workflow_runs_ci() {
    if !repo().join("solutions").join("Cargo.toml").is_file() {
        return; // The student template.
    }
    let text = std::fs::read_to_string(repo().join(".github/workflows/kit.yml")).unwrap();
    assert!(text.contains("run: bash .ci/run"), "{text}");
}
