#include "model/spliced_source.h"

#include <unistd.h>

namespace remap {

namespace {

// The entry that tells our marks from external data the input really had
// (which is never spliced: the scan leaves such tensors alone).
constexpr char kMarkKey[] = "onnx-remap-spliced";

void AddEntry(onnx::TensorProto* t, const std::string& key, const std::string& value) {
  auto* kv = t->add_external_data();
  kv->set_key(key);
  kv->set_value(value);
}

}  // namespace

SplicedSource::~SplicedSource() {
  if (fd_ >= 0) ::close(fd_);
}

void MarkSpliced(onnx::GraphProto* graph, const std::vector<WireRawData>& left_out, const std::string& file_name,
                 SplicedSource* source) {
  for (const WireRawData& r : left_out) {
    onnx::TensorProto* t = graph->mutable_initializer(r.initializer_index);
    source->marks()[t->name()] = {r.offset, r.length};
    t->set_data_location(onnx::TensorProto::EXTERNAL);
    AddEntry(t, "location", file_name);
    AddEntry(t, "offset", std::to_string(r.offset));
    AddEntry(t, "length", std::to_string(r.length));
    AddEntry(t, kMarkKey, "1");
  }
}

std::vector<SplicedInitializer> TakeSplicedMarks(onnx::GraphProto* graph, const SplicedSource& source) {
  std::vector<SplicedInitializer> out;
  for (int i = 0; i < graph->initializer_size(); ++i) {
    onnx::TensorProto* t = graph->mutable_initializer(i);
    if (t->data_location() != onnx::TensorProto::EXTERNAL || t->external_data_size() != 4 ||
        t->external_data(3).key() != kMarkKey)
      continue;
    auto mark = source.marks().find(t->name());
    if (mark == source.marks().end() || t->external_data(1).value() != std::to_string(mark->second.offset) ||
        t->external_data(2).value() != std::to_string(mark->second.length))
      continue;
    out.push_back({i, mark->second.offset, mark->second.length});
    t->clear_external_data();
    t->clear_data_location();
  }
  return out;
}

}  // namespace remap
