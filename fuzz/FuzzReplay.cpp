// FuzzReplay.cpp - runs a fuzz target's LLVMFuzzerTestOneInput over files
// and directories (recursively, in sorted order) without libFuzzer, so the
// regression inputs and seed corpora replay in the normal build and under
// the sanitizers:
//
//   fuzz-replay-frontend [--dump-ir DIR] PATH...
//
// A crash or oracle failure aborts (the test fails); otherwise it prints how
// many inputs ran. --dump-ir (frontend target only) writes the IR of every
// kernel it lowers into DIR, which seeds the IR fuzzer's corpus.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
extern "C" void tileFuzzSetDumpDir(const char *dir) __attribute__((weak));

namespace fs = std::filesystem;

int main(int argc, char **argv) {
  std::vector<fs::path> files;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--dump-ir" && i + 1 < argc) {
      if (!tileFuzzSetDumpDir) {
        std::fprintf(stderr, "--dump-ir: this target does not lower kernels\n");
        return 2;
      }
      fs::create_directories(argv[i + 1]);
      tileFuzzSetDumpDir(argv[++i]);
      continue;
    }
    if (fs::is_directory(a)) {
      for (const auto &e : fs::recursive_directory_iterator(a))
        if (e.is_regular_file())
          files.push_back(e.path());
    } else if (fs::is_regular_file(a)) {
      files.push_back(a);
    } else {
      std::fprintf(stderr, "no such file or directory: %s\n", a.c_str());
      return 2;
    }
  }
  std::sort(files.begin(), files.end());
  for (const fs::path &f : files) {
    std::ifstream in(f, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    std::string bytes = ss.str();
    std::fprintf(stderr, "replay %s\n", f.c_str());
    LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t *>(bytes.data()), bytes.size());
  }
  std::printf("replayed %zu inputs\n", files.size());
  return files.empty() ? 1 : 0;
}
