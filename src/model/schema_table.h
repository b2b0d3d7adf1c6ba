// Every operator schema the linked ONNX library defines, as a table the
// build writes (build_tools/schema_table_generator.cc): sorted by domain,
// then name, then since-version; each row holds ONNX's function that builds
// that one schema.
#pragma once

#include <cstddef>

#include <onnx/defs/schema.h>

namespace remap {

struct SchemaTableEntry {
  const char* domain;
  const char* name;
  int since_version;
  onnx::OpSchema (*build)();
};

extern const SchemaTableEntry kSchemaTable[];
extern const size_t kSchemaTableSize;

}  // namespace remap
