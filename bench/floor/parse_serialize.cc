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

int main(int argc, char** argv) {
  if (argc != 3) {
    std::cerr << "usage: parse_serialize IN.onnx OUT.onnx\n";
    return 2;
  }
  // One buffer of the file's size, as the tool's loader reads it.
  std::ifstream in(argv[1], std::ios::binary | std::ios::ate);
  std::string bytes(in ? static_cast<size_t>(in.tellg()) : 0, '\0');
  in.seekg(0);
  in.read(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  onnx::ModelProto model;
  if (!in || !model.ParseFromString(bytes)) {
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
