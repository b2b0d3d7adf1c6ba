// The pipeline as a library call, and batches: what rewrite/scan/check and
// another program get back, as values.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>

#include <catch2/catch.hpp>
#include <onnx/defs/parser.h>

#include "pipeline/batch.h"
#include "pipeline/pipeline.h"
#include "test_models.h"
#include "saver/model_validator.h"
#include "report/exit_codes.h"
#include "report/junit_writer.h"
#include "report/report_builder.h"

namespace fs = std::filesystem;
using namespace remap;

namespace {

const std::string kFixtures = remap::testing::CorpusFixtures();
using remap::testing::BuiltinRules;

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

fs::path FreshDir(const std::string& name) {
  fs::path d = fs::temp_directory_path() / ("onnx-remap-unit-" + name);
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

}  // namespace

TEST_CASE("pipeline: a model given as bytes is rewritten, kept in the result, and nothing is written") {
  PipelineOptions options;
  options.mode = PipelineMode::kCheck;
  options.keep_model = true;
  ModelSource source{"asinh (in memory)", ReadFile(kFixtures + "asinh_op13/model.onnx"), ""};
  ModelResult r = RunPipeline(source, "", BuiltinRules(), options);
  CHECK(r.outcome == ModelOutcome::kClean);
  CHECK(r.status.ok());
  REQUIRE(r.has_report);
  CHECK(r.report.rewritten.size() == 1);
  CHECK(r.report.rewritten[0].rule == "aten-asinh");
  // The float64-only alternative is considered first and refused (the input is float32).
  REQUIRE(r.report.rewritten[0].candidates.size() == 2);
  CHECK(r.report.rewritten[0].candidates[0].refusal != Refusal::kNone);
  CHECK(r.report.rewritten[0].candidates[1].refusal == Refusal::kNone);
  REQUIRE(r.model.has_value());
  CHECK(r.model->graph().node_size() > 0);
  CHECK_FALSE(r.written);
  CHECK(ExitCodeFor(r) == kExitOk);
}

TEST_CASE("pipeline: each failing stage is named, with the exit code it gives") {
  PipelineOptions options;
  ModelResult bad = RunPipeline(ModelSource{"notes.onnx", std::string("not a model"), ""}, "", BuiltinRules(), options);
  CHECK(bad.outcome == ModelOutcome::kFailed);
  CHECK(bad.failed_at == PipelineStage::kLoad);
  CHECK(ExitCodeFor(bad) == kExitInputError);

  options.target_opset = 30;  // beyond every opset onnx-remap can convert to
  ModelResult low = RunPipeline(ModelSource{kFixtures + "asinh_op13/model.onnx", std::nullopt, ""}, "", BuiltinRules(), options);
  CHECK(low.failed_at == PipelineStage::kRewrite);
  CHECK(ExitCodeFor(low) == kExitOpsetRefused);

  options.target_opset.reset();
  const fs::path dir = FreshDir("pipeline-save");
  const std::string out = (dir / "missing-folder" / "o.onnx").string();
  ModelResult unwritable = RunPipeline(ModelSource{kFixtures + "asinh_op13/model.onnx", std::nullopt, ""}, out, BuiltinRules(), options);
  CHECK(unwritable.failed_at == PipelineStage::kSave);
  CHECK(ExitCodeFor(unwritable) == kExitOutputError);
  CHECK_FALSE(fs::exists(out));
}

TEST_CASE("batch: shards are disjoint, cover every model, and do not depend on the machine") {
  CHECK(ShardOf("vision/resnet.onnx", 1) == 0);
  CHECK(ShardOf("vision/resnet.onnx", 7) == ShardOf("vision/resnet.onnx", 7));
  std::set<std::string> seen;
  size_t total = 0;
  const std::vector<std::string> inputs = {kFixtures};
  for (int i = 0; i < 4; ++i) {
    BatchOptions options;
    options.pipeline.mode = PipelineMode::kScan;
    options.shard_index = i;
    options.shard_count = 4;
    auto plan = PlanBatch(inputs, options);
    REQUIRE(plan.ok());
    total = plan->models_in_all_shards;
    for (const BatchEntry& e : plan->models) CHECK(seen.insert(e.relative).second);  // disjoint
  }
  CHECK(seen.size() == total);  // together: all
  CHECK(total > 100);
}

TEST_CASE("batch: a folder is mirrored, the same whatever the number of jobs") {
  const fs::path in = FreshDir("batch-in");
  fs::create_directories(in / "a" / "b");
  fs::copy_file(kFixtures + "asinh_op13/model.onnx", in / "a" / "asinh.onnx");
  fs::copy_file(kFixtures + "logit_op13/model.onnx", in / "a" / "b" / "logit.onnx");
  fs::copy_file(kFixtures + "svd_op13/model.onnx", in / "svd.onnx");
  std::vector<std::vector<std::string>> outputs;
  for (int jobs : {1, 3}) {
    BatchOptions options;
    options.output = FreshDir("batch-out-" + std::to_string(jobs)).string();
    options.jobs = jobs;
    auto plan = PlanBatch({in.string()}, options);
    REQUIRE(plan.ok());
    REQUIRE(plan->models.size() == 3);
    size_t calls = 0;
    BatchResult result = RunBatch(*plan, BuiltinRules(), options, [&](const ModelResult&, size_t done, size_t total) {
      ++calls;
      CHECK(done <= total);
    });
    CHECK(calls == 3);
    REQUIRE(result.models.size() == 3);
    CHECK(result.models[0].input == (in / "a" / "asinh.onnx").string());  // plan order
    CHECK(result.models[2].outcome == ModelOutcome::kUnmappedLeft);     // svd: no standard form
    std::vector<std::string> bytes;
    for (const char* rel : {"a/asinh.onnx", "a/b/logit.onnx", "svd.onnx"}) bytes.push_back(ReadFile(options.output + "/" + rel));
    outputs.push_back(bytes);

    report::Report rep = BuildReport({"rewrite", "test", "onnx", std::nullopt}, result.models, {}, kExitUnmappedLeft, 0);
    CHECK(rep.summary().clean() == 2);
    CHECK(rep.summary().unmapped_left() == 1);
    auto parsed = ReportFromJson(ReportToJson(rep, true));
    REQUIRE(parsed.ok());
    CHECK(parsed->models_size() == 3);
    CHECK(ReportToJUnit(rep).find("failures=\"1\"") != std::string::npos);
  }
  CHECK(outputs[0] == outputs[1]);
  CHECK_FALSE(outputs[0][0].empty());
}

TEST_CASE("batch: bad plans are usage errors") {
  BatchOptions options;
  options.shard_index = 2;
  options.shard_count = 2;
  CHECK(PlanBatch({kFixtures}, options).status().code() == ErrorCode::kUsage);
  BatchOptions writes;
  CHECK(PlanBatch({kFixtures}, writes).status().code() == ErrorCode::kUsage);  // no output
  writes.output = "/tmp/x";
  CHECK(PlanBatch({kFixtures, kFixtures}, writes).status().code() == ErrorCode::kUsage);
  BatchOptions scan;
  scan.pipeline.mode = PipelineMode::kScan;
  CHECK(PlanBatch({"/no/such/model.onnx"}, scan).status().code() == ErrorCode::kInputNotFound);
}

TEST_CASE("a node ONNX's inference would divide by zero on is refused") {
  // ONNX 1.12's pooling inference divides by the strides unchecked (SIGFPE).
  const std::string text = R"(
    < ir_version: 7, opset_import: ["" : 13] >
    g (float[1,1,4,4] x) => (float[1,1,2,2] y) {
      y = MaxPool<kernel_shape = [2, 2], strides = [0, 2]>(x)
    })";
  onnx::ModelProto model;
  REQUIRE(onnx::OnnxParser::Parse(model, text.c_str()).IsOK());
  PipelineOptions options;
  options.mode = PipelineMode::kCheck;
  ModelResult r = RunPipeline(ModelSource{"pool.onnx", model.SerializeAsString(), ""}, "", BuiltinRules(), options);
  CHECK(r.failed_at == PipelineStage::kValidate);
  CHECK(r.status.message().find("MaxPool '' has strides 0: each must be at least 1") != std::string::npos);
  CHECK(ExitCodeFor(r) == kExitInvalidResult);
}

namespace {

// x -> ATen leaky_relu -> y, next to an untouched Relu that carries an attribute Relu does not have.
onnx::ModelProto LeakyReluBesideBadRelu() {
  const std::string text = R"(
    < ir_version: 8, opset_import: ["" : 17, "org.pytorch.aten" : 1] >
    g (float[2] x) => (float[2] y, float[2] z) {
      y = org.pytorch.aten.ATen<operator = "leaky_relu", overload_name = "">(x)
      z = Relu<bogus = 1>(x)
    })";
  onnx::ModelProto model;
  REQUIRE(onnx::OnnxParser::Parse(model, text.c_str()).IsOK());
  return model;
}

RuleSet RulesFrom(const fs::path& dir, const std::string& replace) {
  const fs::path file = dir / "leaky_relu.textproto";
  std::ofstream(file) << "rule { id: \"leaky\" match { aten: \"leaky_relu\" }\n"
                         "  signature: \"aten::leaky_relu(Tensor self, Scalar negative_slope=0.01) -> Tensor\"\n"
                         "  alternative { min_opset: 6 replace: \"" << replace << "\" } }\n";
  RuleLoadResult loaded = LoadRules(false, {file.string()});
  REQUIRE(loaded.errors.empty());
  return std::move(loaded.rules);
}

}  // namespace

TEST_CASE("rewrite validates what it added by default, the whole model with full_validation") {
  const fs::path dir = FreshDir("validate-scope");
  const RuleSet rules = RulesFrom(dir, "out = LeakyRelu<alpha = ${float(negative_slope)}>(self)");
  const std::string out = (dir / "o.onnx").string();
  PipelineOptions options;
  // The untouched, already invalid Relu is not the rewrite's doing: no second pass over the model finds it.
  ModelResult added = RunPipeline(ModelSource{"m.onnx", LeakyReluBesideBadRelu().SerializeAsString(), ""}, out, rules, options);
  CHECK(added.outcome == ModelOutcome::kClean);
  CHECK(added.written);
  CHECK(ExitCodeFor(added) == kExitOk);
  fs::remove(out);

  options.full_validation = true;
  ModelResult full = RunPipeline(ModelSource{"m.onnx", LeakyReluBesideBadRelu().SerializeAsString(), ""}, out, rules, options);
  CHECK(full.failed_at == PipelineStage::kValidate);
  CHECK(full.status.message().find("fails the ONNX checker") != std::string::npos);
  CHECK(ExitCodeFor(full) == kExitInvalidResult);
  CHECK_FALSE(fs::exists(out));

  // check is the CI gate: it validates the whole result without being asked.
  PipelineOptions check;
  check.mode = PipelineMode::kCheck;
  ModelResult gate = RunPipeline(ModelSource{"m.onnx", LeakyReluBesideBadRelu().SerializeAsString(), ""}, "", rules, check);
  CHECK(gate.failed_at == PipelineStage::kValidate);
}

TEST_CASE("an added node that breaks its schema fails validation by default, nothing written") {
  const fs::path dir = FreshDir("validate-added");
  // Type inference accepts it (types are fine); the schema has no attribute 'beta'.
  const RuleSet rules = RulesFrom(dir, "out = LeakyRelu<alpha = ${float(negative_slope)}, beta = 2.0>(self)");
  const std::string out = (dir / "o.onnx").string();
  onnx::ModelProto model = LeakyReluBesideBadRelu();
  model.mutable_graph()->mutable_node()->RemoveLast();  // no bad Relu: only the added node can fail
  model.mutable_graph()->mutable_output()->RemoveLast();
  ModelResult r = RunPipeline(ModelSource{"m.onnx", model.SerializeAsString(), ""}, out, rules, PipelineOptions{});
  CHECK(r.failed_at == PipelineStage::kValidate);
  CHECK(r.status.message().find("beta") != std::string::npos);
  CHECK(ExitCodeFor(r) == kExitInvalidResult);
  CHECK_FALSE(fs::exists(out));
}

TEST_CASE("the check of added nodes, first or while the output is written: its failure leaves the old file and comes first") {
  // One added node: checked first by default, while writing from 0 added nodes.
  for (const uint64_t apart : {uint64_t{0}, PipelineOptions{}.check_apart_from}) {
    INFO("check_apart_from " << apart);
    PipelineOptions options;
    options.check_apart_from = apart;
    const fs::path dir = FreshDir("validate-overlap");
    const RuleSet bad = RulesFrom(dir, "out = LeakyRelu<alpha = ${float(negative_slope)}, beta = 2.0>(self)");
    onnx::ModelProto model = LeakyReluBesideBadRelu();
    model.mutable_graph()->mutable_node()->RemoveLast();
    model.mutable_graph()->mutable_output()->RemoveLast();
    const std::string bytes = model.SerializeAsString();
    const std::string out = (dir / "o.onnx").string();
    std::ofstream(out) << "old";
    ModelResult r = RunPipeline(ModelSource{"m.onnx", bytes, ""}, out, bad, options);
    CHECK(r.failed_at == PipelineStage::kValidate);
    CHECK_FALSE(r.written);
    std::ifstream in(out);
    CHECK(std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()) == "old");
    std::vector<std::string> left;
    for (const auto& e : fs::directory_iterator(dir)) left.push_back(e.path().filename().string());
    std::sort(left.begin(), left.end());
    CHECK(left == std::vector<std::string>{"leaky_relu.textproto", "o.onnx"});  // no temp file either

    // The save would fail too (no such folder): the check's failure is reported, as when it ran first.
    ModelResult both = RunPipeline(ModelSource{"m.onnx", bytes, ""}, (dir / "none" / "o.onnx").string(), bad, options);
    CHECK(both.failed_at == PipelineStage::kValidate);
    CHECK(both.status.message().find("beta") != std::string::npos);

    // A passing check: the save's own failure.
    const RuleSet good = RulesFrom(dir, "out = LeakyRelu<alpha = ${float(negative_slope)}>(self)");
    ModelResult save = RunPipeline(ModelSource{"m.onnx", bytes, ""}, (dir / "none" / "o.onnx").string(), good, options);
    CHECK(save.failed_at == PipelineStage::kSave);
    ModelResult ok = RunPipeline(ModelSource{"m.onnx", bytes, ""}, out, good, options);
    CHECK(ok.written);
    CHECK(ExitCodeFor(ok) == kExitOk);
  }
}

TEST_CASE("added nodes that write one name twice fail validation, whatever the opset") {
  // No rule can make the engine do this (templates assign each name once);
  // the check guards the engine itself, so it is driven directly.
  onnx::ModelProto model;
  onnx::OnnxParser::Parse(model, R"(
    < ir_version: 7, opset_import: ["" : 13] >
    g (float[2] x) => (float[2] y) {
      y = Relu(x)
      y = Neg(x)
    })");
  const std::vector<AddedNode> added{{&model.graph().node(0), nullptr}, {&model.graph().node(1), nullptr}};
  std::vector<std::string> notes;
  Status s = CheckAddedNodes(model, added, &notes);
  CHECK(s.code() == ErrorCode::kValidationFailed);
  CHECK(s.message().find("wrote 'y' twice") != std::string::npos);
  // One of them alone passes; the same name in two functions is no clash.
  CHECK(CheckAddedNodes(model, {added[0]}, &notes).ok());
  onnx::FunctionProto f1, f2;
  for (onnx::FunctionProto* f : {&f1, &f2}) {
    auto* op = f->add_opset_import();
    op->set_domain("");
    op->set_version(13);
  }
  CHECK(CheckAddedNodes(model, {{&model.graph().node(0), &f1}, {&model.graph().node(1), &f2}}, &notes).ok());
  // Past the opsets ONNX 1.12 knows the schema checks are skipped, this one is not.
  model.mutable_opset_import(0)->set_version(21);
  CHECK(CheckAddedNodes(model, added, &notes).code() == ErrorCode::kValidationFailed);
}

TEST_CASE("of many added nodes, the first that fails the checker is the one reported") {
  // Enough nodes for the check to run in several blocks, on several threads;
  // two bad ones, far apart: the report names the earlier, every time.
  onnx::ModelProto model;
  onnx::OnnxParser::Parse(model, R"(< ir_version: 7, opset_import: ["" : 13] > g (float[2] x) => (float[2] y) { y = Relu(x) })");
  auto* graph = model.mutable_graph();
  graph->mutable_node()->Clear();
  const int count = 3000;
  for (int k = 0; k < count; ++k) {
    auto* n = graph->add_node();
    n->set_op_type("Relu");
    n->set_name("n" + std::to_string(k));
    n->add_input(k == 0 ? "x" : "v" + std::to_string(k - 1));
    n->add_output(k == count - 1 ? "y" : "v" + std::to_string(k));
  }
  for (int bad : {2100, 700}) graph->mutable_node(bad)->set_op_type("NoSuchOp" + std::to_string(bad));
  std::vector<AddedNode> added;
  for (const auto& n : graph->node()) added.push_back({&n, nullptr});
  std::vector<std::string> notes;
  for (int run = 0; run < 5; ++run) {
    Status s = CheckAddedNodes(model, added, &notes);
    CHECK(s.code() == ErrorCode::kValidationFailed);
    CHECK(s.message().find("NoSuchOp700") != std::string::npos);
  }
  graph->mutable_node(700)->set_op_type("Relu");
  CHECK(CheckAddedNodes(model, added, &notes).message().find("NoSuchOp2100") != std::string::npos);
  graph->mutable_node(2100)->set_op_type("Relu");
  CHECK(CheckAddedNodes(model, added, &notes).ok());
}

TEST_CASE("added nodes of one form pass together, a node that differs in what the checker reads is checked") {
  // 3000 nodes of one form (the check skips a form that passed in its
  // block), and among them nodes that differ from their neighbours only in
  // what ONNX's check_node reads: an attribute's presence, type or value, an
  // empty input or output. Each must still fail, in order.
  onnx::ModelProto model;
  onnx::OnnxParser::Parse(model, R"(< ir_version: 7, opset_import: ["" : 13] > g (float[2] x) => (float[2] y) { y = Relu(x) })");
  auto* graph = model.mutable_graph();
  graph->mutable_node()->Clear();
  const int count = 3000;
  for (int k = 0; k < count; ++k) {
    auto* n = graph->add_node();
    n->set_op_type("LeakyRelu");
    n->set_name("n" + std::to_string(k));
    auto* alpha = n->add_attribute();
    alpha->set_name("alpha");
    alpha->set_type(onnx::AttributeProto::FLOAT);
    alpha->set_f(0.1f);
    n->add_input(k == 0 ? "x" : "v" + std::to_string(k - 1));
    n->add_output(k == count - 1 ? "y" : "v" + std::to_string(k));
  }
  std::vector<AddedNode> added;
  for (const auto& n : graph->node()) added.push_back({&n, nullptr});
  std::vector<std::string> notes;
  REQUIRE(CheckAddedNodes(model, added, &notes).ok());
  const onnx::NodeProto good = graph->node(1000);
  // Each fault, by the node it is in (all in blocks where the form passed before).
  graph->mutable_node(1001)->mutable_attribute(0)->set_type(onnx::AttributeProto::INT);  // mismatched type
  graph->mutable_node(1502)->add_attribute()->CopyFrom(graph->node(1502).attribute(0));  // appears twice
  graph->mutable_node(1503)->mutable_attribute(0)->set_name("beta");                        // unknown attribute
  graph->mutable_node(2004)->set_input(0, "");                                              // empty single input
  graph->mutable_node(2505)->set_output(0, "");                                             // empty single output
  // What ONNX's checker says of each (cut at the first line).
  const std::vector<std::pair<int, std::string>> faults = {
      {1001, "mismatch in attribute alpha"},
      {1502, "Attribute 'alpha' appeared multiple times"},
      {1503, "Unrecognized attribute: beta"},
      {2004, "Node (n2004)'s input 0 is marked single"},
      {2505, "Node (n2505)'s output 0 is marked single"}};
  for (const auto& [bad, says] : faults) {
    Status s = CheckAddedNodes(model, added, &notes);
    INFO("node n" << bad << ": " << s.message());
    CHECK(s.code() == ErrorCode::kValidationFailed);
    CHECK(s.message().find(says) != std::string::npos);
    onnx::NodeProto fixed = good;
    fixed.set_name(graph->node(bad).name());
    fixed.set_input(0, graph->node(bad - 1).output(0));
    fixed.set_output(0, "v" + std::to_string(bad));
    *graph->mutable_node(bad) = fixed;
  }
  CHECK(CheckAddedNodes(model, added, &notes).ok());
}

TEST_CASE("a model left to the process's exit is written as one freed, in every mode") {
  const fs::path dir = FreshDir("pipeline-free-model");
  for (const char* name : {"asinh_op13", "logit_op13"}) {
    const ModelSource source{kFixtures + name + "/model.onnx", std::nullopt, ""};
    PipelineOptions options;
    const std::string freed = (dir / (std::string(name) + "-freed.onnx")).string();
    ModelResult a = RunPipeline(source, freed, BuiltinRules(), options);
    options.free_model = false;
    const std::string left = (dir / (std::string(name) + "-left.onnx")).string();
    ModelResult b = RunPipeline(source, left, BuiltinRules(), options);
    CHECK(a.outcome == ModelOutcome::kClean);
    CHECK(b.outcome == ModelOutcome::kClean);
    CHECK(b.written);
    CHECK(ReadFile(left) == ReadFile(freed));
    CHECK(b.report.rewritten.size() == a.report.rewritten.size());
    // Modes that write nothing leave the model too; kept, it is the caller's.
    for (PipelineMode mode : {PipelineMode::kCheck, PipelineMode::kScan}) {
      options.mode = mode;
      ModelResult c = RunPipeline(source, "", BuiltinRules(), options);
      CHECK(c.status.ok());
      CHECK_FALSE(c.written);
    }
    options.keep_model = true;
    ModelResult kept = RunPipeline(source, "", BuiltinRules(), options);
    REQUIRE(kept.model.has_value());
    CHECK(kept.model->graph().node_size() > 0);
  }
}
