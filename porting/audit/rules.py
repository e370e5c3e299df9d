"""The audit rules: id, severity, short description, and help text (also used for SARIF)."""

from __future__ import annotations

from dataclasses import dataclass

SEVERITIES = ("error", "warning", "note")


@dataclass(frozen=True)
class Rule:
    id: str
    severity: str
    title: str
    help: str
    default: bool = True  # off-by-default rules run only when enabled (--enable / audit.enable)


RULES: dict[str, Rule] = {r.id: r for r in (
    Rule("cuda-unmapped", "error", "CUDA API name with no hipify mapping and no ROCm 7 declaration",
         "A name the CUDA toolkit's headers declare (cuda.h, cuda_runtime_api.h, profiler, library_types.h) that "
         "hipify does not rename and ROCm 7's headers do not declare: the hipified code will not compile on ROCm. "
         "Names the scanned tree defines itself, code under HIP or CUDA-only preprocessor branches and files that "
         "include HIP headers are not findings. Skipped (with a note) when no CUDA headers are installed."),
    Rule("hip-deprecated", "warning", "HIP name that ROCm 7's headers mark deprecated",
         "ROCm 7's HIP headers declare this name (or the one hipify maps it to) with a deprecated attribute: "
         "builds warn (-Wdeprecated-declarations; an error under -Werror); port to the replacement the message names."),
    Rule("rocm7-removed", "error", "hipify's HIP name is absent from ROCm 7's headers (removed, or never in HIP)",
         "hipify rewrites the name to a HIP name that ROCm 7's headers no longer declare (or mark unavailable), "
         "or HIP 7.0 removed it (HIP API 7.0 changes page): the code does not compile on ROCm 7."),
    Rule("hip-error-ignored", "warning", "hipError_t result ignored (ROCm 7: [[nodiscard]])",
         "ROCm 7 declares hipError_t [[nodiscard]] (hip_runtime_api.h, C++17 and later): a call statement that "
         "drops the result warns (-Wunused-result; an error under -Werror), and the failure goes unnoticed. "
         "Check the result or cast it to (void)."),
    Rule("cuda-version-check", "warning", "#if on a CUDA version/arch macro",
         "HIP defines none of __CUDA_ARCH__, CUDART_VERSION, __CUDACC_VER_MAJOR__ (hipify maps CUDA_VERSION to "
         "TORCH_HIP_VERSION): the condition is false (or compares a HIP version) on ROCm, which compiles the other "
         "branch without a word. Give ROCm its own branch (__HIP_PLATFORM_AMD__). Opt-in: the statement is "
         "always true, but the #else is often an equivalent fallback; measured precision on the labelled corpus "
         "(tests/audit/corpus): 20% (3 of 15 findings change what ROCm gets).", default=False),
    Rule("warpsize-not-constexpr", "error", "warpSize used as a compile-time constant",
         "Since ROCm 7.0 warpSize is no longer constexpr (as in CUDA). Use it at run time only; size "
         "shared arrays and template arguments with a per-architecture constant (64 on CDNA) instead."),
    Rule("rocm7-hiprtc-link", "note", "runtime compilation needs libhiprtc on ROCm 7",
         "Since ROCm 7.0 the hipRTC symbols are no longer in libamdhip64: link -lhiprtc (or dlopen "
         "libhiprtc.so), and do not rely on int64_t/uint32_t being predefined in hipRTC sources."),
    Rule("warp-size-literal", "warning", "32-lane warp assumed (lane math, warp-width constant, shuffle width)",
         "AMD CDNA GPUs (gfx90a, gfx942, gfx950) run 64-wide wavefronts. Found by use: & 31 / % 32 / >> 5 / == 31 "
         "on values derived from threadIdx, constants equal to 32 used as a warp width whatever their name, "
         "shuffle widths and loops over 32 lanes. Use warpSize (run time; not constexpr since ROCm 7). Confirm "
         "with `port emulate SOURCES --warp 32,64`."),
    Rule("warp32-logical", "note", "32-lane logical warps, consistent at 64 (only the masks need fixing)",
         "Self-consistent 32-lane warp code: shuffle offsets 16..1 (xor or down), leaders at lane % 32 == 0, "
         "/ 32 warp slots, a width constant equal to 32, all in functions that never measure the warp by "
         "warpSize. On a 64-lane wavefront each 32-lane half acts as its own warp and the result is the same; "
         "only the *_sync masks need 64 bits. Judged per function (porting/audit/model.py)."),
    Rule("shfl-fixed-lane", "warning", "shuffle from a fixed source lane, no width, inside 32-lane logical warps",
         "__shfl_sync(mask, v, k) / __shfl(v, k) with no width in code that works in 32-lane logical warps: on a "
         "64-lane wavefront the source lane is counted over all 64 lanes, so lanes 32-63 read the lower half's "
         "value instead of their own half's (a wrong result, no error). Pass the logical width (32) or derive the "
         "source lane from warpSize."),
    Rule("warp-width-mixed", "warning", "warp measured by warpSize, reduced over 32 lanes",
         "A function that indexes its warps by warpSize (64 on gfx942/gfx950) calls a function of the file or of "
         "a header it includes that works on 32-lane warps (shuffle offsets from 16): on a 64-lane wavefront each "
         "call reduces half the wavefront, so every per-warp result is partial. Make the callee loop from "
         "warpSize / 2, or index the caller's warps by 32 consistently."),
    Rule("launch-warp32", "warning", "host launch sized for 32-lane warps, kernel counts warps by warpSize",
         "The grid or block of a kernel launch multiplies or divides by 32 (threads = 32 * m, grid = ceil_div(N * "
         "32, block), grid = OC / 32) while the kernel it launches indexes rows or warps by warpSize: on a 64-lane "
         "wavefront half the rows are never computed, or indices run past the end. Size the launch from the "
         "device's warp size."),
    Rule("shared-warp32", "warning", "shared array sized for 32 lanes, indexed by a warpSize lane",
         "A __shared__ array whose extent is 32 (or 32 * F) is filled or indexed through a lane counted with "
         "warpSize (threadIdx.x % warpSize, __lane_id(), f * warpSize + lane): lanes 32-63 of a 64-lane wavefront "
         "write past its end. Size it by the warp size (64 on CDNA)."),
    Rule("warp-mask-32bit", "error", "32-bit lane mask in a *_sync warp intrinsic (compile error on ROCm 7)",
         "ROCm 7's amd_warp_sync_functions.h static_asserts that the mask of __shfl*_sync, __ballot_sync, "
         "__any_sync, __all_sync, __match_*_sync and __syncwarp is a 64-bit integer: a 0xffffffff literal or a "
         "32-bit mask variable does not compile. Use __activemask() or ~0ull (uint64_t)."),
    Rule("ballot-32bit", "warning", "ballot/activemask result stored in a 32-bit type",
         "On a 64-wide wavefront __ballot/__activemask return 64 bits; storing them in 32 bits drops "
         "lanes 32-63. Use uint64_t (unsigned long long) and __popcll/__ffsll."),
    Rule("activemask", "note", "__activemask() is 64-bit on AMD",
         "Make sure the value is kept in a 64-bit type and lane loops go to warpSize."),
    Rule("inline-ptx", "error", "inline PTX assembly",
         "PTX does not exist on AMD GPUs. Replace the asm with a HIP/clang builtin or intrinsic "
         "(e.g. __lane_id(), __builtin_amdgcn_*), or keep it behind #ifdef __CUDA_ARCH__ with a HIP path."),
    Rule("cuda-only-library", "warning", "CUDA-only library",
         "This library has no ROCm build; port to its ROCm counterpart (named in the message)."),
    Rule("rccl-link", "note", "NCCL: hipify maps it to RCCL (same API); link librccl",
         "<nccl.h> and the nccl* API have a ROCm counterpart with the same API, RCCL: hipify rewrites the "
         "include to <rccl/rccl.h>, and the build links librccl instead of libnccl. A link-library change, "
         "not a blocker."),
    Rule("dlopen-cuda-library", "error", "dlopen of a CUDA library by name",
         "hipify does not rename library file names; on ROCm the load fails at run time. Load the ROCm "
         "library named in the message (or pick by platform)."),
    Rule("dlsym-cuda-symbol", "warning", "CUDA symbol looked up by name",
         "hipify rewrites the string (e.g. \"cuInit\" -> \"hipInit\") but the library handle, versioned "
         "names (_v2) and entry-point tables stay CUDA's. Check the HIP symbol exists in libamdhip64 "
         "(nm -D) and load that library."),
    Rule("string-cuda-name", "note", "CUDA name inside a string literal",
         "hipify renames names inside strings too (log messages, symbol names, config keys). Off by default: "
         "in messages the rename is harmless; names looked up at run time are the dlsym-cuda-symbol rule. "
         "Measured precision on the labelled corpus (tests/audit/corpus): 0% (0 of 18 findings; all messages).",
         default=False),
    Rule("hipify-hang", "error", "'<<<' with no later '>>>': hipify never finishes",
         "hipify's kernel-launch rewriting loops forever on a '<<<' that has no '>>>' after it outside "
         "comments and strings (plain hipify hangs; `port hipify` reports the file as failed). Add spaces "
         "(a << <b) or parentheses, or finish the launch."),
    Rule("rust-cuda-binding", "warning", "CUDA API name used from Rust bindings",
         "Rust code calling bindgen-generated CUDA bindings needs HIP aliases on ROCm: generate them "
         "with `port aliases`."),
)}
