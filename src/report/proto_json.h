// Protobuf messages as JSON, with protobuf's own printer: the field names of
// the .proto, every field present. What every machine-readable output uses.
#pragma once

#include <string>

#include <google/protobuf/message.h>

namespace remap {

// One JSON object; `pretty` adds newlines and indentation. Ends with a newline.
std::string MessageToJson(const google::protobuf::Message& message, bool pretty);

}  // namespace remap
