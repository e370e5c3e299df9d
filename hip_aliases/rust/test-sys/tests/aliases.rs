//! Runs in both configurations: `PORT_GPU_PLATFORM=rocm` (aliases over the fake HIP bindings)
//! and `PORT_GPU_PLATFORM=cuda` (the fake CUDA bindings, no aliases).

use hip_aliases_test_sys::{consumer, sys, sys_macro};

#[cfg(use_rocm)]
#[test]
fn cuda_names_resolve_to_the_hip_items() {
    // Values only the fake HIP functions produce: 3 devices, ids from 100, attribute 10.
    assert_eq!(consumer::open_device(2), Ok((3, 102, 10 * 1000 + 102)));
    assert_eq!(consumer::codes(), (sys::hipMemcpyHostToDevice, sys::hipErrorNoDevice));
    assert_eq!(sys::CUDA_SUCCESS, sys::hipSuccess);
    assert_eq!(sys::CU_DEVICE_ATTRIBUTE_PCI_BUS_ID, sys::hipDeviceAttributePciBusId);
    // Types are the HIP types themselves (a mismatch would not compile).
    let _: sys::hipDevice_t = 0 as sys::CUdevice;
    let _: sys::hipStream_t = consumer::null_stream();
    let _: *mut sys::ihipStream_t = std::ptr::null_mut::<sys::CUstream_st>();
}

#[cfg(use_rocm)]
#[test]
fn macro_and_generated_file_give_the_same_aliases() {
    let _: sys::CUdevice = 0 as sys_macro::CUdevice;
    let _: sys::CUresult = sys_macro::CUDA_SUCCESS;
    assert_eq!(sys_macro::cudaErrorNoDevice, sys::cudaErrorNoDevice);
    let mut n = 0;
    assert_eq!(unsafe { sys_macro::cudaGetDeviceCount(&mut n) }, sys_macro::cudaSuccess);
    assert_eq!(n, 3);
    let f: unsafe extern "C" fn(*mut i32, u32, i32) -> u32 = sys_macro::cuDeviceGetAttribute;
    let g: unsafe extern "C" fn(*mut i32, u32, i32) -> u32 = sys::hipDeviceGetAttribute;
    assert_eq!(f as usize, g as usize);
}

#[cfg(not(use_rocm))]
#[test]
fn without_rocm_the_cuda_bindings_are_used_unchanged() {
    assert_eq!(consumer::open_device(2), Ok((7, 2, 33 * 1000 + 2)));
    assert_eq!(consumer::codes(), (sys::cudaMemcpyHostToDevice, sys::cudaErrorNoDevice));
    let mut n = 0;
    assert_eq!(unsafe { sys_macro::cudaGetDeviceCount(&mut n) }, sys_macro::cudaSuccess);
    assert_eq!(n, 7);
}
