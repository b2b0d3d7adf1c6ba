// Rewrite throughput on synthetic models of growing size, run on demand:
//   build/bin/rewrite_bench [max_nodes]
// For each size it times (a) the baseline every run pays anyway — parse and
// serialize the model — and (b) the rewrite itself, and prints their ratio.
// A rewrite that is O(nodes) keeps the ratio flat as the model grows; an
// O(n^2) edit (erasing from a repeated field one node at a time) makes it climb.
#include <sys/resource.h>

#include <chrono>
#include <cstdlib>
#include <string>

#include <fmt/core.h>

#include "engine/engine.h"
#include "model/model_loader.h"
#include "rules/rule_set.h"

namespace {

// A chain of n nodes; every 4th is an ATen asinh or tril with a Constant argument.
onnx::ModelProto MakeModel(int n) {
  onnx::ModelProto m;
  m.set_ir_version(7);
  auto* op = m.add_opset_import();
  op->set_version(14);
  op = m.add_opset_import();
  op->set_domain("org.pytorch.aten");
  op->set_version(1);
  auto* g = m.mutable_graph();
  g->set_name("bench");
  auto* in = g->add_input();
  in->set_name("x");
  in->mutable_type()->mutable_tensor_type()->set_elem_type(onnx::TensorProto::FLOAT);
  std::string prev = "x";
  for (int i = 0; i < n; ++i) {
    std::string out = "v" + std::to_string(i);
    auto* node = g->add_node();
    node->set_name("n" + std::to_string(i));
    if (i % 8 == 3) {
      auto* c = g->add_node();
      c->set_op_type("Constant");
      c->set_name("c" + std::to_string(i));
      c->add_output("k" + std::to_string(i));
      auto* a = c->add_attribute();
      a->set_name("value");
      a->set_type(onnx::AttributeProto::TENSOR);
      a->mutable_t()->set_data_type(onnx::TensorProto::INT64);
      a->mutable_t()->add_int64_data(1);
      node->set_domain("org.pytorch.aten");
      node->set_op_type("ATen");
      node->add_input(prev);
      node->add_input("k" + std::to_string(i));
      auto* opname = node->add_attribute();
      opname->set_name("operator");
      opname->set_type(onnx::AttributeProto::STRING);
      opname->set_s("tril");
    } else if (i % 8 == 7) {
      node->set_domain("org.pytorch.aten");
      node->set_op_type("asinh");
      node->add_input(prev);
    } else {
      node->set_op_type("Relu");
      node->add_input(prev);
    }
    node->add_output(out);
    prev = out;
  }
  g->add_output()->set_name(prev);
  return m;
}

double Seconds(std::chrono::steady_clock::time_point since) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - since).count();
}

}  // namespace

int main(int argc, char** argv) {
  const int max_nodes = argc > 1 ? std::atoi(argv[1]) : 800000;
  remap::RuleLoadResult rules = remap::LoadRules(true, {});
  if (!rules.errors.empty()) {
    fmt::print(stderr, "{}\n", rules.errors[0]);
    return 1;
  }
  fmt::print("{:>9} {:>12} {:>12} {:>8} {:>12} {:>10}\n", "nodes", "baseline s", "rewrite s", "ratio", "rewritten", "maxrss MB");
  for (int n = 25000; n <= max_nodes; n *= 2) {
    std::string bytes;
    MakeModel(n).SerializeToString(&bytes);
    auto t0 = std::chrono::steady_clock::now();
    auto model = remap::ParseModel(bytes, "bench");
    std::string out;
    model->SerializeToString(&out);
    double baseline = Seconds(t0);

    t0 = std::chrono::steady_clock::now();
    auto report = remap::RewriteModel(&*model, rules.rules, {});
    double rewrite = Seconds(t0);
    if (!report.ok()) {
      fmt::print(stderr, "{}\n", report.status().message());
      return 1;
    }
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    fmt::print("{:>9} {:>12.3f} {:>12.3f} {:>8.2f} {:>12} {:>10.0f}\n", model->graph().node_size(), baseline, rewrite,
               rewrite / baseline, report->rewritten.size(), usage.ru_maxrss / 1024.0);
  }
  return 0;
}
