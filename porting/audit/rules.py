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


RULES: dict[str, Rule] = {r.id: r for r in (
    Rule("cuda-unmapped", "error", "CUDA API name with no hipify mapping",
         "hipify leaves this name as is, so the hipified code will not compile on ROCm. Find the HIP "
         "equivalent (HIP porting guide) and wrap it, or guard the code with #ifdef __HIP_PLATFORM_AMD__."),
    Rule("hip-deprecated", "warning", "hipify maps to a HIP name that ROCm deprecates",
         "The HIP name hipify produces is deprecated by ROCm (the message names the source) and may "
         "be removed in a later release; port to the suggested replacement."),
    Rule("rocm7-removed", "error", "name removed in ROCm 7.0",
         "HIP 7.0 removed this name (see the HIP API 7.0 changes page); use the replacement in the message."),
    Rule("warpsize-not-constexpr", "error", "warpSize used as a compile-time constant",
         "Since ROCm 7.0 warpSize is no longer constexpr (as in CUDA). Use it at run time only; size "
         "shared arrays and template arguments with a per-architecture constant (64 on CDNA) instead."),
    Rule("rocm7-hiprtc-link", "note", "runtime compilation needs libhiprtc on ROCm 7",
         "Since ROCm 7.0 the hipRTC symbols are no longer in libamdhip64: link -lhiprtc (or dlopen "
         "libhiprtc.so), and do not rely on int64_t/uint32_t being predefined in hipRTC sources."),
    Rule("warp-size-literal", "warning", "literal 32 used as the warp size",
         "AMD CDNA GPUs (gfx90a, gfx942, gfx950) run 64-wide wavefronts. Use warpSize (device, run time: "
         "not constexpr since ROCm 7) or hipDeviceProp_t::warpSize (host) instead of 32/31/5 in lane math."),
    Rule("warp-mask-32bit", "warning", "32-bit full lane mask in a warp intrinsic",
         "0xffffffff covers only half of a 64-lane wavefront; HIP's *_sync intrinsics take 64-bit masks. "
         "Use __activemask() or ~0ull (uint64_t)."),
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
    Rule("dlopen-cuda-library", "error", "dlopen of a CUDA library by name",
         "hipify does not rename library file names; on ROCm the load fails at run time. Load the ROCm "
         "library named in the message (or pick by platform)."),
    Rule("dlsym-cuda-symbol", "warning", "CUDA symbol looked up by name",
         "hipify rewrites the string (e.g. \"cuInit\" -> \"hipInit\") but the library handle, versioned "
         "names (_v2) and entry-point tables stay CUDA's. Check the HIP symbol exists in libamdhip64 "
         "(nm -D) and load that library."),
    Rule("string-cuda-name", "note", "CUDA name inside a string literal",
         "hipify renames names inside strings too (log messages, symbol names, config keys); check the "
         "renamed string is still what you want."),
    Rule("hipify-hang", "error", "'<<<' with no later '>>>': hipify never finishes",
         "hipify's kernel-launch rewriting loops forever on a '<<<' that has no '>>>' after it outside "
         "comments and strings (plain hipify hangs; `port hipify` reports the file as failed). Add spaces "
         "(a << <b) or parentheses, or finish the launch."),
    Rule("rust-cuda-binding", "warning", "CUDA API name used from Rust bindings",
         "Rust code calling bindgen-generated CUDA bindings needs HIP aliases on ROCm: generate them "
         "with `port aliases`."),
)}
