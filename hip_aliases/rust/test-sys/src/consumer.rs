//! Code written against the CUDA names only; it builds for CUDA and, through the aliases, for ROCm.

use crate::sys::{
    cuDeviceGet, cuDeviceGetAttribute, cuInit, cudaGetDeviceCount, CUdevice, CUresult, CUstream,
    CUstream_st, CU_DEVICE_ATTRIBUTE_PCI_BUS_ID, CUDA_SUCCESS,
};

/// Initialise, count devices and open device `ordinal`: (count, device handle, PCI bus id).
pub fn open_device(ordinal: i32) -> Result<(i32, CUdevice, i32), CUresult> {
    unsafe {
        let rc: CUresult = cuInit(0);
        if rc != CUDA_SUCCESS {
            return Err(rc);
        }
        let mut count = 0;
        let rc: crate::sys::cudaError_t = cudaGetDeviceCount(&mut count);
        if rc != crate::sys::cudaSuccess {
            return Err(rc);
        }
        let mut device: CUdevice = 0;
        let rc = cuDeviceGet(&mut device, ordinal);
        if rc != CUDA_SUCCESS {
            return Err(rc);
        }
        let mut bus = 0;
        cuDeviceGetAttribute(&mut bus, CU_DEVICE_ATTRIBUTE_PCI_BUS_ID, device);
        Ok((count, device, bus))
    }
}

/// The null stream, typed with the CUDA names.
pub fn null_stream() -> CUstream {
    std::ptr::null_mut::<CUstream_st>()
}

/// The copy kind and the "no device" error code, as the CUDA names see them.
pub fn codes() -> (crate::sys::cudaMemcpyKind, crate::sys::cudaError_t) {
    (crate::sys::cudaMemcpyHostToDevice, crate::sys::cudaErrorNoDevice)
}
