// Writes a model of a chosen weight size for the fault tests (a large model
// to kill mid-write, one larger than a file-size limit):
//
//   make_weighted_model OUT.onnx MIB SEED [DATA_FILE [OFFSET]]
//
// y = asinh(x + w) with x, w float[N], N = MIB MiB / 4, as PyTorch exports it
// (an org.pytorch.aten ATen node, so onnx-remap has something to rewrite).
// w is pseudo-random from SEED (different seeds give different models of the
// same size). With DATA_FILE, w is external data in that file (a name
// relative to OUT's folder), else inline in the model; with OFFSET, at that
// byte offset of DATA_FILE, the bytes before it a hole (a sparse file).
// MIB with an `h` suffix (e.g. 2100h, DATA_FILE only) makes w all hole: zeros
// that cost no disk and no time, for models of many GiB.
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>

#include <onnx/onnx_pb.h>

int main(int argc, char** argv) {
  if (argc < 4 || argc > 6) {
    std::cerr << "usage: make_weighted_model OUT.onnx MIB SEED [DATA_FILE [OFFSET]]\n";
    return 2;
  }
  const std::filesystem::path out = argv[1];
  char* unit = nullptr;
  const int64_t n = std::strtoll(argv[2], &unit, 10) * (1 << 20) / 4;
  const bool hole = *unit == 'h';
  if (hole && argc < 5) {
    std::cerr << "make_weighted_model: MIB with 'h' needs DATA_FILE\n";
    return 2;
  }
  uint64_t state = std::strtoull(argv[3], nullptr, 10) * 2654435761u + 1;
  if (n <= 0) {
    std::cerr << "make_weighted_model: MIB must be positive\n";
    return 2;
  }

  std::string weights(hole ? 0 : static_cast<size_t>(n) * 4, '\0');
  for (int64_t i = 0; i < n && !hole; ++i) {
    state = state * 6364136223846793005u + 1442695040888963407u;  // an LCG: fast, same everywhere
    const float v = static_cast<float>(state >> 40) / static_cast<float>(1 << 24) - 0.5f;
    std::memcpy(&weights[static_cast<size_t>(i) * 4], &v, 4);  // little-endian hosts only, as ONNX raw_data
  }

  onnx::ModelProto model;
  model.set_ir_version(7);
  model.set_producer_name("make_weighted_model");
  auto* op = model.add_opset_import();
  op->set_version(13);
  op = model.add_opset_import();
  op->set_domain("org.pytorch.aten");
  op->set_version(1);
  onnx::GraphProto* g = model.mutable_graph();
  g->set_name("weighted");
  auto value = [n](onnx::ValueInfoProto* v, const char* name) {
    v->set_name(name);
    auto* t = v->mutable_type()->mutable_tensor_type();
    t->set_elem_type(onnx::TensorProto::FLOAT);
    t->mutable_shape()->add_dim()->set_dim_value(n);
  };
  value(g->add_input(), "x");
  value(g->add_output(), "y");
  onnx::TensorProto* w = g->add_initializer();
  w->set_name("w");
  w->set_data_type(onnx::TensorProto::FLOAT);
  w->add_dims(n);
  if (argc >= 5) {
    const long long offset = argc == 6 ? std::strtoll(argv[5], nullptr, 10) : 0;
    w->set_data_location(onnx::TensorProto::EXTERNAL);
    auto kv = [w](const char* k, const std::string& v) {
      auto* e = w->add_external_data();
      e->set_key(k);
      e->set_value(v);
    };
    kv("location", argv[4]);
    kv("offset", std::to_string(offset));
    kv("length", std::to_string(n * 4));
    std::ofstream data(out.parent_path() / argv[4], std::ios::binary);
    data.seekp(offset);
    data.write(weights.data(), static_cast<std::streamsize>(weights.size()));
    data.close();
    if (!data) {
      std::cerr << "make_weighted_model: cannot write " << argv[4] << "\n";
      return 1;
    }
    if (hole) std::filesystem::resize_file(out.parent_path() / argv[4], static_cast<uintmax_t>(offset + n * 4));
  } else {
    w->set_raw_data(std::move(weights));
  }
  onnx::NodeProto* add = g->add_node();
  add->set_op_type("Add");
  add->set_name("/Add");
  add->add_input("x");
  add->add_input("w");
  add->add_output("s");
  onnx::NodeProto* aten = g->add_node();
  aten->set_op_type("ATen");
  aten->set_domain("org.pytorch.aten");
  aten->set_name("/ATen");
  aten->add_input("s");
  aten->add_output("y");
  auto* a = aten->add_attribute();
  a->set_name("operator");
  a->set_type(onnx::AttributeProto::STRING);
  a->set_s("asinh");
  a = aten->add_attribute();
  a->set_name("overload_name");
  a->set_type(onnx::AttributeProto::STRING);
  a->set_s("");

  std::ofstream file(out, std::ios::binary);
  if (!model.SerializeToOstream(&file) || !file.flush()) {
    std::cerr << "make_weighted_model: cannot write " << out << "\n";
    return 1;
  }
  return 0;
}
