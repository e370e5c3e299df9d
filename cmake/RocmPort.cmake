# RocmPort.cmake: build a target's CUDA sources for ROCm through `port hipify`, the way
# hipify_torch's cmake/Hipify.cmake does, plus the include directory of the portable header
# (hip_aliases/gpu_runtime.h). Shipped with rocm-port (`port aliases --cmake-dir`).
#
#   execute_process(COMMAND port aliases --cmake-dir OUTPUT_VARIABLE _d OUTPUT_STRIP_TRAILING_WHITESPACE)
#   list(APPEND CMAKE_MODULE_PATH "${_d}")
#   include(RocmPort)
#   add_library(mylib src/kernels.cu src/host.cpp)  # the CUDA sources, as for the CUDA build
#   rocm_port_hipify(mylib SOURCE_DIR src)           # compile their hipified copies instead
#
# Variables (cache; set them before include() to override):
#   ROCM_PORT_EXECUTABLE   the `port` command (default: found on PATH)
#   ROCM_PORT_INCLUDE_DIR  `port aliases --include-dir`: #include "hip_aliases/gpu_runtime.h"
#
# rocm_port_hipify(<target> SOURCE_DIR <dir> [OUTPUT_DIR <dir>] [SCOPE PRIVATE|PUBLIC]
#                  [HIP_LANGUAGE <lang>] [HIPIFY_ARGS <arg>...])
#   Configure time: runs `port hipify <dir> --out <out>` once, to learn hipify's output name of
#   each file from the manifest (it depends on the contents: x.cpp -> x_hip.cpp only if hipify
#   changed it). Build time: a custom command reruns it (incremental: only changed files are
#   reconverted) whenever a file under <dir> changes, before the target compiles. The target's
#   sources under <dir> are replaced by their hipified files; <out> and ROCM_PORT_INCLUDE_DIR
#   join its include path. Files that hipify makes .hip are compiled as HIP_LANGUAGE (default:
#   HIP when the project enabled it, else CXX with a HIP-capable compiler such as hipcc).
#   A new, deleted or renamed file under <dir> reruns the configure step (CONFIGURE_DEPENDS).
#   Default OUTPUT_DIR: ${CMAKE_CURRENT_BINARY_DIR}/<target>.hipified.
#
# rocm_port_include_directories(<target> [PRIVATE|PUBLIC|INTERFACE])
#   Only the include directory of hip_aliases/gpu_runtime.h.
#
# rocm_port_rocm7_check(<target> SOURCE_DIR <dir> [ARCHS <arch>...] [CODEGEN] [ALL]
#                       [OUTPUT_DIR <dir>] [CHECK_ARGS <arg>...])
#   Adds the target <target>_rocm7_check: `port check <dir>` hipifies, audits and compiles
#   every CUDA unit under <dir> for each arch (default gfx942 gfx950) against ROCm 7's headers
#   (a ROCm 7 install, or the compile-only SDK of `port sdk fetch` with clang 22), with each
#   unit's flags from this build's compile_commands.json when CMAKE_EXPORT_COMPILE_COMMANDS is
#   on. It fails when a unit does not compile; CODEGEN generates device code instead of a
#   syntax check; ALL adds it to the default build. Reports (text/JSON/SARIF/HTML) in
#   OUTPUT_DIR (default ${CMAKE_CURRENT_BINARY_DIR}/<target>.rocm7-check). This is the ROCm 7
#   answer a machine without ROCm (no runtime to link or run against) can give.

cmake_minimum_required(VERSION 3.19)  # string(JSON)
include_guard(GLOBAL)

find_program(ROCM_PORT_EXECUTABLE port DOC "the rocm-port command line (port)")
if(NOT ROCM_PORT_EXECUTABLE)
  message(FATAL_ERROR "RocmPort: no `port` command on PATH; pip install rocm-port, or set ROCM_PORT_EXECUTABLE")
endif()

if(NOT ROCM_PORT_INCLUDE_DIR)
  execute_process(COMMAND "${ROCM_PORT_EXECUTABLE}" aliases --include-dir
                  OUTPUT_VARIABLE _rocm_port_inc ERROR_VARIABLE _rocm_port_err
                  RESULT_VARIABLE _rocm_port_rc OUTPUT_STRIP_TRAILING_WHITESPACE)
  if(NOT _rocm_port_rc EQUAL 0)
    message(FATAL_ERROR "RocmPort: `${ROCM_PORT_EXECUTABLE} aliases --include-dir` failed: ${_rocm_port_err}")
  endif()
  set(ROCM_PORT_INCLUDE_DIR "${_rocm_port_inc}" CACHE PATH "include directory of hip_aliases/gpu_runtime.h")
endif()

function(rocm_port_include_directories target)
  set(scope PRIVATE)
  if(ARGC GREATER 1)
    set(scope "${ARGV1}")
  endif()
  target_include_directories(${target} ${scope} "${ROCM_PORT_INCLUDE_DIR}")
endfunction()

# hipify's output of each source under SOURCE_DIR, read from the manifest: sets
# <prefix>_SOURCES and <prefix>_OUTPUTS (parallel lists of paths relative to the two roots).
function(_rocm_port_read_manifest manifest prefix)
  file(READ "${manifest}" json)
  string(JSON count LENGTH "${json}" files)
  set(sources "")
  set(outputs "")
  if(count GREATER 0)
    math(EXPR last "${count} - 1")
    foreach(i RANGE ${last})
      string(JSON src GET "${json}" files ${i} source)
      string(JSON status GET "${json}" files ${i} status)
      string(JSON out ERROR_VARIABLE no_output GET "${json}" files ${i} output)
      if(status STREQUAL "failed")
        string(JSON why ERROR_VARIABLE no_why GET "${json}" files ${i} why)
        message(FATAL_ERROR "RocmPort: port hipify failed on ${src}: ${why}")
      endif()
      if(no_output)
        set(out "${src}")  # skipped files are copied unchanged
      endif()
      list(APPEND sources "${src}")
      list(APPEND outputs "${out}")
    endforeach()
  endif()
  set(${prefix}_SOURCES "${sources}" PARENT_SCOPE)
  set(${prefix}_OUTPUTS "${outputs}" PARENT_SCOPE)
endfunction()

# The SOURCE_DIR (required) and OUTPUT_DIR (default ${CMAKE_CURRENT_BINARY_DIR}/<target>.<suffix>)
# of a rocm_port_* call, as absolute paths in the caller's src_dir and out_dir (a macro: it reads
# the caller's ARG_SOURCE_DIR/ARG_OUTPUT_DIR).
macro(_rocm_port_dirs caller target suffix)
  if(NOT ARG_SOURCE_DIR)
    message(FATAL_ERROR "${caller}(${target}): SOURCE_DIR is required")
  endif()
  get_filename_component(src_dir "${ARG_SOURCE_DIR}" ABSOLUTE)
  set(out_dir "${CMAKE_CURRENT_BINARY_DIR}/${target}.${suffix}")
  if(ARG_OUTPUT_DIR)
    get_filename_component(out_dir "${ARG_OUTPUT_DIR}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_BINARY_DIR}")
  endif()
endmacro()

function(rocm_port_hipify target)
  cmake_parse_arguments(PARSE_ARGV 1 ARG "" "SOURCE_DIR;OUTPUT_DIR;SCOPE;HIP_LANGUAGE" "HIPIFY_ARGS")
  _rocm_port_dirs(rocm_port_hipify ${target} hipified)
  if(NOT ARG_SCOPE)
    set(ARG_SCOPE PRIVATE)
  endif()
  if(NOT ARG_HIP_LANGUAGE)
    get_property(langs GLOBAL PROPERTY ENABLED_LANGUAGES)
    set(ARG_HIP_LANGUAGE CXX)
    if("HIP" IN_LIST langs)
      set(ARG_HIP_LANGUAGE HIP)
    endif()
  endif()
  set(hipify "${ROCM_PORT_EXECUTABLE}" hipify "${src_dir}" --out "${out_dir}" ${ARG_HIPIFY_ARGS})

  # Configure time: the output names. Every file under SOURCE_DIR is a configure dependency.
  file(GLOB_RECURSE inputs CONFIGURE_DEPENDS LIST_DIRECTORIES false "${src_dir}/*")
  execute_process(COMMAND ${hipify} RESULT_VARIABLE rc OUTPUT_VARIABLE log ERROR_VARIABLE log)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "RocmPort: `${hipify}` failed (exit ${rc}):\n${log}")
  endif()
  _rocm_port_read_manifest("${out_dir}/.port-hipify-manifest.json" HIPIFIED)

  # The target's sources under SOURCE_DIR -> their hipified files.
  get_target_property(old_sources ${target} SOURCES)
  set(new_sources "")
  set(generated "")
  foreach(s IN LISTS old_sources)
    get_filename_component(abs "${s}" ABSOLUTE)
    file(RELATIVE_PATH rel "${src_dir}" "${abs}")
    list(FIND HIPIFIED_SOURCES "${rel}" idx)
    if(idx EQUAL -1 OR rel MATCHES "^\\.\\./")
      list(APPEND new_sources "${s}")  # not under SOURCE_DIR: compiled as it is
      continue()
    endif()
    list(GET HIPIFIED_OUTPUTS ${idx} out_rel)
    set(out "${out_dir}/${out_rel}")
    list(APPEND new_sources "${out}")
    list(APPEND generated "${out}")
    if(out MATCHES "\\.hip$")
      set_source_files_properties("${out}" PROPERTIES LANGUAGE ${ARG_HIP_LANGUAGE})
    endif()
  endforeach()

  # Build time: rerun the (incremental) hipify when a source changes.
  set(stamp "${out_dir}/.rocm-port-hipify.stamp")
  add_custom_command(OUTPUT "${stamp}" ${generated}
                     COMMAND ${hipify}
                     COMMAND "${CMAKE_COMMAND}" -E touch "${stamp}"
                     DEPENDS ${inputs}
                     COMMENT "port hipify ${ARG_SOURCE_DIR} -> ${out_dir}"
                     VERBATIM)
  add_custom_target(${target}_hipify DEPENDS "${stamp}" ${generated})
  add_dependencies(${target} ${target}_hipify)
  set_target_properties(${target} PROPERTIES SOURCES "${new_sources}")
  target_include_directories(${target} ${ARG_SCOPE} "${out_dir}" "${ROCM_PORT_INCLUDE_DIR}")
endfunction()

function(rocm_port_rocm7_check target)
  cmake_parse_arguments(PARSE_ARGV 1 ARG "CODEGEN;ALL" "SOURCE_DIR;OUTPUT_DIR" "ARCHS;CHECK_ARGS")
  _rocm_port_dirs(rocm_port_rocm7_check ${target} rocm7-check)
  if(NOT ARG_ARCHS)
    set(ARG_ARCHS gfx942 gfx950)
  endif()
  set(cmd "${ROCM_PORT_EXECUTABLE}" check "${src_dir}" --out "${out_dir}")
  foreach(arch IN LISTS ARG_ARCHS)
    list(APPEND cmd --arch "${arch}")
  endforeach()
  if(CMAKE_EXPORT_COMPILE_COMMANDS)
    list(APPEND cmd --compile-commands "${CMAKE_BINARY_DIR}/compile_commands.json")
  endif()
  if(ARG_CODEGEN)
    list(APPEND cmd --codegen)
  endif()
  list(APPEND cmd ${ARG_CHECK_ARGS})
  set(all "")
  if(ARG_ALL)
    set(all ALL)
  endif()
  add_custom_target(${target}_rocm7_check ${all}
                    COMMAND ${cmd}
                    WORKING_DIRECTORY "${CMAKE_CURRENT_BINARY_DIR}"
                    COMMENT "port check ${ARG_SOURCE_DIR}: ROCm 7 readiness for ${ARG_ARCHS}"
                    VERBATIM)
endfunction()
