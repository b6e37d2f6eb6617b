//! The reference's harness with the schedule explorer (`--solutions`,
//! exercise 4, lesson 4).
fn main() {
    harness::serve::<solutions::Solutions>();
}
