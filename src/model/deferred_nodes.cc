#include "model/deferred_nodes.h"

#include <charconv>

#include "model/type_oracle.h"
#include "model/wire_fields.h"
#include "model/wire_format_scan.h"

namespace remap {

namespace {

using namespace wire;  // NOLINT: the field numbers
// A placeholder's doc_string: this byte, then the run's number in decimal.
constexpr char kPlaceholderMark = '\x01';

std::string_view Payload(std::string_view bytes, const WireField& f) {
  return bytes.substr(f.payload_start, f.end - f.payload_start);
}

// What a node record holds, as far as deciding needs.
struct RecordFields {
  int inputs = 0, outputs = 0, names = 0, op_types = 0, docs = 0, domains = 0;
  bool other = false;  // an attribute, or a field newer than this reads
  DeferredNode node;
  std::string_view domain;
};

bool ReadRecord(std::string_view bytes, const WireField& record, RecordFields* r) {
  for (size_t pos = record.payload_start; pos < record.end;) {
    WireField f;
    if (!ReadWireField(bytes.data(), pos, record.end, &f)) return false;
    pos = f.end;
    if (f.wire_type != kLengthDelimited) {
      r->other = true;
      continue;
    }
    const std::string_view value = Payload(bytes, f);
    switch (f.number) {
      case kNodeInput: ++r->inputs; r->node.input = value; break;
      case kNodeOutput: ++r->outputs; r->node.output = value; break;
      case kNodeName: ++r->names; r->node.name = value; break;
      case kNodeOpType: ++r->op_types; r->node.op_type = value; break;
      case kNodeDocString: ++r->docs; break;
      case kNodeDomain: ++r->domains; r->domain = value; break;
      default: r->other = true;
    }
  }
  return true;
}

bool CanStayBytes(const RecordFields& r) {
  return !r.other && r.inputs == 1 && r.outputs == 1 && r.op_types == 1 && r.names <= 1 && r.docs <= 1 &&
         r.domains <= 1 && !r.node.input.empty() && !r.node.output.empty() &&
         (r.domain.empty() || r.domain == "ai.onnx") && SameTypeAsInput(r.node.op_type);
}

void AppendPlaceholder(size_t run, std::string* out) {
  const std::string doc = kPlaceholderMark + std::to_string(run);
  std::string node;
  node.push_back(static_cast<char>((kNodeDocString << 3) | kLengthDelimited));
  AppendVarint(doc.size(), &node);
  node += doc;
  out->push_back(static_cast<char>((kGraphNode << 3) | kLengthDelimited));
  AppendVarint(node.size(), out);
  *out += node;
}

// `bytes` with each run's node records replaced by its placeholder, built
// at once in one string: the model's bytes are copied once, and only when
// enough is left as bytes to pay for the copy.
// (`Runs`: DeferredNodes' private run records, [start, end) in `bytes`.)
template <typename Runs>
std::string WithPlaceholders(std::string_view bytes, const WireField& graph, const Runs& runs, uint64_t deferred_bytes) {
  std::vector<std::string> placeholders(runs.size());
  uint64_t payload_size = graph.end - graph.payload_start - deferred_bytes;
  for (size_t k = 0; k < runs.size(); ++k) {
    AppendPlaceholder(k, &placeholders[k]);
    payload_size += placeholders[k].size();
  }
  std::string out;
  out.reserve(graph.tag_end + 10 + payload_size + (bytes.size() - graph.end));
  out.append(bytes.substr(0, graph.tag_end));
  AppendVarint(payload_size, &out);
  size_t copied_to = graph.payload_start;
  for (size_t k = 0; k < runs.size(); ++k) {
    out.append(bytes.substr(copied_to, runs[k].start - copied_to));
    out += placeholders[k];
    copied_to = runs[k].end;
  }
  out.append(bytes.substr(copied_to));
  return out;
}

// The run a placeholder's doc_string names (the mark, then decimal digits), or -1.
long RunOfDoc(std::string_view doc) {
  if (doc.size() < 2 || doc[0] != kPlaceholderMark) return -1;
  long run = -1;
  const char* last = doc.data() + doc.size();
  auto [end, ec] = std::from_chars(doc.data() + 1, last, run);
  return ec == std::errc() && end == last ? run : -1;
}

// The run number of a serialized placeholder node (a doc_string and nothing else), or -1.
long PlaceholderRun(std::string_view node) {
  if (node.size() < 3 || static_cast<uint8_t>(node[0]) != ((kNodeDocString << 3) | kLengthDelimited)) return -1;
  const size_t len = static_cast<uint8_t>(node[1]);
  if (len >= 0x80 || len + 2 != node.size()) return -1;
  return RunOfDoc(node.substr(2));
}

}  // namespace

FileBytes DeferredNodes::TakeFile() {
  // Their memory too: DeferPlainNodes reserves room for every node record.
  std::vector<Run>().swap(runs_);
  NodeArray().swap(nodes_);
  return std::move(file_);
}

std::optional<std::string> DeferPlainNodes(FileBytes* file, uint64_t min_bytes, DeferredNodes* out) {
  WireField graph;
  if (!FindModelGraph(file->view(), &graph)) return std::nullopt;
  out->file_ = std::move(*file);
  const std::string_view bytes = out->file_.view();
  auto give_back = [&]() -> std::optional<std::string> {
    *file = out->TakeFile();
    return std::nullopt;
  };
  // Room for every node record at once: the array is tens of megabytes on a
  // large graph, and growing it by doubling copied it and touched twice
  // the memory. A header-only pass costs far less.
  size_t records = 0;
  for (size_t pos = graph.payload_start; pos < graph.end;) {
    WireField f;
    if (!ReadWireField(bytes.data(), pos, graph.end, &f)) return give_back();
    pos = f.end;
    records += f.number == kGraphNode;
  }
  out->nodes_.reserve(records);
  uint64_t deferred_bytes = 0;
  DeferredNodes::Run run;
  auto close_run = [&] {
    if (run.count == 0) return;
    out->runs_.push_back(run);
    deferred_bytes += run.end - run.start;
    run = DeferredNodes::Run();
  };
  for (size_t pos = graph.payload_start; pos < graph.end;) {
    WireField f;
    if (!ReadWireField(bytes.data(), pos, graph.end, &f)) return give_back();
    pos = f.end;
    if (f.number != kGraphNode) {
      close_run();
      continue;
    }
    RecordFields r;
    if (f.wire_type != kLengthDelimited || !ReadRecord(bytes, f, &r)) return give_back();
    if (!CanStayBytes(r)) {
      // A placeholder is known by its empty op_type: no node of the file may look like one.
      if (r.op_types != 1 || r.node.op_type.empty()) return give_back();
      close_run();
      continue;
    }
    if (run.count == 0) {
      run.start = f.start;
      run.first = static_cast<uint32_t>(out->nodes_.size());
    }
    run.end = f.end;
    ++run.count;
    out->nodes_.push_back(r.node);
  }
  close_run();
  if (deferred_bytes == 0 || deferred_bytes < min_bytes || out->nodes_.size() > UINT32_MAX) return give_back();
  return WithPlaceholders(bytes, graph, out->runs_, deferred_bytes);
}

long DeferredRunOf(const onnx::NodeProto& node) {
  return node.op_type().empty() ? RunOfDoc(node.doc_string()) : -1;
}

bool DeferredRunPieces(const DeferredNodes& deferred, std::string_view bytes, std::string* length_prefix,
                       std::vector<std::string_view>* pieces) {
  WireField graph;
  if (!FindModelGraph(bytes, &graph)) return false;
  // Where each placeholder is: found first, so that the graph's new length is known.
  struct Found {
    size_t start, end, run;
  };
  std::vector<Found> found;
  found.reserve(deferred.run_count());
  std::vector<bool> written(deferred.run_count(), false);
  size_t payload_size = graph.end - graph.payload_start;
  for (size_t pos = graph.payload_start; pos < graph.end;) {
    WireField f;
    if (!ReadWireField(bytes.data(), pos, graph.end, &f)) return false;
    pos = f.end;
    if (f.number != kGraphNode || f.wire_type != kLengthDelimited) continue;
    const long run = PlaceholderRun(Payload(bytes, f));
    if (run < 0) continue;
    const size_t k = static_cast<size_t>(run);
    if (k >= written.size() || written[k]) return false;
    written[k] = true;
    found.push_back({f.start, f.end, k});
    payload_size = payload_size - (f.end - f.start) + deferred.bytes(k).size();
  }
  if (found.size() != written.size()) return false;
  length_prefix->clear();
  AppendVarint(payload_size, length_prefix);
  pieces->clear();
  pieces->reserve(2 * found.size() + 3);
  pieces->push_back(bytes.substr(0, graph.tag_end));
  pieces->push_back(*length_prefix);
  size_t copied_to = graph.payload_start;
  for (const Found& p : found) {
    pieces->push_back(bytes.substr(copied_to, p.start - copied_to));
    pieces->push_back(deferred.bytes(p.run));
    copied_to = p.end;
  }
  pieces->push_back(bytes.substr(copied_to));
  return true;
}

bool ExpandDeferredRuns(const DeferredNodes& deferred, std::string* bytes) {
  std::string length_prefix;
  std::vector<std::string_view> pieces;
  if (!DeferredRunPieces(deferred, *bytes, &length_prefix, &pieces)) return false;
  size_t size = 0;
  for (std::string_view piece : pieces) size += piece.size();
  std::string out;
  out.reserve(size);
  for (std::string_view piece : pieces) out.append(piece.data(), piece.size());
  *bytes = std::move(out);
  return true;
}

}  // namespace remap
