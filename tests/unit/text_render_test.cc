// The summary lines group records by what they print. Records a rewrite
// interned share storage; records with equal text in separate storage (two
// reports, or a field not interned) must still land in one line.
#include <catch2/catch.hpp>

#include "cli/text_render.h"

namespace remap::cli {
namespace {

NodeOutcome Rewritten(const char* node, SharedString op, SharedString aten, SharedString rule, SharedList<std::string> emitted) {
  NodeOutcome n;
  n.node = node;
  n.op = std::move(op);
  n.form = "aten-fallback";
  n.aten_operator = std::move(aten);
  n.rule = std::move(rule);
  n.emitted = std::move(emitted);
  return n;
}

ModelResult WithReport() {
  ModelResult r;
  r.input = "m.onnx";
  r.outcome = ModelOutcome::kClean;
  r.has_report = true;
  return r;
}

TEST_CASE("summary groups interned and equal-text records into one line each") {
  const SharedString op = "org.pytorch.aten::ATen", asinh = "asinh", rule = "aten-asinh";
  const SharedList<std::string> emitted = std::vector<std::string>{"Asinh"};
  ModelResult r = WithReport();
  auto& rw = r.report.rewritten;
  rw.push_back(Rewritten("/a", op, asinh, rule, emitted));
  rw.push_back(Rewritten("/b", op, "triu", "aten-triu", std::vector<std::string>{"Constant", "Trilu"}));
  rw.push_back(Rewritten("/c", op, asinh, rule, emitted));
  // Equal text, its own storage.
  rw.push_back(Rewritten("/d", "org.pytorch.aten::ATen", "asinh", "aten-asinh", std::vector<std::string>{"Asinh"}));
  // Same rule and op, other emitted ops: a line of its own.
  rw.push_back(Rewritten("/e", op, asinh, rule, std::vector<std::string>{"Cast", "Asinh"}));

  const std::string text = RenderModelText(r, ModelCommand::kRewrite, false, TerminalStyle::Plain());
  CHECK(text ==
        "m.onnx: 5 rewritten, 0 left\n"
        "  rewritten 3 x org.pytorch.aten::ATen asinh -> Asinh [aten-asinh]\n"
        "  rewritten 1 x org.pytorch.aten::ATen asinh -> Cast Asinh [aten-asinh]\n"
        "  rewritten 1 x org.pytorch.aten::ATen triu -> Constant Trilu [aten-triu]\n");
}

TEST_CASE("scan groups count every record and show the first of each group") {
  const SharedString op = "org.pytorch.aten::ATen", cumsum = "cumsum";
  ModelResult r = WithReport();
  r.report.rewritten.push_back(Rewritten("/ok", op, cumsum, "aten-cumsum", std::vector<std::string>{"CumSum"}));
  NodeOutcome left = Rewritten("/x", op, "svd", "", {});
  left.reason = "first reason";
  r.report.remaining.push_back(left);
  left.node = "/y";
  left.aten_operator = "svd";  // equal text, its own storage
  left.reason = "second reason";
  r.report.remaining.push_back(left);

  const std::string text = RenderScanText(r, "onnx", TerminalStyle::Plain());
  CHECK(text.find("3 unmapped nodes, 1 covered by rules") != std::string::npos);
  CHECK(text.find("   1 x org.pytorch.aten::ATen cumsum") != std::string::npos);
  CHECK(text.find("   2 x org.pytorch.aten::ATen svd") != std::string::npos);
  CHECK(text.find("first reason") != std::string::npos);
  CHECK(text.find("second reason") == std::string::npos);
}

}  // namespace
}  // namespace remap::cli
