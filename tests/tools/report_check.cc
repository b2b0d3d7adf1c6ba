// Holds a report to its schema: parses it with protobuf's JSON parser against
// src/report/report.proto, refusing unknown fields and wrong types.
//   report_check FILE   -> exit 0 and "ok: N models", or 1 and the reason
#include <fstream>
#include <iostream>
#include <sstream>

#include "report/report_builder.h"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: report_check FILE\n";
    return 2;
  }
  std::ifstream in(argv[1], std::ios::binary);
  if (!in) {
    std::cerr << argv[1] << ": cannot read\n";
    return 1;
  }
  std::stringstream text;
  text << in.rdbuf();
  auto report = remap::ReportFromJson(text.str());
  if (!report) {
    std::cerr << argv[1] << ": " << report.status().message() << "\n";
    return 1;
  }
  std::cout << "ok: " << report->models_size() << " models, exit_code " << report->exit_code() << "\n";
  return 0;
}
