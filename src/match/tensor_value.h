// The Value a rule sees for a tensor flowing in the graph: its name and what
// is known of its type (dtype(), rank(), dims() read it).
#pragma once

#include <string>

#include "model/graph_index.h"
#include "rules/value.h"

namespace remap {

Value TensorValueOf(const GraphIndex& index, const std::string& name);

}  // namespace remap
