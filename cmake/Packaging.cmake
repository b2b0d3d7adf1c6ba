# `cpack -G DEB`: one Debian package, onnx-remap, with everything
# cmake --install puts under /usr (cmake/Install.cmake).
#
# Depends: the shared libraries the tool links (found by dpkg-shlibdeps) and,
# because the package also ships the static library and its headers, the
# -dev packages a consumer compiles against. The headers and the static
# library hold code generated for, and compiled against, this exact ONNX,
# protobuf and fmt, so each -dev package is held to the version series found
# here.
option(ONNX_REMAP_DEB_SHLIBDEPS "Compute the tool's shared-library Depends with dpkg-shlibdeps" ON)
set(ONNX_REMAP_PACKAGE_CONTACT "The onnx-remap authors" CACHE STRING "Maintainer field of the .deb")

# "3.21.12" -> "libprotobuf-dev (>= 3.21.12), libprotobuf-dev (<< 3.22)"
function(onnx_remap_same_series package version out)
  if(NOT "${version}" MATCHES "^([0-9]+)\\.([0-9]+)")
    message(FATAL_ERROR "Packaging: cannot read the version of ${package} from '${version}'")
  endif()
  set(major "${CMAKE_MATCH_1}")
  set(minor "${CMAKE_MATCH_2}")
  if(major EQUAL 0 OR package MATCHES "^lib(onnx|protobuf)-")
    # ONNX and protobuf: generated code and ABI change with each minor version.
    math(EXPR minor "${minor} + 1")
    set(next "${major}.${minor}")
  else()
    # fmt: the major version is its ABI (the fmt::vN namespace).
    math(EXPR next "${major} + 1")
  endif()
  set(${out} "${package} (>= ${version}), ${package} (<< ${next})" PARENT_SCOPE)
endfunction()

onnx_remap_same_series(libonnx-dev "${ONNX_VERSION}" _onnx_dep)
onnx_remap_same_series(libprotobuf-dev "${Protobuf_VERSION}" _protobuf_dep)
onnx_remap_same_series(libfmt-dev "${fmt_VERSION}" _fmt_dep)

set(CPACK_PACKAGE_NAME onnx-remap)
set(CPACK_PACKAGE_VENDOR "${ONNX_REMAP_PACKAGE_CONTACT}")
set(CPACK_PACKAGE_CONTACT "${ONNX_REMAP_PACKAGE_CONTACT}")
set(CPACK_PACKAGE_VERSION "${PROJECT_VERSION}")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "rewrite the operators PyTorch could not export into standard ONNX")
set(CPACK_PACKAGE_DESCRIPTION
    "onnx-remap finds the nodes torch.onnx.export left unmapped (ATen fallback, fall-through, custom domains) and rewrites them by declarative rules into standard ONNX or the operators a runtime implements. This package holds the onnx-remap tool, its man page and shell completions, the built-in rules as text, and the onnx_remap static library with its headers and CMake package (find_package(onnx_remap)).")
set(CPACK_RESOURCE_FILE_LICENSE "${PROJECT_SOURCE_DIR}/LICENSE")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_GENERATOR DEB)
# Strips the tool (not the static library): a RelWithDebInfo tool is ~50 MB of debug info.
set(CPACK_STRIP_FILES ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)  # onnx-remap_0.1.0_amd64.deb
set(CPACK_DEBIAN_PACKAGE_SECTION science)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ${ONNX_REMAP_DEB_SHLIBDEPS})
set(CPACK_DEBIAN_PACKAGE_DEPENDS "${_onnx_dep}, ${_protobuf_dep}, ${_fmt_dep}")
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "bash-completion")
# The package is built from this build tree only; no source package.
set(CPACK_SOURCE_GENERATOR "")
include(CPack)
