// What an adapter may use while it carries one node across one operator
// change: fresh names, Constant nodes placed before the node, nodes placed
// after it, and what is known of the node's inputs (constant values, types).
// The model itself is not edited until every node has been converted.
#pragma once

#include <deque>
#include <iterator>
#include <string>
#include <unordered_map>
#include <vector>

#include <onnx/onnx_pb.h>

#include "model/graph_index.h"
#include "rules/value.h"

namespace remap {

class AdapterContext {
 public:
  explicit AdapterContext(GraphIndex* index) : index_(index) {}

  // A value or node name not used anywhere in the tree.
  std::string FreshValue(const std::string& hint) { return index_->FreshValueName(hint); }
  std::string FreshNode(const std::string& hint) { return index_->FreshNodeName(hint); }

  // A Constant node placed before the converted node; returns its output.
  std::string Constant(onnx::TensorProto value, const std::string& hint);
  std::string Int64s(const std::vector<int64_t>& values, const std::string& hint);   // 1-D
  std::string Int64Scalar(int64_t value, const std::string& hint);                    // 0-D
  // A 0-D tensor of `elem_type` (a float or integer type) holding `value`.
  std::string Scalar(double value, int elem_type, const std::string& hint);

  // A node placed before / after the converted node; its name is set. The
  // reference stays valid while more nodes are added.
  onnx::NodeProto& Before(const std::string& op_type, const std::string& hint);
  onnx::NodeProto& After(const std::string& op_type, const std::string& hint);

  // The value of `name` when a Constant node or an initializer holds it (also
  // Constants this conversion made). False when it is computed at run time.
  bool ConstantInts(const std::string& name, std::vector<int64_t>* out) const;
  bool ConstantFloats(const std::string& name, std::vector<double>* out) const;
  // 0 / -1 when unknown.
  int ElemType(const std::string& name) const;
  int Rank(const std::string& name) const;
  // Each dim's size, -1 where not static; empty when the rank is unknown.
  std::vector<int64_t> StaticDims(const std::string& name) const;

  std::vector<onnx::NodeProto> TakeBefore() { return Take(&before_); }
  std::vector<onnx::NodeProto> TakeAfter() { return Take(&after_); }

 private:
  bool ConstantValue(const std::string& name, Value* out) const;

  GraphIndex* index_;
  static std::vector<onnx::NodeProto> Take(std::deque<onnx::NodeProto>* nodes) {
    std::vector<onnx::NodeProto> out(std::make_move_iterator(nodes->begin()), std::make_move_iterator(nodes->end()));
    nodes->clear();
    return out;
  }

  // A deque: the references Before()/After() return stay valid as more nodes are added.
  std::deque<onnx::NodeProto> before_, after_;
  std::unordered_map<std::string, onnx::TensorProto> made_;  // Constants this node's conversion made
};

// Attribute helpers shared by the adapters.
const onnx::AttributeProto* FindAttribute(const onnx::NodeProto& node, const std::string& name);
// Removes the attribute if present; true when it was there.
bool DropAttribute(onnx::NodeProto* node, const std::string& name);
void SetInt(onnx::NodeProto* node, const std::string& name, int64_t value);
void SetInts(onnx::NodeProto* node, const std::string& name, const std::vector<int64_t>& values);
void SetFloat(onnx::NodeProto* node, const std::string& name, float value);
void SetString(onnx::NodeProto* node, const std::string& name, const std::string& value);
// Sets input `index`, padding with "" (absent optional inputs) as needed.
void SetInput(onnx::NodeProto* node, int index, const std::string& value);
// Drops trailing "" inputs: an absent optional input at the end is left out.
void TrimInputs(onnx::NodeProto* node);

}  // namespace remap
