#include "cli/value_provenance.h"

#include <cctype>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "match/constant_reader.h"
#include "match/node_form.h"
#include "model/deferred_nodes.h"
#include "rules/element_types.h"
#include "rules/value.h"

namespace remap::cli {

namespace {

using TP = onnx::TensorProto;

// Long constants are cut: the comment is a hint, not a dump.
std::string Short(const std::string& s) { return s.size() <= 72 ? s : s.substr(0, 69) + "..."; }

std::string Dims(const TP& t) {
  if (t.dims_size() == 0) return "scalar";
  return fmt::format("[{}]", fmt::join(t.dims(), ", "));
}

std::string TypeText(const onnx::TypeProto* type) {
  if (!type) return "";
  if (type->has_sequence_type()) return " (a sequence)";
  if (!type->has_tensor_type()) return "";
  const auto& tt = type->tensor_type();
  std::string out = fmt::format(" {}", tt.elem_type() ? ElementTypeName(tt.elem_type()) : "(dtype unknown)");
  if (!tt.has_shape()) return out + " (shape unknown)";
  std::vector<std::string> dims;
  for (const auto& d : tt.shape().dim()) dims.push_back(d.has_dim_value() ? std::to_string(d.dim_value()) : d.has_dim_param() ? d.dim_param() : "?");
  return fmt::format("{} [{}]", out, fmt::join(dims, ", "));
}

// "int", "float[]", ... for a constant of this element type and rank; "Tensor"
// for anything that does not look like a PyTorch scalar argument.
std::string ScalarType(int elem_type, int rank, int64_t elements) {
  const char* base = nullptr;
  switch (elem_type) {
    case TP::INT64: case TP::INT32: case TP::INT16: case TP::INT8: case TP::UINT8: base = "int"; break;
    case TP::DOUBLE: case TP::FLOAT: case TP::FLOAT16: base = "float"; break;
    case TP::BOOL: base = "bool"; break;
    case TP::STRING: return rank == 0 ? "str" : "Tensor";
    default: return "Tensor";
  }
  if (rank == 0) return base;
  // PyTorch passes int[] (sizes, dims, strides) as short 1-D int64 constants; a 1-D float constant is far more
  // often a tensor (a bias) than a float[].
  if (rank == 1 && elements <= 8 && std::string(base) == "int") return "int[]";
  return "Tensor";
}

int64_t Elements(const TP& t) {
  int64_t n = 1;
  for (int64_t d : t.dims()) n *= d;
  return n;
}

// A Constant node's tensor header: from `value`, else from the value_* attribute it has.
void ConstantHeader(const onnx::NodeProto& node, int* elem_type, int* rank, int64_t* elements) {
  *elem_type = 0, *rank = 0, *elements = 1;
  for (const auto& a : node.attribute()) {
    if (a.name() == "value" && a.has_t()) {
      *elem_type = a.t().data_type(), *rank = a.t().dims_size(), *elements = Elements(a.t());
    } else if (a.name() == "value_int") { *elem_type = TP::INT64;
    } else if (a.name() == "value_float") { *elem_type = TP::FLOAT;
    } else if (a.name() == "value_string") { *elem_type = TP::STRING;
    } else if (a.name() == "value_ints") { *elem_type = TP::INT64, *rank = 1, *elements = a.ints_size();
    } else if (a.name() == "value_floats") { *elem_type = TP::FLOAT, *rank = 1, *elements = a.floats_size();
    }
  }
}

// The last identifier-like piece of a value name: "dcn.weight" -> "weight", "x" -> "x".
std::string NameHint(const std::string& value) {
  size_t end = value.size();
  size_t start = end;
  while (start > 0 && (std::isalnum(static_cast<unsigned char>(value[start - 1])) || value[start - 1] == '_')) --start;
  std::string piece = value.substr(start, end - start);
  if (piece.empty() || !std::isalpha(static_cast<unsigned char>(piece[0]))) return "";
  return piece;
}

}  // namespace

Provenance DescribeInput(const std::string& value, const GraphIndex& index) {
  Provenance p;
  if (value.empty()) return {"empty: None", "Tensor?", ""};
  Producer producer = index.ProducerOf(value);
  switch (producer.kind) {
    case Producer::Kind::kGraphInput: {
      const onnx::TypeProto* type = index.RecordedTypeProto(value);
      bool sequence = type && type->has_sequence_type();
      return {"graph input" + TypeText(type), sequence ? "Tensor[]" : "Tensor", NameHint(value)};
    }
    case Producer::Kind::kInitializer: {
      const TP& t = *producer.initializer;
      p.text = fmt::format("initializer {} {}", ElementTypeName(t.data_type()), Dims(t));
      Value v;
      std::string why;
      if (Elements(t) <= 8 && TensorToValue(t, &v, &why)) p.text += " = " + Short(ToString(v));
      p.type = ScalarType(t.data_type(), t.dims_size(), Elements(t));
      p.name_hint = NameHint(value);
      return p;
    }
    case Producer::Kind::kNode: {
      const onnx::NodeProto& node = *producer.node;
      if (IsConstantProducer(node)) {
        int elem_type = 0, rank = 0;
        int64_t elements = 1;
        ConstantHeader(node, &elem_type, &rank, &elements);
        Value v;
        std::string why;
        p.text = fmt::format("{} {}{}", OpName(node), ElementTypeName(elem_type), rank == 0 ? " scalar" : "");
        p.text += ConstantNodeValue(node, &v, &why) ? " = " + Short(ToString(v)) : " (" + why + ")";
        p.type = ScalarType(elem_type, rank, elements);
        return p;
      }
      if (IsListProducer(node)) {
        std::vector<std::string> items(node.input().begin(), node.input().end());
        p.text = fmt::format("a list of {} from {} '{}': {}", items.size(), OpName(node), node.name(), Short(fmt::format("{}", fmt::join(items, ", "))));
        p.type = "Tensor[]";
        return p;
      }
      p.text = fmt::format("computed by node '{}' ({})", node.name(), OpName(node));
      p.type = "Tensor";
      return p;
    }
    case Producer::Kind::kDeferred:
      return {fmt::format("computed by node '{}' ({})", producer.deferred->name, producer.deferred->op_type), "Tensor", ""};
    case Producer::Kind::kUnknown: break;
  }
  return {"not produced anywhere in the graph (a missing value)", "Tensor", ""};
}

std::string DescribeAttribute(const onnx::AttributeProto& attr) {
  std::string type = onnx::AttributeProto_AttributeType_Name(attr.type());
  if (!attr.ref_attr_name().empty()) return fmt::format("{} = @{} (an attribute of the enclosing function)", type, attr.ref_attr_name());
  Value v;
  std::string why;
  if (attr.type() == onnx::AttributeProto::GRAPH || attr.type() == onnx::AttributeProto::GRAPHS) return type + " (a subgraph)";
  if (!AttributeToValue(attr, &v, &why)) return fmt::format("{} ({})", type, why);
  return fmt::format("{} = {}", type, Short(ToString(v)));
}

std::string AttributeSignatureType(const onnx::AttributeProto& attr) {
  using AP = onnx::AttributeProto;
  switch (attr.type()) {
    case AP::INT: return "int";
    case AP::FLOAT: return "float";
    case AP::STRING: return "str";
    case AP::INTS: return "int[]";
    case AP::FLOATS: return "float[]";
    case AP::TENSOR: return ScalarType(attr.t().data_type(), attr.t().dims_size(), Elements(attr.t()));
    default: return "Any";  // no PyTorch type for it: carried as an opaque value
  }
}

}  // namespace remap::cli
