// SPDX-License-Identifier: Apache-2.0
// Reads the golden files written by scripts/gen_golden.py.
#pragma once

#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

namespace pgtest {

struct GoldenCase {
  std::map<std::string, std::string> attrs;
  std::map<std::string, std::vector<double>> arrays;
  long long i(const std::string &k) const { return std::stoll(attrs.at(k)); }
  const std::string &s(const std::string &k) const { return attrs.at(k); }
};

inline std::vector<GoldenCase> read_golden(const std::string &path) {
  std::vector<GoldenCase> cases;
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream ls(line);
    std::string head;
    ls >> head;
    if (head == "case") {
      cases.emplace_back();
      std::string kv;
      while (ls >> kv) {
        auto eq = kv.find('=');
        cases.back().attrs[kv.substr(0, eq)] = kv.substr(eq + 1);
      }
    } else if (!head.empty() && !cases.empty()) {
      size_t n;
      ls >> n;
      std::vector<double> v(n);
      std::string tok;
      for (size_t k = 0; k < n; ++k) {
        ls >> tok;
        v[k] = std::strtod(tok.c_str(), nullptr);
      }
      cases.back().arrays[head] = std::move(v);
    }
  }
  return cases;
}

}  // namespace pgtest
