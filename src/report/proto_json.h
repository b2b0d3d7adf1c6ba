// Protobuf messages as JSON: the field names of the .proto, every field
// present. What every machine-readable output uses.
#pragma once

#include <string>

#include <google/protobuf/message.h>

namespace remap {

// One JSON object; `pretty` adds newlines and indentation. Ends with a newline.
// The text is what protobuf's own printer gives (JsonPrintOptions with
// always_print_primitive_fields and preserve_proto_field_names), except that
// bytes of a string field that are not UTF-8 print as U+FFFD, where protobuf
// drops them and logs an error.
std::string MessageToJson(const google::protobuf::Message& message, bool pretty);

// The same, with protobuf's printer (json_util), for comparison in tests.
std::string MessageToJsonWithProtobuf(const google::protobuf::Message& message, bool pretty);

}  // namespace remap
