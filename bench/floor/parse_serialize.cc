// The floor of the issue 11 benchmark: what any C++ tool pays to read and
// write a model with protobuf, and nothing else (no rewrite, no inference):
//   parse_serialize IN.onnx OUT.onnx
// Like onnx-remap it reads the whole file, parses one ModelProto and
// serializes it to OUT; external data files are neither read nor written.
#include <cstdio>
#include <fstream>
#include <iostream>
#include <string>

#include <onnx/onnx_pb.h>

#include "../whole_file.h"

int main(int argc, char** argv) {
  if (argc != 3) {
    std::cerr << "usage: parse_serialize IN.onnx OUT.onnx\n";
    return 2;
  }
  std::string bytes;
  onnx::ModelProto model;
  if (!ReadWholeFile(argv[1], &bytes) || !model.ParseFromString(bytes)) {
    std::cerr << "parse_serialize: error: " << argv[1] << ": not a readable ONNX model\n";
    return 3;
  }
  std::ofstream out(argv[2], std::ios::binary | std::ios::trunc);
  if (!model.SerializeToOstream(&out) || !out.flush()) {
    std::cerr << "parse_serialize: error: " << argv[2] << ": cannot write\n";
    return 6;
  }
  return 0;
}
