#include "model/schema_registry.h"

#include <atomic>
#include <system_error>

#include <onnx/defs/schema.h>

namespace remap {

namespace {
std::atomic<bool> fill_started{false};
}  // namespace

void FillSchemaRegistry() { (void)onnx::OpSchemaRegistry::Schema("Relu", 14, ""); }

SchemaRegistryFill::SchemaRegistryFill() {
  try {
    thread_ = std::thread(FillSchemaRegistry);
    fill_started = true;
  } catch (const std::system_error&) {
    // No thread to spare: the first use fills it, as without this object.
  }
}

SchemaRegistryFill::~SchemaRegistryFill() {
  if (thread_.joinable()) thread_.join();
}

bool SchemaRegistryFill::Started() { return fill_started; }

}  // namespace remap
