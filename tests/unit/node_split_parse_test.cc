// ParseSplittingNodes against protobuf's own parse of the same bytes: the
// same message when the split applies, and no answer (the caller then parses
// whole) when the bytes are not in the shape it handles.
#include <string>

#include <catch2/catch.hpp>
#include <google/protobuf/io/coded_stream.h>

#include "model/node_split_parse.h"
#include "model/wire_format_scan.h"
#include "test_models.h"

using remap::NodeSplitOptions;
using remap::ParseSplittingNodes;
using remap::testing::ModelFromText;

namespace {

// Small thresholds, so that test-sized models split into several pieces.
NodeSplitOptions Eager(int threads = 3) {
  NodeSplitOptions o;
  o.min_node_bytes = 1;
  o.min_piece_bytes = 1;
  o.threads = threads;
  return o;
}

bool ParseWhole(const std::string& bytes, int recursion_limit, onnx::ModelProto* model) {
  google::protobuf::io::CodedInputStream stream(reinterpret_cast<const uint8_t*>(bytes.data()),
                                                 static_cast<int>(bytes.size()));
  stream.SetTotalBytesLimit(INT32_MAX);
  stream.SetRecursionLimit(recursion_limit);
  return model->ParseFromCodedStream(&stream) && stream.ConsumedEntireMessage();
}

// A field record: tag, then the payload as length-delimited bytes.
std::string Record(uint32_t field, const std::string& payload) {
  std::string out;
  remap::AppendVarint((uint64_t{field} << 3) | 2, &out);
  remap::AppendVarint(payload.size(), &out);
  return out + payload;
}

// An unknown varint field (number 999): kept as unknown bytes by the parse.
const std::string kUnknownField = "\xb8\x3e\x07";

// `count` nodes of several kinds, with an If whose branches have nodes of
// their own, doc strings, and unknown fields in nodes and in the graph.
onnx::ModelProto ManyNodes(int count) {
  auto model = ModelFromText(R"(
    < ir_version: 8, opset_import: ["" : 13, "org.pytorch.aten" : 1] >
    g (float[4] x, bool c) => (float[4] y) {
      y = If(c) <then_branch = t () => (float[4] a) { a = Relu(x) },
                 else_branch = e () => (float[4] b) { b = Neg(x) }>
    })");
  onnx::GraphProto* g = model.mutable_graph();
  onnx::NodeProto first = g->node(0);
  g->clear_node();
  std::string prev = "x";
  for (int k = 0; k < count; ++k) {
    onnx::NodeProto n;
    const std::string out = "v" + std::to_string(k);
    if (k % 7 == 3) {
      n.set_op_type("ATen");
      n.set_domain("org.pytorch.aten");
      auto* a = n.add_attribute();
      a->set_name("operator");
      a->set_type(onnx::AttributeProto::STRING);
      a->set_s("asinh");
    } else {
      n.set_op_type(k % 2 ? "Relu" : "Sigmoid");
      n.set_doc_string("node " + std::to_string(k));
    }
    n.set_name("n" + std::to_string(k));
    n.add_input(prev);
    n.add_output(out);
    if (k % 5 == 0) {
      // Unknown fields survive a parse: ParseFromString keeps them.
      std::string bytes = n.SerializeAsString() + kUnknownField;
      REQUIRE(n.ParseFromString(bytes));
    }
    *g->add_node() = n;
    prev = out;
  }
  *g->add_node() = first;
  std::string graph_bytes = g->SerializeAsString() + kUnknownField;
  REQUIRE(g->ParseFromString(graph_bytes));
  return model;
}

}  // namespace

TEST_CASE("a split parse gives the message a whole parse gives", "[node_split_parse]") {
  for (int count : {10, 300, 5000}) {
    for (int threads : {2, 3, 8}) {
      INFO("nodes " << count << ", threads " << threads);
      const std::string bytes = ManyNodes(count).SerializeAsString();
      onnx::ModelProto whole;
      REQUIRE(ParseWhole(bytes, 100, &whole));
      onnx::ModelProto split;
      REQUIRE(ParseSplittingNodes(bytes, 100, Eager(threads), &split));
      CHECK(split.graph().node_size() == count + 1);
      CHECK(split.graph().node(0).name() == "n0");
      CHECK(split.graph().node(count).op_type() == "If");
      // Byte for byte: the same fields, unknown ones included, in the same order.
      CHECK(split.SerializeAsString() == bytes);
      CHECK(split.SerializeAsString() == whole.SerializeAsString());
    }
  }
}

TEST_CASE("a split parse declines what it does not handle, leaving the model untouched", "[node_split_parse]") {
  const onnx::ModelProto model = ManyNodes(200);
  const std::string bytes = model.SerializeAsString();
  onnx::ModelProto out;
  out.set_producer_name("untouched");

  SECTION("one core, or nodes below the size worth splitting") {
    CHECK_FALSE(ParseSplittingNodes(bytes, 100, Eager(1), &out));
    CHECK_FALSE(ParseSplittingNodes(bytes, 100, NodeSplitOptions{}, &out));
  }
  SECTION("a second graph field, which protobuf merges into the first") {
    onnx::ModelProto more;
    *more.mutable_graph()->add_node() = model.graph().node(0);
    const std::string merged = bytes + more.SerializeAsString();
    CHECK_FALSE(ParseSplittingNodes(merged, 100, Eager(), &out));
    onnx::ModelProto whole;
    REQUIRE(ParseWhole(merged, 100, &whole));
    CHECK(whole.graph().node_size() == model.graph().node_size() + 1);
  }
  SECTION("node records that are not one run") {
    onnx::ModelProto head = model;
    head.clear_graph();
    std::string graph_payload;
    for (int k = 0; k < model.graph().node_size(); ++k) {
      graph_payload += Record(1, model.graph().node(k).SerializeAsString());
      if (k == 100) graph_payload += Record(2, "name between nodes");
    }
    const std::string split_run = head.SerializeAsString() + Record(7, graph_payload);
    CHECK_FALSE(ParseSplittingNodes(split_run, 100, Eager(), &out));
    onnx::ModelProto whole;
    REQUIRE(ParseWhole(split_run, 100, &whole));
    CHECK(whole.graph().name() == "name between nodes");
  }
  SECTION("truncated or corrupt bytes") {
    CHECK_FALSE(ParseSplittingNodes(bytes.substr(0, bytes.size() - 7), 100, Eager(), &out));
    std::string corrupt = bytes;
    // A node record's bytes that do not parse: a length prefix past its end inside the first node.
    const size_t at = bytes.find("n7");
    REQUIRE(at != std::string::npos);
    corrupt[at - 1] = '\x7f';
    onnx::ModelProto whole;
    const bool whole_ok = ParseWhole(corrupt, 100, &whole);
    onnx::ModelProto split;
    const bool split_ok = ParseSplittingNodes(corrupt, 100, Eager(), &split);
    // The split never succeeds where the whole parse fails.
    if (!whole_ok) CHECK_FALSE(split_ok);
    if (split_ok) CHECK(split.SerializeAsString() == whole.SerializeAsString());
  }
  CHECK(out.producer_name() == "untouched");
  CHECK_FALSE(out.has_graph());
}

TEST_CASE("a split parse keeps protobuf's nesting limit where the whole parse has it", "[node_split_parse]") {
  // Nodes whose If branches nest 1 to 6 levels deep.
  onnx::ModelProto model = ManyNodes(50);
  onnx::NodeProto nested = model.graph().node(model.graph().node_size() - 1);  // the If
  for (int depth = 1; depth < 6; ++depth) {
    onnx::NodeProto outer = nested;
    *outer.mutable_attribute(0)->mutable_g()->mutable_node(0) = nested;
    nested = outer;
    *model.mutable_graph()->add_node() = nested;
  }
  const std::string bytes = model.SerializeAsString();
  int agreed_ok = 0;
  for (int limit = 2; limit <= 40; ++limit) {
    INFO("recursion limit " << limit);
    onnx::ModelProto whole;
    const bool whole_ok = ParseWhole(bytes, limit, &whole);
    onnx::ModelProto split;
    const bool split_ok = ParseSplittingNodes(bytes, limit, Eager(), &split);
    CHECK(split_ok == whole_ok);
    if (split_ok && whole_ok) {
      CHECK(split.SerializeAsString() == whole.SerializeAsString());
      ++agreed_ok;
    }
  }
  // Both the refusals and the successes were exercised.
  CHECK(agreed_ok > 0);
  CHECK(agreed_ok < 39);
}
