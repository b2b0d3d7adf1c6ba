// ONNX operator schemas, each built the first time it is asked for.
// ONNX 1.12's own registry builds every schema of every opset (444 of them,
// about 30M instructions) at its first lookup; a rewrite asks for a few
// dozen. The catalog answers as OpSchemaRegistry::Schema does (the newest
// schema at or below a version) from the table the build makes of the
// linked library's schemas, and is what the library hands ONNX's checker and
// shape inference, so no run fills ONNX's registry.
#pragma once

#include <string>

#include <onnx/defs/schema.h>

namespace remap {

class SchemaCatalog final : public onnx::ISchemaRegistry {
 public:
  static const SchemaCatalog& Instance();

  // Remembered per thread (FindSchema), for ONNX's per-node lookups.
  const onnx::OpSchema* GetSchema(const std::string& key, int max_version, const std::string& domain) const override;

  // Looks the table up, building the schema if it is the first ask; safe
  // from any thread.
  const onnx::OpSchema* Lookup(const std::string& op_type, int max_version, const std::string& domain) const;

  // Whether the linked ONNX defines the operator at any version: the table
  // alone answers, no schema is built (classifying a node asks only this,
  // and an If or Identity schema costs hundreds of thousands of instructions).
  static bool Defines(const std::string& op_type, const std::string& domain);

 private:
  SchemaCatalog();
  struct Slot;
  Slot* slots_;
};

}  // namespace remap
