// Build step: parses every rule file under rules/ with the library's own
// parser and writes a C++ source holding what each file contains (match keys,
// fragments defined, files whose fragments it calls): see
// BuiltinRuleFileIndex. A model run then parses only the files its nodes can
// use; parsing all 100-odd files was most of a small model's run. Each file's
// parsed form is written too, so that a run reads it instead of the text.
//
//   rule_index_generator RULES_DIR OUTPUT
//
// A rule file with an error fails the build here, with its file:line.
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "model/opset_import.h"
#include "rules/builtin_rules.h"
#include "rules/rule_parser.h"
#include "rules/rule_set.h"

namespace remap {

namespace {

struct FileText {
  std::string path, content;
};

std::vector<FileText>& Files() {
  static std::vector<FileText> files;
  return files;
}

}  // namespace

// The generator's own built-in files: those on disk, named as the library
// names its embedded copies (cmake/EmbedRules.cmake).
const std::vector<EmbeddedRuleFile>& BuiltinRuleFiles() {
  static const std::vector<EmbeddedRuleFile> files = [] {
    std::vector<EmbeddedRuleFile> out;
    for (const FileText& f : Files()) out.push_back({f.path.c_str(), f.content.c_str()});
    return out;
  }();
  return files;
}

// No index yet: LoadRules parses every file.
const std::vector<BuiltinRuleFileIndex>* BuiltinRuleIndex() { return nullptr; }

}  // namespace remap

namespace {

namespace fs = std::filesystem;
using remap::Files;

// A C++ string literal, of text or of bytes; octal escapes (always three
// digits) so that no following character is read into an escape, and for '?'
// so that no two make a trigraph.
std::string Literal(const std::string& s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    if (c == '"' || c == '\\' || c == '?' || c < 0x20 || c >= 0x7f)
      out += fmt::format("\\{:03o}", c);
    else
      out += static_cast<char>(c);
  }
  return out + "\"";
}

std::string List(const std::set<std::string>& items) {
  std::string out = "{";
  for (const std::string& s : items) out += (out.size() > 1 ? ", " : "") + Literal(s);
  return out + "}";
}

struct FileFacts {
  std::set<std::string> keys, fragments, calls;  // calls: files, direct
  bool eager = false;
};

// Marks eager every file that shares a key with an eager file, and every file
// an eager file needs: the loader keeps a key's built-in rules all eager or
// all deferred, and binds an eager file's fragment calls at load.
void CloseEagerness(std::map<std::string, FileFacts>* files) {
  std::map<std::string, std::set<std::string>> files_by_key;
  for (const auto& [path, f] : *files)
    for (const std::string& k : f.keys) files_by_key[k].insert(path);
  for (bool changed = true; changed;) {
    changed = false;
    for (auto& [path, f] : *files) {
      if (!f.eager) continue;
      std::set<std::string> pulled = f.calls;
      for (const std::string& k : f.keys) pulled.insert(files_by_key[k].begin(), files_by_key[k].end());
      for (const std::string& other : pulled) {
        FileFacts& o = files->at(other);
        if (!o.eager) o.eager = changed = true;
      }
    }
  }
}

std::set<std::string> Needs(const std::map<std::string, FileFacts>& files, const std::string& path) {
  std::set<std::string> seen;
  std::vector<std::string> todo(files.at(path).calls.begin(), files.at(path).calls.end());
  while (!todo.empty()) {
    std::string f = todo.back();
    todo.pop_back();
    if (f == path || !seen.insert(f).second) continue;
    for (const std::string& c : files.at(f).calls) todo.push_back(c);
  }
  return seen;
}

void AddCalls(const remap::ReplacementTemplate& tpl, const std::string& from, std::map<std::string, FileFacts>* files) {
  for (const auto& [name, callee] : tpl.fragment_calls()) {
    const std::string& to = callee->location.file;
    if (to != from) (*files)[from].calls.insert(to);
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: rule_index_generator RULES_DIR OUTPUT\n");
    return 2;
  }
  const fs::path dir = argv[1];
  const std::string output = argv[2];
  std::vector<std::string> rel;
  for (const auto& entry : fs::recursive_directory_iterator(dir)) {
    if (entry.is_regular_file() && entry.path().extension() == ".textproto")
      rel.push_back(fs::relative(entry.path(), dir).generic_string());
  }
  std::sort(rel.begin(), rel.end());
  for (const std::string& r : rel) {
    std::ifstream in(dir / r, std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    Files().push_back({"rules/" + r, text.str()});
  }

  remap::RuleLoadResult loaded = remap::LoadRules(true, {}, remap::BuiltinCompile::kAtLoad);
  if (!loaded.errors.empty()) {
    for (const std::string& e : loaded.errors) std::fprintf(stderr, "%s\n", e.c_str());
    return 1;
  }
  std::map<std::string, FileFacts> files;
  for (const remap::FileText& f : Files()) files[f.path];
  std::map<std::string, std::string> rule_file;  // id -> file: ids are unique among the built-ins
  for (const remap::Rule* r : loaded.rules.All()) {
    const std::string& path = r->location.file;
    if (!rule_file.emplace(r->id, path).second) {
      std::fprintf(stderr, "%s: error: rule id '%s' is also defined in %s\n", r->location.ToString().c_str(),
                   r->id.c_str(), rule_file[r->id].c_str());
      return 1;
    }
    FileFacts& facts = files[path];
    for (const remap::NodeMatch& m : r->matches) facts.keys.insert(remap::MatchKeyOf(m));
    for (const remap::Alternative& a : r->alternatives) {
      AddCalls(a.replacement, path, &files);
      if (a.targets.empty() && !a.imports.empty()) facts.eager = true;
    }
  }
  for (const remap::Fragment* f : loaded.rules.AllFragments()) {
    const std::string& path = f->location.file;
    files[path].fragments.insert(f->name);
    AddCalls(f->replacement, path, &files);
  }
  for (const remap::Target* t : loaded.rules.Targets()) files[t->location.file].eager = true;
  CloseEagerness(&files);

  std::string body =
      "// Generated by rule_index_generator (src/build_tools/) from rules/. Do not edit.\n"
      "#include \"rules/builtin_rules.h\"\n\nnamespace remap {\n\n"
      "const std::vector<BuiltinRuleFileIndex>* BuiltinRuleIndex() {\n"
      "  static const std::vector<BuiltinRuleFileIndex> index = {\n";
  // Each file's parsed form, serialized; the same text parsed without error above.
  std::map<std::string, std::string> precompiled;
  for (const remap::FileText& f : Files()) {
    remap::rulefile::PrecompiledRuleFile parsed;
    std::vector<std::string> errors;
    if (!remap::ParseRuleText(f.path, f.content, &parsed, &errors) || !parsed.SerializeToString(&precompiled[f.path])) {
      std::fprintf(stderr, "%s: error: cannot precompile\n", f.path.c_str());
      return 1;
    }
  }
  for (const auto& [path, f] : files) {
    body += fmt::format("      {{{}, {}, {}, {}, {}, {{{}, {}}}}},\n", Literal(path), f.eager ? "true" : "false",
                        List(f.keys), List(f.fragments), List(Needs(files, path)), Literal(precompiled.at(path)),
                        precompiled.at(path).size());
  }
  body += "  };\n  return &index;\n}\n\n}  // namespace remap\n";

  const std::string tmp = output + ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out << body;
    if (!out) {
      std::fprintf(stderr, "%s: error: cannot write\n", tmp.c_str());
      return 1;
    }
  }
  fs::rename(tmp, output);
  return 0;
}
