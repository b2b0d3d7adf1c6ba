#include "report/junit_writer.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace remap {

namespace {

// Text for an XML attribute or element: the five special characters escaped,
// and control characters (not allowed in XML 1.0) replaced.
std::string Xml(const std::string& s) {
  std::string out;
  out.reserve(s.size());
  for (unsigned char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&apos;"; break;
      default:
        if (c < 0x20 && c != '\t' && c != '\n' && c != '\r') out += '?';
        else out += static_cast<char>(c);
    }
  }
  return out;
}

std::string NodeName(const report::NodeReport& n) {
  std::string what = n.operator_().empty() ? n.op() : fmt::format("{} {}", n.op(), n.operator_());
  return fmt::format("{}/{} ({})", n.graph(), n.node().empty() ? "<unnamed>" : n.node(), what);
}

}  // namespace

std::string ReportToJUnit(const report::Report& r) {
  std::string suites;
  int tests = 0, failures = 0, errors = 0;
  for (const report::ModelReport& m : r.models()) {
    std::string cases;
    int t = 1, f = 0, e = 0;
    const std::string cls = Xml(m.path());
    if (m.outcome() == "failed") {
      ++e;
      cases += fmt::format("    <testcase classname=\"{}\" name=\"{} model\" time=\"{:.3f}\">\n", cls, Xml(r.command()), m.seconds());
      cases += fmt::format("      <error type=\"{}\" message=\"{}\">stage: {}</error>\n", Xml(m.error().code()),
                           Xml(m.error().message()), Xml(m.error().stage()));
      cases += "    </testcase>\n";
    } else if (m.outcome() == "skipped") {
      cases += fmt::format("    <testcase classname=\"{}\" name=\"{} model\" time=\"0\">\n      <skipped message=\"output exists\"/>\n    </testcase>\n", cls, Xml(r.command()));
    } else {
      cases += fmt::format("    <testcase classname=\"{}\" name=\"{} model\" time=\"{:.3f}\"/>\n", cls, Xml(r.command()), m.seconds());
    }
    for (const report::NodeReport& n : m.rewritten()) {
      ++t;
      cases += fmt::format("    <testcase classname=\"{}\" name=\"{}\" time=\"0\">\n      <system-out>{} [{}]</system-out>\n    </testcase>\n",
                           cls, Xml(NodeName(n)), Xml(fmt::format("rewritten to {}", fmt::join(n.emitted(), " "))), Xml(n.rule()));
    }
    for (const report::NodeReport& n : m.remaining()) {
      ++t;
      ++f;
      cases += fmt::format("    <testcase classname=\"{}\" name=\"{}\" time=\"0\">\n      <failure type=\"{}\" message=\"{}\"/>\n    </testcase>\n",
                           cls, Xml(NodeName(n)), Xml(n.refusal()), Xml(n.reason()));
    }
    tests += t;
    failures += f;
    errors += e;
    suites += fmt::format("  <testsuite name=\"{}\" tests=\"{}\" failures=\"{}\" errors=\"{}\" skipped=\"{}\" time=\"{:.3f}\">\n{}  </testsuite>\n",
                          cls, t, f, e, m.outcome() == "skipped" ? 1 : 0, m.seconds(), cases);
  }
  for (const report::Error& err : r.errors()) {
    ++tests;
    ++errors;
    suites += fmt::format("  <testsuite name=\"onnx-remap\" tests=\"1\" failures=\"0\" errors=\"1\">\n    <testcase classname=\"onnx-remap\" name=\"{}\">\n      <error type=\"{}\" message=\"{}\"/>\n    </testcase>\n  </testsuite>\n",
                          Xml(r.command()), Xml(err.code()), Xml(err.message()));
  }
  return fmt::format("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"onnx-remap {}\" tests=\"{}\" failures=\"{}\" errors=\"{}\" time=\"{:.3f}\">\n{}</testsuites>\n",
                     Xml(r.command()), tests, failures, errors, r.summary().seconds(), suites);
}

}  // namespace remap
