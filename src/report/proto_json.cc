#include "report/proto_json.h"

#include <fmt/format.h>
#include <google/protobuf/util/json_util.h>

namespace remap {

std::string MessageToJson(const google::protobuf::Message& message, bool pretty) {
  google::protobuf::util::JsonPrintOptions options;
  options.add_whitespace = pretty;
  options.always_print_primitive_fields = true;
  options.preserve_proto_field_names = true;
  std::string json;
  auto status = google::protobuf::util::MessageToJsonString(message, &json, options);
  if (!status.ok()) return fmt::format("{{\"error\": \"does not print as JSON: {}\"}}\n", status.ToString());
  if (json.empty() || json.back() != '\n') json += "\n";
  return json;
}

}  // namespace remap
