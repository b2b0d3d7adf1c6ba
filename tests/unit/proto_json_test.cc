// The reports' JSON writer against protobuf's own printer, which it replaces
// for speed: the same text for every field type the reports use, every code
// point, and the doubles whose printing differs between 15 and 17 digits.
#include <catch2/catch.hpp>

#include <google/protobuf/descriptor.pb.h>

#include "report/listing.pb.h"
#include "report/proto_json.h"
#include "report/report_builder.h"

namespace remap {
namespace {

namespace listing = onnx_remap::listing::v1;

void AppendUtf8(uint32_t cp, std::string* s) {
  if (cp < 0x80) {
    *s += static_cast<char>(cp);
  } else if (cp < 0x800) {
    *s += static_cast<char>(0xc0 | cp >> 6);
    *s += static_cast<char>(0x80 | (cp & 63));
  } else if (cp < 0x10000) {
    *s += static_cast<char>(0xe0 | cp >> 12);
    *s += static_cast<char>(0x80 | (cp >> 6 & 63));
    *s += static_cast<char>(0x80 | (cp & 63));
  } else {
    *s += static_cast<char>(0xf0 | cp >> 18);
    *s += static_cast<char>(0x80 | (cp >> 12 & 63));
    *s += static_cast<char>(0x80 | (cp >> 6 & 63));
    *s += static_cast<char>(0x80 | (cp & 63));
  }
}

void CheckSameAsProtobuf(const google::protobuf::Message& m) {
  for (bool pretty : {false, true}) {
    INFO("pretty " << pretty);
    CHECK(MessageToJson(m, pretty) == MessageToJsonWithProtobuf(m, pretty));
  }
}

TEST_CASE("report JSON: the text protobuf's printer gives") {
  report::Report r;
  r.set_schema(kReportSchema);
  std::string every;  // every code point but the surrogates, and NUL
  for (uint32_t cp = 1; cp < 0x110000; ++cp) {
    if (cp < 0xd800 || cp > 0xdfff) AppendUtf8(cp, &every);
  }
  r.set_tool(every);
  r.set_target_opset(-7);
  for (double v : {0.0, -0.0, 0.1, 1.0 / 3, 3.0, 1e15, 1e16, 1e21, 2.5e-7, 123456789.123456789, 5e-324,
                   1.7976931348623157e308, -42.5}) {
    report::ModelReport* m = r.add_models();
    m->set_seconds(v);
  }
  report::ModelReport* m = r.add_models();
  m->mutable_error()->set_message("a \"quoted\" <tag> \\ path\n");
  m->set_written(true);
  m->add_notes("first");
  m->add_notes("");
  report::NodeReport* n = m->add_rewritten();
  n->add_emitted("Cast");
  n->add_emitted("CumSum");
  n->add_candidates()->set_needs_opset(18);
  r.mutable_summary()->add_rules()->set_rule("aten-asinh");
  CheckSameAsProtobuf(r);
  CheckSameAsProtobuf(report::Report());  // every field at its default, no summary
}

TEST_CASE("listing JSON: the text protobuf's printer gives") {
  listing::RuleListing rules;
  listing::RuleEntry* e = rules.add_rules();
  e->set_id("aten-triu");
  e->set_builtin(true);
  e->add_matches("aten::triu");
  e->add_alternatives()->set_min_opset(14);
  CheckSameAsProtobuf(rules);
  listing::TargetListing targets;
  targets.add_targets()->add_ops("com.microsoft::Gelu");
  CheckSameAsProtobuf(targets);
  listing::RuleCheckSummary check;
  check.set_alternatives(3);
  check.add_findings();
  CheckSameAsProtobuf(check);
}

TEST_CASE("JSON of bytes that are not UTF-8: U+FFFD for each, and the report reads back") {
  // Node names come from the user's model, which may hold any bytes;
  // protobuf's printer dropped them (and logged an error).
  report::Report r;
  r.set_schema(kReportSchema);
  r.add_models()->add_rewritten()->set_node(std::string("/a\xff" "b\xe2\x82" "c\xed\xa0\x80"));
  const std::string json = MessageToJson(r, false);
  CHECK(json.find("\"node\":\"/a\xef\xbf\xbd" "b\xef\xbf\xbd\xef\xbf\xbd" "c\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\"") !=
        std::string::npos);
  auto back = ReportFromJson(json);
  REQUIRE(back);
  CHECK(back->models(0).rewritten(0).node() == "/a\xef\xbf\xbd" "b\xef\xbf\xbd\xef\xbf\xbd" "c\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd");
}

TEST_CASE("JSON of messages the writer does not take: protobuf's printer") {
  // proto2, an enum, the google.protobuf package: printed by protobuf.
  google::protobuf::FieldDescriptorProto f;
  f.set_name("x");
  f.set_type(google::protobuf::FieldDescriptorProto::TYPE_INT64);
  CHECK(MessageToJson(f, false) == MessageToJsonWithProtobuf(f, false));
  CHECK(MessageToJson(f, false).find("\"TYPE_INT64\"") != std::string::npos);
}

}  // namespace
}  // namespace remap
