// Main-graph nodes left as the bytes they are. Most nodes of a large export
// are plain operators that no rule matches. Parsing each into a NodeProto,
// checking and indexing it, freeing it and serializing it again was most of
// a million-node rewrite (docs/performance.md). A node is left as bytes when
// nothing in a rewrite needs more of it than its names: a default-domain
// operator that the type oracle types as its one input
// (SameTypeAsInput), with one input, one output and no attribute.
//
// Each run of such node records in the file becomes one placeholder node in
// the parsed model (no op_type; its doc_string names the run). The structure
// check and the index take the run's nodes from here, as views of the file's
// bytes, and the saver writes the run's bytes back in the placeholder's
// place. Rewrites, which never replace or remove such a node, pass over
// placeholders.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <onnx/onnx_pb.h>

#include "model/file_bytes.h"
#include "model/huge_pages.h"

namespace remap {

// One node left as bytes: views of its fields in the file's bytes.
struct DeferredNode {
  std::string_view name;
  std::string_view op_type;
  std::string_view input;
  std::string_view output;
  // The main graph's index entry of `input` (a GraphIndex::Entry, which
  // never moves), set when the structure check builds the index.
  mutable void* input_entry = nullptr;
  // The first node of the chain of such nodes that ends at this one (this
  // node itself when its input comes from anywhere else, or has a type the
  // model records), set with input_entry. Each node of a chain gives its
  // output its input's type, so the type oracle types this node's output
  // from the head's input at once, not by walking the chain back and typing
  // every node on the way.
  mutable const DeferredNode* chain_head = nullptr;
};

class DeferredNodes {
 public:
  DeferredNodes() = default;
  DeferredNodes(const DeferredNodes&) = delete;
  DeferredNodes& operator=(const DeferredNodes&) = delete;

  size_t run_count() const { return runs_.size(); }
  size_t node_count() const { return nodes_.size(); }
  // The nodes of run `run`, in file order.
  const DeferredNode* begin(size_t run) const { return nodes_.data() + runs_[run].first; }
  const DeferredNode* end(size_t run) const { return begin(run) + runs_[run].count; }
  // The run's node records as they are in the file (tags included).
  std::string_view bytes(size_t run) const {
    return file_.view().substr(runs_[run].start, runs_[run].end - runs_[run].start);
  }
  // The file's bytes back, and nothing deferred any more.
  FileBytes TakeFile();

  // Tens of megabytes on a large graph, written once in file order and read
  // by the index build and the type oracle: in huge pages it takes a page
  // fault per 2 MiB rather than per 4 KiB, and few TLB entries (huge_pages.h).
  using NodeArray = std::vector<DeferredNode, HugePageAllocator<DeferredNode>>;

 private:
  friend std::optional<std::string> DeferPlainNodes(FileBytes* file, uint64_t min_bytes, DeferredNodes* out);
  struct Run {
    size_t start = 0;  // [start, end) of its node records in file_
    size_t end = 0;
    uint32_t first = 0;  // its first node in nodes_
    uint32_t count = 0;
  };
  FileBytes file_;
  std::vector<Run> runs_;
  NodeArray nodes_;
};

// When the main graph of the serialized model `*file` holds at least
// `min_bytes` of node records that can stay bytes, takes the file's bytes
// into *out and returns the bytes to parse instead: the file with each run of
// such records replaced by a placeholder node record. Otherwise (or when the
// bytes are not in the plain shape this reads: one graph field, its node
// records together, every other node with an op_type) returns nullopt and
// leaves *file as it was.
std::optional<std::string> DeferPlainNodes(FileBytes* file, uint64_t min_bytes, DeferredNodes* out);

// The run a placeholder node stands for, or -1 for any other node.
long DeferredRunOf(const onnx::NodeProto& node);

// The serialized model `*bytes` with each placeholder node record replaced
// by its run's bytes (the graph's length prefix grown to match). False when
// a placeholder names no run of `deferred` or a run is written twice or not
// at all.
bool ExpandDeferredRuns(const DeferredNodes& deferred, std::string* bytes);

// The same output as pieces to write in order, without assembling it (a copy
// of a whole large model): views of `bytes`, of *length_prefix (the graph's
// new length, which the caller keeps with `bytes`) and of the runs.
bool DeferredRunPieces(const DeferredNodes& deferred, std::string_view bytes, std::string* length_prefix,
                       std::vector<std::string_view>* pieces);

}  // namespace remap
