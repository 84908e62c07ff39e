# Install.cmake - `cmake --install BUILD [--prefix P]`: the public header
# (include/tile/tile.h), the static libraries behind tile::tile (the API and
# the components it links: no LLVM), the GPU compiler behind tile::llvm
# (libtile_gpu_compiler.a: tile's back end and the LLVM libraries it uses,
# merged into one archive, so that an application needs no LLVM of its own),
# tilec, and a CMake package so that
#   find_package(tile REQUIRED)
#   target_link_libraries(app PRIVATE tile::tile)          # interpreter, precompiled kernels
#   target_link_libraries(app PRIVATE tile::llvm)          # + JIT for the GPU (tile::enableGpuCompiler())
# works from another project (tests/package checks exactly that).
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(TILE_PACKAGE_LIBS tile_api tile_host tile_driver tile_gpu tile_interp tile_cuda tile_sema tile_transforms tile_ir
    tile_frontend tile_support)
install(TARGETS ${TILE_PACKAGE_LIBS} EXPORT tileTargets ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(TARGETS tilec RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/tile DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(EXPORT tileTargets NAMESPACE tile:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/tile)
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/tileConfig.cmake.in
                              ${CMAKE_BINARY_DIR}/tileConfig.cmake
                              INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/tile)
write_basic_package_version_file(${CMAKE_BINARY_DIR}/tileConfigVersion.cmake VERSION ${PROJECT_VERSION}
                                 COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_BINARY_DIR}/tileConfig.cmake ${CMAKE_BINARY_DIR}/tileConfigVersion.cmake
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/tile)

# The GPU compiler as one archive: tile_api_llvm (enableGpuCompiler), tile_llvm
# (the back end) and every LLVM library they need (llvm-config --link-static
# --libfiles of tile_llvm's components), merged by an `ar -M` script. Not in
# sanitizer or fuzz builds (their objects need the sanitizer runtime).
if(NOT TILE_SANITIZE AND NOT TILE_FUZZ)
  execute_process(COMMAND ${LLVM_TOOLS_BINARY_DIR}/llvm-config --link-static --libfiles ${TILE_LLVM_COMPONENTS}
                  OUTPUT_VARIABLE tile_llvm_libfiles OUTPUT_STRIP_TRAILING_WHITESPACE RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "llvm-config --libfiles failed: the GPU compiler cannot be packaged")
  endif()
  separate_arguments(tile_llvm_libfiles UNIX_COMMAND "${tile_llvm_libfiles}")
  set(mri "CREATE ${CMAKE_BINARY_DIR}/lib/libtile_gpu_compiler.a\nADDLIB $<TARGET_FILE:tile_api_llvm>\nADDLIB $<TARGET_FILE:tile_llvm>\n")
  foreach(lib ${tile_llvm_libfiles})
    string(APPEND mri "ADDLIB ${lib}\n")
  endforeach()
  string(APPEND mri "SAVE\nEND\n")
  file(GENERATE OUTPUT ${CMAKE_BINARY_DIR}/tile_gpu_compiler.mri CONTENT "${mri}")
  add_custom_command(OUTPUT ${CMAKE_BINARY_DIR}/lib/libtile_gpu_compiler.a
                     COMMAND ${CMAKE_COMMAND} -E make_directory ${CMAKE_BINARY_DIR}/lib
                     COMMAND ${CMAKE_COMMAND} -E rm -f ${CMAKE_BINARY_DIR}/lib/libtile_gpu_compiler.a
                     COMMAND sh -c "${CMAKE_AR} -M < ${CMAKE_BINARY_DIR}/tile_gpu_compiler.mri"
                     DEPENDS tile_api_llvm tile_llvm ${CMAKE_BINARY_DIR}/tile_gpu_compiler.mri ${tile_llvm_libfiles}
                     COMMENT "Merging the GPU compiler and LLVM into libtile_gpu_compiler.a" VERBATIM)
  add_custom_target(tile_gpu_compiler_archive ALL DEPENDS ${CMAKE_BINARY_DIR}/lib/libtile_gpu_compiler.a)
  install(FILES ${CMAKE_BINARY_DIR}/lib/libtile_gpu_compiler.a DESTINATION ${CMAKE_INSTALL_LIBDIR})
endif()

# The package test: install into a temporary prefix, then configure, build
# and run a separate project against it (not in sanitizer builds, whose
# libraries need the sanitizer runtime in the consumer too).
if(NOT TILE_SANITIZE AND NOT TILE_FUZZ)
  add_test(NAME package.find_package
           COMMAND ${PROJECT_SOURCE_DIR}/tests/package/run.sh ${CMAKE_COMMAND} ${CMAKE_BINARY_DIR}
                   ${CMAKE_BINARY_DIR}/package-test ${CMAKE_GENERATOR})
  set_tests_properties(package.find_package PROPERTIES TIMEOUT 600)
endif()
