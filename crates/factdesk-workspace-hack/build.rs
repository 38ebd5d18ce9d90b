// Cargo resolves build dependencies only for a crate with a build script: this empty one
// lets the hack pin the features of the crates build scripts and macros use.
fn main() {}
