fn main() {
    // Emits cargo:rustc-cfg=use_rocm when PORT_GPU_PLATFORM (or `port detect --json`) says ROCm,
    // and declares the cfg for check-cfg.
    hip_aliases::build::configure();
}
