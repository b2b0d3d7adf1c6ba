#include <catch2/catch.hpp>

#include "rules/aten_schemas.h"
#include "rules/signature.h"

using namespace remap;

TEST_CASE("a PyTorch schema becomes a rule signature", "[aten_schemas]") {
  auto plain = SchemaToSignature("aten::foo(Tensor self, int dim=0) -> Tensor");
  REQUIRE(plain.ok());
  CHECK(*plain == "aten::foo(Tensor self, int dim=0) -> Tensor");

  // Alias annotations are dropped, in arguments and returns; overloads and keyword-only markers stay.
  auto alias = SchemaToSignature("aten::tensor_split.sections(Tensor(a -> *) self, int sections, int dim=0) -> Tensor(a)[]");
  REQUIRE(alias.ok());
  CHECK(*alias == "aten::tensor_split.sections(Tensor self, int sections, int dim=0) -> Tensor[]");
  auto inplace = SchemaToSignature("aten::f.out(Tensor(a!) self, *, Tensor(b!) result) -> Tensor(a!)");
  REQUIRE(inplace.ok());
  CHECK(*inplace == "aten::f.out(Tensor self, *, Tensor result) -> Tensor");

  auto tuple = SchemaToSignature("aten::frexp.Tensor(Tensor self) -> (Tensor mantissa, Tensor exponent)");
  REQUIRE(tuple.ok());
  Signature sig;
  SignatureError e;
  REQUIRE(ParseSignature(*tuple, &sig, &e));
  CHECK(sig.overload == "Tensor");
  CHECK(sig.returns == std::vector<std::string>{"mantissa", "exponent"});

  auto bad = SchemaToSignature("aten::foo(Tensor self, Widget w) -> Tensor");
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.status().message().find("unknown argument type 'Widget'") != std::string::npos);
  CHECK_FALSE(SchemaToSignature("aten::foo").ok());
}

TEST_CASE("the schema table holds the catalog's 206 operators, each a valid signature", "[aten_schemas]") {
  const auto& table = AtenSchemas();
  CHECK(table.size() == 206);
  for (const AtenSchema& s : table) {
    INFO(s.op << ": " << s.schema);
    auto converted = SchemaToSignature(s.schema);
    CHECK(converted.ok());
    if (!converted.ok()) continue;
    Signature sig;
    SignatureError e;
    REQUIRE(ParseSignature(*converted, &sig, &e));
    CHECK(sig.name == s.op);
  }
  const AtenSchema* logit = FindAtenSchema("aten::logit");
  REQUIRE(logit);
  CHECK(logit->schema == "aten::logit(Tensor self, float? eps=None) -> Tensor");
  REQUIRE(FindAtenSchema("deform_conv2d"));
  CHECK(FindAtenSchema("deform_conv2d")->schema.rfind("torchvision::deform_conv2d(", 0) == 0);
  CHECK(FindAtenSchema("aten::slice.Tensor") == FindAtenSchema("slice"));
  CHECK(FindAtenSchema("no_such_op") == nullptr);
}
