#include "model/schema_registry.h"

#include <atomic>

#include <onnx/defs/schema.h>

namespace remap {

namespace {
std::atomic<bool> fill_started{false};
}  // namespace

void FillSchemaRegistry() { (void)onnx::OpSchemaRegistry::Schema("Relu", 14, ""); }

SchemaRegistryFill::SchemaRegistryFill() {
  // No thread to spare: the first use fills it, as without this object.
  if (fill_.TryRun(FillSchemaRegistry)) fill_started = true;
}

bool SchemaRegistryFill::Started() { return fill_started; }

}  // namespace remap
