# Install.cmake - `cmake --install BUILD [--prefix P]`: the public header
# (include/tile/tile.h), the static libraries behind tile::tile (the API and
# the components it links: no LLVM), tilec, and a CMake package so that
#   find_package(tile REQUIRED)
#   target_link_libraries(app PRIVATE tile::tile)
# works from another project (tests/package checks exactly that). The GPU
# compiler (tile::llvm, LLVM linked statically) is not part of the package:
# an installed host runs kernels on the interpreter, or on the GPU from
# kernels compiled by tilec (docs/architecture.md).
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

# The package test: install into a temporary prefix, then configure, build
# and run a separate project against it (not in sanitizer builds, whose
# libraries need the sanitizer runtime in the consumer too).
if(NOT TILE_SANITIZE AND NOT TILE_FUZZ)
  add_test(NAME package.find_package
           COMMAND ${PROJECT_SOURCE_DIR}/tests/package/run.sh ${CMAKE_COMMAND} ${CMAKE_BINARY_DIR}
                   ${CMAKE_BINARY_DIR}/package-test ${CMAKE_GENERATOR})
  set_tests_properties(package.find_package PROPERTIES TIMEOUT 600)
endif()
