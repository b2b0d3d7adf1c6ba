# `cmake --install`: the tool, its man page and completions, a readable copy
# of the built-in rules, and the library with its headers and a CMake package
# (find_package(onnx_remap) gives onnx_remap::onnx_remap). Included from the
# top-level CMakeLists.txt after src/.
include(CMakePackageConfigHelpers)

set(ONNX_REMAP_CMAKE_DIR "${CMAKE_INSTALL_LIBDIR}/cmake/onnx_remap")

install(TARGETS onnx-remap RUNTIME DESTINATION "${CMAKE_INSTALL_BINDIR}")
list(GET CLI_DOCS 0 _man)
list(GET CLI_DOCS 1 _bash)
list(GET CLI_DOCS 2 _zsh)
install(FILES "${_man}" DESTINATION "${CMAKE_INSTALL_MANDIR}/man1")
# bash-completion loads completions/NAME on first use of the command NAME.
install(FILES "${_bash}" DESTINATION "${CMAKE_INSTALL_DATADIR}/bash-completion/completions" RENAME onnx-remap)
install(FILES "${_zsh}" DESTINATION "${CMAKE_INSTALL_DATADIR}/zsh/vendor-completions")
# The tool embeds its rules; this copy is to read and to start your own from.
install(DIRECTORY "${PROJECT_SOURCE_DIR}/rules/" DESTINATION "${CMAKE_INSTALL_DATADIR}/onnx-remap/rules")
install(FILES "${PROJECT_SOURCE_DIR}/README.md" "${PROJECT_SOURCE_DIR}/LICENSE" "${PROJECT_SOURCE_DIR}/docs/library.md"
        DESTINATION "${CMAKE_INSTALL_DATADIR}/doc/onnx-remap")

# The library. Its headers include each other by folder ("rules/rule_set.h"),
# so they keep the src/ layout under include/onnx_remap/, which is the one
# include directory consumers get. Every library header is installed: the
# public ones (pipeline/, report/, rules/) reach most of the others.
install(TARGETS onnx_remap EXPORT onnx_remapTargets
        ARCHIVE DESTINATION "${CMAKE_INSTALL_LIBDIR}")
install(DIRECTORY "${PROJECT_SOURCE_DIR}/src/" DESTINATION "${CMAKE_INSTALL_INCLUDEDIR}/onnx_remap"
        FILES_MATCHING PATTERN "*.h"
        PATTERN "cli" EXCLUDE)
install(FILES "${PROJECT_BINARY_DIR}/src/generated/proto/rules.pb.h"
              "${PROJECT_BINARY_DIR}/src/generated/proto/precompiled_rules.pb.h" DESTINATION "${CMAKE_INSTALL_INCLUDEDIR}/onnx_remap/proto")
install(FILES "${PROJECT_BINARY_DIR}/src/generated/report/report.pb.h" "${PROJECT_BINARY_DIR}/src/generated/report/listing.pb.h"
        DESTINATION "${CMAKE_INSTALL_INCLUDEDIR}/onnx_remap/report")

install(EXPORT onnx_remapTargets NAMESPACE onnx_remap:: DESTINATION "${ONNX_REMAP_CMAKE_DIR}")
configure_package_config_file("${PROJECT_SOURCE_DIR}/cmake/onnx_remapConfig.cmake.in"
                              "${PROJECT_BINARY_DIR}/onnx_remapConfig.cmake"
                              INSTALL_DESTINATION "${ONNX_REMAP_CMAKE_DIR}")
# 0.x: a new minor version may change the API, so only the same minor is compatible.
write_basic_package_version_file("${PROJECT_BINARY_DIR}/onnx_remapConfigVersion.cmake"
                                 COMPATIBILITY SameMinorVersion)
install(FILES "${PROJECT_BINARY_DIR}/onnx_remapConfig.cmake" "${PROJECT_BINARY_DIR}/onnx_remapConfigVersion.cmake"
        DESTINATION "${ONNX_REMAP_CMAKE_DIR}")
