//! The harness of the student's exercises: answers the judge's jobs on stdin.
fn main() {
    harness::serve::<exercises::Exercises>();
}
