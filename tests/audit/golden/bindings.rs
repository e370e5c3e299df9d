// Rust code using bindgen CUDA bindings.
use cuda_sys::*; // a use path is not a call
use libloading::Library;

unsafe fn init() -> CUresult {  // expect: rust-cuda-binding
    let r = cuInit(0);  // expect: rust-cuda-binding
    let mut p: CUdeviceptr = 0;  // expect: rust-cuda-binding
    cuMemAlloc_v2(&mut p, 16);  // expect: rust-cuda-binding
    cuCtxGetId(ctx, &mut id);  // expect: cuda-unmapped
    /* cudaMalloc in a /* nested */ comment */
    let s = "plain text";
    let lib = Library::new("libcuda.so.1").unwrap();  // expect: dlopen-cuda-library
    let f: Symbol<unsafe extern "C" fn() -> i32> = lib.get(b"cuInit\0").unwrap();  // expect: dlsym-cuda-symbol
    let lt: &'static str = "x";
    let cuda_device_count = 0; // snake_case Rust names are not CUDA API names
    r
}
#[cfg(use_rocm)] pub use self::hipDeviceGet as cuDeviceGet;
#[cfg(not(use_rocm))]
fn cuda_only() { cuMemFree_v2(0); }
fn uses_alias() { cuDeviceGet(0, 0); }
