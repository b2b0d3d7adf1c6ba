// AppendTypeKey writes tensor types field by field rather than through
// protobuf's serializer; interning relies on it telling types apart exactly
// as their bytes do. Checked over every pair of a set of types that differ
// in one field or its presence.
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "model/graph_index.h"
#include "model/type_key.h"
#include "model/type_oracle.h"

namespace {

std::string Key(const onnx::TypeProto& t) {
  std::string key;
  remap::AppendTypeKey(t, &key);
  return key;
}

onnx::TypeProto Tensor(int elem_type) {
  onnx::TypeProto t;
  t.mutable_tensor_type()->set_elem_type(elem_type);
  return t;
}

std::vector<onnx::TypeProto> VariedTypes() {
  std::vector<onnx::TypeProto> out;
  out.emplace_back();                          // nothing set
  out.emplace_back().mutable_tensor_type();    // a tensor, no element type
  out.push_back(Tensor(0));                    // element type set to 0: present, unlike the last
  out.push_back(Tensor(1));
  out.push_back(Tensor(7));
  {
    onnx::TypeProto t = Tensor(1);
    t.mutable_tensor_type()->mutable_shape();  // a scalar's empty shape, unlike no shape
    out.push_back(t);
  }
  for (int64_t v : {int64_t{0}, int64_t{3}, int64_t{-1}, int64_t{1} << 40}) {
    onnx::TypeProto t = Tensor(1);
    t.mutable_tensor_type()->mutable_shape()->add_dim()->set_dim_value(v);
    out.push_back(t);
  }
  for (const char* p : {"", "N", "batch", "3"}) {
    onnx::TypeProto t = Tensor(1);
    t.mutable_tensor_type()->mutable_shape()->add_dim()->set_dim_param(p);
    out.push_back(t);
  }
  {
    onnx::TypeProto t = Tensor(1);
    t.mutable_tensor_type()->mutable_shape()->add_dim();  // a dimension with neither
    out.push_back(t);
    t.mutable_tensor_type()->mutable_shape()->add_dim()->set_dim_value(3);
    out.push_back(t);
    t.mutable_tensor_type()->mutable_shape()->add_dim()->set_dim_param("N");
    out.push_back(t);
  }
  {
    onnx::TypeProto t = Tensor(1);
    auto* shape = t.mutable_tensor_type()->mutable_shape();
    shape->add_dim()->set_dim_value(3);
    shape->add_dim()->set_dim_value(4);
    out.push_back(t);
    onnx::TypeProto swapped = Tensor(1);
    swapped.mutable_tensor_type()->mutable_shape()->add_dim()->set_dim_value(4);
    swapped.mutable_tensor_type()->mutable_shape()->add_dim()->set_dim_value(3);
    out.push_back(swapped);
    onnx::TypeProto denoted = t;
    denoted.mutable_tensor_type()->mutable_shape()->mutable_dim(0)->set_denotation("DATA_BATCH");
    out.push_back(denoted);
    onnx::TypeProto type_denoted = t;
    type_denoted.set_denotation("IMAGE");
    out.push_back(type_denoted);
  }
  {
    // A field this ONNX does not know (number 99), as a newer ONNX may write.
    onnx::TypeProto t = Tensor(1);
    t.mutable_tensor_type()->mutable_unknown_fields()->AddVarint(99, 5);
    out.push_back(t);
    onnx::TypeProto u = Tensor(1);
    u.mutable_unknown_fields()->AddVarint(99, 5);
    out.push_back(u);
  }
  {
    onnx::TypeProto s;
    *s.mutable_sequence_type()->mutable_elem_type() = Tensor(1);
    out.push_back(s);
    onnx::TypeProto o;
    *o.mutable_optional_type()->mutable_elem_type() = Tensor(1);
    out.push_back(o);
  }
  return out;
}

}  // namespace

TEST_CASE("two types have the same key exactly when they have the same bytes", "[type_key]") {
  const std::vector<onnx::TypeProto> types = VariedTypes();
  int same = 0;
  for (size_t a = 0; a < types.size(); ++a) {
    for (size_t b = 0; b < types.size(); ++b) {
      const bool same_bytes = types[a].SerializeAsString() == types[b].SerializeAsString();
      INFO("types " << a << " and " << b);
      CHECK((Key(types[a]) == Key(types[b])) == same_bytes);
      same += same_bytes;
    }
  }
  CHECK(same == static_cast<int>(types.size()));  // the set has no duplicates: every pair above is a real test
  // Copies have their original's key, built afresh.
  for (const onnx::TypeProto& t : types) CHECK(Key(onnx::TypeProto(t)) == Key(t));
}

TEST_CASE("the oracle keeps one copy per distinct type, equal to what it was given", "[type_key]") {
  onnx::GraphProto graph;
  remap::GraphIndex index = remap::GraphIndex::ForGraph(graph);
  remap::TypeOracle oracle(&index, {{"", 17}});
  const std::vector<onnx::TypeProto> types = VariedTypes();
  std::vector<const onnx::TypeProto*> kept;
  for (const onnx::TypeProto& t : types) kept.push_back(oracle.Intern(t));
  for (size_t a = 0; a < types.size(); ++a) {
    CHECK(oracle.Interned(kept[a]));
    CHECK(kept[a]->SerializeAsString() == types[a].SerializeAsString());
    CHECK(oracle.Intern(onnx::TypeProto(types[a])) == kept[a]);
    for (size_t b = a + 1; b < types.size(); ++b) CHECK(kept[a] != kept[b]);
  }
}
