# ONNX_REMAP_SANITIZE=ON builds everything with AddressSanitizer and UBSan.
option(ONNX_REMAP_SANITIZE "Build with ASan and UBSan" OFF)
if(ONNX_REMAP_SANITIZE)
  add_compile_options(-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined)
  add_link_options(-fsanitize=address,undefined)
  # The command line then exits as usual, so that LeakSanitizer checks (src/cli/main.cc).
  add_compile_definitions(ONNX_REMAP_SANITIZE)
endif()
