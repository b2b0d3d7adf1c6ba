#include "model/node_split_parse.h"

#include <algorithm>
#include <climits>
#include <vector>

#include <google/protobuf/io/coded_stream.h>

#include "core/parallel_for.h"
#include "model/wire_fields.h"
#include "model/wire_format_scan.h"

namespace remap {

namespace {

using wire::kLengthDelimited;
constexpr uint32_t kGraphNodeField = wire::kGraphNode;

// Where the main graph's node records are: [start, end) of the run, and the
// record starts a piece may begin at (about every `step` bytes).
struct NodeRun {
  WireField graph;
  size_t start = 0;
  size_t end = 0;
  std::vector<size_t> cuts;
};

bool FindNodeRun(std::string_view bytes, size_t step, NodeRun* run) {
  const char* data = bytes.data();
  if (!FindModelGraph(bytes, &run->graph)) return false;
  bool in_run = false;
  bool run_over = false;
  for (size_t pos = run->graph.payload_start; pos < run->graph.end;) {
    WireField f;
    if (!ReadWireField(data, pos, run->graph.end, &f)) return false;
    if (f.number == kGraphNodeField) {
      if (f.wire_type != kLengthDelimited || run_over) return false;
      if (!in_run) {
        in_run = true;
        run->start = f.start;
        run->cuts.push_back(f.start);
      } else if (f.start - run->cuts.back() >= step) {
        run->cuts.push_back(f.start);
      }
      run->end = f.end;
    } else if (in_run) {
      in_run = false;
      run_over = true;
    }
    pos = f.end;
  }
  return !run->cuts.empty();
}

}  // namespace

bool ParseMessageBytes(const char* data, size_t size, int recursion_limit, google::protobuf::MessageLite* message) {
  google::protobuf::io::CodedInputStream stream(reinterpret_cast<const uint8_t*>(data), static_cast<int>(size));
  stream.SetTotalBytesLimit(INT32_MAX);
  stream.SetRecursionLimit(recursion_limit);
  return message->ParseFromCodedStream(&stream) && stream.ConsumedEntireMessage();
}

bool ParseSplittingNodes(std::string_view bytes, int recursion_limit, const NodeSplitOptions& options,
                         onnx::ModelProto* model) {
  const int threads = options.threads > 0 ? options.threads : CoreCount();
  if (threads < 2 || bytes.size() < options.min_node_bytes || bytes.size() > static_cast<size_t>(INT32_MAX))
    return false;
  // Two pieces per thread, so that one slow piece does not hold the others up.
  const size_t pieces_wanted = static_cast<size_t>(threads) * 2;
  NodeRun run;
  if (!FindNodeRun(bytes, std::max<size_t>(1, bytes.size() / (pieces_wanted * 8)), &run)) return false;
  const size_t run_bytes = run.end - run.start;
  // The rest is copied: worth it only where the nodes are the bulk of the model.
  if (run_bytes < options.min_node_bytes || bytes.size() - run_bytes > run_bytes) return false;

  // Piece boundaries from the recorded record starts, about run_bytes / pieces apart.
  const size_t pieces = std::max<size_t>(1, std::min(pieces_wanted, run_bytes / std::max<size_t>(1, options.min_piece_bytes)));
  std::vector<size_t> bounds{run.start};
  for (size_t k = 1; k < pieces; ++k) {
    const size_t target = run.start + run_bytes * k / pieces;
    auto it = std::lower_bound(run.cuts.begin(), run.cuts.end(), target);
    if (it != run.cuts.end() && *it > bounds.back()) bounds.push_back(*it);
  }
  bounds.push_back(run.end);
  if (bounds.size() < 3) return false;  // one piece: nothing to share

  const char* data = bytes.data();
  std::string rest;
  rest.reserve(bytes.size() - run_bytes + 10);
  rest.append(data, run.graph.tag_end);
  AppendVarint(run.graph.end - run.graph.payload_start - run_bytes, &rest);
  rest.append(data + run.graph.payload_start, run.start - run.graph.payload_start);
  rest.append(data + run.end, bytes.size() - run.end);

  const size_t n_pieces = bounds.size() - 1;
  std::vector<onnx::GraphProto> parts(n_pieces);
  std::vector<char> ok(n_pieces + 1, 0);
  onnx::ModelProto whole;
  // A piece parses as a GraphProto at the top, one message level above where
  // its nodes sit in the model: one level less of nesting allowed keeps the
  // limit where the whole parse has it.
  ParallelFor(n_pieces + 1, threads, [&](size_t i) {
    if (i == n_pieces) {
      ok[i] = ParseMessageBytes(rest.data(), rest.size(), recursion_limit, &whole);
    } else {
      ok[i] = ParseMessageBytes(data + bounds[i], bounds[i + 1] - bounds[i], recursion_limit - 1, &parts[i]);
    }
  });
  if (std::find(ok.begin(), ok.end(), 0) != ok.end() || !whole.has_graph() || whole.graph().node_size() != 0)
    return false;
  size_t total = 0;
  for (const auto& p : parts) total += static_cast<size_t>(p.node_size());
  if (total > static_cast<size_t>(INT_MAX)) return false;
  auto* nodes = whole.mutable_graph()->mutable_node();
  nodes->Reserve(static_cast<int>(total));
  std::vector<onnx::NodeProto*> moved;
  for (auto& p : parts) {
    moved.resize(static_cast<size_t>(p.node_size()));
    p.mutable_node()->ExtractSubrange(0, p.node_size(), moved.data());
    for (onnx::NodeProto* n : moved) nodes->AddAllocated(n);
  }
  *model = std::move(whole);
  return true;
}

}  // namespace remap
