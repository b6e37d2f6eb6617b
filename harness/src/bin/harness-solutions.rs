//! The harness of the reference solutions (`cargo run -p grader -- --solutions`).
fn main() {
    harness::serve::<solutions::Solutions>();
}
