# Install.cmake - `cmake --install BUILD [--prefix P]`: the public header
# (include/tile/tile.h), two static archives and a CMake package, so that
#   find_package(tile REQUIRED)
#   target_link_libraries(app PRIVATE tile::tile)   # interpreter, GPU runtime, precompiled kernels
#   target_link_libraries(app PRIVATE tile::llvm)   # + the GPU compiler (tile::enableGpuCompiler())
# works from another project (tests/package checks exactly that), and tilec.
#   libtile.a               tile::tile: the API and the components it links,
#                           with libcrypto (the kernel cache's SHA-256) and
#                           fmt's compiled part (tile_support) inside: an
#                           application needs neither OpenSSL nor fmt
#   libtile_gpu_compiler.a  tile::llvm: tile_api_llvm, tile_llvm and the LLVM
#                           static libraries they need: no LLVM of its own
# Each archive is merged from its parts by an `ar -M` script at build time.
# Not in sanitizer or fuzz builds (their objects need the sanitizer runtime).
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

install(TARGETS tilec RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
if(TILE_SANITIZE OR TILE_FUZZ)
  return()
endif()

# tile_merged_archive(NAME TARGETS t... FILES f...): lib/libNAME.a in the
# build tree from the targets' archives and the given archive files, built
# with ALL, installed.
function(tile_merged_archive name)
  cmake_parse_arguments(M "" "" "TARGETS;FILES" ${ARGN})
  set(out ${CMAKE_BINARY_DIR}/lib/lib${name}.a)
  set(mri "CREATE ${out}\n")
  foreach(t ${M_TARGETS})
    string(APPEND mri "ADDLIB $<TARGET_FILE:${t}>\n")
  endforeach()
  foreach(f ${M_FILES})
    string(APPEND mri "ADDLIB ${f}\n")
  endforeach()
  string(APPEND mri "SAVE\nEND\n")
  file(GENERATE OUTPUT ${CMAKE_BINARY_DIR}/${name}.mri CONTENT "${mri}")
  add_custom_command(OUTPUT ${out}
                     COMMAND ${CMAKE_COMMAND} -E make_directory ${CMAKE_BINARY_DIR}/lib
                     COMMAND ${CMAKE_COMMAND} -E rm -f ${out}
                     COMMAND sh -c "${CMAKE_AR} -M < ${CMAKE_BINARY_DIR}/${name}.mri"
                     DEPENDS ${M_TARGETS} ${M_FILES} ${CMAKE_BINARY_DIR}/${name}.mri
                     COMMENT "Merging lib${name}.a" VERBATIM)
  add_custom_target(${name}_archive ALL DEPENDS ${out})
  install(FILES ${out} DESTINATION ${CMAKE_INSTALL_LIBDIR})
endfunction()

# libcrypto as a static archive (libssl-dev ships it beside the shared one)
get_filename_component(crypto_dir "${OPENSSL_CRYPTO_LIBRARY}" DIRECTORY)
find_file(TILE_CRYPTO_STATIC libcrypto.a HINTS ${crypto_dir} NO_DEFAULT_PATH)
if(NOT TILE_CRYPTO_STATIC)
  message(FATAL_ERROR "libcrypto.a not found beside ${OPENSSL_CRYPTO_LIBRARY}: the package cannot hide OpenSSL")
endif()
tile_merged_archive(tile TARGETS tile_api tile_host tile_driver tile_gpu tile_interp tile_cuda tile_sema tile_transforms
                    tile_ir tile_frontend tile_support FILES ${TILE_CRYPTO_STATIC})

execute_process(COMMAND ${LLVM_TOOLS_BINARY_DIR}/llvm-config --link-static --libfiles ${TILE_LLVM_COMPONENTS}
                OUTPUT_VARIABLE llvm_libfiles OUTPUT_STRIP_TRAILING_WHITESPACE RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "llvm-config --libfiles failed: the GPU compiler cannot be packaged")
endif()
separate_arguments(llvm_libfiles UNIX_COMMAND "${llvm_libfiles}")
tile_merged_archive(tile_gpu_compiler TARGETS tile_api_llvm tile_llvm FILES ${llvm_libfiles})

install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/tile DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/tileConfig.cmake.in
                              ${CMAKE_BINARY_DIR}/tileConfig.cmake
                              INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/tile)
write_basic_package_version_file(${CMAKE_BINARY_DIR}/tileConfigVersion.cmake VERSION ${PROJECT_VERSION}
                                 COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_BINARY_DIR}/tileConfig.cmake ${CMAKE_BINARY_DIR}/tileConfigVersion.cmake
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/tile)

# The package test: install into a temporary prefix, then configure, build
# and run a separate project against it.
add_test(NAME package.find_package
         COMMAND ${PROJECT_SOURCE_DIR}/tests/package/run.sh ${CMAKE_COMMAND} ${CMAKE_BINARY_DIR}
                 ${CMAKE_BINARY_DIR}/package-test ${CMAKE_GENERATOR})
set_tests_properties(package.find_package PROPERTIES TIMEOUT 600)
