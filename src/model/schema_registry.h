// ONNX 1.12's schema registry: every operator of every opset, built the first
// time any schema is asked for (about 30M instructions, 8-10 ms: as much as
// parsing a model of 10k nodes). Whoever asks meanwhile waits for it (the
// registry is a function-local static), so it may be filled on any thread.
#pragma once

#include "core/background_task.h"

namespace remap {

// Fills the registry now, or waits for a fill under way elsewhere.
void FillSchemaRegistry();

// Fills the registry on a thread of its own, so that work which needs no
// schema (reading the rules, parsing and checking the model) runs meanwhile;
// the destructor joins that thread. Made once, early, by a program that
// will need the registry.
class SchemaRegistryFill {
 public:
  SchemaRegistryFill();
  SchemaRegistryFill(const SchemaRegistryFill&) = delete;
  SchemaRegistryFill& operator=(const SchemaRegistryFill&) = delete;

  // Whether a fill was started (and may still run): code that would fill
  // the registry itself to overlap it with other work leaves it be.
  static bool Started();

 private:
  BackgroundTask fill_;
};

}  // namespace remap
