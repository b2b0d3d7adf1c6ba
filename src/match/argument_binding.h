// Binds a node to a rule's signature: each argument takes the node attribute
// of the same name if there is one (custom symbolics, older exporters' typed
// attributes), else the next input (ATen fallback passes everything as
// inputs, scalars from Constant nodes, tensor lists from SequenceConstruct /
// prim::ListConstruct, None as ""), else its default.
#pragma once

#include <string>
#include <vector>

#include <onnx/onnx_pb.h>

#include "match/node_form.h"
#include "model/graph_index.h"
#include "rules/signature.h"
#include "rules/value.h"

namespace remap {

struct BoundArgument {
  const Argument* arg = nullptr;
  // The constant, None, or Tensor(input name). Tensor[] / Tensor?[]: a List
  // of Tensor(element name) values (None for an empty optional element).
  Value value;
  // The graph value feeding it ("" when from an attribute/default or None);
  // for Tensor[] the sequence / list value, not its elements.
  std::string input;
  // Set when a scalar argument has no value here (computed at run time, or a
  // function attribute reference): why.
  std::string not_constant;
};

class Binding {
 public:
  const std::vector<BoundArgument>& args() const { return args_; }
  const BoundArgument* Find(const std::string& name) const;
  // For expressions (an Expression::Lookup): the bound value, or nullptr for
  // a name not bound and for scalars that are not constants.
  const Value* Lookup(const std::string& name, std::string* why) const;
  // Adds the arguments of another binding (a producer pattern's).
  void Extend(const Binding& other) { args_.insert(args_.end(), other.args_.begin(), other.args_.end()); }

 private:
  friend bool BindArguments(const onnx::NodeProto&, const NodeForm&, const Signature&, const GraphIndex&, Binding*,
                            std::string*);
  std::vector<BoundArgument> args_;
};

bool BindArguments(const onnx::NodeProto& node, const NodeForm& form, const Signature& signature,
                   const GraphIndex& index, Binding* out, std::string* why);

}  // namespace remap
