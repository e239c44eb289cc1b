# HTPDialects.cmake - build HTP's MLIR dialects with CMake.
#
# The CMake twin of lib/htp-dialects/build.rs: it reads dialects/HTPDialects.def
# (the one list of dialects), runs mlir-tblgen on each dialect's ODS files by
# the same naming convention, and compiles every dialect's .cpp files plus
# dialects/Registration.cpp into one library. Adding a line to the .def file
# (and the dialect's folder) is all a new dialect needs.
#
#   htp_add_dialects(TARGET <name>
#                    [DIALECTS_DIR <dir>]        # default: <repo>/dialects
#                    [GEN_DIR <dir>]             # default: <binary dir>/<name>-gen
#                    [MLIR_LINK DYLIB|STATIC])   # default: ${HTP_MLIR_LINK} or DYLIB
#
# Needs find_package(MLIR CONFIG) to have run first. MLIR_LINK says which MLIR
# the library is linked against:
#   DYLIB  - Debian's libMLIR.so / libLLVM.so (what mlir-opt itself uses: the
#            only choice for a plugin loaded into mlir-opt), plus the one
#            C API archive Registration.cpp needs (libMLIR.so exports no C API).
#   STATIC - MLIR's static component libraries, for a tool that links those.
# Never mix the two in one process: two copies of MLIR disagree on TypeIDs.
#
# Sets on the target: HTP_DIALECTS (namespaces, in .def order) and
# HTP_GEN_DIR (where the generated <ns>/<Prefix>*.inc files are).

include_guard(GLOBAL)

set(HTP_DIALECTS_CMAKE_DIR "${CMAKE_CURRENT_LIST_DIR}")

# Parses HTPDialects.def into two lists, the way the Rust build does
# (lib/htp-build parse_dialect_list): blank lines and // comments are skipped,
# every other line must be HTP_DIALECT(namespace, Prefix).
function(htp_read_dialect_list def_file out_namespaces out_prefixes)
  file(STRINGS "${def_file}" lines)
  set(namespaces "")
  set(prefixes "")
  set(number 0)
  foreach(line IN LISTS lines)
    math(EXPR number "${number} + 1")
    string(STRIP "${line}" line)
    if(line STREQUAL "" OR line MATCHES "^//")
      continue()
    endif()
    if(NOT line MATCHES "^HTP_DIALECT\\([ \t]*([A-Za-z_][A-Za-z0-9_]*)[ \t]*,[ \t]*([A-Za-z_][A-Za-z0-9_]*)[ \t]*\\)$")
      message(FATAL_ERROR "${def_file}:${number}: expected HTP_DIALECT(namespace, Prefix), got `${line}`")
    endif()
    list(APPEND namespaces "${CMAKE_MATCH_1}")
    list(APPEND prefixes "${CMAKE_MATCH_2}")
  endforeach()
  set(${out_namespaces} "${namespaces}" PARENT_SCOPE)
  set(${out_prefixes} "${prefixes}" PARENT_SCOPE)
endfunction()

# One mlir-tblgen run: <td> with <args> into <out>, with a depfile so edits to
# included .td files regenerate it.
function(_htp_tblgen td out)
  cmake_parse_arguments(ARG "" "" "ARGS;INCLUDES" ${ARGN})
  set(include_args "-I" "${MLIR_INCLUDE_DIRS}")
  foreach(dir IN LISTS ARG_INCLUDES)
    list(APPEND include_args "-I" "${dir}")
  endforeach()
  get_filename_component(out_dir "${out}" DIRECTORY)
  file(MAKE_DIRECTORY "${out_dir}")
  file(RELATIVE_PATH rel "${CMAKE_BINARY_DIR}" "${out}")
  add_custom_command(
    OUTPUT "${out}"
    COMMAND "${HTP_MLIR_TBLGEN}" ${ARG_ARGS} "${td}" ${include_args}
            -o "${out}" -d "${out}.d"
    DEPENDS "${td}" "${HTP_MLIR_TBLGEN}"
    DEPFILE "${out}.d"
    COMMENT "mlir-tblgen ${rel}"
    VERBATIM)
endfunction()

function(htp_add_dialects)
  cmake_parse_arguments(ARG "" "TARGET;DIALECTS_DIR;GEN_DIR;MLIR_LINK" "" ${ARGN})
  if(NOT ARG_TARGET)
    message(FATAL_ERROR "htp_add_dialects: TARGET <name> is required")
  endif()
  if(NOT MLIR_INCLUDE_DIRS)
    message(FATAL_ERROR "htp_add_dialects: call find_package(MLIR CONFIG) first")
  endif()
  if(NOT ARG_DIALECTS_DIR)
    get_filename_component(ARG_DIALECTS_DIR "${HTP_DIALECTS_CMAKE_DIR}/../dialects" ABSOLUTE)
  endif()
  if(NOT ARG_GEN_DIR)
    set(ARG_GEN_DIR "${CMAKE_CURRENT_BINARY_DIR}/${ARG_TARGET}-gen")
  endif()
  if(NOT ARG_MLIR_LINK)
    if(HTP_MLIR_LINK)
      set(ARG_MLIR_LINK "${HTP_MLIR_LINK}")
    else()
      set(ARG_MLIR_LINK DYLIB)
    endif()
  endif()
  if(NOT ARG_MLIR_LINK MATCHES "^(DYLIB|STATIC)$")
    message(FATAL_ERROR "htp_add_dialects: MLIR_LINK must be DYLIB or STATIC, got ${ARG_MLIR_LINK}")
  endif()

  # mlir-tblgen from the MLIR that find_package found (Debian: /usr/lib/llvm-22/bin).
  if(NOT HTP_MLIR_TBLGEN)
    if(TARGET mlir-tblgen)
      get_target_property(tblgen mlir-tblgen LOCATION)
    endif()
    if(NOT tblgen OR NOT EXISTS "${tblgen}")
      find_program(tblgen mlir-tblgen HINTS "${LLVM_TOOLS_BINARY_DIR}" NO_DEFAULT_PATH REQUIRED)
    endif()
    set(HTP_MLIR_TBLGEN "${tblgen}" CACHE FILEPATH "mlir-tblgen used for HTP's dialects")
  endif()

  set(def "${ARG_DIALECTS_DIR}/HTPDialects.def")
  # Reconfigure when the list changes, so a new dialect is picked up.
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS "${def}")
  htp_read_dialect_list("${def}" namespaces prefixes)
  if(NOT namespaces)
    message(FATAL_ERROR "${def} lists no dialect")
  endif()

  set(sources "${ARG_DIALECTS_DIR}/Registration.cpp")
  set(generated "")
  set(headers "${ARG_DIALECTS_DIR}/Registration.h" "${ARG_DIALECTS_DIR}/HTPDialects.def")
  set(tds "")
  foreach(ns prefix IN ZIP_LISTS namespaces prefixes)
    set(dir "${ARG_DIALECTS_DIR}/${ns}")
    set(dest "${ARG_GEN_DIR}/${ns}")
    set(includes "${dir}" "${ARG_DIALECTS_DIR}")
    foreach(required Dialect Ops)
      if(NOT EXISTS "${dir}/${prefix}${required}.td")
        message(FATAL_ERROR "${def}: dialect ${ns} has no ${dir}/${prefix}${required}.td")
      endif()
    endforeach()
    # Same generators, file names and options as lib/htp-dialects/build.rs.
    set(kinds Dialect Dialect Ops Ops Ops Ops)
    set(outs Dialect.h Dialect.cpp Ops.h Ops.cpp Enums.h Enums.cpp)
    # One element per run; "|" separates a run's arguments (";" would split it).
    set(gens "-gen-dialect-decls|-dialect=${ns}" "-gen-dialect-defs|-dialect=${ns}"
             -gen-op-decls -gen-op-defs -gen-enum-decls -gen-enum-defs)
    if(EXISTS "${dir}/${prefix}Types.td")
      list(APPEND kinds Types Types)
      list(APPEND outs Types.h Types.cpp)
      list(APPEND gens "-gen-typedef-decls|-typedefs-dialect=${ns}" "-gen-typedef-defs|-typedefs-dialect=${ns}")
    endif()
    if(EXISTS "${dir}/${prefix}Attrs.td")
      list(APPEND kinds Attrs Attrs)
      list(APPEND outs Attrs.h Attrs.cpp)
      list(APPEND gens "-gen-attrdef-decls|-attrdefs-dialect=${ns}" "-gen-attrdef-defs|-attrdefs-dialect=${ns}")
    endif()
    if(EXISTS "${dir}/${prefix}Interfaces.td")
      list(APPEND kinds Interfaces Interfaces)
      list(APPEND outs Interfaces.h Interfaces.cpp)
      list(APPEND gens -gen-op-interface-decls -gen-op-interface-defs)
    endif()
    foreach(kind out gen IN ZIP_LISTS kinds outs gens)
      string(REPLACE "|" ";" gen_args "${gen}")
      _htp_tblgen("${dir}/${prefix}${kind}.td" "${dest}/${prefix}${out}.inc"
                  ARGS ${gen_args} INCLUDES ${includes})
      list(APPEND generated "${dest}/${prefix}${out}.inc")
    endforeach()
    file(GLOB dialect_sources CONFIGURE_DEPENDS "${dir}/*.cpp")
    file(GLOB dialect_headers CONFIGURE_DEPENDS "${dir}/*.h")
    file(GLOB dialect_tds CONFIGURE_DEPENDS "${dir}/*.td")
    list(SORT dialect_sources)
    list(APPEND sources ${dialect_sources})
    list(APPEND headers ${dialect_headers})
    list(APPEND tds ${dialect_tds})
  endforeach()

  add_custom_target(${ARG_TARGET}-tablegen DEPENDS ${generated})
  add_library(${ARG_TARGET} STATIC ${sources})
  add_dependencies(${ARG_TARGET} ${ARG_TARGET}-tablegen)
  # PIC: the same archive goes into the mlir-opt plugin (a shared library).
  set_target_properties(${ARG_TARGET} PROPERTIES
    POSITION_INDEPENDENT_CODE ON
    HTP_DIALECTS "${namespaces}"
    HTP_GEN_DIR "${ARG_GEN_DIR}"
    HTP_DIALECTS_DIR "${ARG_DIALECTS_DIR}"
    HTP_DIALECT_HEADERS "${headers}"
    HTP_DIALECT_TDS "${tds}"
    HTP_GENERATED "${generated}"
    HTP_MLIR_LINK "${ARG_MLIR_LINK}"
    EXPORT_PROPERTIES "HTP_DIALECTS;HTP_MLIR_LINK")
  target_compile_features(${ARG_TARGET} PUBLIC cxx_std_17)
  target_include_directories(${ARG_TARGET} PUBLIC
    "$<BUILD_INTERFACE:${ARG_DIALECTS_DIR}>" "$<BUILD_INTERFACE:${ARG_GEN_DIR}>")
  # MLIR's imported targets carry no include directories; add them here.
  set(mlir_includes ${MLIR_INCLUDE_DIRS} ${LLVM_INCLUDE_DIRS})
  list(REMOVE_DUPLICATES mlir_includes)
  target_include_directories(${ARG_TARGET} SYSTEM PUBLIC ${mlir_includes})

  # The flags MLIR's headers need, as in lib/htp-build cxx_build(): LLVM's
  # definitions, no exceptions / RTTI matching LLVM, NDEBUG for a release LLVM.
  separate_arguments(llvm_defs UNIX_COMMAND "${LLVM_DEFINITIONS}")
  target_compile_options(${ARG_TARGET} PUBLIC ${llvm_defs})
  if(NOT LLVM_ENABLE_EH)
    target_compile_options(${ARG_TARGET} PUBLIC "$<$<COMPILE_LANGUAGE:CXX>:-fno-exceptions>")
  endif()
  if(NOT LLVM_ENABLE_RTTI)
    target_compile_options(${ARG_TARGET} PUBLIC "$<$<COMPILE_LANGUAGE:CXX>:-fno-rtti>")
  endif()
  if(NOT LLVM_ENABLE_ASSERTIONS)
    target_compile_definitions(${ARG_TARGET} PRIVATE NDEBUG)
  endif()

  if(ARG_MLIR_LINK STREQUAL "DYLIB")
    # Registration.cpp calls mlirDialectHandleInsertDialect, which lives only in
    # the static C API archive. Link the archive file itself, not its CMake
    # target: the target would drag in static MLIR and LLVM beside the dylibs.
    target_link_libraries(${ARG_TARGET} PUBLIC
      "$<LINK_ONLY:$<TARGET_FILE:MLIRCAPIIR>>" MLIR LLVM)
  else()
    target_link_libraries(${ARG_TARGET} PUBLIC
      MLIRCAPIIR MLIRIR MLIRArithDialect MLIRBytecodeOpInterface
      MLIRInferTypeOpInterface MLIRSideEffectInterfaces MLIRFunctionInterfaces)
  endif()
endfunction()

# Installs a target made by htp_add_dialects: the archive into lib/, the
# sources' headers, .td files, HTPDialects.def and the generated .inc files
# into include/htp/ (so "tile/TileDialect.h" resolves), and adds the target
# to <EXPORT>.
function(htp_install_dialects target)
  cmake_parse_arguments(ARG "" "EXPORT;INCLUDE_DIR" "" ${ARGN})
  if(NOT ARG_INCLUDE_DIR)
    set(ARG_INCLUDE_DIR "include/htp")
  endif()
  get_target_property(gen_dir ${target} HTP_GEN_DIR)
  get_target_property(headers ${target} HTP_DIALECT_HEADERS)
  get_target_property(tds ${target} HTP_DIALECT_TDS)
  target_include_directories(${target} PUBLIC "$<INSTALL_INTERFACE:${ARG_INCLUDE_DIR}>")
  install(TARGETS ${target} EXPORT ${ARG_EXPORT}
    ARCHIVE DESTINATION "${CMAKE_INSTALL_LIBDIR}"
    LIBRARY DESTINATION "${CMAKE_INSTALL_LIBDIR}")
  # Keep each file's path below dialects/ (tile/TileDialect.h, Registration.h).
  get_target_property(dialects_dir ${target} HTP_DIALECTS_DIR)
  foreach(file IN LISTS headers tds)
    file(RELATIVE_PATH rel "${dialects_dir}" "${file}")
    get_filename_component(sub "${rel}" DIRECTORY)
    install(FILES "${file}" DESTINATION "${ARG_INCLUDE_DIR}/${sub}")
  endforeach()
  install(DIRECTORY "${gen_dir}/" DESTINATION "${ARG_INCLUDE_DIR}"
    FILES_MATCHING PATTERN "*.inc")
endfunction()
