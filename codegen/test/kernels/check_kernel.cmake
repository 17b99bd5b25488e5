# Compiles one test kernel for one target with nvcc and checks the result.
# Run by ctest as: cmake -DNVCC=... -DSRC=... -DARCH=sm_90a -DOUT_DIR=...
#                        -DINCLUDE_DIR=... -DMODE=pass|fail -P check_kernel.cmake
#
# Directives, read from comments in SRC (TAG is ARCH in upper case: SM80,
# SM90, SM90A):
#   // CHECK: text            text occurs in the PTX (every target)
#   // CHECK-<TAG>: text      text occurs in the PTX for that target
#   // CHECK-NOT: text, // CHECK-<TAG>-NOT: text    text does not occur
#   // EXPECT-ERROR: text     (MODE fail) compilation fails with text in the
#                             compiler's output
# MODE pass also requires ptxas -v to report 0 bytes of stack frame, spill
# stores and spill loads for every function, and no compiler warning.

foreach(var NVCC SRC ARCH OUT_DIR INCLUDE_DIR MODE)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "check_kernel.cmake: -D${var}=... is required")
  endif()
endforeach()

string(REGEX REPLACE "^sm_" "" arch_num "${ARCH}")
string(TOUPPER "${ARCH}" tag)
string(REPLACE "_" "" tag "${tag}")
get_filename_component(stem "${SRC}" NAME_WE)

file(REMOVE_RECURSE "${OUT_DIR}")
file(MAKE_DIRECTORY "${OUT_DIR}")
execute_process(
  COMMAND "${NVCC}" -std=c++17 -cubin -keep -keep-dir "${OUT_DIR}"
          -gencode "arch=compute_${arch_num},code=sm_${arch_num}"
          -Xptxas -v -I "${INCLUDE_DIR}" "${SRC}" -o "${OUT_DIR}/${stem}.cubin"
  RESULT_VARIABLE rc
  OUTPUT_VARIABLE out
  ERROR_VARIABLE out)

# The directive lines as a list. Characters that CMake lists treat specially
# (";" and unbalanced "[", "]") are swapped for placeholders and restored per
# line by unescape().
file(READ "${SRC}" src_text)
string(REPLACE ";" "<SEMI>" src_text "${src_text}")
string(REPLACE "[" "<LBRACKET>" src_text "${src_text}")
string(REPLACE "]" "<RBRACKET>" src_text "${src_text}")
string(REPLACE "\n" ";" src_lines "${src_text}")
set(directives "")
foreach(line IN LISTS src_lines)
  if(line MATCHES "^[ \t]*// (CHECK|EXPECT-ERROR)")
    list(APPEND directives "${line}")
  endif()
endforeach()
macro(unescape var)
  string(REPLACE "<SEMI>" ";" ${var} "${${var}}")
  string(REPLACE "<LBRACKET>" "[" ${var} "${${var}}")
  string(REPLACE "<RBRACKET>" "]" ${var} "${${var}}")
endmacro()

if(MODE STREQUAL "fail")
  if(rc EQUAL 0)
    message(FATAL_ERROR "${stem} (${ARCH}): compiled, but it must not:\n${out}")
  endif()
  set(n 0)
  foreach(line IN LISTS directives)
    if(line MATCHES "^[ \t]*// EXPECT-ERROR: (.*)$")
      math(EXPR n "${n} + 1")
      set(text "${CMAKE_MATCH_1}")
      unescape(text)
      string(FIND "${out}" "${text}" pos)
      if(pos EQUAL -1)
        message(FATAL_ERROR "${stem} (${ARCH}): the error does not say "
                            "\"${text}\":\n${out}")
      endif()
    endif()
  endforeach()
  if(n EQUAL 0)
    message(FATAL_ERROR "${stem}: no // EXPECT-ERROR: line")
  endif()
  message(STATUS "${stem} (${ARCH}): rejected as expected")
  return()
endif()

if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${stem} (${ARCH}): nvcc failed (${rc}):\n${out}")
endif()

set(ptx_file "${OUT_DIR}/${stem}.ptx")
if(NOT EXISTS "${ptx_file}")
  message(FATAL_ERROR "${stem} (${ARCH}): no PTX kept at ${ptx_file}")
endif()
file(READ "${ptx_file}" ptx)

set(failures "")
set(nchecks 0)
foreach(line IN LISTS directives)
  if(line MATCHES "^[ \t]*// CHECK(-[A-Z0-9]+)?(-NOT)?: (.*)$")
    set(which "${CMAKE_MATCH_1}")
    set(negate "${CMAKE_MATCH_2}")
    set(text "${CMAKE_MATCH_3}")
    unescape(text)
    if(which STREQUAL "-NOT")
      set(which "")
      set(negate "-NOT")
    endif()
    if(NOT which STREQUAL "" AND NOT which STREQUAL "-${tag}")
      continue()
    endif()
    math(EXPR nchecks "${nchecks} + 1")
    string(FIND "${ptx}" "${text}" pos)
    if(negate STREQUAL "" AND pos EQUAL -1)
      string(APPEND failures "  missing from the PTX: ${text}\n")
    elseif(negate STREQUAL "-NOT" AND NOT pos EQUAL -1)
      string(APPEND failures "  must not be in the PTX: ${text}\n")
    endif()
  endif()
endforeach()
if(nchecks EQUAL 0)
  string(APPEND failures "  no CHECK line applies to ${ARCH}\n")
endif()

# ptxas -v: "N bytes stack frame, S bytes spill stores, L bytes spill loads"
string(REGEX MATCHALL "[0-9]+ bytes stack frame, [0-9]+ bytes spill stores, [0-9]+ bytes spill loads"
       frames "${out}")
if(NOT frames)
  string(APPEND failures "  no ptxas resource report in the output\n")
endif()
foreach(f IN LISTS frames)
  if(NOT f STREQUAL "0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads")
    string(APPEND failures "  ptxas: ${f}\n")
  endif()
endforeach()

# Compiler warnings (e.g. ptxas C7510: wgmma serialized, C7508: setmaxnreg
# ignored) mean the kernel will not run as written.
string(REGEX MATCHALL "[^\n]*[Ww]arning[^\n]*" warnings "${out}")
foreach(w IN LISTS warnings)
  string(APPEND failures "  ${w}\n")
endforeach()

string(REGEX MATCHALL "Compiling entry function '[^']+'|Used [0-9]+ registers[^\n]*"
       usage "${out}")
string(REPLACE ";" "\n  " usage "${usage}")
if(failures)
  message(FATAL_ERROR "${stem} (${ARCH}):\n${failures}nvcc output:\n${out}")
endif()
message(STATUS "${stem} (${ARCH}): ${nchecks} PTX checks, no spills, no stack\n  ${usage}")
