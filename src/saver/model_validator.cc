#include "saver/model_validator.h"

#include <algorithm>
#include <mutex>
#include <optional>
#include <set>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include <fmt/format.h>

#include <onnx/checker.h>

#include "core/parallel_for.h"
#include "model/graph_index.h"
#include "model/inference_guard.h"
#include "model/name_table.h"
#include "model/schema_catalog.h"
#include "model/opset_import.h"
#include "model/shape_inference.h"

namespace remap {

namespace {

// onnx::checker::check_model(ModelProto) resolves external data against the
// working directory; this is the same check with the model's folder set, as
// check_model(path) does, but without reading the file again.
void CheckModelIn(const onnx::ModelProto& model, const std::string& model_dir) {
  namespace checker = onnx::checker;
  if (model.ir_version() == 0) fail_check("The model does not have an ir_version set properly.");
  if (model.ir_version() > onnx::Version::IR_VERSION) fail_check("Your model ir_version is higher than the checker's.");
  std::unordered_map<std::string, int> opsets;
  for (const auto& op : model.opset_import()) opsets[op.domain()] = static_cast<int>(op.version());
  if (opsets.empty()) fail_check("model with IR version >= 3 must specify opset_import for ONNX");
  checker::CheckerContext ctx;
  ctx.set_ir_version(static_cast<int>(model.ir_version()));
  ctx.set_opset_imports(opsets);
  ctx.set_model_dir(model_dir);
  ctx.set_schema_registry(&SchemaCatalog::Instance());
  checker::LexicalScopeContext lex;
  checker::check_graph(model.graph(), ctx, lex);
  if (model.ir_version() >= 8) checker::check_model_local_functions(model, ctx, lex);
}

// Graph outputs whose type has no shape field: PyTorch leaves them so for
// outputs of scripted Loops, whose rank it does not know. ONNX's checker
// requires the field (an absent shape would be legal IR: unknown rank), so
// the check runs with an empty shape in place, taken out again afterwards.
std::vector<onnx::TypeProto_Tensor*> OutputsWithoutShape(onnx::GraphProto* graph) {
  std::vector<onnx::TypeProto_Tensor*> out;
  for (auto& o : *graph->mutable_output()) {
    if (o.type().has_tensor_type() && !o.type().tensor_type().has_shape())
      out.push_back(o.mutable_type()->mutable_tensor_type());
  }
  return out;
}

// What shape inference writes into a model: each graph's value_info and the
// types of its inputs and outputs (a Loop or Scan body's inputs get theirs
// from the node), in the main graph and every subgraph. Kept aside before
// inference and put back after it, absent types absent again, so the saved
// model carries only what its exporter wrote. ONNX 1.12's inference is also
// wrong at times (Slice with a step over a symbolic dim keeps the dim), and
// runtimes trust value_info.
class InferredTypesUndo {
 public:
  explicit InferredTypesUndo(onnx::ModelProto* model) {
    Save(model->mutable_graph());
    for (auto& function : *model->mutable_functions())
      for (auto& node : *function.mutable_node()) SaveSubgraphs(node);
  }
  void Restore() {
    for (auto& saved : saved_) {
      saved.graph->mutable_value_info()->Swap(&saved.value_info);
      Put(saved.graph->mutable_input(), &saved.input_types);
      Put(saved.graph->mutable_output(), &saved.output_types);
    }
    saved_.clear();
  }

 private:
  using Types = std::vector<std::optional<onnx::TypeProto>>;
  using ValueInfos = google::protobuf::RepeatedPtrField<onnx::ValueInfoProto>;
  struct Saved {
    onnx::GraphProto* graph;
    ValueInfos value_info;
    Types input_types, output_types;
  };
  static Types Take(const ValueInfos& values) {
    Types out;
    out.reserve(values.size());
    for (const auto& v : values) out.push_back(v.has_type() ? std::optional<onnx::TypeProto>(v.type()) : std::nullopt);
    return out;
  }
  static void Put(ValueInfos* values, Types* types) {
    for (int i = 0; i < values->size() && i < static_cast<int>(types->size()); ++i) {
      auto& type = (*types)[static_cast<size_t>(i)];
      if (type) values->Mutable(i)->mutable_type()->Swap(&*type);
      else values->Mutable(i)->clear_type();
    }
  }
  void Save(onnx::GraphProto* graph) {
    saved_.push_back(Saved{graph, graph->value_info(), Take(graph->input()), Take(graph->output())});
    for (auto& node : *graph->mutable_node()) SaveSubgraphs(node);
  }
  void SaveSubgraphs(onnx::NodeProto& node) {
    ForEachSubgraph(node, [&](onnx::GraphProto& g) { Save(&g); });
  }
  std::vector<Saved> saved_;
};

}  // namespace

Status InferAndCheck(onnx::ModelProto* model, const std::string& model_dir, bool unmapped_remain,
                     bool keep_inferred_types, std::vector<std::string>* notes) {
  std::optional<InferredTypesUndo> undo;
  if (!keep_inferred_types && WithinKnownRange(*model)) undo.emplace(model);
  struct RestoreOnExit {
    std::optional<InferredTypesUndo>& undo;
    ~RestoreOnExit() {
      if (undo) undo->Restore();
    }
  } restore{undo};
  std::string unsafe;
  if (!ModelSafeForShapeInference(*model, &unsafe))
    return Status(ErrorCode::kValidationFailed, fmt::format("the rewritten model is invalid: {}", unsafe));
  std::string note;
  if (!InferShapesInPlace(model, &note)) {
    notes->push_back(note);
    if (!WithinKnownRange(*model)) return Status::Ok();
  }
  if (unmapped_remain) {
    // The checker would only report the nodes we already list (and print about them).
    notes->push_back("the ONNX checker was skipped: unmapped nodes remain");
    return Status::Ok();
  }
  const std::vector<onnx::TypeProto_Tensor*> unshaped = OutputsWithoutShape(model->mutable_graph());
  for (auto* t : unshaped) t->mutable_shape();
  struct Unshape {
    const std::vector<onnx::TypeProto_Tensor*>& types;
    ~Unshape() {
      for (auto* t : types) t->clear_shape();
    }
  } unshape{unshaped};
  if (!unshaped.empty())
    notes->push_back(fmt::format("{} graph output{} without a shape (unknown rank, as exported): the checker does not "
                                 "require one there",
                                 unshaped.size(), unshaped.size() == 1 ? "" : "s"));
  try {
    CheckModelIn(*model, model_dir);
  } catch (const std::exception& e) {
    std::string what = e.what();
    return Status(ErrorCode::kValidationFailed,
                  fmt::format("the rewritten model fails the ONNX checker: {}", what.substr(0, what.find('\n'))));
  }
  return Status::Ok();
}

namespace {

// Attributes larger than this (a Constant's whole tensor) make a node its
// own form: the key would cost as much as the check.
constexpr size_t kMaxFormAttributeBytes = 1024;

// The operators ONNX 1.12's check_node warns about on stderr, and passes, as
// removed experimental ones. Checked every time, so the warning stays one per node.
bool WarnedExperimental(const std::string& op_type) {
  static const std::set<std::string> ops = {"ATen",  "Affine", "ConstantFill", "Crop",     "DynamicSlice",
                                            "GRUUnit", "GivenTensorFill", "ImageScaler", "ParametricSoftplus",
                                            "Scale", "ScaledTanh"};
  return ops.count(op_type) > 0;
}

// What onnx::checker::check_node reads of a node without subgraphs, in
// *key: its context (the function, or the graph), op_type and domain, which
// inputs and outputs are there and which are empty, and its attributes
// whole. Names it reads only to quote them in a failure. Two nodes of one
// form pass or fail alike; false for a node that is its own form.
bool FormKey(const onnx::NodeProto& node, const onnx::FunctionProto* function, std::string* key) {
  if (WarnedExperimental(node.op_type())) return false;
  key->assign(reinterpret_cast<const char*>(&function), sizeof function);
  *key += node.op_type();
  key->push_back('\0');
  *key += node.domain();
  key->push_back('\0');
  for (const auto& in : node.input()) key->push_back(in.empty() ? '0' : '1');
  key->push_back('|');
  for (const auto& out : node.output()) key->push_back(out.empty() ? '0' : '1');
  key->push_back('|');
  for (const auto& a : node.attribute()) {
    if (a.has_g() || a.graphs_size() > 0) return false;  // subgraphs read names from around them
    const size_t bytes = a.ByteSizeLong();
    if (bytes > kMaxFormAttributeBytes) return false;
    key->append(reinterpret_cast<const char*>(&bytes), sizeof bytes);  // where one attribute ends
    if (!a.AppendToString(key)) return false;
  }
  return true;
}

std::unordered_map<std::string, int> OpsetMap(const google::protobuf::RepeatedPtrField<onnx::OperatorSetIdProto>& ops) {
  std::unordered_map<std::string, int> out;
  for (const auto& op : ops) out[op.domain()] = static_cast<int>(op.version());
  return out;
}

}  // namespace

Status CheckAddedNodes(const onnx::ModelProto& model, const std::vector<AddedNode>& added,
                       std::vector<std::string>* notes) {
  // Each value is written once per graph tree (SSA): two added nodes writing
  // one name is a rewrite bug whatever ONNX version the model has.
  // Keys view the added nodes' own names, which outlive the check.
  std::unordered_map<const onnx::FunctionProto*, NameTable<bool>> written;
  written[nullptr].Reserve(added.size());  // the main graph's, where most added nodes go
  const onnx::FunctionProto* current = nullptr;
  NameTable<bool>* names = &written[nullptr];
  for (const AddedNode& a : added) {
    if (a.function != current) {
      current = a.function;
      names = &written[a.function];
    }
    for (const std::string& out : a.node->output()) {
      if (out.empty()) continue;
      bool& seen = names->FindOrInsert(out).value;
      if (!seen) {
        seen = true;
        continue;
      }
      return Status(ErrorCode::kValidationFailed, fmt::format("the rewrite wrote '{}' twice (node '{}', {})", out,
                                                              a.node->name(), a.node->op_type()));
    }
  }
  if (!WithinKnownRange(model)) {
    notes->push_back(fmt::format("the ONNX checker was skipped: the model is IR {} / opset {}, newer than the linked "
                                 "ONNX library knows (IR {} / opset {})",
                                 model.ir_version(), DefaultOpset(model.opset_import()), KnownIrVersion(),
                                 KnownDefaultOpset()));
    return Status::Ok();
  }
  onnx::checker::CheckerContext graph_ctx;
  graph_ctx.set_ir_version(static_cast<int>(model.ir_version()));
  graph_ctx.set_opset_imports(OpsetMap(model.opset_import()));
  graph_ctx.set_schema_registry(&SchemaCatalog::Instance());
  // Every context is made before the checks start: they then only read them.
  std::unordered_map<const onnx::FunctionProto*, onnx::checker::CheckerContext> function_ctx;
  for (const AddedNode& a : added) {
    if (!a.function) continue;
    auto [it, fresh] = function_ctx.try_emplace(a.function);
    if (fresh) {
      it->second.set_ir_version(static_cast<int>(model.ir_version()));
      it->second.set_opset_imports(OpsetMap(a.function->opset_import()));
      it->second.set_schema_registry(&SchemaCatalog::Instance());
    }
  }
  // The checker reads each node on its own, so the nodes are checked on every
  // core, in blocks; of the nodes that fail, the first in order is reported,
  // as one thread would find it.
  constexpr size_t kBlock = 512;
  const size_t blocks = (added.size() + kBlock - 1) / kBlock;
  std::mutex failure_mutex;
  size_t failed_at = added.size();
  std::string failure;
  // A rewrite adds many nodes of few forms (one rule's replacement, over
  // and over): a form that passed once in a block passes again unchecked.
  // Repeated forms are cheap to check: a thread is worth it from a few blocks on.
  constexpr size_t kBlocksPerThread = 4;
  ParallelFor(blocks, ThreadsFor(blocks, kBlocksPerThread), [&](size_t block) {
    const size_t end = std::min(added.size(), (block + 1) * kBlock);
    std::unordered_set<std::string> passed;
    std::string key;
    for (size_t k = block * kBlock; k < end; ++k) {
      const AddedNode& a = added[k];
      const bool formed = FormKey(*a.node, a.function, &key);
      if (formed && passed.count(key)) continue;
      const onnx::checker::CheckerContext& ctx = a.function ? function_ctx.at(a.function) : graph_ctx;
      onnx::checker::LexicalScopeContext outer;
      std::vector<std::string> captured;
      ForEachSubgraph(*a.node, [&captured](const onnx::GraphProto& g) { CapturedNames(g, &captured); });
      for (const std::string& name : captured) outer.add(name);
      try {
        onnx::checker::check_node(*a.node, ctx, outer);
        if (formed) passed.insert(key);
      } catch (const std::exception& e) {
        std::lock_guard<std::mutex> lock(failure_mutex);
        if (k < failed_at) {
          failed_at = k;
          failure = e.what();
        }
        return;  // the rest of this block comes after it
      }
    }
  });
  if (failed_at < added.size())
    return Status(ErrorCode::kValidationFailed,
                  fmt::format("the rewritten model fails the ONNX checker: {}", failure.substr(0, failure.find('\n'))));
  return Status::Ok();
}

}  // namespace remap
