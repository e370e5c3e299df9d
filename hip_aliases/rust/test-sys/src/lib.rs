//! A stand-in `-sys` crate for the hip-aliases tests.
//!
//! `bindings` plays bindgen's output: HIP names when built for ROCm (`use_rocm`, decided by
//! build.rs through `hip_aliases::build::configure()`), CUDA names otherwise. The HIP
//! functions return values that differ from the CUDA ones, so tests can tell which item a
//! CUDA name resolved to. `consumer` is the crate's "real" code: it uses CUDA names only.
//!
//! `sys` gets its aliases from the file `port aliases scan src --out src/rocm_compat.rs`
//! generated (checked in, kept fresh by `--check`); `sys_macro` gets the same aliases from
//! the `hip_aliases::rocm_compat!` macro.

#![allow(non_camel_case_types, non_upper_case_globals, non_snake_case, dead_code)]

#[cfg(use_rocm)]
mod bindings {
    pub type hipError_t = u32;
    pub const hipSuccess: hipError_t = 0;
    pub const hipErrorInvalidValue: hipError_t = 1;
    pub const hipErrorNoDevice: hipError_t = 100;
    pub type hipDevice_t = i32;
    #[repr(C)]
    pub struct ihipStream_t {
        _private: [u8; 0],
    }
    pub type hipStream_t = *mut ihipStream_t;
    pub type hipMemcpyKind = u32;
    pub const hipMemcpyHostToDevice: hipMemcpyKind = 1;
    pub type hipDeviceAttribute_t = u32;
    pub const hipDeviceAttributePciBusId: hipDeviceAttribute_t = 10;

    pub unsafe extern "C" fn hipInit(flags: u32) -> hipError_t {
        if flags == 0 { hipSuccess } else { hipErrorInvalidValue }
    }
    pub unsafe extern "C" fn hipDeviceGet(device: *mut hipDevice_t, ordinal: i32) -> hipError_t {
        *device = 100 + ordinal; // "HIP" devices are numbered from 100
        hipSuccess
    }
    pub unsafe extern "C" fn hipGetDeviceCount(count: *mut i32) -> hipError_t {
        *count = 3;
        hipSuccess
    }
    pub unsafe extern "C" fn hipDeviceGetAttribute(
        value: *mut i32,
        attribute: hipDeviceAttribute_t,
        device: hipDevice_t,
    ) -> hipError_t {
        *value = attribute as i32 * 1000 + device;
        hipSuccess
    }
}

#[cfg(not(use_rocm))]
mod bindings {
    pub type CUresult = u32;
    pub const CUDA_SUCCESS: CUresult = 0;
    pub type cudaError_t = u32;
    pub const cudaSuccess: cudaError_t = 0;
    pub const cudaErrorNoDevice: cudaError_t = 100;
    pub type CUdevice = i32;
    #[repr(C)]
    pub struct CUstream_st {
        _private: [u8; 0],
    }
    pub type CUstream = *mut CUstream_st;
    pub type cudaMemcpyKind = u32;
    pub const cudaMemcpyHostToDevice: cudaMemcpyKind = 1;
    pub type CUdevice_attribute = u32;
    pub const CU_DEVICE_ATTRIBUTE_PCI_BUS_ID: CUdevice_attribute = 33;

    pub unsafe extern "C" fn cuInit(_flags: u32) -> CUresult {
        CUDA_SUCCESS
    }
    pub unsafe extern "C" fn cuDeviceGet(device: *mut CUdevice, ordinal: i32) -> CUresult {
        *device = ordinal;
        CUDA_SUCCESS
    }
    pub unsafe extern "C" fn cudaGetDeviceCount(count: *mut i32) -> cudaError_t {
        *count = 7;
        cudaSuccess
    }
    pub unsafe extern "C" fn cuDeviceGetAttribute(
        value: *mut i32,
        attribute: CUdevice_attribute,
        device: CUdevice,
    ) -> CUresult {
        *value = attribute as i32 * 1000 + device;
        CUDA_SUCCESS
    }
}

/// The module a real -sys crate exports: the bindings plus the generated aliases.
pub mod sys {
    pub use crate::bindings::*;
    include!("rocm_compat.rs");
}

/// The same, with the aliases from the macro instead of the generated file.
pub mod sys_macro {
    pub use crate::bindings::*;
    hip_aliases::rocm_compat!(
        CUresult, CUDA_SUCCESS, cudaError_t, cudaSuccess, cudaErrorNoDevice, CUdevice, CUstream,
        CUstream_st, cudaMemcpyKind, cudaMemcpyHostToDevice, CUdevice_attribute,
        CU_DEVICE_ATTRIBUTE_PCI_BUS_ID, cuInit, cuDeviceGet, cudaGetDeviceCount, cuDeviceGetAttribute,
    );
}

pub mod consumer;
