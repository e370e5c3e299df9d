// The crate's own tests run in both configurations; the cfg comes from the same helper that
// -sys crates call (PORT_GPU_PLATFORM, else `port detect --json`).
#[path = "src/build.rs"]
mod build_support;

fn main() {
    build_support::configure();
}
