// Output check of the issue 11 benchmark: check_output IN.onnx OUT.onnx
// exits 0 when OUT parses as an ONNX model, has no ATen node left (graphs,
// subgraphs and functions), and every initializer of IN's main graph is in
// OUT with the same type, dims and bytes (embedded or external, each read
// from the file its model points to). Otherwise it names the first problem
// on stderr and exits 1. C++ so the smoke test needs no Python onnx.
#include <cstdio>
#include <fstream>
#include <iostream>
#include <string>
#include <unordered_map>

#include <onnx/onnx_pb.h>

#include "../whole_file.h"

namespace {

std::string Folder(const std::string& path) {
  auto slash = path.rfind('/');
  return slash == std::string::npos ? "." : path.substr(0, slash);
}

bool Load(const std::string& path, onnx::ModelProto* model) {
  std::string bytes;
  return ReadWholeFile(path.c_str(), &bytes) && model->ParseFromString(bytes);
}

// The tensor's data as bytes, wherever it is stored; empty with *error set
// when an external file cannot be read.
std::string Payload(const onnx::TensorProto& t, const std::string& folder, std::string* error) {
  if (t.data_location() == onnx::TensorProto::EXTERNAL) {
    std::string location;
    long long offset = 0, length = -1;
    for (const auto& e : t.external_data()) {
      if (e.key() == "location") location = e.value();
      if (e.key() == "offset") offset = std::stoll(e.value());
      if (e.key() == "length") length = std::stoll(e.value());
    }
    std::ifstream in(folder + "/" + location, std::ios::binary | std::ios::ate);
    if (!in) {
      *error = "cannot open external data " + folder + "/" + location;
      return {};
    }
    if (length < 0) length = static_cast<long long>(in.tellg()) - offset;
    std::string bytes(static_cast<size_t>(length), '\0');
    in.seekg(offset);
    in.read(bytes.data(), length);
    if (!in) *error = "external data " + location + " is shorter than its tensor";
    return bytes;
  }
  if (t.has_raw_data()) return t.raw_data();
  onnx::TensorProto typed = t;  // typed fields (float_data, ...): compare their encoding
  typed.clear_name();
  typed.clear_doc_string();
  return typed.SerializeAsString();
}

long CountAten(const onnx::GraphProto& g);

long CountAten(const onnx::NodeProto& n) {
  long count = (n.op_type() == "ATen" || n.domain() == "org.pytorch.aten") ? 1 : 0;
  for (const auto& a : n.attribute()) {
    if (a.has_g()) count += CountAten(a.g());
    for (const auto& g : a.graphs()) count += CountAten(g);
  }
  return count;
}

long CountAten(const onnx::GraphProto& g) {
  long count = 0;
  for (const auto& n : g.node()) count += CountAten(n);
  return count;
}

int Fail(const std::string& out, const std::string& what) {
  std::cerr << "check_output: " << out << ": " << what << "\n";
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::cerr << "usage: check_output IN.onnx OUT.onnx\n";
    return 2;
  }
  const std::string in_path = argv[1], out_path = argv[2];
  onnx::ModelProto in, out;
  if (!Load(in_path, &in)) return Fail(in_path, "input does not load");
  if (!Load(out_path, &out)) return Fail(out_path, "does not load as an ONNX model");
  long aten = CountAten(out.graph());
  for (const auto& f : out.functions())
    for (const auto& n : f.node()) aten += CountAten(n);
  if (aten > 0) return Fail(out_path, std::to_string(aten) + " ATen node(s) left");
  std::unordered_map<std::string, const onnx::TensorProto*> by_name;
  for (const auto& t : out.graph().initializer()) by_name[t.name()] = &t;
  std::string error;
  for (const auto& t : in.graph().initializer()) {
    auto it = by_name.find(t.name());
    if (it == by_name.end()) return Fail(out_path, "initializer " + t.name() + " is missing");
    const onnx::TensorProto& o = *it->second;
    if (o.data_type() != t.data_type() || o.dims_size() != t.dims_size())
      return Fail(out_path, "initializer " + t.name() + " changed type or rank");
    for (int d = 0; d < t.dims_size(); ++d)
      if (o.dims(d) != t.dims(d)) return Fail(out_path, "initializer " + t.name() + " changed shape");
    std::string a = Payload(t, Folder(in_path), &error);
    std::string b = Payload(o, Folder(out_path), &error);
    if (!error.empty()) return Fail(out_path, error);
    if (a != b) return Fail(out_path, "initializer " + t.name() + " has different bytes");
  }
  return 0;
}
