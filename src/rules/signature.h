// The argument list of a matched operator, written in PyTorch's schema syntax:
//   aten::grid_sampler(Tensor input, Tensor grid, int interpolation_mode,
//                      int padding_mode, bool align_corners) -> Tensor
// It says, in order, what each input (or same-named attribute) of the node is.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "rules/value.h"

namespace remap {

enum class ArgType {
  kTensor, kTensorList, kInt, kFloat, kBool, kStr, kScalar, kScalarType,
  kIntList, kFloatList, kBoolList, kOpaque,  // Layout, Device, Generator, MemoryFormat, ...
};

struct Argument {
  std::string name;
  ArgType type = ArgType::kTensor;
  std::string type_text;        // as written: "int[2]", "float?"
  bool optional = false;        // "T?"
  bool optional_elements = false;  // "Tensor?[]": elements may be None
  int list_size = 0;            // N of "int[N]"; 0 when not given
  std::optional<Value> default_value;
  size_t offset = 0;            // of the argument in the signature text
};

struct Signature {
  std::string ns;        // "aten", "torchvision", "custom"; may be empty
  std::string name;
  std::string overload;
  std::vector<Argument> args;
  std::vector<std::string> returns;  // names used by replacements: given names, else out / out0, out1...

  const Argument* Find(const std::string& arg_name) const;
};

struct SignatureError {
  size_t offset = 0;
  std::string message;
};

bool ParseSignature(const std::string& text, Signature* out, SignatureError* error);

bool IsTensorType(ArgType t);
const char* ArgTypeName(ArgType t);

}  // namespace remap
