//! CUDA-name aliases for bindgen-based `-sys` crates built against HIP/ROCm.
//!
//! On ROCm, bindgen generates HIP names (`hipDevice_t`, `hipError_t`, `hipSuccess`) while the
//! Rust code keeps using CUDA names (`CUdevice`, `CUresult`, `CUDA_SUCCESS`). This crate
//! provides the `rocm_compat` aliases mechanically, from one table derived from hipify's own
//! mappings plus `hip_aliases/overrides.toml` (see `port aliases table`).
//!
//! Two ways to use it, both under `#[cfg(use_rocm)]`:
//!
//! 1. The macro, in the module that holds the bindgen output:
//!
//!    ```text
//!    hip_aliases::rocm_compat!(CUdevice, CUresult, CUDA_SUCCESS, cuInit, cuDeviceGet);
//!    ```
//!
//!    A name with no HIP counterpart is a compile error naming it.
//!
//! 2. A generated file that `port aliases scan SRC... --out src/rocm_compat.rs` writes with
//!    exactly the aliases the sources use (`--check` in CI), `include!`d in that module.
//!
//! Items: `pub type CUx = hipX;`, `pub const CU_X: hipTy = HIP_X;` (when the HIP type is
//! known), `pub use self::hipX as cuX;` (functions and other values). bindgen must emit HIP
//! enum constants as plain consts (`.prepend_enum_name(false)`).
//!
//! The build script of the `-sys` crate decides the cfg:
//!
//! ```text
//! // build.rs, with hip-aliases as a build-dependency
//! fn main() { hip_aliases::build::configure(); }
//! ```

#![forbid(unsafe_code)]

pub mod build;
mod table;

pub use table::ALIASES;

/// One entry of the alias table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Alias {
    pub cuda: &'static str,
    pub hip: &'static str,
    /// "type", "const" or "function".
    pub kind: &'static str,
    /// The HIP type of a const, when known.
    pub const_type: Option<&'static str>,
}

/// The alias of a CUDA name, if the table has one.
pub fn lookup(cuda: &str) -> Option<Alias> {
    ALIASES.iter().find(|entry| entry.0 == cuda).map(|&(cuda, hip, kind, ty)| Alias {
        cuda,
        hip,
        kind,
        const_type: if ty.is_empty() { None } else { Some(ty) },
    })
}

/// Expands to the `#[cfg(use_rocm)]` alias items of the given CUDA names, in the invoking
/// module (the one holding the bindgen output, whose HIP items the aliases name).
#[macro_export]
macro_rules! rocm_compat {
    ($($name:ident),* $(,)?) => {
        $( $crate::__hip_aliases_one!($name); )*
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lookup_finds_types_consts_and_functions() {
        let dev = lookup("CUdevice").expect("CUdevice in the table");
        assert_eq!((dev.hip, dev.kind), ("hipDevice_t", "type"));
        let ok = lookup("CUDA_SUCCESS").expect("CUDA_SUCCESS in the table");
        assert_eq!((ok.hip, ok.kind, ok.const_type), ("hipSuccess", "const", Some("hipError_t")));
        assert_eq!(lookup("cuInit").map(|a| a.hip), Some("hipInit"));
        assert_eq!(lookup("cuNoSuchFunction"), None);
    }

    #[test]
    fn table_has_no_duplicate_cuda_names() {
        let mut names: Vec<&str> = ALIASES.iter().map(|e| e.0).collect();
        names.sort_unstable();
        let before = names.len();
        names.dedup();
        assert_eq!(before, names.len());
    }

    // A fake bindgen module: HIP names when built for ROCm, CUDA names otherwise. The macro must
    // add the aliases only under use_rocm (otherwise the CUDA definitions below would clash).
    #[allow(non_camel_case_types, non_upper_case_globals, non_snake_case, dead_code)]
    mod fake_bindings {
        #[cfg(use_rocm)]
        pub type hipError_t = u32;
        #[cfg(use_rocm)]
        pub const hipSuccess: hipError_t = 0;
        #[cfg(use_rocm)]
        pub const hipErrorInvalidValue: hipError_t = 1;
        #[cfg(use_rocm)]
        pub type hipDevice_t = i32;
        #[cfg(use_rocm)]
        pub fn hipInit(flags: u32) -> hipError_t {
            if flags == 0 { hipSuccess } else { hipErrorInvalidValue }
        }

        #[cfg(not(use_rocm))]
        pub type CUresult = i64;
        #[cfg(not(use_rocm))]
        pub const CUDA_SUCCESS: CUresult = 0;
        #[cfg(not(use_rocm))]
        pub type CUdevice = i64;
        #[cfg(not(use_rocm))]
        pub fn cuInit(_flags: u32) -> CUresult {
            CUDA_SUCCESS
        }

        crate::rocm_compat!(CUresult, CUDA_SUCCESS, CUdevice, cuInit, cudaErrorInvalidValue,);
    }

    #[cfg(use_rocm)]
    #[test]
    fn aliases_resolve_to_the_hip_items() {
        use fake_bindings as b;
        let device: b::CUdevice = 3_i32; // CUdevice is hipDevice_t = i32
        assert_eq!(device, 3);
        let r: b::CUresult = b::cuInit(0);
        assert_eq!(r, b::CUDA_SUCCESS);
        assert_eq!(b::cuInit(1), b::cudaErrorInvalidValue);
        assert_eq!(b::cudaErrorInvalidValue, b::hipErrorInvalidValue);
    }

    #[cfg(not(use_rocm))]
    #[test]
    fn without_use_rocm_the_cuda_items_are_untouched() {
        use fake_bindings as b;
        let device: b::CUdevice = 3_i64; // still the CUDA binding's i64
        assert_eq!(device, 3);
        assert_eq!(b::cuInit(0), b::CUDA_SUCCESS);
    }
}
